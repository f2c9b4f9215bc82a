"""The garbage collector and a long-lived server: the heap frozen once the big,
lasting objects are made, and let go when one of them was dropped."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import CodeloupeServer


def freeze_heap() -> None:
    """Move every object alive now (the model, the indexes, the disk model) out of
    the garbage collector's reach. With the model loaded the heap holds about half
    a million objects and a full collection stops the server for 0.5 s; typing
    creates enough surviving objects to trigger one every few dozen keystrokes.
    Objects allocated later are collected as usual (and frozen ones still freed
    when their last reference goes)."""
    gc.collect(1)  # the young generations only: cheap, and little garbage gets frozen
    gc.freeze()


def release_heap(ls: CodeloupeServer) -> None:
    """``freeze_heap`` keeps what it froze out of the collector's reach for good: an
    index dropped since (a folder removed from the workspace, settings that re-open
    it) would never be freed, with its embedding model (reference cycles, tens of MB
    each time). Unfreeze, collect everything once (about half a second with a model
    in memory, and only after such a drop), freeze again."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    ls.heap_releases += 1
