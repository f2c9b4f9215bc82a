"""Initialize, index every workspace folder (symbols first, then embeddings, with
``$/progress``), shut down cleanly."""

from __future__ import annotations

import asyncio
import gc
import hashlib
import logging
import time
from typing import TYPE_CHECKING

from lsprotocol import types

from ..config import Settings
from ..graph_store import store_key
from ..index import Index
from .documents import use_buffer_documents
from .options import ServerOptions, camel, read_lenient
from .state import FileModel, FolderState

if TYPE_CHECKING:
    from .server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")

_PROGRESS_EVERY_S = 0.2
_COMMIT_EVERY = 64  # embeddings per commit: how soon a shutdown or cancel takes effect
_SHUTDOWN_WAIT_S = 30.0


ENGINE_FIELDS = ("model", "embedding_backend", "index_uri", "include", "exclude", "max_file_bytes", "workers")
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
    ls.loop = asyncio.get_running_loop()
    use_buffer_documents(ls.workspace)  # pygls made it just now
    ls.init_options = params.initialization_options
    ls.option_problems = apply_options(ls, ls.init_options)
    folders = list(params.workspace_folders or [])
    if not folders and params.root_uri:
        folders = [types.WorkspaceFolder(uri=params.root_uri, name="root")]
    for wf in folders:
        add_folder(ls, wf)


def add_folder(ls: CodeloupeServer, wf: types.WorkspaceFolder) -> FolderState | None:
    from .server import uri_to_path

    path = uri_to_path(wf.uri)
    if path is None or not path.is_dir():
        ls.option_problems.append(f"workspace folder {wf.uri} is not a local folder; skipped")
        return None
    root = path.resolve()
    if str(root) in ls.folders:
        return None
    folder = FolderState(uri=wf.uri, root=root)
    ls.folders[str(root)] = folder
    return folder


def did_change_workspace_folders(ls: CodeloupeServer,
                                 params: types.DidChangeWorkspaceFoldersParams) -> None:
    """Folders added are indexed like at start-up; folders removed are forgotten
    (their index stays on disk for next time)."""
    from .server import uri_to_path

    for wf in params.event.removed or []:
        path = uri_to_path(wf.uri)
        folder = ls.folders.pop(str(path.resolve()), None) if path else None
        if folder is not None:
            writer = folder.close()
            ls.retired = [w for w in ls.retired if w.busy] + ([writer] if writer else [])
            for rel in list(folder.live):
                ls.buffer_tasks.pop(ls.uri_of(folder, rel), None)
                ls.trees.pop(ls.uri_of(folder, rel), None)
    for wf in params.event.added or []:
        folder = add_folder(ls, wf)
        if folder is not None and not ls.stopping.is_set():
            schedule_index(ls, folder)
    for problem in ls.option_problems:
        ls.message(problem)
    ls.option_problems = []


async def pull_settings(ls: CodeloupeServer) -> object:
    """The client's ``codeloupe`` settings section (workspace/configuration), if any."""
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return None
    try:
        [section] = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
    except Exception as exc:
        log.info("codeloupe: workspace/configuration failed: %s", exc)
        return None
    return section


async def initialized(ls: CodeloupeServer, params: types.InitializedParams) -> None:
    section = await pull_settings(ls)
    if section:
        ls.option_problems += apply_options(ls, ls.init_options, section)
    for problem in ls.option_problems:
        ls.message(problem)
    ls.option_problems = []
    for folder in ls.folders.values():
        schedule_index(ls, folder)
    from .sync import register_file_watchers

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
                folder.index = None  # index_folder opens it again with the new settings
            schedule_index(ls, folder)  # (and embeds what is pending when turned on)


def schedule_index(ls: CodeloupeServer, folder: FolderState,
                   report_progress: bool = True) -> asyncio.Future:
    """Index a folder after whatever index job of it runs now."""
    previous = ls.index_tasks.get(str(folder.root))

    async def run() -> None:
        if previous is not None and not previous.done():
            await asyncio.gather(previous, return_exceptions=True)
        await index_folder(ls, folder, report_progress)

    task = asyncio.ensure_future(run())
    ls.index_tasks[str(folder.root)] = task
    return task


class _Progress:
    """``$/progress`` for one index run (when the client supports it), throttled."""

    def __init__(self, ls: CodeloupeServer, folder: FolderState) -> None:
        self.ls = ls
        self.folder = folder
        self.token: str | None = None
        self.last = 0.0

    async def begin(self) -> None:
        token = await self.ls.new_progress_token("index")
        if token is None:
            return
        self.token = token
        self.ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=f"codeloupe: indexing {self.folder.root.name}", cancellable=True,
            message="scanning", percentage=0))

    @property
    def cancelled(self) -> bool:
        if self.token is None:
            return False
        fut = self.ls.work_done_progress.tokens.get(self.token)
        return fut is not None and fut.cancelled()

    def update(self, stage: str, done: int, total: int) -> None:
        """Called from the writer thread."""
        self.folder.progress = {"stage": stage, "done": done, "total": total}
        now = time.monotonic()
        if self.token is None or (now - self.last < _PROGRESS_EVERY_S and done < total):
            return
        self.last = now
        words = {"scan": "scanning", "parse": "parsing", "embed": "embedding"}.get(stage, stage)
        message = f"{words} {done}/{total} {'files' if stage != 'embed' else 'symbols'}"
        pct = int(done * 100 / total) if total else 0
        value = types.WorkDoneProgressReport(message=message, percentage=pct, cancellable=True)
        self.ls.from_thread(self.ls.work_done_progress.report, self.token, value)

    def end(self, message: str) -> None:
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            self.token = None


async def index_folder(ls: CodeloupeServer, folder: FolderState,
                       report_progress: bool = True) -> None:
    if ls.stopping.is_set():
        return
    progress = _Progress(ls, folder)
    if report_progress:
        await progress.begin()
    try:
        if folder.index is None:
            folder.index = await ls.write_in(folder, Index, folder.root, _settings(ls, folder))
            if folder.index.store.rebuilt_reason:
                ls.message(folder.index.store.rebuilt_reason, types.MessageType.Info)
        index = folder.index
        folder.state = "indexing"
        report = await ls.write_in(folder, _sync_files, index, progress.update)
        key, symbol_rows, ref_rows = await ls.read(_rows_and_key, index)
        folder.set_disk(FileModel.group_rows(symbol_rows, ref_rows), key=key)
        from .lens import schedule_refresh

        schedule_refresh(ls)
        await reapply_buffers(ls, folder)
        folder.report = report.as_dict()
        if ls.options.embeddings and not ls.stopping.is_set():
            folder.state = "embedding"
            if await ls.read(index.store.count_pending):
                await load_model(ls, index)  # not in the writer: a shutdown need not wait for it

            def should_stop() -> bool:
                return ls.stopping.is_set() or progress.cancelled

            if ls.stopping.is_set():
                return
            report = await ls.write_in(folder, index.embed_pending, progress.update, report,
                                       commit_every=_COMMIT_EVERY, should_stop=should_stop)
            folder.report = report.as_dict()
        folder.state = "ready"  # the run is done: say so now, not after the model is warm
        folder.error = None
        freeze_heap()
        if ls.options.embeddings and not ls.stopping.is_set():
            warm_model(ls, index)  # search needs the model: load it now, not on the first query
        done = f"{report.files} files, {report.symbols} symbols"
        if report.pending_embeddings:
            done += f", {report.pending_embeddings} waiting for an embedding"
        progress.end(done)
    except Exception as exc:
        if ls.stopping.is_set():
            return  # shutting down: the executors take no more work; nothing failed
        folder.state = "failed"
        folder.error = str(exc)
        log.exception("codeloupe: indexing %s failed", folder.root)
        ls.message(f"indexing {folder.root} failed: {exc}", types.MessageType.Error)
        progress.end(f"failed: {exc}")


async def load_model(ls: CodeloupeServer, index: Index) -> None:
    """Load an index's embedding model in the loader thread: seconds of work that
    holds no lock on the index, so a shutdown does not wait for it."""
    await ls.load(lambda: index.embedder)


def warm_model(ls: CodeloupeServer, index: Index) -> None:
    """Load the model in the background (the index run has said "ready" already),
    then freeze the heap again with the model in it."""

    def done(fut: asyncio.Future) -> None:
        if fut.cancelled():
            return
        if fut.exception() is not None:
            log.warning("codeloupe: loading the embedding model failed: %s", fut.exception())
        elif not ls.stopping.is_set():
            freeze_heap()

    asyncio.ensure_future(load_model(ls, index)).add_done_callback(done)


def freeze_heap() -> None:
    """Move every object alive now (the model, the indexes, the disk model) out of
    the garbage collector's reach. With the model loaded the heap holds about half
    a million objects and a full collection stops the server for 0.5 s; typing
    creates enough surviving objects to trigger one every few dozen keystrokes.
    Objects allocated later are collected as usual (and frozen ones still freed
    when their last reference goes)."""
    gc.collect(1)  # the young generations only: cheap, and little garbage gets frozen
    gc.freeze()


def _settings(ls: CodeloupeServer, folder: FolderState) -> Settings:
    settings = ls.options.settings()
    if settings.index_uri and len(ls.folders) > 1:
        # one index per folder, side by side under the configured location
        digest = hashlib.blake2b(str(folder.root).encode(), digest_size=4).hexdigest()
        settings.index_uri = f"{settings.index_uri.rstrip('/')}/{folder.root.name}-{digest}"
    return settings


def _rows_and_key(index: Index) -> tuple[str | None, list[dict], list[dict]]:
    """Every symbol and reference row, with the index's ``store_key`` when no write
    came between reading it and the rows (it names the saved call graph of exactly
    these rows); None when one did or the key cannot be read."""
    try:
        key: str | None = store_key(index.store)
    except Exception as exc:  # noqa: BLE001 - the saved graph is a cache
        log.info("codeloupe: cannot read the index state of %s: %s", index.root, exc)
        key = None
    symbol_rows, ref_rows = index.load_rows()
    if key is not None:
        try:
            if store_key(index.store) != key:
                key = None
        except Exception:  # noqa: BLE001
            key = None
    return key, symbol_rows, ref_rows


def _sync_files(index: Index, progress):  # noqa: ANN001, ANN202 - runs in the writer
    with index.write_lock(wait=False) as locked:
        if not locked:
            log.warning("codeloupe: another process is indexing %s; answering from the index "
                        "as it is", index.root)
            from ..index import IndexReport

            return IndexReport()
        return index.sync_files(progress)


async def reapply_buffers(ls: CodeloupeServer, folder: FolderState) -> None:
    """A disk sync wrote what is on disk: write open buffers over it again."""
    from .sync import store_buffer

    for rel, model in list(folder.live.items()):
        uri = ls.uri_of(folder, rel)
        doc = ls.workspace.text_documents.get(uri)
        if doc is not None:
            store_buffer(ls, folder, uri, rel, doc.source, model.version)


async def shutdown(ls: CodeloupeServer, params: None) -> None:
    """Stop background work at a safe point: pending debounced work is dropped,
    queued jobs are cancelled, a running embedding stops at its next commit, and the
    write that runs now is waited for (every write leaves the index consistent).
    Model loads, reads and parses are not waited for, so ``exit`` can be prompt."""
    ls.stopping.set()
    if ls.lens_refresh is not None:
        ls.lens_refresh.cancel()
    for timers in (ls.embed_timers, ls.watch_timers):
        for timer in timers.values():
            timer.cancel()
        timers.clear()
    for timer, _ in ls.write_timers.values():
        timer.cancel()  # unsaved buffers are not the files: nothing is lost
    ls.write_timers.clear()
    for task in ls.buffer_tasks.values():
        task.cancel()
    ls.buffer_tasks.clear()
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    done = await loop.run_in_executor(None, ls.stop_work, _SHUTDOWN_WAIT_S)
    if not done:
        log.warning("codeloupe: an index write did not finish within %.0fs", _SHUTDOWN_WAIT_S)
    log.info("codeloupe: background work stopped in %.2fs", time.monotonic() - started)
