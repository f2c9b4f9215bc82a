"""textDocument/hover: signature, doc, and how many callers and callees a symbol has."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .hierarchy import at_position
from .state import name_span

if TYPE_CHECKING:
    from .server import CodeloupeServer

_DOC_LIMIT = 1500
_NAMES_SHOWN = 5


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


async def hover(ls: CodeloupeServer, params: types.HoverParams) -> types.Hover | None:
    found = await at_position(ls, params.text_document.uri, params.position)
    if found is None or not found.targets:
        return None
    graph = found.snap.graph
    parts: list[str] = []
    for sym in found.targets[:3]:
        callers = graph.callers(sym.id)
        callees = graph.callees(sym.id)
        lang = sym.language if sym.language not in ("tsx",) else "typescript"
        block = [f"```{lang}\n{sym.signature or sym.qualified_name}\n```"]
        block.append(f"*{sym.kind}* `{sym.qualified_name}` in `{sym.path}:{sym.start_line}`")
        if sym.doc:
            doc = sym.doc if len(sym.doc) <= _DOC_LIMIT else sym.doc[:_DOC_LIMIT] + " …"
            block.append(doc)
        counts = f"{_plural(len({e.site.caller for e in callers}), 'caller')}, " \
                  f"{_plural(len({e.target for e in callees}), 'callee')}"
        names = sorted({found.snap.rows[e.site.caller].qualified_name
                        for e in callers if e.site.caller in found.snap.rows})
        if names:
            shown = ", ".join(f"`{n}`" for n in names[:_NAMES_SHOWN])
            more = f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else ""
            counts += f" · called by {shown}{more}"
        block.append(counts)
        parts.append("\n\n".join(block))
    if len(found.targets) > 3:
        parts.append(f"… {len(found.targets) - 3} more candidates")
    rng = None
    located = ls.locate(params.text_document.uri)
    if located is not None:
        folder, rel = located
        lines = ls.lines(folder, rel)
        if found.ref is not None:
            r = found.ref
            rng = ls.positions.range(lines, r["line"] - 1, r["col"], r["line"] - 1,
                                     r["col"] + len(r["name"]))
        elif found.targets[0].path == rel:
            line0, c0, c1 = name_span(found.targets[0], lines)
            rng = ls.positions.range(lines, line0, c0, line0, c1)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
        range=rng,
    )
