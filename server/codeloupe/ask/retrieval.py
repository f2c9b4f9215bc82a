"""Retrieval: the candidates for the context of a question, best first.

1. identifiers named in the question (``Client.fetch``, ``parse_header``,
   ```retry```, ``send()``, ``HTTPAdapter``) are looked up exactly;
2. the question goes to hybrid search (vector + full text);
3. the best of those seeds are expanded one hop over the call graph: callees,
   callers and the class a method belongs to. An expanded symbol scores
   ``seed score × weight of the relation × edge confidence × fan-in penalty ×
   relevance``, where relevance is its own similarity to the question: the
   expansion brings in the helper a seed calls because of the question, not
   every utility it touches. A symbol found both ways adds up its scores.

The weights are measured by ``bench/eval_ask.py``.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..graph import Graph, SymbolInfo
from ..model import CONTAINER_KINDS
from ..pending import SOURCE, path_class
from ..search import Searcher

if TYPE_CHECKING:
    from ..index import Index

log = logging.getLogger(__name__)

SEARCH_K = 40  # hybrid results read: the top SEEDS seed the expansion, all inform relevance
SEEDS = 10
NAMED_SCORE = 1.2  # an identifier the question names, qualified name matched
SEARCH_TOP = 1.0  # the best search hit; the others scaled by their fused score
W_CALLEE = 0.6
W_CALLER = 0.45
W_CLASS = 0.35
MAX_CALLEES = 8  # per seed, the most relevant first
MAX_CALLERS = 4
# a second hop: the callees of the callees the first hop brought, for a question about
# how something works (the dispatch a sent function makes, the handshake of a dial)
SECOND_HOP_SEEDS = 6
W_SECOND_HOP = 0.7  # of the first hop's weight, on top of its own
# tests, examples and docs weigh less unless the question is about them
ASIDE_WEIGHT = 0.45
_ABOUT_TESTS = re.compile(r"\b(tests?|testing|spec|specs|fixtures?|mock|examples?|samples?|demo)\b",
                          re.IGNORECASE)


# --- identifiers in a question -------------------------------------------------------------

_TOKEN = re.compile(r"`([^`\n]+)`|([A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*)(\s*\()?")
_SEP = re.compile(r"\.|::|#|->")
_SENTENCE_END = re.compile(r"[.?!:;\n]\s*$")


def named_identifiers(question: str) -> list[str]:
    """Tokens of a question that name code: backquoted, dotted (``Client.fetch``),
    snake_case, camelCase, called (``send()``), or capitalised words after the first
    (``Session``; kept only when a symbol has exactly that name)."""
    out: list[str] = []
    for m in _TOKEN.finditer(question):
        quoted, word, call = m.group(1), m.group(2), m.group(3)
        if quoted:
            token = quoted.strip().removesuffix("()")
            if _TOKEN.fullmatch(token):
                out.append(token)
            continue
        if not word:
            continue
        before = question[: m.start()]
        first = not before.strip() or _SENTENCE_END.search(before) is not None
        code_like = (
            _SEP.search(word) is not None
            or "_" in word.strip("_") or word.startswith("_")
            or re.search(r"[a-z0-9][A-Z]", word) is not None
            or bool(call)
            or (word[0].isupper() and not first and len(word) > 2)
        )
        if code_like:
            out.append(word)
    return list(dict.fromkeys(out))


# --- candidates ---------------------------------------------------------------------------


@dataclass
class Candidate:
    """A symbol that may go into the context: where it is, its score so far and why
    it was found (``named``, ``search``, ``called by X``, ``calls X``, ``class of X``)."""

    id: str
    path: str
    qualified_name: str
    kind: str
    start_line: int
    end_line: int
    parent: str | None
    score: float = 0.0
    why: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, info: SymbolInfo | dict[str, Any]) -> Candidate:
        """A candidate for a graph symbol or a row of the symbols table, scored 0."""
        get = info.get if isinstance(info, dict) else lambda k: getattr(info, k)
        return cls(get("id"), get("path"), get("qualified_name"), get("kind"),
                   int(get("start_line")), int(get("end_line")), get("parent"))


def _named_matches(parts: list[str], rows: list[dict]) -> list[tuple[float, dict]]:
    """The rows one named identifier (split at its separators) may mean, scored."""
    dotted = ".".join(parts)
    matches: list[tuple[float, dict]] = []
    for row in rows:
        if row["name"] != parts[-1] or row["kind"] == "module":
            continue
        qn, stem = row["qualified_name"], row["path"].rsplit(".", 1)[0]
        if qn == dotted or (len(parts) > 1 and qn.endswith("." + dotted)):
            matches.append((NAMED_SCORE, row))
        elif len(parts) > 1 and (stem == "/".join(parts[:-1])
                                 or stem.endswith("/" + "/".join(parts[:-1]))):
            matches.append((NAMED_SCORE, row))  # module.function: requests.api.get
        elif (len(parts) == 2 and qn == parts[-1]
              and row["path"].split("/", 1)[0] == parts[0]):
            matches.append((NAMED_SCORE * 0.9, row))  # package.function: click.echo
        elif len(parts) == 1:
            matches.append((NAMED_SCORE * 0.9, row))
    if len(parts) == 1 and len(matches) > 1:
        # a bare name held by several symbols: each is less certain
        matches = [(s / math.sqrt(len(matches)), r) for s, r in matches[:6]]
    return matches


def _lookup_named(store: Any, tokens: list[str]) -> dict[str, tuple[float, dict]]:
    """Symbols the question names: id → (score, row)."""
    if not tokens:
        return {}
    parts_of = {t: [p for p in _SEP.split(t) if p] for t in tokens}
    names = sorted({parts[-1] for parts in parts_of.values()})
    cols = ["id", "path", "name", "qualified_name", "kind", "start_line", "end_line", "parent"]
    rows = store.symbols_named(names, cols, limit=2000)
    found: dict[str, tuple[float, dict]] = {}
    for parts in parts_of.values():
        for score, row in _named_matches(parts, rows):
            if score > found.get(row["id"], (0.0, None))[0]:
                found[row["id"]] = (score, row)
    return found


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    va, vb = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
    na, nb = float(np.linalg.norm(va)), float(np.linalg.norm(vb))
    return float(va @ vb / (na * nb)) if na and nb else 0.0


def _relevance(sim: float | None) -> float:
    """Similarity to the question (all-MiniLM cosine: unrelated code about 0.1,
    the code a question is about 0.4 to 0.6) as a factor in [0.15, 1]."""
    if sim is None:
        return 0.5
    return min(1.0, max(0.15, (sim - 0.05) / 0.4))


def _fan_in_penalty(n_callers: int) -> float:
    """A callee called from many places (a logging or string helper) says little."""
    return 1.0 / (1.0 + math.log10(max(1, n_callers)))


Add = Callable[[SymbolInfo | dict, float, str], Candidate]


def retrieve(
    question: str,
    index: Index,
    graph: Graph,
    *,
    mode: str = "hybrid",
    expand: bool = True,
    search_k: int = SEARCH_K,
) -> list[Candidate]:
    """Candidates for the context of a question, best first (``reranker.rerank`` may
    re-order them)."""
    cands: dict[str, Candidate] = {}

    def add(info: SymbolInfo | dict, score: float, why: str) -> Candidate:
        c = cands.get(info["id"] if isinstance(info, dict) else info.id)
        if c is None:
            c = Candidate.of(info)
            cands[c.id] = c
        c.score += score
        c.why.append(why)
        return c

    for sid, (score, row) in _lookup_named(index.store, named_identifiers(question)).items():
        add(graph.symbols.get(sid) or row, score, "named")

    resp = Searcher(index).search(question, search_k, mode=mode)
    hits = [h for h in resp.results if h.kind != "module" or len(resp.results) < 3]
    search_score: dict[str, float] = {}
    if hits:
        top = max(h.score for h in hits) or 1.0
        for h in hits:
            search_score[h.id] = SEARCH_TOP * h.score / top
    for h in hits:
        info = graph.symbols.get(h.id) or {
            "id": h.id, "path": h.path, "qualified_name": h.qualified_name, "kind": h.kind,
            "start_line": h.start_line, "end_line": h.end_line, "parent": None}
        add(info, search_score[h.id], "search")

    if expand:
        query = _QueryVector(question, index)  # embedded once for both hops
        first = _expand(query, index, graph, cands, search_score, mode, add)
        if first:  # the callees of what the first hop found most relevant
            _expand(query, index, graph, cands, search_score, mode, add,
                    seeds=sorted(first, key=lambda c: -c.score)[:SECOND_HOP_SEEDS],
                    factor=W_SECOND_HOP, callees_only=True)
    if not _ABOUT_TESTS.search(question):
        for c in cands.values():
            if path_class(c.path) != SOURCE:
                c.score *= ASIDE_WEIGHT
    return sorted(cands.values(), key=lambda c: (-c.score, c.path, c.start_line))


# --- one hop over the call graph -------------------------------------------------------------


def _proposals(graph: Graph, seeds: list[Candidate],
               callees_only: bool = False) -> list[tuple[str, float, str]]:
    """(symbol id, score before relevance, why) for the callees, callers and class of
    each seed (the callees alone with ``callees_only``)."""
    proposals: list[tuple[str, float, str]] = []
    for seed in seeds:
        if seed.kind == "module":
            continue
        callees: dict[str, float] = {}
        for e in graph.callees(seed.id):
            callees[e.target] = max(callees.get(e.target, 0.0), e.confidence)
        for target, conf in callees.items():
            if target == seed.id:
                continue
            w = W_CALLEE * min(1.0, conf / 0.85) ** 0.5
            w *= _fan_in_penalty(len({x.site.caller for x in graph.callers(target)}))
            proposals.append((target, seed.score * w, f"called by {seed.qualified_name}"))
        if callees_only:
            continue
        callers: dict[str, float] = {}
        for e in graph.callers(seed.id):
            callers[e.site.caller] = max(callers.get(e.site.caller, 0.0), e.confidence)
        n = max(1, len(callers))
        for caller, conf in callers.items():
            if caller == seed.id:
                continue
            w = W_CALLER * min(1.0, conf / 0.85) ** 0.5 / math.sqrt(n)
            proposals.append((caller, seed.score * w, f"calls {seed.qualified_name}"))
        info = graph.symbols.get(seed.id)
        parent = graph.symbols.get(info.parent) if info and info.parent else None
        if parent is not None and parent.kind in CONTAINER_KINDS and parent.kind != "module":
            proposals.append((parent.id, seed.score * W_CLASS, f"class of {seed.qualified_name}"))
    return [p for p in proposals if p[0] in graph.symbols and graph.symbols[p[0]].kind != "module"]


class _QueryVector:
    """The question's embedding, made on first use and kept."""

    def __init__(self, question: str, index: Index) -> None:
        self.question, self.index = question, index
        self._vector: np.ndarray | None = None

    def __call__(self) -> np.ndarray:
        if self._vector is None:
            self._vector = self.index.embedder.embed_query(self.question)
        return self._vector


def _similarities(query: _QueryVector, index: Index, ids: list[str]) -> dict[str, float]:
    """Cosine similarity of each symbol's embedding to the question's ({}: none stored)."""
    try:
        vecs = index.store.vectors_of(ids) if ids else {}
        if not vecs:
            return {}
        q = query()
        return {i: _cosine(q, v) for i, v in vecs.items()}
    except Exception as exc:  # no embeddings: expansion by structure only
        log.debug("ask: no similarities for the expansion: %s", exc)
        return {}


def _expand(query: _QueryVector, index: Index, graph: Graph, cands: dict[str, Candidate],
            search_score: dict[str, float], mode: str, add: Add, *,
            seeds: list[Candidate] | None = None, factor: float = 1.0,
            callees_only: bool = False) -> list[Candidate]:
    """Add the most relevant neighbours of the best candidates (or of ``seeds``; per seed
    and relation, only the most relevant few), their scores times ``factor``; the
    candidates it added to or raised."""
    seeds = seeds if seeds is not None else sorted(cands.values(), key=lambda c: -c.score)[:SEEDS]
    proposals = _proposals(graph, seeds, callees_only)
    if not proposals:
        return []
    sims = _similarities(query, index, list({p[0] for p in proposals})) if mode != "fts" else {}
    best: dict[str, tuple[float, str]] = {}
    groups: dict[str, list[tuple[str, float]]] = {}
    for sid, weight, why in proposals:
        rel = _relevance(sims.get(sid)) if sims else _relevance(None)
        if sid in search_score:  # the search found it too: it is relevant
            rel = max(rel, 0.5 + 0.5 * search_score[sid])
        groups.setdefault(why.split(" ", 1)[0] + "|" + why, []).append((sid, weight * rel))
    for key, items in groups.items():
        cap = MAX_CALLEES if key.startswith("called") else MAX_CALLERS
        for sid, score in sorted(items, key=lambda t: -t[1])[:cap]:
            why = key.split("|", 1)[1]
            if score > best.get(sid, (0.0, ""))[0]:
                best[sid] = (score, why)
    return [add(graph.symbols[sid], score * factor, why) for sid, (score, why) in best.items()]
