"""The wiring of the language server: every LSP method and command to its handler in
``features`` (which never import each other), and running the process (stdio or
TCP, the interpreter's settings, a prompt exit)."""

from __future__ import annotations

import gc
import logging
import os
import sys
from typing import Any

from lsprotocol import types

from . import trace
from .features import commands, hierarchy, hover, lens, lifecycle, symbols, sync
from .pygls_compat import keep_command_params
from .server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")
_EXIT_WAIT_S = 30.0  # for an index write still running at exit
_SWITCH_INTERVAL_S = 0.001
_GC_THRESHOLDS = (20_000, 10, 10)


def create_server(overrides: dict[str, Any] | None = None) -> CodeloupeServer:
    """A server with every feature registered (``overrides``: the command line's
    defaults for the options)."""
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
    keep_command_params(ls)  # codeloupe.server.ask reads its workDoneToken
    return ls


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
