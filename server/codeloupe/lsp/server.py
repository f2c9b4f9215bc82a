"""The language server's state: its folders (``workspace.Folder``), options, the
executors, the one debouncer and the one serial-per-key runner, and what every
handler needs to find a document, its folder and its text. The handlers are in
``features``; ``wiring`` registers them."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..buffer import DocTree
from ..languages import language_for_path
from ..search import Searcher
from ..workspace import Debouncer, FileModel, Folder, Jobs, Serial, Snapshot, indexes_alive
from .options import ServerOptions
from .positions import Converter, disk_lines
from .pygls_compat import CodeloupeProtocol, WireIO

log = logging.getLogger("codeloupe.lsp")
T = TypeVar("T")
CLIENT_ANSWER_WAIT_S = 60.0  # for the client's answer to a request of ours


def uri_to_path(uri: str) -> Path | None:
    """The local path of a ``file://`` URI; None for any other scheme."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


@dataclass(frozen=True, slots=True)
class DocContext:
    """A document a request is about: its folder, path in it and model."""

    folder: Folder
    rel: str
    model: FileModel | None


class CodeloupeServer(WireIO, LanguageServer):
    """State of one server: workspace folders with their indexes, settings, and the
    executors. Each folder has its own writer thread (``Folder.writer``) for
    indexing, embedding and every LanceDB write of its index, in order; ``readers``
    answers queries that read the store or build the graph; ``parser`` re-extracts
    edited buffers, so a keystroke never waits behind a slow query; ``loader`` loads embedding models
    (seconds, and nothing to wait for at shutdown). None is pygls's own thread pool
    (which also reads stdin).

    ``debounce`` holds every timer (kinds: ``write``, ``embed``, ``watch``,
    ``lens``); ``serial`` every job that runs one at a time per key (kinds:
    ``buffer`` by document URI, ``index`` by folder root)."""

    protocol: CodeloupeProtocol

    def __init__(self, overrides: dict[str, Any] | None = None) -> None:
        super().__init__("codeloupe", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=CodeloupeProtocol)
        self.overrides = overrides or {}  # from the command line: defaults for the options
        self.options = ServerOptions()
        self.option_problems: list[str] = []
        self.init_options: object = None  # as the client sent them
        self.folders: dict[str, Folder] = {}  # by root path
        self.retired: list[Jobs] = []  # writers of removed folders: their queued writes still run
        self.readers = Jobs(2, "codeloupe-reader")
        self.parser = Jobs(1, "codeloupe-parser")
        self.loader = Jobs(1, "codeloupe-loader")
        self.network = Jobs(4, "codeloupe-network")  # waits on an LLM endpoint
        self.stopping = threading.Event()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.debounce = Debouncer(lambda: self.loop)
        self.serial = Serial()
        self.buffer_writes: set[asyncio.Future[Any]] = set()  # buffer rows on their way to the store
        self.buffer_writes_done = 0
        self.heap_releases = 0  # heap.release: after a folder removed, an index re-opened
        self.trees: dict[str, DocTree] = {}  # uri → an open buffer's tree (parser thread)
        # uri → size in bytes of an open buffer over maxFileBytes: kept as text, not parsed
        self.too_large: dict[str, int] = {}
        self.too_large_told: set[str] = set()  # buffers the user was told about (once each)
        self.buffer_lines: dict[str, tuple[str, list[str]]] = {}  # uri → (text, its lines)
        # folder uri → (model generation, the graph update started for it)
        self.graph_updates: dict[str, tuple[int, asyncio.Future[Snapshot]]] = {}

    # --- executors ---------------------------------------------------------------------

    async def write_in(self, folder: Folder, fn: Callable[..., T], *args: Any,
                       **kwargs: Any) -> T:
        """Run ``fn`` in the folder's own writer thread (its index's writes, in order)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(folder.writer(), functools.partial(fn, *args, **kwargs))

    async def read(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn`` in a reader thread (a store read, a graph update)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.readers, functools.partial(fn, *args, **kwargs))

    async def parse(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` in the parser thread (a buffer's re-extraction, never behind a slow
        query)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.parser, functools.partial(fn, *args))

    async def load(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` in the loader thread (a model load: shutdown does not wait for it)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.loader, functools.partial(fn, *args))

    async def snapshot(self, folder: Folder) -> Snapshot:
        """The folder's call graph for its model as it is now (``Folder.snapshot``):
        at once when it is made already; else from the graph update a change has
        started (``buffers.graph_now``), awaited here, when it is for this model; else
        made in a reader thread. (Not a reader thread that waits on the one making
        it: two more hand-offs between threads a keystroke, each a wait for the GIL
        and the scheduler.)"""
        snap = folder.current_snapshot()
        if snap is not None:
            return snap
        pending = self.graph_updates.get(folder.uri)
        if pending is not None and pending[0] == folder.generation:
            update = pending[1]
            try:
                snap = await asyncio.shield(update)
            except asyncio.CancelledError:
                if not update.cancelled():
                    raise  # this request was cancelled, not the update
                snap = None
            except Exception:  # logged where it was started; try again below
                snap = None
            if snap is not None and snap.generation == folder.generation:
                return snap
        return await self.read(folder.snapshot)

    def stop_work(self, timeout: float) -> bool:
        """Cancel queued background work and wait up to ``timeout`` seconds for the
        writes that run now (each leaves the index consistent); reads, parses and
        model loads are not waited for. True when no write runs any more."""
        for pool in (self.readers, self.parser, self.loader, self.network):
            pool.stop(0)
        deadline = time.monotonic() + timeout
        done = True
        writers = [*(f.writer() for f in self.folders.values()), *self.retired]
        for pool in writers:
            done = pool.stop(max(deadline - time.monotonic(), 0)) and done
        return done

    def from_thread(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn`` on the event loop (from an executor thread)."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    # --- where things are ------------------------------------------------------------

    def locate(self, uri: str) -> tuple[Folder, str] | None:
        """The folder of a document and its path relative to the folder root."""
        path = uri_to_path(uri)
        if path is None:
            return None
        best: Folder | None = None
        for folder in self.folders.values():
            try:
                path.relative_to(folder.root)
            except ValueError:
                continue
            if best is None or len(folder.root.parts) > len(best.root.parts):
                best = folder
        if best is None:
            return None
        rel = path.relative_to(best.root).as_posix()
        if language_for_path(rel) is None:
            return None
        return best, rel

    def folder_for(self, uri_or_path: str | None) -> Folder:
        """A folder by URI or path; the first folder when None."""
        if not self.folders:
            raise LookupError("the server has no workspace folder")
        if uri_or_path is None:
            return next(iter(self.folders.values()))
        path = uri_to_path(uri_or_path) if "://" in uri_or_path else Path(uri_or_path)
        for folder in self.folders.values():
            if path is not None and folder.root == Path(os.path.realpath(path)):
                return folder
            if folder.uri == uri_or_path:
                return folder
        raise LookupError(f"not a workspace folder: {uri_or_path}")

    async def document(self, uri: str) -> DocContext | None:
        """The preamble of a per-document request: wait until this document's edits
        are in the model, then its folder, relative path and model (None: no such
        file in the model, or an open buffer over ``maxFileBytes``); None when the URI
        is outside every folder."""
        await self.settle(uri)
        located = self.locate(uri)
        if located is None:
            return None
        folder, rel = located
        if uri in self.too_large:  # over maxFileBytes: not parsed, so nothing to answer from
            return DocContext(folder, rel, None)
        return DocContext(folder, rel, folder.file(rel))

    def searcher(self, folder: Folder) -> Searcher:
        """The searcher of a folder's open index: one an index, not one (and a thread)
        a request. LookupError while the index is not open."""
        return folder.searcher()

    def has_folder(self, folder: Folder) -> bool:
        """Whether the folder is still in the workspace (didChangeWorkspaceFolders may
        have removed it, and shut its writer down, since the work was scheduled)."""
        return self.folders.get(str(folder.root)) is folder

    def uri_of(self, folder: Folder, rel: str) -> str:
        """The ``file://`` URI of a file of the folder."""
        return (folder.root / rel).as_uri()

    def lines(self, folder: Folder, rel: str) -> list[str]:
        """The text of a file as the editor sees it: the open buffer, else the disk (a
        list shared between callers: read it, do not change it)."""
        uri = self.uri_of(folder, rel)
        doc = self.workspace.text_documents.get(uri) if self.protocol._workspace else None
        if doc is not None:
            # one list per version of the text (a request reads them several times),
            # as disk_lines shares its lists too; a BufferDocument splits only what
            # a change touched
            source = doc.source
            cached = self.buffer_lines.get(uri)
            if cached is not None and cached[0] is source:
                return cached[1]
            lines = list(doc.lines)
            self.buffer_lines[uri] = (source, lines)
            return lines
        self.buffer_lines.pop(uri, None)
        return disk_lines(folder.root, rel, self.options.max_file_bytes)

    @property
    def positions(self) -> Converter:
        """A converter in the position encoding agreed with the client."""
        return Converter(self.workspace.position_codec)

    async def settle(self, uri: str | None = None) -> None:
        """Wait until buffer edits received so far are in the model (one document, or all)."""
        await self.serial.settle("buffer", None if uri is None else ("buffer", uri))

    async def flush(self) -> None:
        """Wait until buffer edits received so far are in the store too (for readers of
        the store, like search)."""
        await self.settle()
        self.debounce.flush("write")  # debounced writes go now
        if self.buffer_writes:
            await asyncio.gather(*list(self.buffer_writes), return_exceptions=True)

    def resources(self) -> dict[str, object]:
        """What the server holds beyond the folders' models (``status`` shows it):
        every per-document structure is dropped when its document closes."""
        trees = list(self.trees.values())
        return {
            "open_documents": len(self.workspace.text_documents) if self.protocol._workspace else 0,
            "syntax_trees": len(trees),
            "pending_updates": self.serial.pending("buffer"),
            "timers": self.debounce.pending() - self.debounce.pending("lens"),
            "parses": sum(t.parses for t in trees),
            "incremental_parses": sum(t.incremental for t in trees),
            "spliced_extractions": sum(t.spliced for t in trees),
            "too_large_documents": len(self.too_large),
            "indexes": indexes_alive(),
            "heap_releases": self.heap_releases,
            "buffer_writes": self.buffer_writes_done,
            "rss_mb": _rss_mb(),
        }

    async def new_progress_token(self, kind: str) -> str | None:
        """A ``$/progress`` token of our own (``codeloupe/<kind>/…``), created on the
        client; None when the client does not support progress or refuses it."""
        caps = self.client_capabilities.window
        if not (caps and caps.work_done_progress):
            return None
        token = f"codeloupe/{kind}/{uuid.uuid4().hex[:8]}"
        try:
            await self.client_answer(self.work_done_progress.create_async(token))
        except Exception as exc:
            log.info("codeloupe: the client refused a progress token: %s", exc)
            return None
        return token

    async def client_answer(self, request: Awaitable[T]) -> T:
        """The client's answer to a request of ours, or TimeoutError after
        ``CLIENT_ANSWER_WAIT_S``: a client that never answers (settings, a progress
        token) must not hold the index runs up for ever."""
        return await asyncio.wait_for(request, CLIENT_ANSWER_WAIT_S)

    def message(self, text: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """Show the user a ``codeloupe:`` message (a warning by default)."""
        self.window_show_message(types.ShowMessageParams(type=kind, message=f"codeloupe: {text}"))


def _rss_mb() -> float | None:
    """Resident memory now (Linux), not the peak."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
