"""Thread pools the server can stop without waiting for them at exit.

A ``ThreadPoolExecutor`` keeps no list of the futures it runs, and the interpreter
joins its threads at exit, so a pool busy loading a model or answering a search
holds up ``exit`` for seconds. ``Jobs`` remembers its unfinished futures: ``stop``
drops what is queued and waits (for a bounded time) only for what runs; the server
waits for the writers (an index write must finish) and not for the rest."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

T = TypeVar("T")


class Jobs(ThreadPoolExecutor):
    """A thread pool that keeps its unfinished futures, so it can be stopped without waiting
    for what is queued (``stop``)."""

    def __init__(self, workers: int, name: str) -> None:
        super().__init__(workers, thread_name_prefix=name)
        self._unfinished: set[Future[Any]] = set()
        self._guard = threading.Lock()

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Queue ``fn``, remembered until it is done."""
        fut = super().submit(fn, *args, **kwargs)
        with self._guard:
            self._unfinished.add(fut)
        fut.add_done_callback(self._finished)  # at once when it is done already
        return fut

    def _finished(self, fut: Future[Any]) -> None:
        with self._guard:
            self._unfinished.discard(fut)

    @property
    def busy(self) -> bool:
        """Is a job queued or running?"""
        with self._guard:
            return any(not f.done() for f in self._unfinished)

    def stop(self, timeout: float | None = 0.0) -> bool:
        """Take no more work, cancel what is queued, and wait up to ``timeout`` seconds
        (None: as long as it takes) for what runs. True when nothing runs any more."""
        self.shutdown(wait=False, cancel_futures=True)
        with self._guard:
            running = [f for f in self._unfinished if not f.done()]
        if not running:
            return True
        _, not_done = wait(running, timeout)
        return not not_done
