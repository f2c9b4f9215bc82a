"""textDocument/hover: signature, doc, how many callers and callees a symbol has,
and "related functions": its nearest neighbours by embedding that are neither
callers nor callees, each a link to its location."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from ...store import SymbolFilter
from ...workspace import Folder, Snapshot, SymRow, name_span
from ..convert import at_position

if TYPE_CHECKING:
    from ...index import Index
    from ..server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")

_DOC_LIMIT = 1500
_NAMES_SHOWN = 5
RELATED_K = 5
RELATED_HEADING = "Related functions"
_RELATED_KINDS = ("function", "method", "constructor")


def nearest(index: Index, sym_id: str, k: int, skip: set[str]) -> list[tuple[str, float]]:
    """(id, cosine distance) of the ``k`` functions nearest to a symbol by its stored
    embedding, leaving out ``skip``; empty while the symbol waits for its embedding.
    Runs in a reader thread."""
    vector = index.store.vectors_of([sym_id]).get(sym_id)
    if vector is None:
        return []
    found = index.store.nearest(vector, "vector", ["id"], k + len(skip) + 1,
                                SymbolFilter(kinds=_RELATED_KINDS))
    out = [(r["id"], float(r["_distance"])) for r in found if r["id"] not in skip]
    return out[:k]


async def related(ls: CodeloupeServer, folder: Folder, snap: Snapshot, sym: SymRow,
                  skip: set[str]) -> list[SymRow]:
    """Nearest functions by embedding as the editor sees them (a symbol deleted in an
    unsaved buffer is not offered; lines come from the live model)."""
    if not ls.options.embeddings or folder.index is None:
        return []
    try:
        hits = await ls.read(nearest, folder.index, sym.id, RELATED_K, skip | {sym.id})
    except Exception as exc:  # no vector column yet, a table being rebuilt
        log.info("codeloupe: related functions of %s failed: %s", sym.id, exc)
        return []
    return [snap.rows[i] for i, _ in hits if i in snap.rows]


def _link(ls: CodeloupeServer, folder: Folder, sym: SymRow) -> str:
    uri = ls.uri_of(folder, sym.path).replace("(", "%28").replace(")", "%29")
    label = sym.qualified_name.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return f"[{label}]({uri}#L{sym.start_line}) `{sym.path}:{sym.start_line}`"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


async def hover(ls: CodeloupeServer, params: types.HoverParams) -> types.Hover | None:
    """Markdown of up to three symbols the cursor names: signature, doc, callers and
    callees; for the first, when a function, its related functions too."""
    found = await at_position(ls, params.text_document.uri, params.position)
    if found is None or not found.targets:
        return None
    graph = found.snap.graph
    least = ls.options.call_hierarchy_min_confidence
    parts: list[str] = []
    for i, sym in enumerate(found.targets[:3]):
        callers = graph.callers(sym.id, least)
        callees = graph.callees(sym.id, least)
        lang = sym.language if sym.language not in ("tsx",) else "typescript"
        block = [f"```{lang}\n{sym.signature or sym.qualified_name}\n```"]
        block.append(f"*{sym.kind}* `{sym.qualified_name}` in `{sym.path}:{sym.start_line}`")
        if sym.doc:
            doc = sym.doc if len(sym.doc) <= _DOC_LIMIT else sym.doc[:_DOC_LIMIT] + " …"
            block.append(doc)
        counts = f"{_plural(len({e.site.caller for e in callers}), 'caller')}, " \
                  f"{_plural(len({e.target for e in callees}), 'callee')}"
        # name candidates the call hierarchy offers beside the view: counted, not listed
        more = [f"+{_plural(n, word)} by name" for n, word in ((graph.counts(sym.id, least)[1], "caller"),
                                                              (graph.counts(sym.id, least, incoming=False)[1], "callee"))
                if n]
        if more:
            counts += f" ({', '.join(more)})"
        names = sorted({found.snap.rows[e.site.caller].qualified_name
                        for e in callers if e.site.caller in found.snap.rows})
        if names:
            shown = ", ".join(f"`{n}`" for n in names[:_NAMES_SHOWN])
            more = f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else ""
            counts += f" · called by {shown}{more}"
        callee_names = sorted({found.snap.rows[e.target].qualified_name
                               for e in callees if e.target in found.snap.rows})
        if callee_names:
            shown = ", ".join(f"`{n}`" for n in callee_names[:_NAMES_SHOWN])
            more = (f" and {len(callee_names) - _NAMES_SHOWN} more"
                    if len(callee_names) > _NAMES_SHOWN else "")
            counts += f" · calls {shown}{more}"
        block.append(counts)
        if i == 0 and sym.kind in _RELATED_KINDS:
            skip = {e.site.caller for e in callers} | {e.target for e in callees}
            near = await related(ls, found.folder, found.snap, sym, skip)
            if near:
                block.append(f"**{RELATED_HEADING}**\n\n"
                             + "\n".join(f"- {_link(ls, found.folder, r)}" for r in near))
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
