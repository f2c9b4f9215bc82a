"""Lifecycle: initialize (options, folders), initialized (settings, the first index
runs, file watchers), settings and workspace folders that change, shutdown."""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import TYPE_CHECKING

from lsprotocol import types

from ...workspace import Folder, Jobs
from ..heap import release_dropped
from ..indexing import register_file_watchers, schedule_index
from ..options import ServerOptions, camel, read_lenient
from ..pygls_compat import use_buffer_documents
from ..server import uri_to_path

if TYPE_CHECKING:
    from ..server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")

_SHUTDOWN_WAIT_S = 30.0


ENGINE_FIELDS = ("model", "embedding_backend", "embedding_device", "index_uri", "include", "exclude", "max_file_bytes",
                 "index_generated", "workers")
SECTION = "codeloupe"


def apply_options(ls: CodeloupeServer, init: object, section: object = None) -> list[str]:
    """Options from initializationOptions, then the client's ``codeloupe`` settings
    section over them, then the command line's defaults where neither says anything.
    Returns the problems, each naming its field."""
    if isinstance(init, dict) and isinstance(init.get(SECTION), dict):
        init = init[SECTION]  # {"codeloupe": {...}} as VS Code settings sections nest
    options, problems = read_lenient(ServerOptions, init)
    raw: dict = dict(init) if isinstance(init, dict) else {}
    if isinstance(section, dict) and section:
        from_settings, more = read_lenient(ServerOptions, section, what=SECTION,
                                           report_unknown=False)
        problems += more
        for key in section:
            name = next((f for f in options.__dataclass_fields__ if camel(f) == key), None)
            if name is not None:
                setattr(options, name, getattr(from_settings, name))
        raw.update(section)
    for key, value in ls.overrides.items():
        if value is not None and camel(key) not in raw:
            setattr(options, key, value)
    ls.options = options
    level = options.logging_level if "logLevel" in raw else None
    if level is not None:
        logging.getLogger("codeloupe").setLevel(level)
    return problems


def initialize(ls: CodeloupeServer, params: types.InitializeParams) -> None:
    """Read the options and take the workspace folders (the root URI when the client names
    none); indexing starts at ``initialized``."""
    ls.loop = asyncio.get_running_loop()
    use_buffer_documents(ls.workspace)  # pygls made it just now
    ls.init_options = params.initialization_options
    ls.option_problems = apply_options(ls, ls.init_options)
    folders = list(params.workspace_folders or [])
    if not folders and params.root_uri:
        folders = [types.WorkspaceFolder(uri=params.root_uri, name="root")]
    for wf in folders:
        add_folder(ls, wf)


def add_folder(ls: CodeloupeServer, wf: types.WorkspaceFolder) -> Folder | None:
    """Take a workspace folder; None when it is not a local folder (a problem to report) or
    is taken already."""
    path = uri_to_path(wf.uri)
    if path is None or not path.is_dir():
        ls.option_problems.append(f"workspace folder {wf.uri} is not a local folder; skipped")
        return None
    root = path.resolve()
    if str(root) in ls.folders:
        return None
    folder = Folder(uri=wf.uri, root=root)
    ls.folders[str(root)] = folder
    return folder


def did_change_workspace_folders(ls: CodeloupeServer,
                                 params: types.DidChangeWorkspaceFoldersParams) -> None:
    """Folders added are indexed like at start-up; folders removed are forgotten
    (their index stays on disk for next time)."""
    removed: list[tuple[Folder, Jobs | None, asyncio.Future | None]] = []
    for wf in params.event.removed or []:
        path = uri_to_path(wf.uri)
        folder = ls.folders.pop(str(path.resolve()), None) if path else None
        if folder is not None:
            writer = folder.close()
            ls.retired = [w for w in ls.retired if w.busy] + ([writer] if writer else [])
            for rel in list(folder.live):
                ls.serial.forget(("buffer", ls.uri_of(folder, rel)))
                ls.trees.pop(ls.uri_of(folder, rel), None)
            run = ls.serial.latest(("index", str(folder.root)))
            ls.serial.forget(("index", str(folder.root)))
            removed.append((folder, writer, run))
    if removed and not ls.stopping.is_set():
        asyncio.ensure_future(_release_removed(ls, removed))
    for wf in params.event.added or []:
        folder = add_folder(ls, wf)
        if folder is not None and not ls.stopping.is_set():
            schedule_index(ls, folder)
    for problem in ls.option_problems:
        ls.message(problem)
    ls.option_problems = []


async def _release_removed(ls: CodeloupeServer,
                           removed: list[tuple[Folder, Jobs | None, asyncio.Future | None]]) -> None:
    """Once the work of removed folders has ended (their index run, model load, the call
    graph made once ready and queued writes), free what they held (``release_dropped``:
    once nothing holds their indexes)."""
    loop = asyncio.get_running_loop()
    dropped: list[weakref.ref] = []
    while removed:
        folder, writer, task = removed.pop()
        waits = [f for f in (task, folder.warming, folder.graph_warming) if f is not None]
        while waits:  # the run may start a model load or the graph's as it ends
            await asyncio.gather(*waits, return_exceptions=True)
            waits = [f for f in (folder.warming, folder.graph_warming)
                     if f is not None and not f.done()]
        if writer is not None:
            await loop.run_in_executor(None, writer.shutdown, True)  # queued writes run
        if folder.index is not None:  # the run may have opened it meanwhile
            dropped.append(weakref.ref(folder.index))
        del folder, writer, task, waits  # this frame must not keep the folder alive
    if not ls.stopping.is_set():
        await release_dropped(ls, dropped)


async def pull_settings(ls: CodeloupeServer) -> object:
    """The client's ``codeloupe`` settings section (workspace/configuration), if any."""
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return None
    try:
        [section] = await ls.client_answer(ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])))
    except Exception as exc:
        log.info("codeloupe: workspace/configuration failed: %s", exc)
        return None
    return section


async def initialized(ls: CodeloupeServer, params: types.InitializedParams) -> None:
    """Pull the client's settings, report the options' problems, start every folder's index
    run and ask for file watchers."""
    section = await pull_settings(ls)
    if section:
        ls.option_problems += apply_options(ls, ls.init_options, section)
    for problem in ls.option_problems:
        ls.message(problem)
    ls.option_problems = []
    for folder in ls.folders.values():
        schedule_index(ls, folder)
    await register_file_watchers(ls)


async def did_change_configuration(ls: CodeloupeServer,
                                   params: types.DidChangeConfigurationParams) -> None:
    """Settings changed in the client: pull them again. A change of what is indexed
    or how (model, index location, globs) re-opens the folders' indexes and brings
    them up to date; the rest applies at once."""
    section = await pull_settings(ls)
    if section is None and isinstance(params.settings, dict):
        section = params.settings.get(SECTION)
    before = {f: getattr(ls.options, f) for f in ENGINE_FIELDS}
    embeddings_before = ls.options.embeddings
    for problem in apply_options(ls, ls.init_options, section):
        ls.message(problem)
    reopen = any(getattr(ls.options, f) != before[f] for f in ENGINE_FIELDS)
    if reopen or (ls.options.embeddings and not embeddings_before):
        for folder in ls.folders.values():
            if reopen:
                folder.reopen()  # index_folder opens it again with the new settings
            schedule_index(ls, folder)  # (and embeds what is pending when turned on)


async def shutdown(ls: CodeloupeServer, params: None) -> None:
    """Stop background work at a safe point: pending debounced work is dropped,
    queued jobs are cancelled, a running embedding stops at its next commit, and the
    write that runs now is waited for (every write leaves the index consistent).
    Model loads, reads and parses are not waited for, so ``exit`` can be prompt."""
    ls.stopping.set()
    ls.debounce.cancel_all()  # unsaved buffers are not the files: nothing is lost
    ls.serial.cancel("buffer")
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    done = await loop.run_in_executor(None, ls.stop_work, _SHUTDOWN_WAIT_S)
    if not done:
        log.warning("codeloupe: an index write did not finish within %.0fs", _SHUTDOWN_WAIT_S)
    log.info("codeloupe: background work stopped in %.2fs", time.monotonic() - started)
