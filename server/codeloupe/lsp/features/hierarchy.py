"""Definition, references and the call hierarchy, from the engine's call graph
(``codeloupe.graph``, v1: approximate resolution with a confidence per edge)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ...graph import Edge
from ...workspace import Folder, Snapshot, SymRow
from ..convert import at_position, is_file_unit, selection_range, symbol_kind, symbol_range
from ..trace import mark

if TYPE_CHECKING:
    from ..server import CodeloupeServer


def _site_range(ls: CodeloupeServer, lines: list[str], edge: Edge) -> types.Range:
    site = edge.site
    return ls.positions.range(lines, site.line - 1, site.col, site.line - 1, site.col + len(site.name))


async def definition(ls: CodeloupeServer, params: types.DefinitionParams) -> list[types.Location]:
    """The name of each symbol the cursor names (a definition, or what a reference resolves
    to)."""
    found = await at_position(ls, params.text_document.uri, params.position)
    if found is None:
        return []
    return [_name_location(ls, found.folder, s) for s in found.targets]


def _name_location(ls: CodeloupeServer, folder: Folder, s: SymRow) -> types.Location:
    lines = ls.lines(folder, s.path)
    return types.Location(uri=ls.uri_of(folder, s.path), range=selection_range(ls, lines, s))


async def references(ls: CodeloupeServer, params: types.ReferenceParams) -> list[types.Location]:
    """The call sites into what the cursor names (edges with at least
    ``callHierarchyMinConfidence``), and its definition when the client asks."""
    found = await at_position(ls, params.text_document.uri, params.position)
    if found is None:
        return []
    out: list[types.Location] = []
    seen: set[tuple[str, int, int]] = set()
    for target in found.targets:
        if params.context.include_declaration:
            out.append(_name_location(ls, found.folder, target))
        for edge in found.snap.graph.callers(target.id, ls.options.call_hierarchy_min_confidence):
            key = (edge.site.path, edge.site.line, edge.site.col)
            if key in seen:
                continue
            seen.add(key)
            lines = ls.lines(found.folder, edge.site.path)
            out.append(types.Location(uri=ls.uri_of(found.folder, edge.site.path),
                                      range=_site_range(ls, lines, edge)))
    return out


# --- call hierarchy --------------------------------------------------------------------------


def _item(ls: CodeloupeServer, folder: Folder, s: SymRow, why: str = "") -> types.CallHierarchyItem:
    lines = ls.lines(folder, s.path)
    detail = s.qualified_name if not is_file_unit(s) else None
    if why:  # found by name: the evidence, "by name, 2 candidates"
        detail = f"{detail} — {why}" if detail else why
    rng = symbol_range(ls, lines, s)
    sel = selection_range(ls, lines, s)
    return types.CallHierarchyItem(
        name=s.name if not is_file_unit(s) else s.path,
        kind=symbol_kind(s),
        uri=ls.uri_of(folder, s.path),
        range=rng,
        selection_range=sel,
        detail=detail,
        data={"id": s.id, "root": str(folder.root)},
    )


async def prepare_call_hierarchy(
    ls: CodeloupeServer, params: types.CallHierarchyPrepareParams
) -> list[types.CallHierarchyItem] | None:
    """Call hierarchy items of what the cursor names, else of the symbol around it; None
    when there is neither."""
    mark("prepare-start")
    found = await at_position(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    targets = found.targets or ([found.enclosing] if found.enclosing else [])
    if not targets:
        return None
    out = [_item(ls, found.folder, s) for s in targets]
    mark("prepare-end")
    return out


async def _item_symbol(
    ls: CodeloupeServer, item: types.CallHierarchyItem
) -> tuple[Folder, Snapshot, str] | None:
    data = item.data if isinstance(item.data, dict) else {}
    located = ls.locate(item.uri)
    if located is None:
        return None
    folder, rel = located
    await ls.settle()
    snap = await ls.snapshot(folder)
    sym_id = data.get("id")
    if sym_id in snap.rows:
        return folder, snap, sym_id
    # an item from an older state (or another client): find it by name and place
    fm = folder.file(rel)
    if fm is None:
        return None
    lines = ls.lines(folder, rel)
    line1, col = ls.positions.from_wire(lines, item.selection_range.start)
    for s in fm.symbols:
        if s.name == item.name and s.start_line <= line1 <= s.end_line:
            return folder, snap, s.id
    return None


def _grouped(edges: list[Edge], key) -> dict[str, list[Edge]]:
    out: dict[str, list[Edge]] = {}
    for edge in edges:
        out.setdefault(key(edge), []).append(edge)
    return out


def _why(snap: Snapshot, edges: list[Edge]) -> str:
    """The evidence of a group's edges found by name ("" when all are precise)."""
    return "; ".join(dict.fromkeys(w for e in edges if (w := snap.graph.evidence(e))))


async def incoming_calls(
    ls: CodeloupeServer, params: types.CallHierarchyIncomingCallsParams
) -> list[types.CallHierarchyIncomingCall] | None:
    """The item's callers, each with its call sites into it (edges with at least
    ``callHierarchyMinConfidence``, and name matches with few candidates, marked in
    the item's ``detail``: "by name, 2 candidates")."""
    mark("incoming-start")
    found = await _item_symbol(ls, params.item)
    if found is None:
        return None
    folder, snap, sym_id = found
    out = []
    # edges with at least callHierarchyMinConfidence (0.5: name-match candidates left out),
    # then the name matches with few candidates, offered with their evidence in `detail`
    least = ls.options.call_hierarchy_min_confidence
    callers = snap.graph.callers(sym_id, least) + snap.graph.offered(sym_id, least)
    for caller_id, edges in _grouped(callers, lambda e: e.site.caller).items():
        caller = snap.rows.get(caller_id)
        if caller is None:
            continue
        lines = ls.lines(folder, caller.path)
        out.append(types.CallHierarchyIncomingCall(
            from_=_item(ls, folder, caller, _why(snap, edges)),
            from_ranges=[_site_range(ls, lines, e) for e in edges],
        ))
    mark("incoming-end")
    return out


async def outgoing_calls(
    ls: CodeloupeServer, params: types.CallHierarchyOutgoingCallsParams
) -> list[types.CallHierarchyOutgoingCall] | None:
    """What the item calls, each callee with its call sites in the item (edges with at least
    ``callHierarchyMinConfidence``, and name matches with few candidates, marked in the
    item's ``detail``)."""
    found = await _item_symbol(ls, params.item)
    if found is None:
        return None
    folder, snap, sym_id = found
    caller = snap.rows.get(sym_id)
    if caller is None:
        return None
    lines = ls.lines(folder, caller.path)
    out = []
    least = ls.options.call_hierarchy_min_confidence
    callees = snap.graph.callees(sym_id, least) + snap.graph.offered(sym_id, least, incoming=False)
    for target_id, edges in _grouped(callees, lambda e: e.target).items():
        target = snap.rows.get(target_id)
        if target is None:
            continue
        out.append(types.CallHierarchyOutgoingCall(
            to=_item(ls, folder, target, _why(snap, edges)),
            from_ranges=[_site_range(ls, lines, e) for e in edges],
        ))
    return out

