"""Between the workspace model and LSP's types: symbol kinds and ranges, locations,
and what the cursor is on (a definition's name, or a reference and what it
resolves to). Shared by the features; imports none of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from ..languages import path_matches
from ..workspace import Folder, Snapshot, SymRow, innermost, name_span, ref_at
from .trace import mark

if TYPE_CHECKING:
    from .server import CodeloupeServer

SYMBOL_KINDS: dict[str, types.SymbolKind] = {
    "function": types.SymbolKind.Function,
    "method": types.SymbolKind.Method,
    "constructor": types.SymbolKind.Constructor,
    "class": types.SymbolKind.Class,
    "struct": types.SymbolKind.Struct,
    "interface": types.SymbolKind.Interface,
    "trait": types.SymbolKind.Interface,
    "enum": types.SymbolKind.Enum,
    "union": types.SymbolKind.Struct,
    "module": types.SymbolKind.Module,
    "impl": types.SymbolKind.Class,
    "object": types.SymbolKind.Object,
    "type": types.SymbolKind.Class,
}


def is_file_unit(sym: SymRow) -> bool:
    """Is this the module unit of a file (its top-level code), not a definition?"""
    return sym.kind == "module" and sym.parent is None


def symbol_kind(sym: SymRow) -> types.SymbolKind:
    """The LSP kind of a symbol: File for a file's unit, Variable when unknown."""
    if is_file_unit(sym):
        return types.SymbolKind.File
    return SYMBOL_KINDS.get(sym.kind, types.SymbolKind.Variable)


def symbol_range(ls: CodeloupeServer, lines: list[str], sym: SymRow) -> types.Range:
    """The symbol's whole extent, in wire positions."""
    return ls.positions.range(lines, sym.start_line - 1, sym.start_col, sym.end_line - 1, sym.end_col)


def selection_range(ls: CodeloupeServer, lines: list[str], sym: SymRow) -> types.Range:
    """The symbol's name (``name_span``), in wire positions: what an editor selects and a
    definition points at."""
    line0, c0, c1 = name_span(sym, lines)
    return ls.positions.range(lines, line0, c0, line0, c1)


def location(ls: CodeloupeServer, folder: Folder, sym: SymRow,
             lines: list[str] | None = None) -> types.Location:
    """The symbol's extent in its file (``lines``: its text, read here when None)."""
    lines = ls.lines(folder, sym.path) if lines is None else lines
    return types.Location(uri=ls.uri_of(folder, sym.path), range=symbol_range(ls, lines, sym))


@dataclass
class Found:
    """What a request's position is on, in the graph as it is now."""

    folder: Folder
    snap: Snapshot
    targets: list[SymRow]  # what the cursor names: a definition, or what a reference resolves to
    ref: dict | None  # the reference under the cursor, if any
    enclosing: SymRow | None  # the innermost symbol around the cursor


async def at_position(ls: CodeloupeServer, uri: str, position: types.Position) -> Found | None:
    """What the cursor is on once the document's edits are in the model: the reference there
    and what it resolves to, else the definition whose name it is on; None outside every
    folder or for a file not in the model."""
    ctx = await ls.document(uri)
    if ctx is None or ctx.model is None:
        return None
    folder, rel, fm = ctx.folder, ctx.rel, ctx.model
    snap = await ls.snapshot(folder)
    mark("at-snap")
    lines = ls.lines(folder, rel)
    line1, col = ls.positions.from_wire(lines, position)
    ref = ref_at(fm, line1, col)
    targets: list[SymRow] = []
    if ref is not None:
        targets = resolve_ref(snap, ref)
    else:
        for s in fm.symbols:
            # a name is looked for in a symbol's first 6 lines (name_span)
            if is_file_unit(s) or not s.start_line <= line1 < s.start_line + 6:
                continue
            line0, c0, c1 = name_span(s, lines)
            if line0 == line1 - 1 and c0 <= col <= c1:
                targets = [s]
                break
    enclosing = innermost(fm, line1, col)
    return Found(folder, snap, targets, ref, enclosing)


def resolve_ref(snap: Snapshot, ref: dict) -> list[SymRow]:
    """The symbols a reference resolves to: a call's edges from its site, else the symbols
    of its name (an import's narrowed to files matching its source)."""
    ids: list[str] = []
    if ref["kind"] == "call":
        for edge in snap.graph.out_edges.get(ref["enclosing"], []):
            if edge.site.line == ref["line"] and edge.site.col == ref["col"]:
                ids.append(edge.target)
    else:
        name = ref.get("original") or ref["name"]
        candidates = snap.graph.by_name.get(name, [])
        if ref["kind"] == "import" and ref.get("source"):
            matched = [c for c in candidates if path_matches(c.path, ref["source"])]
            candidates = matched or candidates
        ids = [c.id for c in candidates]
    return [snap.rows[i] for i in dict.fromkeys(ids) if i in snap.rows]
