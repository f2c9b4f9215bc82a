"""textDocument/codeLens: the number of callers above each function and method.

Counting is a dictionary lookup in the call graph, so lenses carry their title at
once (no ``codeLens/resolve`` round trip). The command id is empty: the lens is a
label (VS Code renders a command-less lens as plain text). When the call graph
changes (an edit in another file may add a caller here) the server asks the
client to request lenses again (``workspace/codeLens/refresh``), at most once per
``REFRESH_DEBOUNCE_S``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from .state import name_span

if TYPE_CHECKING:
    from .server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")

LENS_KINDS = frozenset({"function", "method", "constructor"})
REFRESH_DEBOUNCE_S = 0.3


def callers_title(n: int, by_name: int = 0) -> str:
    """``3 callers``; ``3 callers (+2 by name)`` when name-match candidates below the
    minimum confidence would add callers."""
    more = f" (+{by_name} by name)" if by_name else ""
    return f"{n} caller{'' if n == 1 else 's'}{more}"


async def code_lens(ls: CodeloupeServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
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
        n = len({e.site.caller for e in graph.callers(sym.id, least)})
        _, by_name = graph.below(sym.id, least)
        line0, c0, c1 = name_span(sym, lines)
        out.append(types.CodeLens(
            range=ls.positions.range(lines, line0, c0, line0, c1),
            command=types.Command(title=callers_title(n, by_name), command=""),
            data={"id": sym.id, "callers": n, "lowConfidenceCallers": by_name},
        ))
    return out


def schedule_refresh(ls: CodeloupeServer) -> None:
    """Ask the client to refresh code lenses soon (when it supports that)."""
    caps = ls.client_capabilities.workspace if ls.client_capabilities else None
    lens_caps = caps.code_lens if caps else None
    if not (lens_caps and lens_caps.refresh_support) or ls.loop is None or ls.stopping.is_set():
        return
    if ls.lens_refresh is not None:
        return  # one is on its way

    def fire() -> None:
        ls.lens_refresh = None
        if ls.stopping.is_set():
            return
        try:
            fut = ls.workspace_code_lens_refresh(None)
        except Exception as exc:  # no connection any more
            log.debug("codeloupe: codeLens refresh failed: %s", exc)
            return
        fut.add_done_callback(lambda f: f.cancelled() or f.exception() is None or log.debug(
            "codeloupe: codeLens refresh failed: %s", f.exception()))

    ls.lens_refresh = ls.loop.call_later(REFRESH_DEBOUNCE_S, fire)
