"""The language server: state and wiring. The work lives in the feature modules."""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import stat
import sys
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, BinaryIO, TypeVar
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcInternalError
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..buffer import DocTree
from ..languages import language_for_path
from . import trace
from .jobs import Jobs
from .jsonrpc import CodeloupeProtocol, PipeReader, describe, read_messages
from .options import ServerOptions
from .positions import Converter, disk_lines
from .state import DocContext, FolderState, Snapshot, indexes_alive

log = logging.getLogger("codeloupe.lsp")
T = TypeVar("T")
_EXIT_WAIT_S = 30.0  # for an index write still running at exit
_SWITCH_INTERVAL_S = 0.001
_GC_THRESHOLDS = (20_000, 10, 10)
CLIENT_ANSWER_WAIT_S = 60.0  # for the client's answer to a request of ours
_STREAM_LIMIT = 2**20  # buffered stdin: a 20 MB didOpen in 1 MiB reads, not 64 KiB ones


def uri_to_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


class CodeloupeServer(LanguageServer):
    """State of one server: workspace folders with their indexes, settings, and the
    executors. Each folder has its own writer thread (``FolderState.writer``) for
    indexing, embedding and every LanceDB write of its index, in order; ``writer``
    is for work that belongs to no folder; ``readers`` answers queries that read
    the store or build the graph; ``parser`` re-extracts edited buffers, so a
    keystroke never waits behind a slow query; ``loader`` loads embedding models
    (seconds, and nothing to wait for at shutdown). None is pygls's own thread pool
    (which also reads stdin)."""

    protocol: CodeloupeProtocol

    def __init__(self, overrides: dict[str, Any] | None = None) -> None:
        super().__init__("codeloupe", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=CodeloupeProtocol)
        self.overrides = overrides or {}  # from the command line: defaults for the options
        self.options = ServerOptions()
        self.option_problems: list[str] = []
        self.init_options: object = None  # as the client sent them
        self.folders: dict[str, FolderState] = {}  # by root path
        self.retired: list[Jobs] = []  # writers of removed folders: their queued writes still run
        self.writer = Jobs(1, "codeloupe-writer")
        self.readers = Jobs(2, "codeloupe-reader")
        self.parser = Jobs(1, "codeloupe-parser")
        self.loader = Jobs(1, "codeloupe-loader")
        self.network = Jobs(4, "codeloupe-network")  # waits on an LLM endpoint
        self.stopping = threading.Event()
        self.buffer_tasks: dict[str, asyncio.Future[Any]] = {}  # uri → latest re-extraction
        self.embed_timers: dict[str, asyncio.TimerHandle] = {}  # by document URI
        self.watch_timers: dict[str, asyncio.TimerHandle] = {}  # by folder root
        self.buffer_writes: set[asyncio.Future[Any]] = set()  # buffer rows on their way to the store
        self.write_timers: dict[str, tuple[asyncio.TimerHandle, Callable[[], None]]] = {}
        self.buffer_writes_done = 0
        self.heap_releases = 0  # lifecycle.release_heap: after a folder removed, an index re-opened
        self.index_tasks: dict[str, asyncio.Future[Any]] = {}  # root → index job
        self.trees: dict[str, DocTree] = {}  # uri → an open buffer's tree (parser thread)
        # uri → size in bytes of an open buffer over maxFileBytes: kept as text, not parsed
        self.too_large: dict[str, int] = {}
        self.too_large_told: set[str] = set()  # buffers the user was told about (once each)
        self.buffer_lines: dict[str, tuple[str, list[str]]] = {}  # uri → (text, its lines)
        # folder uri → (model generation, the graph update started for it)
        self.graph_updates: dict[str, tuple[int, asyncio.Future[Snapshot]]] = {}
        self.lens_refresh: asyncio.TimerHandle | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    # --- the connection ------------------------------------------------------------------

    def _start_io_async(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls reads stdin in its thread pool: each header line and each body is a
        hand-off to a thread and back (nine a keystroke's three messages), every one
        waiting for the GIL while the parser or a reader thread runs. When stdin is a
        pipe (as an editor starts a server) it is read on the event loop instead;
        anything else (a file, a terminal, Windows) through pygls's thread-pool
        reader. Either way the messages go through ``jsonrpc.read_messages``, not
        pygls 2.1.1's ``run_async`` (which leaves bad messages unanswered)."""
        stdin = stdin or sys.stdin.buffer
        try:
            mode = os.fstat(stdin.fileno()).st_mode
        except (AttributeError, OSError, ValueError):
            mode = 0
        # POSIX only: asyncio reads Windows pipes through the proactor, untested here
        pipe = os.name == "posix" and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode))
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            if pipe:
                asyncio.run(self._read_pipe(stdin))
            else:
                asyncio.run(read_messages(self._stop_event, StdinAsyncReader(stdin, self.thread_pool),
                                          self.protocol))
        except BrokenPipeError:
            log.error("codeloupe: the connection to the client is lost")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    async def _read_pipe(self, stdin: BinaryIO) -> None:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=_STREAM_LIMIT, loop=loop)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream, loop=loop), stdin)
        try:
            await read_messages(self._stop_event, PipeReader(stream), self.protocol)
        finally:
            transport.close()

    def start_tcp(self, host: str, port: int) -> None:
        """pygls 2.1.1's TCP server, reading through ``jsonrpc.read_messages``."""
        self._stop_event = stop_event = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await read_messages(stop_event, PipeReader(reader), self.protocol)
            self.shutdown()

        async def tcp_server() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(tcp_server())
        except asyncio.CancelledError:
            pass

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A notification's handler failed: one line to the log (and
        ``window/logMessage``). pygls 2.1.1 shows every such error in a
        ``window/showMessage`` popup, which is for what the user can act on. A
        request's error is in its answer already; a message that could not be sent
        (``JsonRpcInternalError``: the connection is closing) is in pygls's log, and
        telling the client about it would be one more message that cannot be sent."""
        if source is FeatureRequestError or source is JsonRpcInternalError:
            return
        text = error.message if isinstance(error, JsonRpcException) else describe(error)
        log.warning("codeloupe: a notification could not be handled: %s", text)

    # --- executors ---------------------------------------------------------------------

    async def write(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.writer, functools.partial(fn, *args, **kwargs))

    async def write_in(self, folder: FolderState, fn: Callable[..., T], *args: Any,
                       **kwargs: Any) -> T:
        """Run ``fn`` in the folder's own writer thread (its index's writes, in order)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(folder.writer(), functools.partial(fn, *args, **kwargs))

    async def read(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.readers, functools.partial(fn, *args, **kwargs))

    async def parse(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.parser, functools.partial(fn, *args))

    async def load(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` in the loader thread (a model load: shutdown does not wait for it)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.loader, functools.partial(fn, *args))

    async def snapshot(self, folder: FolderState) -> Snapshot:
        """The folder's call graph for its model as it is now (``FolderState.snapshot``):
        at once when it is made already; else from the graph update a change has
        started (``sync._graph_now``), awaited here, when it is for this model; else
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
            except Exception:  # noqa: BLE001 - logged where it was started; try again below
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
        writers = [*(f.writer() for f in self.folders.values()), *self.retired, self.writer]
        for pool in writers:
            done = pool.stop(max(deadline - time.monotonic(), 0)) and done
        return done

    def from_thread(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn`` on the event loop (from an executor thread)."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    # --- where things are ------------------------------------------------------------

    def locate(self, uri: str) -> tuple[FolderState, str] | None:
        """The folder of a document and its path relative to the folder root."""
        path = uri_to_path(uri)
        if path is None:
            return None
        best: FolderState | None = None
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

    def folder_for(self, uri_or_path: str | None) -> FolderState:
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

    def has_folder(self, folder: FolderState) -> bool:
        """Whether the folder is still in the workspace (didChangeWorkspaceFolders may
        have removed it, and shut its writer down, since the work was scheduled)."""
        return self.folders.get(str(folder.root)) is folder

    def uri_of(self, folder: FolderState, rel: str) -> str:
        return (folder.root / rel).as_uri()

    def lines(self, folder: FolderState, rel: str) -> list[str]:
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
        return Converter(self.workspace.position_codec)

    async def settle(self, uri: str | None = None) -> None:
        """Wait until buffer edits received so far are in the model (one document, or all)."""
        tasks = [self.buffer_tasks[uri]] if uri in self.buffer_tasks else (
            list(self.buffer_tasks.values()) if uri is None else [])
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def flush(self) -> None:
        """Wait until buffer edits received so far are in the store too (for readers of
        the store, like search)."""
        await self.settle()
        for timer, submit in list(self.write_timers.values()):
            timer.cancel()
            submit()  # debounced writes go now
        if self.buffer_writes:
            await asyncio.gather(*list(self.buffer_writes), return_exceptions=True)

    def resources(self) -> dict[str, object]:
        """What the server holds beyond the folders' models (``status`` shows it):
        every per-document structure is dropped when its document closes."""
        trees = list(self.trees.values())
        return {
            "open_documents": len(self.workspace.text_documents) if self.protocol._workspace else 0,
            "syntax_trees": len(trees),
            "pending_updates": len(self.buffer_tasks),
            "timers": len(self.embed_timers) + len(self.write_timers) + len(self.watch_timers),
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
        self.window_show_message(types.ShowMessageParams(type=kind, message=f"codeloupe: {text}"))


def _rss_mb() -> float | None:
    """Resident memory now (Linux), not the peak."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


class _ClientLogHandler(logging.Handler):
    """Forwards the engine's warnings and errors to ``window/logMessage``."""

    def __init__(self, server: CodeloupeServer) -> None:
        super().__init__(logging.WARNING)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith("codeloupe"):
            return
        try:
            message = self.format(record)
        except Exception:  # pragma: no cover
            return
        kind = types.MessageType.Error if record.levelno >= logging.ERROR else types.MessageType.Warning
        self.server.from_thread(self._send, kind, message)

    def _send(self, kind: types.MessageType, message: str) -> None:
        try:
            self.server.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # no connection yet or any more
            pass


def create_server(overrides: dict[str, Any] | None = None) -> CodeloupeServer:
    from . import commands, hierarchy, hover, lens, lifecycle, symbols, sync

    ls = CodeloupeServer(overrides)
    feature = ls.feature

    feature(types.INITIALIZE)(lifecycle.initialize)
    feature(types.INITIALIZED)(lifecycle.initialized)
    feature(types.SHUTDOWN)(lifecycle.shutdown)
    feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(lifecycle.did_change_configuration)
    feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(lifecycle.did_change_workspace_folders)

    feature(types.TEXT_DOCUMENT_DID_OPEN)(sync.did_open)
    feature(types.TEXT_DOCUMENT_DID_CHANGE)(sync.did_change)
    feature(types.TEXT_DOCUMENT_DID_SAVE)(sync.did_save)
    feature(types.TEXT_DOCUMENT_DID_CLOSE)(sync.did_close)
    feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(sync.did_change_watched_files)

    feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)(symbols.document_symbol)
    feature(types.WORKSPACE_SYMBOL)(symbols.workspace_symbol)

    feature(types.TEXT_DOCUMENT_DEFINITION)(hierarchy.definition)
    feature(types.TEXT_DOCUMENT_REFERENCES)(hierarchy.references)
    feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)(hierarchy.prepare_call_hierarchy)
    feature(types.CALL_HIERARCHY_INCOMING_CALLS)(hierarchy.incoming_calls)
    feature(types.CALL_HIERARCHY_OUTGOING_CALLS)(hierarchy.outgoing_calls)

    feature(types.TEXT_DOCUMENT_HOVER)(hover.hover)
    feature(types.TEXT_DOCUMENT_CODE_LENS)(lens.code_lens)

    for name, handler in commands.COMMANDS.items():
        ls.command(name)(handler)
    commands.keep_command_params(ls)  # codeloupe.server.ask reads its workDoneToken
    return ls


def serve(tcp: str | None = None, overrides: dict[str, Any] | None = None) -> int:
    """Run the server on stdio (default) or on ``HOST:PORT``. Stdout is the protocol:
    anything else that writes to it (a library's print) goes to stderr instead.

    On stdio the process ends as soon as ``exit`` has been handled and no index write
    runs: threads still loading a model or answering a query are not joined (the
    interpreter would wait for them, and a client kills a server that takes more
    than a moment, VS Code after 2 s)."""
    ls = create_server(overrides)
    tune_runtime()
    trace.install(ls)
    handler = _ClientLogHandler(ls)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logging.getLogger("codeloupe").addHandler(handler)
    if tcp:
        host, _, port = tcp.rpartition(":")
        ls.start_tcp(host or "127.0.0.1", int(port))
        return 0
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    ls.start_io(sys.stdin.buffer, protocol_out)
    code = 0 if ls.protocol._shutdown else 1  # `exit` without `shutdown` first: 1
    exit_now(ls, code)
    return code  # not reached


def tune_runtime() -> None:
    """The interpreter's settings for a server process (not for a library user's).

    The switch interval: a thread waiting for the GIL (the event loop, to read the
    next request or to answer once the graph is updated) waits until the thread
    holding it (the parser, a reader swapping a file into the call graph) has run
    this long; 1 ms, not the default 5 ms.

    The young generation: with the default 700, a keystroke (a new extraction and
    its graph update, thousands of objects that live until the next keystroke)
    triggers a dozen young collections and every few keystrokes a full one, 2-3 ms
    of collection a keystroke and 5-8 ms at worst. With 20,000, objects that die
    young (most of them, by reference count) are never looked at; a collection
    comes every few keystrokes and is about as long as one before."""
    sys.setswitchinterval(_SWITCH_INTERVAL_S)
    gc.set_threshold(*_GC_THRESHOLDS)


def exit_now(ls: CodeloupeServer, code: int) -> None:
    """End the process once no index write runs (``shutdown`` has waited for them
    already; an ``exit`` without it, or a closed connection, waits here)."""
    ls.stopping.set()
    ls.stop_work(_EXIT_WAIT_S)
    trace.dump()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
