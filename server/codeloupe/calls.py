"""Callers, callees and call chains of a call graph as plain rows: how a target
(``path:line``, an id, a qualified name or a name) names its symbols, and the rows
``codeloupe calls``/``path`` print and the MCP server's tools return. Works on the
whole map (``graph.Graph``) and on its saved calls read in place
(``graph.callfile.SavedCalls``) alike."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .graph import DEFAULT_MIN_CONFIDENCE, Edge, SymbolInfo

if TYPE_CHECKING:
    from .graph import Graph
    from .graph.callfile import SavedCalls


class TargetError(Exception):
    """A target that names no symbol; one target's error in a batch, a ``CliError``
    otherwise."""


def find_symbols(graph: Graph | SavedCalls, target: str) -> list[SymbolInfo]:
    """``path:line`` (the innermost symbol around that line, 1-based), a symbol id, a
    qualified name or a name."""
    target = target.strip()
    if not target:
        raise TargetError("empty target")
    path, sep, line = target.rpartition(":")
    if sep and line.isdigit():
        in_file = graph.symbols_where("path", path)
        if not in_file:
            raise TargetError(f"no indexed file {path!r}")
        n = int(line)
        inside = [s for s in in_file if s.start_line <= n <= s.end_line]
        if not inside:
            raise TargetError(f"no symbol at {target}")
        named = [s for s in inside if not (s.kind == "module" and s.parent is None)] or inside
        return [max(named, key=lambda s: (s.start_line, -s.end_line))]
    if (sym := graph.symbols.get(target)) is not None:
        return [sym]
    for key in ("qualified_name", "name"):
        found = [s for s in graph.symbols_where(key, target) if not (s.kind == "module" and s.parent is None)]
        if found:
            return sorted(found, key=lambda s: s.id)
    raise TargetError(f"no symbol named {target!r}")


def symbol_row(s: SymbolInfo) -> dict[str, object]:
    """A symbol's place and names, as every answer shows it."""
    return {"path": s.path, "start_line": s.start_line, "end_line": s.end_line, "name": s.name,
            "qualified_name": s.qualified_name, "kind": s.kind}


def symbol_ref(graph: Graph | SavedCalls, symbol_id: str) -> dict[str, object]:
    """The other end of an edge: its qualified name and place (from its id when the
    graph does not hold it)."""
    s = graph.symbols.get(symbol_id)
    if s is None:
        return {"qualified_name": symbol_id.split("::", 1)[-1], "path": symbol_id.split("::", 1)[0],
                "start_line": None}
    return {"qualified_name": s.qualified_name, "path": s.path, "start_line": s.start_line}


def by_level(start: str, depth: int, visit: Callable[[str, int], Iterable[str]]) -> None:
    """Breadth-first from ``start`` to ``depth`` levels: ``visit(node, level)`` of each
    node reached, which returns the node's neighbours; each node is visited once."""
    frontier = [start]
    seen = {start}
    for level in range(1, depth + 1):
        nxt = []
        for node in frontier:
            for neighbour in visit(node, level):
                if neighbour not in seen:
                    seen.add(neighbour)
                    nxt.append(neighbour)
        frontier = nxt


def callers_of(graph: Graph | SavedCalls, sym: SymbolInfo, depth: int,
               min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> list[dict[str, object]]:
    """Call sites into ``sym`` (with ``depth`` above 1: into its callers too, each row with
    its level), edges below ``min_confidence`` left out."""
    out: list[dict[str, object]] = []

    def visit(node: str, level: int) -> list[str]:
        callers = []
        for e in graph.callers(node, min_confidence):
            row: dict[str, object] = {"path": e.site.path, "line": e.site.line, "column": e.site.col + 1,
                                      "caller": symbol_ref(graph, e.site.caller),
                                      "confidence": e.confidence}
            if why := graph.evidence(e):
                row["evidence"] = why
            if depth > 1:
                row["depth"] = level
            out.append(row)
            callers.append(e.site.caller)
        return callers

    by_level(sym.id, depth, visit)
    return out


def callees_of(graph: Graph | SavedCalls, sym: SymbolInfo, depth: int,
               min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> list[dict[str, object]]:
    """What ``sym`` calls, one row a callee with its call sites (with ``depth`` above 1:
    their callees too, each row with its level)."""
    out: list[dict[str, object]] = []

    def visit(node: str, level: int) -> list[str]:
        grouped: dict[str, list[Edge]] = {}
        for e in graph.callees(node, min_confidence):
            grouped.setdefault(e.target, []).append(e)
        for target, edges in grouped.items():
            row: dict[str, object] = {
                **symbol_ref(graph, target),
                "call_sites": [{"path": e.site.path, "line": e.site.line, "column": e.site.col + 1}
                               for e in edges],
                "confidence": max(e.confidence for e in edges),
            }
            if why := "; ".join(dict.fromkeys(w for e in edges if (w := graph.evidence(e)))):
                row["evidence"] = why
            if depth > 1:
                row["depth"] = level
            out.append(row)
        return list(grouped)

    by_level(sym.id, depth, visit)
    return out


def offered_rows(graph: Graph | SavedCalls, sym: SymbolInfo, min_confidence: float, incoming: bool) -> list[dict[str, object]]:
    """The name matches below ``min_confidence`` with few candidates (``Graph.offered``):
    one row a call site, with the other end and the evidence."""
    rows: list[dict[str, object]] = []
    for e in graph.offered(sym.id, min_confidence, incoming=incoming):
        other = symbol_ref(graph, e.site.caller if incoming else e.target)
        rows.append({"path": e.site.path, "line": e.site.line, "column": e.site.col + 1,
                     "caller" if incoming else "callee": other, "confidence": e.confidence,
                     "evidence": graph.evidence(e)})
    return rows


def chain_rows(graph: Graph | SavedCalls, chains: Iterable[list[Edge]]) -> list[list[dict[str, object]]]:
    """Call chains (``Graph.all_chains``) as rows: each step's caller, callee, call site,
    reason and confidence."""
    return [[{"caller": symbol_ref(graph, e.site.caller), "callee": symbol_ref(graph, e.target),
              "path": e.site.path, "line": e.site.line, "column": e.site.col + 1,
              "reason": e.reason, "confidence": e.confidence} for e in chain] for chain in chains]


def callers_answer(graph: Graph | SavedCalls, sym: SymbolInfo, depth: int,
                   min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> dict[str, object]:
    """Who calls ``sym``, as the MCP tool and the server's command answer: the resolved
    call sites (``callers_of``), the name-only candidates with few rivals apart
    (``by_name_only``), and how many more name matches were left out."""
    return {"symbol": symbol_row(sym),
            "callers": callers_of(graph, sym, depth, min_confidence),
            "by_name_only": offered_rows(graph, sym, min_confidence, True),
            "hidden_by_name_only": graph.below(sym.id, min_confidence)[0]}


def callees_answer(graph: Graph | SavedCalls, sym: SymbolInfo, depth: int,
                   min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> dict[str, object]:
    """What ``sym`` calls, shaped as ``callers_answer``."""
    return {"symbol": symbol_row(sym),
            "callees": callees_of(graph, sym, depth, min_confidence),
            "by_name_only": offered_rows(graph, sym, min_confidence, False),
            "hidden_by_name_only": graph.below(sym.id, min_confidence, incoming=False)[0]}


MAX_SOURCE_LINES = 400  # a definition's source shown whole up to this many lines
MAX_FILE_SYMBOLS = 60  # the other symbols of its file listed


def definition(graph: Graph, sym: SymbolInfo, lines: list[str] | None,
               signature: str = "", doc: str = "") -> dict[str, object]:
    """A symbol's definition: place, names, signature, doc, its source numbered from
    ``lines`` (its file's lines; None: unreadable), the class it belongs to with its
    header line, and the symbols of its file."""
    d: dict[str, object] = {**symbol_row(sym), "language": sym.language,
                            "signature": signature, "doc": doc}
    if lines is not None:
        body = lines[sym.start_line - 1:sym.end_line]
        if len(body) > MAX_SOURCE_LINES:
            d["source_truncated"] = f"first {MAX_SOURCE_LINES} of {len(body)} lines"
            body = body[:MAX_SOURCE_LINES]
        d["source"] = "\n".join(f"{n:>5} | {t}" for n, t in enumerate(body, sym.start_line))
    parent = graph.symbols.get(sym.parent) if sym.parent else None
    if parent is not None and parent.kind != "module":
        d["parent"] = {**symbol_row(parent),
                       "header": (lines[parent.start_line - 1].rstrip()
                                  if lines is not None and 0 < parent.start_line <= len(lines) else "")}
    in_file = sorted(graph.symbols_where("path", sym.path), key=lambda s: s.start_line)
    d["file"] = {"path": sym.path, "lines": len(lines) if lines is not None else None,
                 "symbols": [f"{s.start_line}: {s.kind} {s.qualified_name}" for s in in_file
                             if s.kind != "module"][:MAX_FILE_SYMBOLS]}
    return d
