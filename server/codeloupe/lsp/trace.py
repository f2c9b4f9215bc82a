"""Stage timings for profiling the server through the real protocol (off unless
``CODELOUPE_LSP_TRACE`` names a file; ``bench/bench_lsp.py --trace`` sets it).

When on, ``mark`` records ``(time.perf_counter(), thread, event, detail,
time.thread_time())`` (on Linux ``perf_counter`` is CLOCK_MONOTONIC, the same
clock in every process, so a client can put its own marks beside these);
handler calls (once the message is read and parsed), messages written and
garbage collections are marked too. The marks are written to the file, one
tab-separated line each, when the server exits. When off, ``mark`` is one
global lookup and a return."""

from __future__ import annotations

import gc
import os
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import CodeloupeServer

PATH = os.environ.get("CODELOUPE_LSP_TRACE") or None
ENABLED = PATH is not None
_events: list[tuple[float, str, str, str, float]] = []


def mark(event: str, detail: str = "") -> None:
    if ENABLED:
        _events.append((time.perf_counter(), threading.current_thread().name, event, detail,
                        time.thread_time()))


def install(ls: CodeloupeServer) -> None:
    """Mark handlers, messages sent and collections (when tracing)."""
    if not ENABLED:
        return
    protocol = ls.protocol
    handle = protocol.handle_message

    def traced_handle(message: Any) -> None:
        what = f"{getattr(message, 'method', 'response')} {getattr(message, 'id', '')}"
        mark("handle-start", what)
        try:
            handle(message)
        finally:
            mark("handle-end", what)

    protocol.handle_message = traced_handle  # type: ignore[method-assign]

    send = protocol._send_data

    def traced_send(data: Any) -> None:
        what = f"{getattr(data, 'method', 'response')} {getattr(data, 'id', '')}"
        mark("send-start", what)
        try:
            send(data)
        finally:
            mark("send-end", what)

    protocol._send_data = traced_send  # type: ignore[method-assign]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        mark(f"gc-{phase}", str(info.get("generation")))

    gc.callbacks.append(on_gc)


def dump() -> None:
    if not ENABLED or PATH is None:
        return
    try:
        with open(PATH, "w") as fh:
            for t, thread, event, detail, cpu in list(_events):
                fh.write(f"{t:.6f}\t{thread}\t{event}\t{detail}\t{cpu:.6f}\n")
    except OSError:
        pass
