"""Scheduling on the event loop: one keyed debouncer and one serial-per-key runner,
for every "do this once things are quiet" and "one job of this key at a time" the
language server needs (a buffer's store write and re-embedding, a folder's runs
after files change on disk, the code-lens refresh; a document's updates, a
folder's index runs).

Keys are tuples whose first item names the kind of work (``("write", uri)``), so
all the work of one kind can be flushed or dropped together."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

log = logging.getLogger("codeloupe.workspace")

Key = tuple[Hashable, ...]


class Debouncer:
    """One timer a key: ``call_later(key, delay, fn)`` runs ``fn`` after ``delay``
    seconds in which no other call for that key came (each call restarts it, with
    its own ``fn``). Call it on the event loop."""

    def __init__(self, loop: Callable[[], asyncio.AbstractEventLoop | None]) -> None:
        self._loop = loop
        self._timers: dict[Key, tuple[asyncio.TimerHandle, Callable[[], None]]] = {}

    def call_later(self, key: Key, delay: float, fn: Callable[[], None]) -> bool:
        """(Re)start the key's timer; False when there is no running loop to run it."""
        loop = self._loop()
        if loop is None or loop.is_closed():
            return False
        self.cancel(key)

        def fire() -> None:
            entry = self._timers.get(key)
            if entry is not None and entry[1] is fn:
                del self._timers[key]
            fn()

        self._timers[key] = (loop.call_later(delay, fire), fn)
        return True

    def cancel(self, key: Key) -> bool:
        """Drop the key's pending work; True when there was some."""
        entry = self._timers.pop(key, None)
        if entry is None:
            return False
        entry[0].cancel()
        return True

    def flush(self, kind: Hashable) -> None:
        """Run every pending job of this kind now (e.g. the store writes a search must
        see), in the order they were scheduled."""
        for key in [k for k in self._timers if k[0] == kind]:
            timer, fn = self._timers.pop(key)
            timer.cancel()
            fn()

    def cancel_all(self) -> None:
        """Drop every pending job, of every kind."""
        for timer, _ in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def pending(self, kind: Hashable | None = None) -> int:
        """How many jobs wait (of this kind, or in all)."""
        return sum(1 for k in self._timers if kind is None or k[0] == kind)

    def __contains__(self, key: object) -> bool:
        return key in self._timers


class Serial:
    """The latest job of each key, and jobs that start only once the previous one of
    their key has ended (``then``). ``track`` records a job without chaining it (a
    buffer's newest re-extraction, which overtakes the older ones). Failures are
    logged once, by the key's description."""

    def __init__(self) -> None:
        self._latest: dict[Key, asyncio.Future[Any]] = {}

    def track(self, key: Key, job: asyncio.Future[Any], what: str) -> asyncio.Future[Any]:
        """Make ``job`` the key's latest without waiting for the one before; a failure is
        logged as ``what``."""
        self._latest[key] = job
        job.add_done_callback(lambda f: self._done(key, f, what))
        return job

    def then(self, key: Key, make: Callable[[], Awaitable[Any]], what: str) -> asyncio.Future[Any]:
        """Run ``make()`` once the key's current job (if any) has ended."""
        previous = self._latest.get(key)

        async def run() -> Any:
            if previous is not None and not previous.done():
                await asyncio.gather(previous, return_exceptions=True)
            return await make()

        return self.track(key, asyncio.ensure_future(run()), what)

    def latest(self, key: Key) -> asyncio.Future[Any] | None:
        """The key's latest job; None once it has ended or was forgotten."""
        return self._latest.get(key)

    def forget(self, key: Key) -> None:
        """Stop tracking the key's latest job (it still runs)."""
        self._latest.pop(key, None)

    async def settle(self, kind: Hashable, key: Key | None = None) -> None:
        """Wait for the latest job of ``key``, or of every key of this kind."""
        if key is not None:
            jobs = [self._latest[key]] if key in self._latest else []
        else:
            jobs = [job for k, job in self._latest.items() if k[0] == kind]
        if jobs:
            await asyncio.gather(*jobs, return_exceptions=True)

    def cancel(self, kind: Hashable) -> None:
        """Cancel the latest job of every key of this kind."""
        for key in [k for k in self._latest if k[0] == kind]:
            self._latest.pop(key).cancel()

    def pending(self, kind: Hashable) -> int:
        """How many keys of this kind have a job that has not ended."""
        return sum(1 for k, job in self._latest.items() if k[0] == kind and not job.done())

    def _done(self, key: Key, job: asyncio.Future[Any], what: str) -> None:
        if self._latest.get(key) is job:
            del self._latest[key]
        if not job.cancelled() and job.exception() is not None:
            log.error("codeloupe: %s failed: %s", what, job.exception())
