"""Document sync: didOpen / didChange / didSave / didClose of editor buffers
(``buffers`` re-extracts and stores them), and files changed outside the editor
(``indexing`` re-indexes their folders)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..buffers import after_buffer, forget, refresh_from_disk, schedule
from ..indexing import files_changed

if TYPE_CHECKING:
    from ..server import CodeloupeServer


def did_open(ls: CodeloupeServer, params: types.DidOpenTextDocumentParams) -> None:
    """Parse the opened buffer from scratch and extract it."""
    ls.trees.pop(params.text_document.uri, None)  # opened again: parse from scratch
    ls.too_large.pop(params.text_document.uri, None)
    schedule(ls, params.text_document.uri)


def did_change(ls: CodeloupeServer, params: types.DidChangeTextDocumentParams) -> None:
    """Re-extract the buffer (``buffers.schedule``)."""
    schedule(ls, params.text_document.uri)


def did_save(ls: CodeloupeServer, params: types.DidSaveTextDocumentParams) -> None:
    """Once the buffer's updates are in, refresh the file from disk, the buffer staying
    live."""
    located = ls.locate(params.text_document.uri)
    if located is None or ls.stopping.is_set():
        return
    folder, rel = located
    after_buffer(ls, params.text_document.uri,
                 lambda: refresh_from_disk(ls, folder, rel, keep_live=True))


def did_close(ls: CodeloupeServer, params: types.DidCloseTextDocumentParams) -> None:
    """Drop the buffer's live model and per-document state; once its updates are in, the
    file is refreshed from disk."""
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
    forget(ls, uri)
    after_buffer(ls, uri, lambda: refresh_from_disk(ls, folder, rel, keep_live=False))


def did_change_watched_files(ls: CodeloupeServer, params: types.DidChangeWatchedFilesParams) -> None:
    """Re-index the folders whose files changed on disk (``indexing.files_changed``)."""
    files_changed(ls, params.changes)
