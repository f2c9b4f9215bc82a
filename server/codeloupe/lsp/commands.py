"""workspace/executeCommand: ``codeloupe.server.*``. Each command takes one JSON
object as its single argument (see docs/protocol.md); a bad argument is an
InvalidParams error that names it."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcInvalidParams

from .. import __version__
from ..graph import Edge
from .options import (
    CallChainArgs,
    OptionError,
    ReindexArgs,
    SearchArgs,
    StatusArgs,
    camel,
    read_strict,
)
from .server import CodeloupeServer  # resolved at run time: pygls reads the handlers' hints
from .state import FolderState, Snapshot, SymRow

T = TypeVar("T")

SEARCH = "codeloupe.server.search"
STATUS = "codeloupe.server.status"
REINDEX = "codeloupe.server.reindex"
CALL_CHAIN = "codeloupe.server.callChain"


def _args(cls: type[T], command: str, args: tuple[Any, ...], optional: bool = False) -> T:
    if optional and (not args or args == (None,)):
        return cls()
    if len(args) != 1:
        raise JsonRpcInvalidParams(
            f"{command} takes exactly one JSON object as its argument, got {len(args)} arguments")
    try:
        return read_strict(cls, args[0], command)
    except OptionError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None


def _folder(ls: CodeloupeServer, uri: str | None, command: str) -> FolderState:
    try:
        return ls.folder_for(uri)
    except LookupError as exc:
        raise JsonRpcInvalidParams(f"{command}: {exc}") from None


async def search(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """The object ``codeloupe search --json`` prints for one query."""
    from ..languages import UnknownLanguageError
    from ..search import Searcher, SearchError

    a = _args(SearchArgs, SEARCH, args)
    folder = _folder(ls, a.folder, SEARCH)
    if folder.index is None:
        return {"query": a.query.strip(), "results": [], "pending_embeddings": 0}
    await ls.flush()
    mode = a.mode if ls.options.embeddings else "fts"
    try:
        resp = await ls.read(Searcher(folder.index).search, a.query, a.k, lang=a.lang,
                             path=a.path, kind=a.kind, mode=mode)
    except (SearchError, UnknownLanguageError) as exc:
        raise JsonRpcInvalidParams(f"{SEARCH}: {exc}") from None
    return resp.as_dict(snippet=a.snippets)


def _folder_status(folder: FolderState) -> dict[str, object]:
    out: dict[str, object] = {
        "root": str(folder.root),
        "uri": folder.uri,
        "state": folder.state,
        "progress": dict(folder.progress),
        **folder.counts(),
    }
    if folder.error:
        out["error"] = folder.error
    if folder.report:
        out["last_run"] = dict(folder.report)
    return out


async def status(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    a = _args(StatusArgs, STATUS, args, optional=True)
    folders = [_folder(ls, a.folder, STATUS)] if a.folder else list(ls.folders.values())
    out = []
    for folder in folders:
        st = _folder_status(folder)
        if folder.index is not None:
            # the index's own view (files, symbols, pending embeddings, model, index path)
            st.update(await ls.read(folder.index.status))
            st["state"] = folder.state
        out.append(st)
    states = {f["state"] for f in out}
    overall = "ready" if states <= {"ready"} else (
        "failed" if "failed" in states else "indexing")
    return {"version": __version__, "state": overall, "embeddings": ls.options.embeddings,
            "settings": {camel(k): v for k, v in dataclasses.asdict(ls.options).items()},
            "folders": out}


async def reindex(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    from .lifecycle import schedule_index

    a = _args(ReindexArgs, REINDEX, args, optional=True)
    folders = [_folder(ls, a.folder, REINDEX)] if a.folder else list(ls.folders.values())
    tasks = [schedule_index(ls, f) for f in folders]
    if a.wait:
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"scheduled": [str(f.root) for f in folders], "waited": a.wait,
            "folders": [_folder_status(f) for f in folders]}


def _symbols_named(snap: Snapshot, name: str) -> list[SymRow]:
    """Symbols by id, else by qualified name, else by name."""
    if name in snap.rows:
        return [snap.rows[name]]
    for key in ("qualified_name", "name"):
        found = [s for s in snap.rows.values() if getattr(s, key) == name and s.kind != "module"]
        if found:
            return sorted(found, key=lambda s: s.id)
    return []


async def call_chain(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """The shortest call chains from one symbol to another, over the call graph."""
    a = _args(CallChainArgs, CALL_CHAIN, args)
    folder = _folder(ls, a.folder, CALL_CHAIN)
    await ls.settle()
    snap = await ls.read(folder.snapshot)
    ends = {}
    for wire, name in (("from", a.from_), ("to", a.to)):
        ends[wire] = _symbols_named(snap, name)
        if not ends[wire]:
            raise JsonRpcInvalidParams(f"{CALL_CHAIN}: {wire!r}: no symbol {name!r}")
    chains = await ls.read(snap.graph.call_chains, [s.id for s in ends["from"]],
                           [s.id for s in ends["to"]], a.max_depth, a.limit)
    return {
        "from": [s.id for s in ends["from"]],
        "to": [s.id for s in ends["to"]],
        "chains": [[_step(snap, e) for e in chain] for chain in chains],
    }


def _step(snap: Snapshot, edge: Edge) -> dict[str, object]:
    return {
        "caller": edge.site.caller,
        "callee": edge.target,
        "path": edge.site.path,
        "line": edge.site.line,
        "col": edge.site.col,
        "reason": edge.reason,
        "confidence": edge.confidence,
        "ambiguous": edge.ambiguous,
    }


COMMANDS: dict[str, Callable[..., Awaitable[dict[str, object]]]] = {
    SEARCH: search,
    STATUS: status,
    REINDEX: reindex,
    CALL_CHAIN: call_chain,
}
