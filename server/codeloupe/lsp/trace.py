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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import CodeloupeServer

PATH = os.environ.get("CODELOUPE_LSP_TRACE") or None
ENABLED = PATH is not None
_events: list[tuple[float, str, str, str, float]] = []


def mark(event: str, detail: str = "") -> None:
    """Record an event (when tracing); the file gets it at ``dump``."""
    if ENABLED:
        _events.append((time.perf_counter(), threading.current_thread().name, event, detail,
                        time.thread_time()))


def _traced(fn: Callable[[Any], None], name: str) -> Callable[[Any], None]:
    """``fn`` of a message, marked ``<name>-start`` and ``<name>-end`` with the message's
    method and id."""

    def traced(message: Any) -> None:
        what = f"{getattr(message, 'method', 'response')} {getattr(message, 'id', '')}"
        mark(f"{name}-start", what)
        try:
            fn(message)
        finally:
            mark(f"{name}-end", what)

    return traced


def install(ls: CodeloupeServer) -> None:
    """Mark handlers, messages sent and collections (when tracing)."""
    if not ENABLED:
        return
    protocol = ls.protocol
    protocol.handle_message = _traced(protocol.handle_message, "handle")  # type: ignore[method-assign]
    protocol._send_data = _traced(protocol._send_data, "send")  # type: ignore[method-assign]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        mark(f"gc-{phase}", str(info.get("generation")))

    gc.callbacks.append(on_gc)


def dump() -> None:
    """Write the marks to the trace file (when tracing); a file that cannot be written is
    given up on silently."""
    if not ENABLED or PATH is None:
        return
    try:
        with open(PATH, "w") as fh:
            for t, thread, event, detail, cpu in list(_events):
                fh.write(f"{t:.6f}\t{thread}\t{event}\t{detail}\t{cpu:.6f}\n")
    except OSError:
        pass
