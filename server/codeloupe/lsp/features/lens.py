"""textDocument/codeLens: the number of callers above each function and method.

Counting is a dictionary lookup in the call graph, so lenses carry their title at
once (no ``codeLens/resolve`` round trip). The command id is empty: the lens is a
label (VS Code renders a command-less lens as plain text). When the call graph
changes (an edit in another file may add a caller here) the server asks the
client to request lenses again (``workspace/codeLens/refresh``, ``lenses``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from ...workspace import name_span

if TYPE_CHECKING:
    from ..server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")

LENS_KINDS = frozenset({"function", "method", "constructor"})


def callers_title(n: int, by_name: int = 0) -> str:
    """``3 callers``; ``3 callers (+2 by name)`` when the call hierarchy offers name
    candidates below the minimum confidence beside them (``Graph.counts``)."""
    more = f" (+{by_name} by name)" if by_name else ""
    return f"{n} caller{'' if n == 1 else 's'}{more}"


async def code_lens(ls: CodeloupeServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    """A lens on each function, method and constructor of the document: its callers at
    ``callHierarchyMinConfidence``, and how many more by name."""
    ctx = await ls.document(params.text_document.uri)
    if ctx is None:
        return None
    if ctx.model is None:
        return []
    snap = await ls.read(ctx.folder.snapshot)
    graph = snap.graph
    lines = ls.lines(ctx.folder, ctx.rel)
    least = ls.options.call_hierarchy_min_confidence
    out: list[types.CodeLens] = []
    for sym in ctx.model.symbols:
        if sym.kind not in LENS_KINDS:
            continue
        n, by_name = graph.counts(sym.id, least)  # what the call hierarchy lists
        line0, c0, c1 = name_span(sym, lines)
        out.append(types.CodeLens(
            range=ls.positions.range(lines, line0, c0, line0, c1),
            command=types.Command(title=callers_title(n, by_name), command=""),
            data={"id": sym.id, "callers": n, "lowConfidenceCallers": by_name},
        ))
    return out
