"""Hybrid search over the symbols table: vector nearest neighbours and BM25
full-text, fused with reciprocal rank fusion; exact identifier matches first."""

from __future__ import annotations

import fnmatch
import logging
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from .embed import split_identifier
from .errors import CodeloupeError
from .index import Index
from .languages import normalize_language
from .store import FullTextUnavailable, SymbolFilter

log = logging.getLogger(__name__)

# A small k trusts the top of each list more; 10 beat 20, 30, 60 and 100 on bench/eval.
RRF_K = 10
# Whole-file units and class-like symbols match many questions loosely; the
# function that does the work is usually the answer (measured on bench/eval).
KIND_WEIGHTS: dict[str, float] = {
    "module": 0.3,
    **{kind: 0.7 for kind in ("class", "struct", "interface", "enum", "trait", "union", "impl",
                              "object", "type")},
}
MODES = ("hybrid", "vector", "fts")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*$")
_COLUMNS = [
    "id", "path", "name", "qualified_name", "kind", "language", "start_line", "end_line",
    "signature", "snippet",
]


class SearchError(CodeloupeError, ValueError):
    """A search that cannot be run as asked (an unknown mode, ``k`` below 1)."""


@dataclass
class Hit:
    """One search result: the symbol's place and names, and its fused score."""

    id: str
    path: str
    name: str
    qualified_name: str
    kind: str
    language: str
    start_line: int
    end_line: int
    score: float
    signature: str = ""
    snippet: str = ""

    def as_dict(self, snippet: bool = True) -> dict[str, object]:
        """The result as ``--json`` and the server's search command report it (``snippet``:
        with its snippet)."""
        d: dict[str, object] = {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "name": self.name,
            "qualified_name": self.qualified_name,
            "kind": self.kind,
            "language": self.language,
            "score": round(self.score, 6),
        }
        if snippet:
            d["snippet"] = self.snippet
        return d


@dataclass
class SearchResponse:
    """The results of one query, how many symbols still wait for an embedding, and warnings
    about signals that could not be used."""

    query: str
    results: list[Hit]
    pending_embeddings: int = 0
    warnings: list[str] = field(default_factory=list)  # a signal that could not be used, and why

    def as_dict(self, snippet: bool = True) -> dict[str, object]:
        """The response as ``--json`` and the server's search command report it."""
        out: dict[str, object] = {
            "query": self.query,
            "results": [h.as_dict(snippet) for h in self.results],
            "pending_embeddings": self.pending_embeddings,
        }
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def looks_like_identifier(query: str) -> bool:
    """Worth an exact name lookup. A plain word ("retry") qualifies too: the lookup
    only boosts a symbol that has exactly that name."""
    return bool(_IDENTIFIER.match(query.strip()))


def glob_to_paths(pattern: str, paths: Sequence[str]) -> list[str]:
    """Paths matching a glob: ``*`` within a folder, ``**`` across folders; a pattern
    without a slash matches the file name anywhere (``*.py``)."""
    pat = pattern.strip().removeprefix("./")
    if "/" not in pat:
        return [p for p in paths if fnmatch.fnmatchcase(p.rsplit("/", 1)[-1], pat)
                or fnmatch.fnmatchcase(p, pat)]
    regex = _glob_regex(pat.rstrip("/"))
    return [p for p in paths if regex.match(p)]


def _glob_regex(pat: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pat.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(c))
        i += 1
    # a folder pattern matches everything below it
    return re.compile("^" + "".join(out) + "(?:/.*)?$")


class Searcher:
    """Hybrid search over one index: the vector and full-text lists fused by rank (RRF),
    then an exact-name boost. Its own threads run the vector half (both vector columns)
    beside the full-text half."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.store = index.store
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="codeloupe-search")
        # only ever given one column search, never work that waits on it: no deadlock
        self._column_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="codeloupe-search-column")

    def close(self) -> None:
        """Let its threads go once the searches running now have ended."""
        self._pool.shutdown(wait=False)
        self._column_pool.shutdown(wait=False)

    def _filter(self, lang: str | None, path: str | None, kind: str | None) -> SymbolFilter | None:
        if not (lang or path or kind):
            return None
        langs = tuple(normalize_language(x) for x in (lang or "").split(",") if x.strip())
        kinds = tuple(k.strip() for k in (kind or "").split(",") if k.strip())
        paths = tuple(glob_to_paths(path, self.store.file_paths())) if path else None
        return SymbolFilter(langs, kinds, paths)

    def search(
        self,
        query: str,
        k: int = 10,
        *,
        lang: str | None = None,
        path: str | None = None,
        kind: str | None = None,
        mode: str = "hybrid",
    ) -> SearchResponse:
        """The ``k`` best symbols for the query, filtered by languages, a path glob and
        kinds (each comma-separated); SearchError for an unknown mode or ``k`` below 1."""
        query = query.strip()
        if mode not in MODES:
            raise SearchError(f"unknown mode {mode!r} (one of {', '.join(MODES)})")
        if k < 1:
            raise SearchError("k must be at least 1")
        pending = self.store.count_pending()
        if not query:
            return SearchResponse(query, [], pending)
        where = self._filter(lang, path, kind)
        depth = max(50, k * 5)
        ranked: list[list[dict]] = []
        warnings: list[str] = []
        if mode == "hybrid":
            # Both lists at once: LanceDB and torch release the GIL, so the hybrid
            # query costs about the slower of the two instead of their sum.
            vector = self._pool.submit(self._vector, query, where, depth, pending)
            fulltext = self._fulltext(query, where, depth, warnings)
            ranked = [vector.result(), fulltext]
        elif mode == "vector":
            ranked.append(self._vector(query, where, depth, pending))
        else:
            ranked.append(self._fulltext(query, where, depth, warnings))
        fused: dict[str, Hit] = {}
        scores = rrf([[row["id"] for row in rows] for rows in ranked], RRF_K)
        for rows in ranked:
            for row in rows:
                if row["id"] not in fused:
                    weight = KIND_WEIGHTS.get(row["kind"], 1.0)
                    fused[row["id"]] = _hit(row, scores[row["id"]] * weight)
        if mode != "vector" and looks_like_identifier(query):
            exact = self._exact(query, where)
            for boost, row in exact:
                hit = fused.get(row["id"])
                if hit is None:
                    hit = _hit(row, 0.0)
                    fused[row["id"]] = hit
                hit.score += boost
        results = sorted(fused.values(), key=lambda h: (-h.score, h.path, h.start_line))[:k]
        return SearchResponse(query, results, pending, warnings)

    def _vector(self, query: str, where: SymbolFilter | None, depth: int,
                pending: int) -> list[dict]:
        if self.store.symbol_count() <= pending:  # nothing embedded yet
            return []
        vec = self.index.embedder.embed_query(query)

        def nearest(column: str) -> list[dict]:
            return self.store.nearest(vec, column, _COLUMNS, depth, where)

        # A symbol is as near as the nearer of its two vectors: the whole text, and
        # its name, signature and doc alone (embed.summary_text). The two searches
        # run side by side (LanceDB releases the GIL).
        summaries = self._column_pool.submit(nearest, "summary_vector")
        best: dict[str, dict] = {}
        for row in [*nearest("vector"), *summaries.result()]:
            seen = best.get(row["id"])
            if seen is None or row["_distance"] < seen["_distance"]:
                best[row["id"]] = row
        return sorted(best.values(), key=lambda r: r["_distance"])[:depth]

    def _fulltext(self, query: str, where: SymbolFilter | None, depth: int,
                  warnings: list[str]) -> list[dict]:
        words = " ".join(split_identifier(query))
        text = f"{query} {words}".strip()
        try:
            return self.store.fulltext(text, _COLUMNS, depth, where)
        except FullTextUnavailable as exc:
            # said, not swallowed: the next index run builds it again
            warnings.append(f"{exc}; results come from the vectors alone until "
                            "`codeloupe index` rebuilds it")
            return []

    def _exact(self, query: str, where: SymbolFilter | None) -> list[tuple[float, dict]]:
        """Symbols whose name or qualified name is the query: they go first."""
        parts = re.split(r"\.|::|#|->", query)
        last = parts[-1]
        dotted = ".".join(parts)
        rows = self.store.symbols_named([last], _COLUMNS, where, limit=200)
        out: list[tuple[float, dict]] = []
        for row in rows:
            qn = row["qualified_name"]
            if qn == dotted:
                boost = 2.0
            elif len(parts) > 1 and qn.endswith("." + dotted):
                boost = 1.5
            elif len(parts) == 1:
                boost = 1.0
            else:
                continue
            if row["kind"] == "module":
                boost -= 0.5
            out.append((boost, row))
        return out


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """Reciprocal rank fusion: each list adds 1 / (k + rank) to the items it ranks."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores


def _hit(row: dict, score: float) -> Hit:
    return Hit(
        id=row["id"], path=row["path"], name=row["name"], qualified_name=row["qualified_name"],
        kind=row["kind"], language=row["language"], start_line=int(row["start_line"]),
        end_line=int(row["end_line"]), score=score, signature=row.get("signature") or "",
        snippet=row.get("snippet") or "",
    )
