"""Ask about the codebase: retrieval for a question, context under a token budget,
an answer from an OpenAI-compatible model, and verification of its citations.

Retrieval (``retrieve``):

1. identifiers named in the question (``Client.fetch``, ``parse_header``,
   ```retry```, ``send()``, ``HTTPAdapter``) are looked up exactly;
2. the question goes to hybrid search (vector + full text);
3. the best of those seeds are expanded one hop over the call graph: callees,
   callers and the class a method belongs to. An expanded symbol scores
   ``seed score × weight of the relation × edge confidence × fan-in penalty ×
   relevance``, where relevance is its own similarity to the question: the
   expansion brings in the helper a seed calls because of the question, not
   every utility it touches. A symbol found both ways adds up its scores;
4. an optional cross-encoder re-orders the candidates (``reranker`` setting:
   any sentence-transformers CrossEncoder by local path or cached name).

Context (``assemble``): highest-ranked first, each snippet headed
``## path:start-end qualified_name (kind)`` with numbered lines, methods with
their class header, cut only at line ends, until the budget is spent.

Token counts use a local tokenizer file when ``ask_tokenizer`` names one (a
``tokenizer.json`` or a folder holding it, loaded with ``tokenizers``; nothing
is downloaded); otherwise the estimate ``ceil(characters / 3)``, which
over-counts BPE tokenizers (cl100k and Llama 3 average about 3.5 to 4
characters per token on source code), so the budget is kept.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .errors import CodeloupeError
from .graph import Graph, SymbolInfo
from .graph_store import graph_for_store
from .model import CONTAINER_KINDS
from .safeio import read_repo_file
from .scan import DEFAULT_MAX_BYTES

if TYPE_CHECKING:
    from .config import Settings
    from .index import Index
    from .llm import ChatAnswer, ChatClient, LLMConfig

log = logging.getLogger(__name__)

DEFAULT_CONTEXT_TOKENS = 6000
CHARS_PER_TOKEN = 3  # the estimate: over-counts BPE tokenizers on code

# retrieval weights (bench/eval_ask.py measures them)
SEARCH_K = 40  # hybrid results read: the top SEEDS seed the expansion, all inform relevance
SEEDS = 10
NAMED_SCORE = 1.2  # an identifier the question names, qualified name matched
SEARCH_TOP = 1.0  # the best search hit; the others scaled by their fused score
W_CALLEE = 0.6
W_CALLER = 0.45
W_CLASS = 0.35
MAX_CALLEES = 8  # per seed, the most relevant first
MAX_CALLERS = 4
MIN_PARTIAL_TOKENS = 80  # a snippet cut to fit shows at least this much
CLASS_HEAD_LINES = 40  # lines of a class shown before its first member
MODULE_LINES = 40  # top-level lines shown for a whole-file unit
DOC_KEEP_LINES = 3  # of a longer Python docstring, the first lines are shown

ReadLines = Callable[[str], "list[str] | None"]
TokenCounter = Callable[[str], int]


class AskError(CodeloupeError, RuntimeError):
    pass


class Scorer(Protocol):
    """A re-ranker: one relevance score per (question, text) pair; higher is better."""

    def __call__(self, question: str, texts: Sequence[str]) -> Sequence[float]: ...


# --- token counting -----------------------------------------------------------------------


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def token_counter(tokenizer: str | None = None) -> TokenCounter:
    """The estimate, or a local tokenizer file (``tokenizer.json`` or its folder)."""
    if not tokenizer:
        return estimate_tokens
    path = Path(tokenizer).expanduser()
    if path.is_dir():
        path = path / "tokenizer.json"
    if not path.is_file():
        raise AskError(f"ask tokenizer {tokenizer!r}: no tokenizer.json there (give a local "
                       "file; nothing is downloaded)")
    from tokenizers import Tokenizer

    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as exc:
        raise AskError(f"cannot load the tokenizer {path}: {exc}") from exc
    tok.no_truncation()

    def count(text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False).ids)

    return count


# --- the re-ranker ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def load_reranker(name: str) -> Scorer:
    """A sentence-transformers CrossEncoder by local path or cached hub name (loaded
    once per process: the server asks many questions)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import CrossEncoder

    path = Path(name).expanduser()
    location = str(path.resolve()) if path.exists() else name
    try:
        model = CrossEncoder(location, device="cpu")
    except Exception as exc:
        raise AskError(f"cannot load the re-ranker {name!r}: {exc} (give a local path or a "
                       "model already in the Hugging Face cache)") from exc

    def score(question: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        out = model.predict([(question, t) for t in texts], show_progress_bar=False)
        return [float(x) for x in out]

    return score


# --- identifiers in a question -------------------------------------------------------------

_TOKEN = re.compile(r"`([^`\n]+)`|([A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*)(\s*\()?")
_SEP = re.compile(r"\.|::|#|->")


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
        first = not question[: m.start()].strip() or re.search(
            r"[.?!:;\n]\s*$", question[: m.start()]) is not None  # a sentence starts here
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
    id: str
    path: str
    qualified_name: str
    kind: str
    start_line: int
    end_line: int
    parent: str | None
    score: float = 0.0
    why: list[str] = field(default_factory=list)


def _candidate(info: SymbolInfo | dict) -> Candidate:
    get = info.get if isinstance(info, dict) else lambda k: getattr(info, k)
    return Candidate(get("id"), get("path"), get("qualified_name"), get("kind"),
                     int(get("start_line")), int(get("end_line")), get("parent"))


def _lookup_named(store, graph: Graph, tokens: list[str]) -> dict[str, tuple[float, dict]]:  # noqa: ANN001
    """Symbols the question names: id → (score, row)."""
    if not tokens:
        return {}
    parts_of = {t: [p for p in _SEP.split(t) if p] for t in tokens}
    names = sorted({parts[-1] for parts in parts_of.values()})
    cols = ["id", "path", "name", "qualified_name", "kind", "start_line", "end_line", "parent"]
    rows = store.symbols_named(names, cols, limit=2000)
    found: dict[str, tuple[float, dict]] = {}
    for parts in parts_of.values():
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
        for score, row in matches:
            if score > found.get(row["id"], (0.0, None))[0]:
                found[row["id"]] = (score, row)
    return found


def _vectors(store, ids: Sequence[str]) -> dict[str, list[float]]:  # noqa: ANN001
    if not ids:
        return {}
    return store.vectors_of(list(ids))


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    import numpy as np

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


def retrieve(
    question: str,
    index: Index,
    graph: Graph,
    *,
    mode: str = "hybrid",
    expand: bool = True,
    reranker: Scorer | None = None,
    search_k: int = SEARCH_K,
) -> list[Candidate]:
    """Candidates for the context of a question, best first."""
    from .search import Searcher

    store = index.store
    cands: dict[str, Candidate] = {}

    def add(info: SymbolInfo | dict, score: float, why: str) -> Candidate:
        c = cands.get(info["id"] if isinstance(info, dict) else info.id)
        if c is None:
            c = _candidate(info)
            cands[c.id] = c
        c.score += score
        c.why.append(why)
        return c

    for sid, (score, row) in _lookup_named(store, graph, named_identifiers(question)).items():
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
        _expand(question, index, graph, cands, search_score, mode, add)

    ranked = sorted(cands.values(), key=lambda c: (-c.score, c.path, c.start_line))
    if reranker is not None and ranked:
        ranked = rerank(question, ranked, reranker, index.root)
    return ranked


def _expand(question: str, index: Index, graph: Graph, cands: dict[str, Candidate],
            search_score: dict[str, float], mode: str,
            add: Callable[[SymbolInfo, float, str], Candidate]) -> None:
    seeds = sorted(cands.values(), key=lambda c: -c.score)[:SEEDS]
    proposals: list[tuple[str, float, str]] = []  # (symbol id, weight before relevance, why)
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
    proposals = [p for p in proposals if p[0] in graph.symbols
                 and graph.symbols[p[0]].kind != "module"]
    if not proposals:
        return
    sims: dict[str, float] = {}
    if mode != "fts":
        try:
            ids = list({p[0] for p in proposals})
            vecs = _vectors(index.store, ids)
            if vecs:
                q = index.embedder.embed_query(question)
                sims = {i: _cosine(q, v) for i, v in vecs.items()}
        except Exception as exc:  # no embeddings: expansion by structure only
            log.debug("ask: no similarities for the expansion: %s", exc)
    # per seed and relation, keep only the most relevant few
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
    for sid, (score, why) in best.items():
        add(graph.symbols[sid], score, why)


def rerank(question: str, ranked: list[Candidate], scorer: Scorer, root: Path,
           top: int = 30, read_lines: ReadLines | None = None) -> list[Candidate]:
    """Re-order the first ``top`` candidates by the scorer; named identifiers stay first."""
    read = read_lines or _disk_reader(root)
    head, tail = ranked[:top], ranked[top:]
    named = [c for c in head if "named" in c.why]
    rest = [c for c in head if "named" not in c.why]
    texts = []
    for c in rest:
        lines = read(c.path) or []
        body = "\n".join(lines[c.start_line - 1 : min(c.end_line, c.start_line + 60)])
        texts.append(f"{c.qualified_name}\n{body}")
    scores = list(scorer(question, texts)) if rest else []
    order = sorted(range(len(rest)), key=lambda i: -scores[i])
    return named + [rest[i] for i in order] + tail


# --- the context ----------------------------------------------------------------------------


@dataclass
class Snippet:
    id: str
    path: str
    qualified_name: str
    kind: str
    start_line: int  # of the symbol's lines shown (a class header above is extra)
    end_line: int
    lines: list[tuple[int, str]]  # (line number, text); number 0: an omission marker
    score: float
    why: str
    tokens: int = 0
    truncated: bool = False

    def render(self) -> str:
        head = f"## {self.path}:{self.start_line}-{self.end_line} {self.qualified_name} ({self.kind})"
        body = []
        for n, text in self.lines:
            body.append(f"{n:>5} | {text}" if n else f"{'':>5} | {text}")
        return head + "\n" + "\n".join(body)

    def shown(self) -> set[int]:
        return {n for n, _ in self.lines if n}

    def source(self) -> dict[str, object]:
        return {"path": self.path, "start_line": self.start_line, "end_line": self.end_line,
                "qualified_name": self.qualified_name}


@dataclass
class Context:
    snippets: list[Snippet]
    tokens: int
    budget: int

    @property
    def text(self) -> str:
        return "\n\n".join(s.render() for s in self.snippets)

    def shown(self) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {}
        for s in self.snippets:
            out.setdefault(s.path, set()).update(s.shown())
        return out


def _disk_reader(root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> ReadLines:
    """Lines of the files as they are on disk, read as the index reads them: never
    through a link out of the root, never a FIFO, never more than ``max_bytes``
    (what cannot be read so is left out of the context)."""
    cache: dict[str, list[str] | None] = {}
    root_real = os.path.realpath(root)

    def read(path: str) -> list[str] | None:
        if path not in cache:
            try:
                data, _ = read_repo_file(root_real, os.path.join(root_real, path), max_bytes)
                cache[path] = data.decode("utf-8", "replace").splitlines()
            except OSError:  # UnsafeFile included
                cache[path] = None
        return cache[path]

    return read


def _header_lines(lines: list[str], start: int, end: int, language_hint: str) -> list[int]:
    """Line numbers of a class's header (``class X(Base):`` / ``class X {``)."""
    out = []
    for n in range(start, min(end, start + 4) + 1):
        text = lines[n - 1] if n - 1 < len(lines) else ""
        out.append(n)
        stripped = text.split("#", 1)[0].rstrip() if language_hint == "py" else text.rstrip()
        if stripped.endswith(":") or "{" in stripped or (language_hint != "py" and n > start):
            break
    return out


def _children(graph: Graph, sid: str) -> list[SymbolInfo]:
    info = graph.symbols.get(sid)
    if info is None:
        return []
    by_file = getattr(graph, "file_symbols", None)  # path → ids, when the graph keeps it
    ids = by_file.get(info.path, []) if by_file is not None else list(graph.symbols)
    return sorted((graph.symbols[i] for i in ids
                   if i in graph.symbols and graph.symbols[i].parent == sid),
                  key=lambda s: s.start_line)


def _snippet_lines(c: Candidate, graph: Graph, lines: list[str]) -> list[tuple[int, str]]:
    def line(n: int) -> tuple[int, str]:
        return (n, lines[n - 1].rstrip() if n - 1 < len(lines) else "")

    end = min(c.end_line, len(lines))
    if c.kind == "module":
        covered: set[int] = set()
        for child in _children(graph, c.id):
            covered.update(range(child.start_line, child.end_line + 1))
        out: list[tuple[int, str]] = []
        gap = False
        for n in range(c.start_line, end + 1):
            if n in covered:
                gap = True
                continue
            if gap and out:
                out.append((0, "..."))
            gap = False
            if len(out) >= MODULE_LINES:
                out.append((0, "..."))
                break
            out.append(line(n))
        return out
    if c.kind in CONTAINER_KINDS:
        kids = _children(graph, c.id)
        stop = kids[0].start_line - 1 if kids else end
        while stop > c.start_line and not lines[stop - 1].strip():
            stop -= 1
        out = _without_long_docstring(c, lines, c.start_line, stop, line)
        if len(out) > CLASS_HEAD_LINES:
            out = out[:CLASS_HEAD_LINES]
            stop = -1
        if stop < end:
            out.append((0, "..."))
        return out
    return _without_long_docstring(c, lines, c.start_line, end, line)


_DOC_OPEN = re.compile(r'^\s*[rRuUbB]{0,2}("""|\'\'\')')


def _without_long_docstring(c: Candidate, lines: list[str], start: int, end: int,
                            line: Callable[[int], tuple[int, str]]) -> list[tuple[int, str]]:
    """Lines start..end; a Python docstring longer than DOC_KEEP_LINES keeps its first
    lines and a marker (docstrings of library code often outweigh the code)."""
    out = [line(n) for n in range(start, end + 1)]
    if not c.path.endswith((".py", ".pyi")):
        return out
    # the header ends at the first line whose code ends with ':'
    n = start
    while n <= min(end, start + 30) and not lines[n - 1].split("#", 1)[0].rstrip().endswith(":"):
        n += 1
    first = n + 1
    while first <= end and not lines[first - 1].strip():
        first += 1
    if first > end:
        return out
    m = _DOC_OPEN.match(lines[first - 1])
    if not m:
        return out
    quote = m.group(1)
    rest = lines[first - 1][m.end():]
    last = first if quote in rest else None
    k = first + 1
    while last is None and k <= end:
        if quote in lines[k - 1]:
            last = k
        k += 1
    if last is None or last - first + 1 <= DOC_KEEP_LINES + 1:
        return out
    indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    keep = [line(i) for i in range(first, first + DOC_KEEP_LINES)]
    marker = (0, f"{indent}... (docstring lines {first + DOC_KEEP_LINES}-{last} not shown)")
    return ([line(i) for i in range(start, first)] + keep + [marker]
            + [line(i) for i in range(last + 1, end + 1)])


def assemble(
    candidates: Sequence[Candidate],
    graph: Graph,
    read_lines: ReadLines,
    budget: int = DEFAULT_CONTEXT_TOKENS,
    count_tokens: TokenCounter = estimate_tokens,
) -> Context:
    """Snippets in rank order until the budget is spent. One that does not fit
    is cut at a line end when at least ``MIN_PARTIAL_TOKENS`` remain; smaller
    ones further down may still fill the rest. A symbol whose lines are all
    shown already is skipped."""
    snippets: list[Snippet] = []
    used = 0
    shown: dict[str, set[int]] = {}
    header_shown: set[str] = set()
    for c in candidates:
        remaining = budget - used
        if remaining < 20:
            break
        lines = read_lines(c.path)
        if not lines:
            continue
        body = _snippet_lines(c, graph, lines)
        nums = {n for n, _ in body if n}
        if not nums or nums <= shown.get(c.path, set()):
            continue
        prefix: list[tuple[int, str]] = []
        parent = graph.symbols.get(c.parent) if c.parent else None
        if (c.kind not in CONTAINER_KINDS and parent is not None
                and parent.kind in CONTAINER_KINDS and parent.kind != "module"
                and parent.id not in header_shown):
            hint = "py" if c.path.endswith(".py") else ""
            head = [n for n in _header_lines(lines, parent.start_line, c.start_line - 1, hint)
                    if n < c.start_line]
            if head:
                prefix = [(n, lines[n - 1].rstrip()) for n in head]
                if head[-1] + 1 < c.start_line:
                    prefix.append((0, "..."))
        snip = Snippet(c.id, c.path, c.qualified_name, c.kind, min(nums), max(nums),
                       prefix + body, c.score, c.why[0] if c.why else "")
        cost = count_tokens(snip.render()) + 2  # and the blank line between snippets
        if cost > remaining:
            if remaining < MIN_PARTIAL_TOKENS:
                continue
            snip = _cut(snip, prefix, body, remaining, count_tokens)
            if snip is None:
                continue
            cost = count_tokens(snip.render()) + 2
        snip.tokens = cost
        used += cost
        snippets.append(snip)
        shown.setdefault(c.path, set()).update(snip.shown())
        if c.kind in CONTAINER_KINDS or prefix:
            header_shown.add(c.id if c.kind in CONTAINER_KINDS else parent.id)  # type: ignore[union-attr]
    return Context(snippets, used, budget)


def _cut(snip: Snippet, prefix: list[tuple[int, str]], body: list[tuple[int, str]],
         remaining: int, count_tokens: TokenCounter) -> Snippet | None:
    """The longest head of the snippet that fits, ending at a line end."""
    lo, hi, best = 1, len(body) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        kept = [x for x in body[:mid] if x[0]]
        if not kept:
            lo = mid + 1
            continue
        trial = Snippet(snip.id, snip.path, snip.qualified_name, snip.kind, kept[0][0],
                        kept[-1][0], prefix + body[:mid] + [(0, "... (cut to fit the budget)")],
                        snip.score, snip.why, truncated=True)
        if count_tokens(trial.render()) + 2 <= remaining:
            best, lo = trial, mid + 1
        else:
            hi = mid - 1
    return best


# --- the prompt and the answer ----------------------------------------------------------------

SYSTEM_PROMPT = """\
You answer questions about a codebase using only the code excerpts provided.
Each excerpt starts with a header `## path:start-end qualified_name (kind)` and each
line of code is prefixed with its line number.
- Cite the code you rely on as `path:line` or `path:start-end`, with the paths and
  line numbers shown in the excerpts, for example `src/app/client.py:42`.
- When the excerpts do not contain the answer, say "not in the provided code"
  instead of guessing, and say what is missing.
- Be concise: explain how the pieces connect, step by step."""


def messages_for(question: str, context: Context) -> list[dict]:
    user = (f"Code excerpts:\n\n{context.text}\n\nQuestion: {question.strip()}"
            if context.snippets else
            f"(No code excerpts matched the question.)\n\nQuestion: {question.strip()}")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


_CITATION = re.compile(
    r"(?<![\w/.-])((?:\.{1,2}/)?[\w.\-/]*[\w\-]\.[A-Za-z][\w]{0,9}):(\d+)(?:\s*[-–]\s*(\d+))?")


def citations(answer: str) -> list[tuple[str, str, int, int]]:
    """``path:line`` / ``path:start-end`` in an answer: (as written, path, start, end)."""
    out = []
    for m in _CITATION.finditer(answer):
        start = int(m.group(2))
        end = int(m.group(3)) if m.group(3) else start
        out.append((m.group(0), m.group(1), start, max(start, end)))
    return out


def verify(answer: str, context: Context, root: Path | None = None) -> tuple[set[str], list[str]]:
    """Which snippets the answer cites (ids) and the citations that point at no
    line of the context sent (as written)."""
    shown = context.shown()
    cited: set[str] = set()
    unverified: list[str] = []
    prefix = (str(root).rstrip("/") + "/") if root else None
    for written, path, start, end in citations(answer):
        p = path.removeprefix("./")
        if prefix and p.startswith(prefix):
            p = p[len(prefix):]
        lines = shown.get(p)
        if lines is None:  # an answer may shorten a path: match a unique suffix
            options = [k for k in shown if k.endswith("/" + p)]
            if len(options) == 1:
                p, lines = options[0], shown[options[0]]
        if lines is None or not any(n in lines for n in range(start, end + 1)):
            unverified.append(written)
            continue
        for s in context.snippets:
            if s.path == p and any(n in s.shown() for n in range(start, end + 1)):
                cited.add(s.id)
    return cited, list(dict.fromkeys(unverified))


@dataclass
class AskResult:
    question: str
    answer: str | None
    sources: list[dict[str, object]]
    unverified_citations: list[str]
    model: str | None
    context_tokens: int
    note: str | None = None
    context: str | None = None  # the context sent; returned when there is no answer
    cut_off: str | None = None  # the answer is incomplete: "deadline" or "max_tokens"

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "answer": self.answer, "sources": self.sources,
            "unverified_citations": self.unverified_citations, "model": self.model,
            "context_tokens": self.context_tokens,
        }
        if self.cut_off is not None:
            out["cut_off"] = self.cut_off
        if self.note is not None:
            out["note"] = self.note
        if self.context is not None:
            out["context"] = self.context
        return out


NO_MODEL_NOTE = ("no language model is configured, so this is the code most relevant to the "
                 "question, not an answer; set one with CODELOUPE_LLM_URL (e.g. "
                 "http://127.0.0.1:11434/v1) and CODELOUPE_LLM_MODEL, --llm-url/--llm-model, "
                 "or the server's llmEndpoint/llmModel settings")


def cut_off_note(cut_off: str | None, config: LLMConfig) -> str | None:
    """What to tell the user about an answer that is incomplete (None: it is not)."""
    if cut_off == "deadline":
        return (f"the answer was cut off at the deadline of {config.deadline_s:g}s: this is "
                "what the model sent until then (its citations are verified); allow more "
                "time with --llm-deadline, CODELOUPE_LLM_DEADLINE_S or the llmDeadlineSeconds "
                "setting")
    if cut_off == "max_tokens":
        return (f"the answer reached the limit of {config.max_tokens} tokens and is cut off; "
                "raise it with --llm-max-tokens, CODELOUPE_LLM_MAX_TOKENS or the llmMaxTokens "
                "setting")
    return None


def result_for(question: str, context: Context, answer: str | None, model: str | None,
               root: Path | None = None, *, cut_off: str | None = None,
               note: str | None = None) -> AskResult:
    """The result of a question: sources marked cited or not, citations verified
    (those of a cut-off answer too). ``answer`` None: the context and a note."""
    if answer is None:
        return AskResult(question, None, [dict(s.source(), cited=False) for s in context.snippets],
                         [], None, context.tokens, NO_MODEL_NOTE, context.text)
    cited, unverified = verify(answer, context, root)
    sources = [dict(s.source(), cited=s.id in cited) for s in context.snippets]
    return AskResult(question, answer, sources, unverified, model, context.tokens, note,
                     cut_off=cut_off)


def answer_result(question: str, context: Context, answer: ChatAnswer, config: LLMConfig,
                  root: Path | None = None) -> AskResult:
    """``result_for`` an answer from the endpoint, with a note when it was cut off."""
    return result_for(question, context, answer.text, answer.model, root,
                      cut_off=answer.cut_off, note=cut_off_note(answer.cut_off, config))


# --- settings and the whole run -----------------------------------------------------------------


def llm_config(settings: Settings) -> LLMConfig | None:
    """The endpoint from the settings (None: no model configured)."""
    from .llm import LLMConfig

    if not settings.llm_url:
        return None
    key = os.environ.get(settings.llm_api_key_env) if settings.llm_api_key_env else None
    return LLMConfig(url=settings.llm_url, model=settings.llm_model or None, api_key=key or None,
                     timeout_s=settings.llm_timeout_s, deadline_s=settings.llm_deadline_s,
                     max_tokens=settings.llm_max_tokens)


def build_context(
    question: str,
    index: Index,
    settings: Settings,
    *,
    graph: Graph | None = None,
    read_lines: ReadLines | None = None,
    mode: str = "hybrid",
    reranker: Scorer | None = None,
) -> Context:
    if not question.strip():
        raise AskError("the question is empty")
    graph = graph if graph is not None else graph_for_store(index.store)
    read = read_lines or _disk_reader(index.root, index.settings.max_file_bytes)
    if reranker is None and settings.reranker:
        reranker = load_reranker(settings.reranker)
    ranked = retrieve(question, index, graph, mode=mode, reranker=reranker)
    count = token_counter(settings.ask_tokenizer)
    return assemble(ranked, graph, read, settings.ask_context_tokens, count)


def ask(
    question: str,
    index: Index,
    settings: Settings,
    *,
    graph: Graph | None = None,
    read_lines: ReadLines | None = None,
    on_delta: Callable[[str], None] | None = None,
    client: ChatClient | None = None,
    mode: str = "hybrid",
) -> AskResult:
    """Check the endpoint is reachable, then retrieve, assemble, generate (streamed
    into ``on_delta`` when given), verify. Without a configured endpoint: the context
    and a note, never an answer. Raises ``llm.LLMError`` when the endpoint fails
    (an unreachable one before any retrieval); an answer cut off at the deadline
    comes back with what streamed and a note."""
    from .llm import ChatClient, chat

    if client is None:
        config = llm_config(settings)
        client = ChatClient(config) if config is not None else None
    if client is not None:
        client.check_reachable()  # seconds, not the minute a big repository's context takes
    context = build_context(question, index, settings, graph=graph, read_lines=read_lines,
                            mode=mode)
    if client is None:
        return result_for(question, context, None, None)
    answer = chat(client.config, messages_for(question, context), on_delta, client)
    return answer_result(question, context, answer, client.config, index.root)
