"""textDocument/documentSymbol (hierarchical) and workspace/symbol (fuzzy on names;
a natural-language query that matches no name falls back to semantic search)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from ...workspace import Folder, SymRow
from ..convert import is_file_unit, location, selection_range, symbol_kind, symbol_range

if TYPE_CHECKING:
    from ..server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")

WORKSPACE_SYMBOL_LIMIT = 100
SEMANTIC_FALLBACK_K = 20


async def document_symbol(
    ls: CodeloupeServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol] | list[types.SymbolInformation] | None:
    """The document's symbols: nested when the client supports it, else a flat list with
    container names."""
    ctx = await ls.document(params.text_document.uri)
    if ctx is None:
        return None
    folder, rel, fm = ctx.folder, ctx.rel, ctx.model
    if fm is None:
        return []
    lines = ls.lines(folder, rel)
    syms = [s for s in fm.symbols if not is_file_unit(s)]
    caps = ls.client_capabilities.text_document
    hierarchical = bool(caps and caps.document_symbol
                        and caps.document_symbol.hierarchical_document_symbol_support)
    if not hierarchical:
        by_id = {s.id: s for s in fm.symbols}
        return [
            types.SymbolInformation(
                name=s.name, kind=symbol_kind(s), location=location(ls, folder, s, lines),
                container_name=by_id[s.parent].qualified_name
                if s.parent in by_id and not is_file_unit(by_id[s.parent]) else None,
            )
            for s in syms
        ]
    nodes: dict[str, types.DocumentSymbol] = {}
    roots: list[types.DocumentSymbol] = []
    for s in syms:  # source order: a parent comes before its children
        rng = symbol_range(ls, lines, s)
        sel = selection_range(ls, lines, s)
        if not _within(sel, rng):
            sel = types.Range(start=rng.start, end=rng.start)
        node = types.DocumentSymbol(
            name=s.name, kind=symbol_kind(s), range=rng, selection_range=sel,
            detail=s.signature or None, children=[],
        )
        nodes[s.id] = node
        parent = nodes.get(s.parent) if s.parent else None
        if parent is not None and _within(rng, parent.range):
            parent.children.append(node)  # type: ignore[union-attr]
        else:
            roots.append(node)
    return roots


def _within(inner: types.Range, outer: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(outer.start) <= key(inner.start) and key(inner.end) <= key(outer.end)


def fuzzy_score(query: str, name: str) -> float:
    """0 when the query's letters are not in the name in order; higher is better:
    exact, then prefix, then substring, then a subsequence (tighter is better)."""
    q, n = query.lower(), name.lower()
    if not q:
        return 0.0
    if q == n:
        return 100.0
    if n.startswith(q):
        return 80.0 - len(n) * 0.01
    pos = n.find(q)
    if pos >= 0:
        return 60.0 - pos * 0.1 - len(n) * 0.01
    i = 0
    first = -1
    for j, ch in enumerate(n):
        if i < len(q) and ch == q[i]:
            if first < 0:
                first = j
            i += 1
    if i < len(q):
        return 0.0
    return 30.0 - (len(n) - len(q)) * 0.1 - first * 0.05


async def workspace_symbol(
    ls: CodeloupeServer, params: types.WorkspaceSymbolParams
) -> list[types.WorkspaceSymbol]:
    """Symbols of every folder whose name fuzzily matches the query, best first; a query
    with spaces that matches none falls back to semantic search."""
    await ls.settle()
    query = params.query.strip()
    scored: list[tuple[float, Folder, SymRow]] = []
    compact = query.replace(" ", "")
    for folder in ls.folders.values():
        for fm in folder.files():
            for s in fm.symbols:
                if is_file_unit(s):
                    continue
                score = max(fuzzy_score(compact, s.name), fuzzy_score(compact, s.qualified_name) - 5)
                if score > 0 or not compact:
                    scored.append((score, folder, s))
    scored.sort(key=lambda t: (-t[0], t[2].path, t[2].start_line))
    found = scored[:WORKSPACE_SYMBOL_LIMIT]
    if not found and " " in query:
        found = await _semantic(ls, query)
    return [_workspace_symbol(ls, folder, s) for _, folder, s in found]


def _workspace_symbol(ls: CodeloupeServer, folder: Folder, s: SymRow) -> types.WorkspaceSymbol:
    parent = s.qualified_name.rsplit(".", 1)[0] if "." in s.qualified_name else None
    return types.WorkspaceSymbol(
        name=s.name, kind=symbol_kind(s), location=location(ls, folder, s),
        container_name=parent, data={"id": s.id},
    )


async def _semantic(ls: CodeloupeServer, query: str) -> list[tuple[float, Folder, SymRow]]:
    if not ls.options.embeddings:
        return []
    out: list[tuple[float, Folder, SymRow]] = []
    for folder in ls.folders.values():
        if folder.index is None:
            continue
        try:
            resp = await ls.read(ls.searcher(folder).search, query, SEMANTIC_FALLBACK_K)
        except Exception as exc:  # a query the full-text parser rejects, a model error
            log.warning("codeloupe: semantic workspace/symbol failed: %s", exc)
            continue
        rows = {s.id: s for fm in folder.files() for s in fm.symbols}
        for hit in resp.results:
            sym = rows.get(hit.id)
            if sym is not None and not is_file_unit(sym):
                out.append((hit.score, folder, sym))
    out.sort(key=lambda t: -t[0])
    return out
