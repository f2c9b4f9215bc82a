"""The tools a model may call while it answers (and the MCP server's tools of the same
names): ``search_code``, ``symbol``, ``callers`` and ``callees`` over one index and one
call graph. Each answer is plain data; what a tool showed of the code is kept as
``Snippet``s (``shown``), so that the citations of an answer that used the tools are
verified against every line the model saw, as those of the first context are."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..calls import TargetError, callees_answer, callers_answer, definition, find_symbols
from ..graph import DEFAULT_MIN_CONFIDENCE, Graph, SymbolInfo
from ..search import MODES, Searcher, SearchError
from .context import Snippet
from .files import ReadLines

if TYPE_CHECKING:
    from ..index import Index

MAX_K = 100
MAX_DEPTH = 5
MAX_TARGETS = 10  # symbols answered for one target that several symbols match
MAX_DEFINITIONS = 5
SNIPPET_LINES = 8  # the first lines of a search result shown


class ToolArgumentError(ValueError):
    """An argument a tool cannot take: the message names it and says what it wants."""


def check_string(name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolArgumentError(f"{name} must be a non-empty string, got {value!r}")
    return value


def check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ToolArgumentError(f"{name} must be an integer between {low} and {high}, got {value!r}")
    return value


def check_confidence(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ToolArgumentError(f"min_confidence must be a number between 0 and 1, got {value!r}")
    return float(value)


_TARGET = {"type": "string", "description": "a symbol: a name (`send`), a qualified name "
           "(`Session.send`), a symbol id, or `path:line` (the innermost symbol there)"}
_CONFIDENCE = {"type": "number", "minimum": 0, "maximum": 1, "description": (
    f"leave out calls resolved with less confidence (default {DEFAULT_MIN_CONFIDENCE}; 0 "
    "includes calls matched by name only)")}

# the OpenAI `tools` list: the MCP server's tools of the same names and arguments
TOOL_SPECS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "search_code",
        "description": "Find code by meaning: semantic and full-text search over every "
                       "function, method and class, best first, each with its first lines.",
        "parameters": {"type": "object", "required": ["query"], "properties": {
            "query": {"type": "string", "description": "what the code does, or a name"},
            "k": {"type": "integer", "minimum": 1, "maximum": MAX_K, "description": "how many results (default 10)"},
            "lang": {"type": "string", "description": "only these languages, comma-separated"},
            "path": {"type": "string", "description": "only paths matching this glob"},
            "kind": {"type": "string", "description": "only these kinds (function,method,class)"}}}}},
    {"type": "function", "function": {
        "name": "symbol",
        "description": "The definition of a symbol: signature, doc and its source with line "
                       "numbers, the class it belongs to, the other symbols of its file.",
        "parameters": {"type": "object", "required": ["target"], "properties": {"target": _TARGET}}}},
    {"type": "function", "function": {
        "name": "callers",
        "description": "Who calls a symbol: each resolved call site with its line of code.",
        "parameters": {"type": "object", "required": ["target"], "properties": {
            "target": _TARGET,
            "depth": {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH, "description": "levels (default 1)"},
            "min_confidence": _CONFIDENCE}}}},
    {"type": "function", "function": {
        "name": "callees",
        "description": "What a symbol calls: each callee with where it is defined and the "
                       "lines of the calls. Follow it to see how something works.",
        "parameters": {"type": "object", "required": ["target"], "properties": {
            "target": _TARGET,
            "depth": {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH, "description": "levels (default 1)"},
            "min_confidence": _CONFIDENCE}}}},
]


@dataclass
class Toolbox:
    """The tools over one index and one call graph, reading files with ``read_lines``
    (the language server's reader serves unsaved buffers); ``shown`` gathers what the
    answers showed of the code, one snippet a symbol or call site."""

    index: Index
    graph: Graph | None  # None: search_code alone (no graph is made for it)
    read_lines: ReadLines
    searcher: Searcher | None = None
    shown: list[Snippet] = field(default_factory=list)

    def call(self, name: str, arguments: str | dict | None) -> dict[str, Any]:
        """One call as a model makes it: the name and its JSON arguments.
        ToolArgumentError names what is wrong."""
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except ValueError:
                raise ToolArgumentError(f"the arguments of {name} are not JSON: {arguments[:200]!r}") from None
        if not isinstance(arguments, dict):
            raise ToolArgumentError(f"the arguments of {name} must be a JSON object")
        tools = {"search_code": self.search_code, "symbol": self.symbol,
                 "callers": self.callers, "callees": self.callees}
        if name not in tools:
            raise ToolArgumentError(f"no tool named {name!r}; the tools are {', '.join(tools)}")
        try:
            return tools[name](**arguments)
        except TypeError as exc:  # an unknown or missing argument
            raise ToolArgumentError(f"{name}: {exc}") from None

    # --- the tools ---------------------------------------------------------------------

    def search_code(self, query: str, k: int = 10, lang: str | None = None,
                    path: str | None = None, kind: str | None = None,
                    mode: str = "hybrid") -> dict[str, Any]:
        """Ranked symbols for a query in words or code, each with its first lines."""
        check_string("query", query)
        check_int("k", k, 1, MAX_K)
        if mode not in MODES:
            raise ToolArgumentError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if self.searcher is None:  # one for every search of this toolbox
            self.searcher = Searcher(self.index)
        try:
            resp = self.searcher.search(query, k, lang=lang, path=path, kind=kind, mode=mode)
        except (SearchError, ValueError) as exc:
            raise ToolArgumentError(str(exc)) from exc
        results = []
        for hit in resp.results:
            row = hit.as_dict(snippet=False)
            row["signature"] = hit.signature
            first = hit.snippet.splitlines()[:SNIPPET_LINES]
            row["snippet"] = "\n".join(first)
            results.append(row)
            if first:
                self._show(hit.id, hit.path, hit.qualified_name, hit.kind,
                           list(enumerate(first, hit.start_line)), "search_code")
        out: dict[str, Any] = {"query": query, "results": results,
                               "pending_embeddings": resp.pending_embeddings}
        if resp.warnings:
            out["warnings"] = list(resp.warnings)
        return out

    def symbols(self, target: str) -> list[SymbolInfo]:
        """The symbols a target names (ToolArgumentError when none)."""
        check_string("target", target)
        if self.graph is None:
            raise ToolArgumentError("this toolbox has no call graph")
        try:
            return find_symbols(self.graph, target)
        except TargetError as exc:
            raise ToolArgumentError(f"{exc} (give a name, a qualified name like Class.method, "
                                    "or path:line; search_code finds names)") from None

    def symbol(self, target: str) -> dict[str, Any]:
        """The definition of a symbol: signature, doc, numbered source, its class, its file."""
        found = self.symbols(target)
        graph = self.graph
        assert graph is not None  # symbols() checked
        shown = found[:MAX_DEFINITIONS]
        rows = {r["id"]: r for r in self.index.store.symbol_rows(
            ["id", "signature", "doc"], sorted({sym.path for sym in shown}))}
        out = []
        for sym in shown:
            row = rows.get(sym.id, {})
            lines = self.read_lines(sym.path)
            out.append(definition(graph, sym, lines, row.get("signature") or "",
                                  row.get("doc") or ""))
            if lines is not None:
                body = lines[sym.start_line - 1:sym.end_line]
                self._show(sym.id, sym.path, sym.qualified_name, sym.kind,
                           list(enumerate(body, sym.start_line)), "symbol")
        result: dict[str, Any] = {"target": target, "symbols": out}
        if len(found) > MAX_DEFINITIONS:
            result["more"] = (f"{len(found) - MAX_DEFINITIONS} more symbols have this name; "
                              "give a qualified name or path:line")
        return result

    def _edges(self, answer: Any, target: str, depth: int, min_confidence: float,
               key: str) -> dict[str, Any]:
        check_int("depth", depth, 1, MAX_DEPTH)
        least = check_confidence(min_confidence)
        out = []
        for sym in self.symbols(target)[:MAX_TARGETS]:
            row = answer(self.graph, sym, depth, least)  # symbols() checked the graph
            for edge in row[key]:
                for site in edge.get("call_sites") or [edge]:
                    site["code"] = self._line(site["path"], site["line"], edge, key)
            out.append(row)
        return {"target": target, "min_confidence": least, "symbols": out}

    def callers(self, target: str, depth: int = 1,
                min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> dict[str, Any]:
        """Resolved call sites into a symbol, each with its line of code."""
        return self._edges(callers_answer, target, depth, min_confidence, "callers")

    def callees(self, target: str, depth: int = 1,
                min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> dict[str, Any]:
        """What a symbol calls, each call site with its line of code."""
        return self._edges(callees_answer, target, depth, min_confidence, "callees")

    # --- what the model saw --------------------------------------------------------------

    def _line(self, path: str, line: int, edge: dict[str, Any], key: str) -> str:
        """The text of a call site's line (kept as shown), '' when unreadable."""
        lines = self.read_lines(path)
        if lines is None or not 0 < line <= len(lines):
            return ""
        text = lines[line - 1]
        who = edge["caller"] if key == "callers" else edge
        self._show(f"{path}:{line}", path, str(who.get("qualified_name", "")), "call",
                   [(line, text)], key)
        return text.strip()

    def _show(self, sid: str, path: str, name: str, kind: str, lines: list[tuple[int, str]],
              why: str) -> None:
        self.shown.append(Snippet(id=f"{why}:{sid}", path=path, qualified_name=name, kind=kind,
                                  start_line=lines[0][0], end_line=lines[-1][0], lines=lines,
                                  score=0.0, why=f"tool {why}"))
