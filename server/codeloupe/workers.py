"""Work spread over processes, where no single item can hold up the rest.

``run_batches`` runs a function over batches of items in worker processes and
gives every started batch a deadline: a batch that runs past it (a file on a
stalled network mount, a pathological input) has its workers killed, its items
run again one by one, and the item that stalls again is reported as
``TimedOut`` instead of hanging the whole run. Workers that never start (a
script that imports codeloupe without an ``if __name__ == "__main__":`` guard,
so every spawned worker fails at start) or that die make the caller finish in
its own process.
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

_POLL_S = 0.5  # how often a waiting run looks at its deadlines


@dataclass(frozen=True)
class TimedOut(Generic[T]):
    """An item whose work ran past the deadline (its worker was killed)."""

    item: T


class WorkersUnavailable(RuntimeError):
    """The worker processes could not run (they failed to start, or died)."""


_started: Any = None  # in a worker: the queue it reports started batches to


def _init_worker(started: Any) -> None:
    global _started
    _started = started


def _run(fn: Callable[[list[T]], list[R]], key: int, batch: list[T]) -> list[R]:
    if _started is not None:
        _started.put(key)
    return fn(batch)


def _kill(pool: ProcessPoolExecutor) -> None:
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            process.kill()
        except (OSError, AttributeError):
            pass
    pool.shutdown(wait=False, cancel_futures=True)


def run_batches(
    fn: Callable[[list[T]], list[R]],
    batches: Sequence[list[T]],
    workers: int,
    deadline_s: float,
    start_s: float = 120.0,
) -> Iterator[tuple[list[T], list[R | TimedOut[T]]]]:
    """Each batch with its results (``fn(batch)``; a ``TimedOut`` in place of an item
    that ran past ``deadline_s``), as batches complete. ``fn`` must be picklable (a
    module-level function). ``WorkersUnavailable`` when no worker started within
    ``start_s`` or the workers died; the batches not yielded yet are then the
    caller's to finish."""
    todo: list[list[T]] = [list(b) for b in batches]
    alone: list[T] = []  # items of a batch that stalled: run again one per batch
    while todo or alone:
        jobs = todo + [[item] for item in alone]
        single = len(todo)  # jobs from here on are single items run again
        todo, alone = [], []
        ctx = multiprocessing.get_context("spawn")  # never fork a process that may hold threads
        started_q = ctx.Queue()
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                   initializer=_init_worker, initargs=(started_q,))
        futures: dict[Future[list[R]], int] = {
            pool.submit(_run, fn, key, job): key for key, job in enumerate(jobs)}
        started: dict[int, float] = {}
        opened = time.monotonic()
        killed = False
        try:
            while futures:
                done, _ = wait(futures, timeout=_POLL_S, return_when=FIRST_COMPLETED)
                while True:
                    try:
                        started.setdefault(started_q.get_nowait(), time.monotonic())
                    except (queue.Empty, OSError, ValueError):
                        break
                for fut in done:
                    key = futures.pop(fut)
                    yield jobs[key], fut.result()  # BrokenProcessPool: see below
                now = time.monotonic()
                if not started and now - opened > start_s:
                    raise WorkersUnavailable("no worker process started")
                stalled = [k for k in futures.values()
                           if k in started and now - started[k] > deadline_s]
                if not stalled:
                    continue
                _kill(pool)
                killed = True
                for key in stalled:
                    if key >= single:  # a single item that stalled twice: give up on it
                        yield jobs[key], [TimedOut(jobs[key][0])]
                    else:
                        log.warning("codeloupe: a worker ran past %.0fs; retrying its %d "
                                    "files one by one", deadline_s, len(jobs[key]))
                        alone.extend(jobs[key])
                stalled_set = set(stalled)
                for key in futures.values():
                    if key in stalled_set:
                        continue
                    if key >= single:
                        alone.extend(jobs[key])
                    else:
                        todo.append(jobs[key])
                futures = {}
        except BrokenProcessPool as exc:
            raise WorkersUnavailable(str(exc) or "a worker process died") from None
        finally:
            if futures and not killed:  # abandoned (an error, or the caller stopped)
                _kill(pool)
            elif not killed:
                pool.shutdown(wait=True)
            started_q.close()
