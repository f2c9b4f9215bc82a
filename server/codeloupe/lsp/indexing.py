"""Index runs of workspace folders: one at a time per folder (``ls.serial``), with
``$/progress``; open (and repair) the index, sync the files, load the model of
the disk into the folder, write open buffers back over it, embed what is pending.
Files changed outside the editor (watched files) start a run after a debounce."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from typing import TYPE_CHECKING

from lsprotocol import types

from ..config import Settings
from ..index import Index
from ..languages import LANGUAGES
from ..pending import about
from ..workspace import FileModel, Folder, rows_and_key, sync_files, track_index
from .buffers import store_buffer
from .embedding import load_model, warm_model
from .heap import freeze_heap, release_heap
from .lenses import schedule_refresh

if TYPE_CHECKING:
    from .server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")

_PROGRESS_EVERY_S = 0.2
_COMMIT_EVERY = 64  # embeddings per commit: how soon a shutdown or cancel takes effect
WATCH_REGISTRATION_ID = "codeloupe/watched-files"
WATCH_DEBOUNCE_S = 0.3  # a branch switch sends many events: one index run for them all


def schedule_index(ls: CodeloupeServer, folder: Folder,
                   report_progress: bool = True) -> asyncio.Future:
    """Index a folder after whatever index job of it runs now."""
    return ls.serial.then(("index", str(folder.root)),
                          lambda: index_folder(ls, folder, report_progress),
                          f"indexing {folder.root}")


class _Progress:
    """``$/progress`` for one index run (when the client supports it), throttled."""

    def __init__(self, ls: CodeloupeServer, folder: Folder) -> None:
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

    def update(self, stage: str, done: int, total: int, eta: float | None = None, /) -> None:
        """Called from the writer thread."""
        self.folder.progress = {"stage": stage, "done": done, "total": total}
        if eta is not None:
            self.folder.progress["eta_s"] = round(eta, 1)
        now = time.monotonic()
        if self.token is None or (now - self.last < _PROGRESS_EVERY_S and done < total):
            return
        self.last = now
        words = {"scan": "scanning", "parse": "parsing", "embed": "embedding"}.get(stage, stage)
        message = f"{words} {done}/{total} {'files' if stage != 'embed' else 'symbols'}"
        if eta is not None and done < total:
            message += f", {about(eta)} left"
        pct = int(done * 100 / total) if total else 0
        value = types.WorkDoneProgressReport(message=message, percentage=pct, cancellable=True)
        self.ls.from_thread(self.ls.work_done_progress.report, self.token, value)

    def end(self, message: str) -> None:
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            self.token = None


async def index_folder(ls: CodeloupeServer, folder: Folder,
                       report_progress: bool = True) -> None:
    """One index run of a folder: open (and repair) its index, sync its files, load the disk
    into its model, write open buffers back over it, embed what is pending. A failure marks
    the folder failed and is reported; a folder removed meanwhile just stops."""
    if ls.stopping.is_set() or _removed(ls, folder):
        return
    progress = _Progress(ls, folder)
    if report_progress:
        await progress.begin()
    try:
        if folder.index is None:
            try:
                folder.index = await ls.write_in(folder, Index, folder.root, _settings(ls, folder))
                track_index(folder.index)
            finally:
                folder.opened.set()  # readers waiting for it go on (and see a failure)
            folder.state = "indexing"  # open: readable from here on (the repair is indexing)
            for note in folder.index.notes:  # a foreign index folder ignored, a rebuild
                ls.message(note, types.MessageType.Info)
            for repaired in await ls.write_in(folder, folder.index.repair):
                ls.message(f"repaired {repaired}", types.MessageType.Info)
        index = folder.index
        folder.state = "indexing"
        report = await ls.write_in(folder, sync_files, index, progress.update)
        key, symbol_rows, ref_rows = await ls.read(rows_and_key, index)
        folder.set_disk(FileModel.group_rows(symbol_rows, ref_rows), key=key)
        folder.loaded.set()
        schedule_refresh(ls)
        await reapply_buffers(ls, folder)
        folder.report = report.as_dict()
        if ls.options.embeddings and not ls.stopping.is_set():
            pending = await ls.read(index.store.count_pending)
            folder.progress = {"stage": "embed", "done": 0, "total": pending}
            folder.state = "embedding"
            if pending:
                await load_model(ls, index)  # not in the writer: a shutdown need not wait for it

            def should_stop() -> bool:
                return ls.stopping.is_set() or progress.cancelled

            if ls.stopping.is_set():
                return
            report = await ls.write_in(folder, index.embed_pending, progress.update, report,
                                       commit_every=_COMMIT_EVERY, should_stop=should_stop,
                                       first=lambda: embed_first(folder))
            folder.report = report.as_dict()
        folder.state = "ready"  # the run is done: say so now, not after the model is warm
        folder.error = None
        if folder.dropped_index:  # settings re-opened the index: free the old one
            folder.dropped_index = False
            release_heap(ls)
        else:
            freeze_heap()
        if ls.options.embeddings and not ls.stopping.is_set():
            warm_model(ls, folder, index)  # search needs the model: load it now, not on the first query
        if not ls.stopping.is_set() and not _removed(ls, folder):
            warm_graph(ls, folder)  # hover and the call hierarchy need the map: likewise
        done = f"{report.files} files, {report.symbols} symbols"
        if report.pending_embeddings:
            done += f", {report.pending_embeddings} waiting for an embedding"
        progress.end(done)
    except Exception as exc:
        if ls.stopping.is_set() or _removed(ls, folder):
            # shutting down, or the folder was removed from the workspace meanwhile: its
            # writer takes no more work; nothing failed
            if not ls.stopping.is_set():
                progress.end("stopped: the folder was removed from the workspace")
            return
        folder.state = "failed"
        folder.error = str(exc)
        log.exception("codeloupe: indexing %s failed", folder.root)
        ls.message(f"indexing {folder.root} failed: {exc}", types.MessageType.Error)
        progress.end(f"failed: {exc}")


def warm_graph(ls: CodeloupeServer, folder: Folder) -> None:
    """Make the folder's call graph in the background (loaded from the one saved beside
    the index, else built), so that the first hover or call hierarchy after "ready" does
    not wait for it (0.8 s at the stdlib's 19k symbols, bench/bench_scale.py), then ready
    for its first edit (``GraphCache.ready_for_edits``). A request that comes meanwhile
    waits for the same work, never a second copy of it."""
    if folder.current_snapshot() is not None:
        return

    update = asyncio.ensure_future(ls.read(folder.snapshot))
    entry = (folder.generation, update)
    ls.graph_updates[folder.uri] = entry  # requests wait for it (CodeloupeServer.snapshot)

    def forget(_: asyncio.Future) -> None:
        if ls.graph_updates.get(folder.uri) is entry:
            del ls.graph_updates[folder.uri]

    update.add_done_callback(forget)

    async def settle() -> None:
        try:
            await update
            if ls.stopping.is_set() or _removed(ls, folder):
                return
            await ls.read(folder.graphs.ready_for_edits)  # then the first keystroke is cheap too
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the first request (or edit) that needs it does it again
            log.info("codeloupe: making the call graph of %s failed: %s", folder.root, exc)
            return
        if not ls.stopping.is_set() and not _removed(ls, folder):
            freeze_heap()

    # a removed folder's memory is freed once this has ended too (features.lifecycle)
    folder.graph_warming = asyncio.ensure_future(settle())


def embed_first(folder: Folder) -> list[str]:
    """The files whose symbols are embedded before the rest: those open in the editor, then
    the files that call into them or that they call, by the folder's current call graph
    (the last one made, a little behind the buffers at most: it is never built for this).
    Asked before each page of an index run, so a file opened meanwhile comes next."""
    opened = list(folder.live)
    snapshot = folder.graphs.latest()
    if not opened or snapshot is None:
        return opened
    return opened + snapshot.graph.neighbour_files(opened)


def _removed(ls: CodeloupeServer, folder: Folder) -> bool:
    return not ls.has_folder(folder)


def _settings(ls: CodeloupeServer, folder: Folder) -> Settings:
    settings = ls.options.settings()
    if settings.index_uri and len(ls.folders) > 1:
        # one index per folder, side by side under the configured location
        digest = hashlib.blake2b(str(folder.root).encode(), digest_size=4).hexdigest()
        settings.index_uri = f"{settings.index_uri.rstrip('/')}/{folder.root.name}-{digest}"
    return settings


async def reapply_buffers(ls: CodeloupeServer, folder: Folder) -> None:
    """A disk sync wrote what is on disk: write open buffers over it again."""
    for rel, model in list(folder.live.items()):
        uri = ls.uri_of(folder, rel)
        doc = ls.workspace.text_documents.get(uri)
        if doc is not None:
            store_buffer(ls, folder, uri, rel, doc.source, model.version)


async def register_file_watchers(ls: CodeloupeServer) -> bool:
    """Ask the client to watch every file of a supported language (dynamic registration)."""
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps else None
    if not (watched and watched.dynamic_registration):
        return False
    extensions = sorted({ext.lstrip(".") for spec in LANGUAGES for ext in spec.extensions})
    pattern = "**/*.{" + ",".join(extensions) + "}"
    try:
        await ls.client_answer(ls.client_register_capability_async(types.RegistrationParams(registrations=[
            types.Registration(
                id=WATCH_REGISTRATION_ID,
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=pattern)]),
            )
        ])))
    except Exception as exc:
        log.warning("codeloupe: the client did not register file watchers: %s", exc)
        return False
    return True


def files_changed(ls: CodeloupeServer, changes: list[types.FileEvent]) -> None:
    """Re-index the folders whose files changed on disk (after a short debounce). The
    run is the same incremental sync as at start-up: it honours .gitignore and the
    include/exclude globs, re-parses only changed files and writes open buffers back
    over what it read. A file open in the editor is left to didSave/didClose."""
    if ls.stopping.is_set() or ls.loop is None:
        return
    folders: dict[str, Folder] = {}
    for change in changes:
        located = ls.locate(change.uri)
        if located is None:
            continue
        folder, rel = located
        if rel in folder.live:
            continue
        folders[str(folder.root)] = folder
    for root, folder in folders.items():

        def fire(folder: Folder = folder) -> None:
            if not ls.stopping.is_set():
                schedule_index(ls, folder, report_progress=False)

        ls.debounce.call_later(("watch", root), WATCH_DEBOUNCE_S, fire)
