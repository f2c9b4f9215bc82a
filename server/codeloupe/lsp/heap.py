"""The garbage collector and a long-lived server: the heap frozen once the big,
lasting objects are made, and let go when one of them was dropped."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
import sys
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")
# pauses between collections while a dropped object outlives one (release_dropped):
# 0.05 s doubling, about 25 s in all
_RELEASE_PAUSES = tuple(0.05 * 2**i for i in range(9))


def freeze_heap() -> None:
    """Move every object alive now (the model, the indexes, the disk model) out of
    the garbage collector's reach. With the model loaded the heap holds about half
    a million objects and a full collection stops the server for 0.5 s; typing
    creates enough surviving objects to trigger one every few dozen keystrokes.
    Objects allocated later are collected as usual (and frozen ones still freed
    when their last reference goes). Then give back what C code freed
    (``trim_heap``)."""
    gc.collect(1)  # the young generations only: cheap, and little garbage gets frozen
    gc.freeze()
    trim_heap()


def _malloc_trim() -> Callable[[int], int] | None:
    try:  # glibc's; other C libraries (musl, macOS) give freed memory back themselves or have none
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def trim_heap() -> None:
    """Give the memory C code has freed back to the system: glibc's (``malloc_trim``)
    and pyarrow's pool (mimalloc). LanceDB reads a table in threads of its own, and
    glibc keeps what they free in their arenas; pyarrow keeps the pages of the tables
    the store sorted and grouped. Reading transformers' 1.0M reference rows left
    690 MB of freed memory in the server for good (99 MB once given back), under the
    call graph loaded next, whose Python objects never reuse it. Milliseconds."""
    if _TRIM is not None:
        _TRIM(0)
    pyarrow = sys.modules.get("pyarrow")  # never imported for this
    if pyarrow is not None:
        pyarrow.default_memory_pool().release_unused()


def release_heap(ls: CodeloupeServer) -> None:
    """``freeze_heap`` keeps what it froze out of the collector's reach for good: an
    index dropped since (a folder removed from the workspace, settings that re-open
    it) would never be freed, with its embedding model (reference cycles, tens of MB
    each time). Unfreeze, collect everything once (about half a second with a model
    in memory, and only after such a drop), freeze again."""
    _collect_all()
    ls.heap_releases += 1


def _collect_all() -> None:
    gc.unfreeze()
    gc.collect()
    gc.freeze()


async def release_dropped(ls: CodeloupeServer, dropped: Sequence[weakref.ref]) -> bool:
    """``release_heap`` once what held the ``dropped`` objects has let go of them; True
    when every one was freed. A worker thread that has just run a job for one (a
    search, a read) can hold its last reference a moment longer than the job's answer
    takes to arrive: ``concurrent.futures`` drops the work item only after setting
    its result, and on a loaded machine the loop runs first. A reference cycle let go
    after the collection would then be frozen for good, so while one of them is still
    alive after a collection, collect again after a pause (doubling; a few tries: a
    real leak is logged, not waited on forever)."""
    _collect_all()
    for pause in _RELEASE_PAUSES:
        if all(ref() is None for ref in dropped):
            break
        await asyncio.sleep(pause)
        _collect_all()
    freed = all(ref() is None for ref in dropped)
    if not freed:
        log.info("codeloupe: %d dropped index(es) still referenced after every collection",
                 sum(ref() is not None for ref in dropped))
    ls.heap_releases += 1
    return freed
