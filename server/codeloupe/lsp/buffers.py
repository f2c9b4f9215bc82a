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
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ..buffer import DocTree, update
from ..index import Index
from ..languages import language_for_file, language_for_path
from ..model import FileExtraction
from ..safeio import read_repo_file
from ..workspace import FileModel, Folder, Snapshot
from .embedding import load_model
from .lenses import schedule_refresh
from .trace import mark

if TYPE_CHECKING:
    from .server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")

WRITE_DEBOUNCE_S = 0.25  # quiet time before an edited buffer's rows are written
OPTIMIZE_EVERY = 50  # buffer writes between two maybe_optimize() checks
EMBED_COMMIT_EVERY = 16  # re-embedded symbols per commit: how soon a shutdown takes effect


def after_buffer(ls: CodeloupeServer, uri: str, make: Callable[[], Awaitable[object]]) -> None:
    """Run ``make()`` once the document's current update (if any) has ended."""
    ls.serial.then(("buffer", uri), make, f"updating {uri}")


def forget(ls: CodeloupeServer, uri: str) -> None:
    """Drop a closed document's debounced work (its buffer is not the file: nothing is lost)."""
    ls.debounce.cancel(("embed", uri))
    ls.debounce.cancel(("write", uri))


def schedule(ls: CodeloupeServer, uri: str) -> None:
    """A buffer changed: re-extract it (a task of its own; an older one that finishes
    late is dropped), or set it aside when it is over ``maxFileBytes``."""
    located = ls.locate(uri)
    if located is None or ls.stopping.is_set():
        return
    folder, rel = located
    doc = ls.workspace.get_text_document(uri)
    version, text = doc.version, doc.source
    language = language_for_path(rel)
    if language is None:
        return
    language = language_for_file(rel, text[:1 << 16].encode("utf-8", "surrogatepass"), language) or language
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
    ls.serial.track(("buffer", uri), asyncio.ensure_future(
        _extract(ls, folder, uri, rel, text, version, tree)), f"updating {uri}")


def _over_limit(text: str, limit: int) -> bool:
    """Whether a buffer's UTF-8 is over ``limit`` bytes, without encoding it when its
    length alone tells (a keystroke in a 20 MB buffer must stay cheap)."""
    n = len(text)
    if n > limit:
        return True  # at least a byte a character
    if n * 4 <= limit or text.isascii():
        return False
    return len(text.encode("utf-8", "surrogatepass")) > limit


def _set_aside(ls: CodeloupeServer, folder: Folder, uri: str, rel: str, text: str) -> None:
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
    forget(ls, uri)
    if rel in folder.live:
        after_buffer(ls, uri, lambda: refresh_from_disk(ls, folder, rel, keep_live=False))
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


async def _extract(ls: CodeloupeServer, folder: Folder, uri: str, rel: str, text: str,
                   version: int | None, tree: DocTree) -> None:
    made = await ls.parse(_update_model, tree, rel, text, version)
    mark("extract-back")
    if made is None or _current_version(ls, uri) != version:
        return  # a newer version arrived meanwhile: its own task wins
    extraction, model = made
    folder.set_live(model)
    graph_now(ls, folder)
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


def _snapshot(folder: Folder) -> Snapshot:
    mark("snapshot-start")
    try:
        return folder.snapshot()
    finally:
        mark("snapshot-end")


def graph_now(ls: CodeloupeServer, folder: Folder) -> None:
    """Update the call graph at once (a reader thread swaps the file in), so the
    next call hierarchy or hover does not pay for it; then refresh code lenses."""
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


def store_buffer(ls: CodeloupeServer, folder: Folder, uri: str, rel: str, text: str,
                 version: int | None, extraction=None) -> None:
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
        if ls.stopping.is_set() or not ls.has_folder(folder):
            return  # (a folder removed from the workspace: its writer is shut down)
        fut = loop.run_in_executor(folder.writer(), write)
        ls.buffer_writes.add(fut)

        def done(f: asyncio.Future) -> None:
            ls.buffer_writes.discard(f)
            if not f.cancelled() and f.exception() is not None:
                log.error("codeloupe: writing %s failed: %s", rel, f.exception())

        fut.add_done_callback(done)

    ls.debounce.call_later(("write", uri), WRITE_DEBOUNCE_S, submit)
    _debounce_embed(ls, folder, uri)


def _debounce_embed(ls: CodeloupeServer, folder: Folder, uri: str) -> None:
    if not ls.options.embeddings or ls.loop is None:
        return

    def fire() -> None:
        index = folder.index
        if index is None or ls.stopping.is_set() or folder.state in ("indexing", "embedding"):
            return  # the index run embeds whatever is pending when it gets there
        if not ls.has_folder(folder):
            return
        fut = asyncio.ensure_future(_embed(ls, folder, index))
        fut.add_done_callback(lambda f: f.cancelled() or f.exception() is None or log.error(
            "codeloupe: embedding failed: %s", f.exception()))

    ls.debounce.call_later(("embed", uri), ls.options.embed_debounce_ms / 1000, fire)


async def _embed(ls: CodeloupeServer, folder: Folder, index: Index) -> None:
    """Re-embed what is pending: the model loads in the loader thread (a shutdown does
    not wait for that), the embedding runs in the folder's writer and stops at its
    next commit when the server shuts down."""
    await load_model(ls, index)
    if ls.stopping.is_set():
        return
    await ls.write_in(folder, index.embed_pending, commit_every=EMBED_COMMIT_EVERY,
                      should_stop=ls.stopping.is_set)


async def refresh_from_disk(ls: CodeloupeServer, folder: Folder, rel: str,
                            keep_live: bool) -> None:
    """Bring a saved or closed file's rows back to what is on disk (``keep_live``: the
    buffer stays the model, and is written over the file's rows if it differs). A
    file over ``maxFileBytes`` on disk loses its rows (``Index.refresh_file`` reads
    as the disk scan does)."""
    index = folder.index
    if index is None or not ls.has_folder(folder):
        return
    await ls.write_in(folder, index.refresh_file, rel)
    models = FileModel.group_rows(*await ls.read(index.load_rows, [rel]))
    folder.set_disk(models, [rel])
    if not keep_live:
        folder.drop_live(rel)
        graph_now(ls, folder)
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
