"""Document sync: open buffers are re-extracted on every change and become the
model at once; the store follows in the writer, and changed symbols are
re-embedded after a per-document debounce.

pygls keeps the buffers' text (incremental edits, positions in the negotiated
encoding). Each open buffer also keeps its syntax tree (``codeloupe.buffer.DocTree``,
touched only by the parser thread): a change becomes one ``Tree.edit`` and a
re-parse with the old tree, and only the top-level definition it fell into is
extracted again. A change that a newer one has already overtaken is edited into
the tree but not parsed or extracted, and a re-extraction computed for an older
version than the buffer's is dropped."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING

from lsprotocol import types

from ..buffer import DocTree, update
from ..languages import LANGUAGES, language_for_path
from ..safeio import read_repo_file
from .state import FileModel, FolderState, Snapshot
from .trace import mark

if TYPE_CHECKING:
    from ..index import Index
    from ..model import FileExtraction
    from .server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")

WATCH_REGISTRATION_ID = "codeloupe/watched-files"
WATCH_DEBOUNCE_S = 0.3  # a branch switch sends many events: one index run for them all
WRITE_DEBOUNCE_S = 0.25  # quiet time before an edited buffer's rows are written
OPTIMIZE_EVERY = 50  # buffer writes between two maybe_optimize() checks
EMBED_COMMIT_EVERY = 16  # re-embedded symbols per commit: how soon a shutdown takes effect


def did_open(ls: CodeloupeServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.trees.pop(params.text_document.uri, None)  # opened again: parse from scratch
    ls.too_large.pop(params.text_document.uri, None)
    _schedule(ls, params.text_document.uri)


def did_change(ls: CodeloupeServer, params: types.DidChangeTextDocumentParams) -> None:
    _schedule(ls, params.text_document.uri)


def did_save(ls: CodeloupeServer, params: types.DidSaveTextDocumentParams) -> None:
    located = ls.locate(params.text_document.uri)
    if located is None or ls.stopping.is_set():
        return
    folder, rel = located
    _after_buffer(ls, params.text_document.uri, _refresh_from_disk(ls, folder, rel, keep_live=True))


def did_close(ls: CodeloupeServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    located = ls.locate(uri)
    if located is None or ls.stopping.is_set():
        return
    folder, rel = located
    folder.drop_live(rel)
    ls.trees.pop(uri, None)
    ls.buffer_lines.pop(uri, None)
    ls.too_large.pop(uri, None)
    ls.too_large_told.discard(uri)
    timer = ls.embed_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    pending = ls.write_timers.pop(uri, None)
    if pending is not None:
        pending[0].cancel()
    _after_buffer(ls, uri, _refresh_from_disk(ls, folder, rel, keep_live=False))


def _after_buffer(ls: CodeloupeServer, uri: str, coro) -> None:  # noqa: ANN001
    previous = ls.buffer_tasks.get(uri)

    async def run() -> None:
        if previous is not None and not previous.done():
            await asyncio.gather(previous, return_exceptions=True)
        await coro

    task = asyncio.ensure_future(run())
    ls.buffer_tasks[uri] = task
    task.add_done_callback(lambda t: _forget(ls, uri, t))


def _forget(ls: CodeloupeServer, uri: str, task: asyncio.Future) -> None:
    if ls.buffer_tasks.get(uri) is task:
        del ls.buffer_tasks[uri]
    if not task.cancelled() and task.exception() is not None:
        log.error("codeloupe: updating %s failed: %s", uri, task.exception())


def _schedule(ls: CodeloupeServer, uri: str) -> None:
    located = ls.locate(uri)
    if located is None or ls.stopping.is_set():
        return
    folder, rel = located
    doc = ls.workspace.get_text_document(uri)
    version, text = doc.version, doc.source
    language = language_for_path(rel)
    if language is None:
        return
    if _over_limit(text, ls.options.max_file_bytes):
        _set_aside(ls, folder, uri, rel, text)
        return
    if ls.too_large.pop(uri, None) is not None:
        log.info("codeloupe: %s is back under maxFileBytes: parsed again", rel)
    tree = ls.trees.get(uri)
    if tree is None or tree.language != language:
        tree = ls.trees[uri] = DocTree(language)
    tree.latest = version
    # Each change gets its own task; an older one that finishes late is dropped.
    task = asyncio.ensure_future(_extract(ls, folder, uri, rel, text, version, tree))
    ls.buffer_tasks[uri] = task
    task.add_done_callback(lambda t: _forget(ls, uri, t))


def _over_limit(text: str, limit: int) -> bool:
    """Whether a buffer's UTF-8 is over ``limit`` bytes, without encoding it when its
    length alone tells (a keystroke in a 20 MB buffer must stay cheap)."""
    n = len(text)
    if n > limit:
        return True  # at least a byte a character
    if n * 4 <= limit or text.isascii():
        return False
    return len(text.encode("utf-8", "surrogatepass")) > limit


def _set_aside(ls: CodeloupeServer, folder: FolderState, uri: str, rel: str, text: str) -> None:
    """A buffer over maxFileBytes, as the disk scan skips such a file: pygls keeps its
    text (so later edits still apply), but it is not parsed, extracted, written to
    the store or embedded, and the features answer nothing for it. The first time
    (per open document) the user is told why; an earlier, smaller version of it in
    the model goes back to what is on disk."""
    if uri in ls.too_large:
        return  # set aside already: nothing kept to drop, and the user knows
    size = len(text.encode("utf-8", "surrogatepass"))
    ls.too_large[uri] = size
    ls.trees.pop(uri, None)
    ls.buffer_lines.pop(uri, None)
    timer = ls.embed_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()
    pending = ls.write_timers.pop(uri, None)
    if pending is not None:
        pending[0].cancel()
    if rel in folder.live:
        _after_buffer(ls, uri, _refresh_from_disk(ls, folder, rel, keep_live=False))
    if uri not in ls.too_large_told:
        ls.too_large_told.add(uri)
        limit = ls.options.max_file_bytes
        ls.message(f"{rel} is {_size(size)}, over the {_size(limit)} limit (maxFileBytes): "
                   "it is not parsed, indexed or searched while it is this large")


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def _current_version(ls: CodeloupeServer, uri: str) -> int | None:
    doc = ls.workspace.text_documents.get(uri)
    return doc.version if doc is not None else None


async def _extract(ls: CodeloupeServer, folder: FolderState, uri: str, rel: str, text: str,
                   version: int | None, tree: DocTree) -> None:
    made = await ls.parse(_update_model, tree, rel, text, version)
    mark("extract-back")
    if made is None or _current_version(ls, uri) != version:
        return  # a newer version arrived meanwhile: its own task wins
    extraction, model = made
    folder.set_live(model)
    _graph_now(ls, folder)
    store_buffer(ls, folder, uri, rel, text, version, extraction)


def _update_model(tree: DocTree, rel: str, text: str,
                  version: int | None) -> tuple[FileExtraction, FileModel] | None:
    """In the parser thread: the buffer's new extraction and its model, made from the
    previous one (rows, reference dicts and graph infos of what the edit did not
    touch are kept, not made again); None when a newer version is on its way."""
    mark("update-start")
    extraction = update(tree, rel, text, version)
    mark("update-end")
    if extraction is None:
        return None
    previous = tree.derived if isinstance(tree.derived, tuple) else None
    model = FileModel.from_extraction(extraction, version, previous)
    tree.derived = (extraction, model)
    mark("file-model")
    return extraction, model


def _snapshot(folder: FolderState) -> Snapshot:
    mark("snapshot-start")
    try:
        return folder.snapshot()
    finally:
        mark("snapshot-end")


def _graph_now(ls: CodeloupeServer, folder: FolderState) -> None:
    """Update the call graph at once (a reader thread swaps the file in), so the
    next call hierarchy or hover does not pay for it; then refresh code lenses."""
    from .lens import schedule_refresh

    if ls.stopping.is_set():
        return
    fut = asyncio.ensure_future(ls.read(_snapshot, folder))
    entry = (folder.generation, fut)
    ls.graph_updates[folder.uri] = entry  # requests wait for it (CodeloupeServer.snapshot)

    def done(f: asyncio.Future) -> None:
        if ls.graph_updates.get(folder.uri) is entry:
            del ls.graph_updates[folder.uri]
        if not f.cancelled() and f.exception() is not None:
            log.error("codeloupe: updating the call graph failed: %s", f.exception())

    fut.add_done_callback(done)
    schedule_refresh(ls)


def store_buffer(ls: CodeloupeServer, folder: FolderState, uri: str, rel: str, text: str,
                 version: int | None, extraction=None) -> None:  # noqa: ANN001
    """Write a buffer's rows in the writer after a short debounce (typing does not
    turn every keystroke into a table version; readers of the store call
    ``ls.flush()`` first), skipped if a newer version came meanwhile; then re-embed
    after the embedding debounce."""
    index = folder.index
    if index is None or ls.stopping.is_set() or ls.loop is None:
        return  # the first index run writes open buffers when it is done
    if uri in ls.too_large:
        return
    loop = ls.loop

    def write() -> None:
        if _current_version(ls, uri) != version:
            return
        index.update_buffer(rel, text, extraction)
        ls.buffer_writes_done += 1
        if ls.buffer_writes_done % OPTIMIZE_EVERY == 0:
            index.store.maybe_optimize()  # many small writes: compact now and then

    def submit() -> None:
        ls.write_timers.pop(uri, None)
        if ls.stopping.is_set() or not ls.has_folder(folder):
            return  # (a folder removed from the workspace: its writer is shut down)
        fut = loop.run_in_executor(folder.writer(), write)
        ls.buffer_writes.add(fut)

        def done(f: asyncio.Future) -> None:
            ls.buffer_writes.discard(f)
            if not f.cancelled() and f.exception() is not None:
                log.error("codeloupe: writing %s failed: %s", rel, f.exception())

        fut.add_done_callback(done)

    pending = ls.write_timers.pop(uri, None)
    if pending is not None:
        pending[0].cancel()
    ls.write_timers[uri] = (loop.call_later(WRITE_DEBOUNCE_S, submit), submit)
    _debounce_embed(ls, folder, uri)


def _debounce_embed(ls: CodeloupeServer, folder: FolderState, uri: str) -> None:
    if not ls.options.embeddings or ls.loop is None:
        return
    timer = ls.embed_timers.pop(uri, None)
    if timer is not None:
        timer.cancel()

    def fire() -> None:
        ls.embed_timers.pop(uri, None)
        index = folder.index
        if index is None or ls.stopping.is_set() or folder.state in ("indexing", "embedding"):
            return  # the index run embeds whatever is pending when it gets there
        if not ls.has_folder(folder):
            return
        fut = asyncio.ensure_future(_embed(ls, folder, index))
        fut.add_done_callback(lambda f: f.cancelled() or f.exception() is None or log.error(
            "codeloupe: embedding failed: %s", f.exception()))

    ls.embed_timers[uri] = ls.loop.call_later(ls.options.embed_debounce_ms / 1000, fire)


async def _embed(ls: CodeloupeServer, folder: FolderState, index: Index) -> None:
    """Re-embed what is pending: the model loads in the loader thread (a shutdown does
    not wait for that), the embedding runs in the folder's writer and stops at its
    next commit when the server shuts down."""
    from .lifecycle import load_model

    await load_model(ls, index)
    if ls.stopping.is_set():
        return
    await ls.write_in(folder, index.embed_pending, commit_every=EMBED_COMMIT_EVERY,
                      should_stop=ls.stopping.is_set)


async def _refresh_from_disk(ls: CodeloupeServer, folder: FolderState, rel: str,
                             keep_live: bool) -> None:
    index = folder.index
    if index is None or not ls.has_folder(folder):
        return
    try:
        on_disk_size: int | None = (folder.root / rel).stat().st_size
    except OSError:
        on_disk_size = None
    if on_disk_size is not None and on_disk_size > ls.options.max_file_bytes:
        # index.refresh_file would parse it whatever its size: the incremental run
        # leaves it out (and drops its rows), as the first run did
        from .lifecycle import schedule_index

        if not keep_live:
            folder.drop_live(rel)
            _graph_now(ls, folder)
        schedule_index(ls, folder, report_progress=False)
        return
    await ls.write_in(folder, index.refresh_file, rel)
    models = FileModel.group_rows(*await ls.read(index.load_rows, [rel]))
    folder.set_disk(models, [rel])
    if not keep_live:
        folder.drop_live(rel)
        _graph_now(ls, folder)
        return
    # Saved, but typing may have gone on meanwhile: the store must hold the buffer.
    uri = ls.uri_of(folder, rel)
    doc = ls.workspace.text_documents.get(uri)
    if doc is not None and uri not in ls.too_large:
        try:
            data, _ = read_repo_file(os.path.realpath(folder.root), folder.root / rel,
                                     ls.options.max_file_bytes)
            on_disk = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):  # UnsafeFile too: the buffer is what counts
            on_disk = None
        if doc.source != on_disk:
            store_buffer(ls, folder, uri, rel, doc.source, doc.version)


# --- files changed outside the editor --------------------------------------------------------


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


def did_change_watched_files(ls: CodeloupeServer, params: types.DidChangeWatchedFilesParams) -> None:
    """Re-index the folders whose files changed on disk (after a short debounce). The
    run is the same incremental sync as at start-up: it honours .gitignore and the
    include/exclude globs, re-parses only changed files and writes open buffers back
    over what it read. A file open in the editor is left to didSave/didClose."""
    from .lifecycle import schedule_index

    if ls.stopping.is_set() or ls.loop is None:
        return
    folders: dict[str, FolderState] = {}
    for change in params.changes:
        located = ls.locate(change.uri)
        if located is None:
            continue
        folder, rel = located
        if rel in folder.live:
            continue
        folders[str(folder.root)] = folder
    for root, folder in folders.items():
        timer = ls.watch_timers.pop(root, None)
        if timer is not None:
            timer.cancel()

        def fire(root: str = root, folder: FolderState = folder) -> None:
            ls.watch_timers.pop(root, None)
            if not ls.stopping.is_set():
                schedule_index(ls, folder, report_progress=False)

        ls.watch_timers[root] = ls.loop.call_later(WATCH_DEBOUNCE_S, fire)
