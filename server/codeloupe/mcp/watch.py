"""Following a folder's files on disk for the MCP server (the language server hears of
changes from its client instead).

watchdog, not watchfiles, by measurement (``bench/bench_watch.py``; 2026-12-06, a root
of 200 folders with a link to 5,000 folders outside it): watchfiles (the ``notify``
crate) follows a symbolic link out of the root, so it held 5,252 inotify watches
and reported a write outside the root, where watchdog (``follow_symlink=False``,
7.1+) held 201 and did not; a repository with a link to ``/`` would have watchfiles
watch the whole machine. watchdog also heard a change in 1.5 ms (p50; max 1.8)
against 101 ms (its 50 ms quiet step and batching), and set up in 58 ms against 174.

Events only wake the engine: the sync that follows scans the folder as every index
run does (.gitignore, links, sizes), so an event for a file the index leaves out
costs one cheap scan and nothing else."""

from __future__ import annotations

import collections
import logging
import os
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("codeloupe.mcp")

# folders whose changes never concern the index (its own folder is added by the caller)
IGNORED_PARTS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv"})


class Watcher:
    """Calls ``on_change`` when a file under ``root`` changes (not in ``ignored``
    folders, not in ``IGNORED_PARTS``); ``start`` says why it cannot watch, if so."""

    def __init__(self, root: Path, on_change: Callable[[], None],
                 ignored: list[Path] | None = None) -> None:
        self.root = root
        self.on_change = on_change
        self.root_real = os.path.realpath(root)
        self.ignored = [os.path.realpath(p) for p in ignored or []]
        self.seen: collections.deque[str] = collections.deque(maxlen=256)  # raw event paths
        self._observer = None

    def _relevant(self, path: str) -> bool:
        """A change the index may care about: inside the root once links are resolved,
        not in the index folder, not under a version-control or cache folder."""
        real = os.path.realpath(path)
        if any(real == p or real.startswith(p + os.sep) for p in self.ignored):
            return False
        if not real.startswith(self.root_real + os.sep):
            return False
        rel = Path(real[len(self.root_real) + 1:])
        return not any(part in IGNORED_PARTS for part in rel.parts)

    def start(self) -> str | None:
        """Start watching; None when it watches, else why not (the engine then syncs
        when asked instead)."""
        try:
            from watchdog.events import FileSystemEvent, FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError as exc:  # an optional dependency left out of a trimmed install
            return f"watchdog is not installed ({exc})"
        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type in ("opened", "closed_no_write"):
                    return
                paths = [os.fsdecode(p) for p in (event.src_path, getattr(event, "dest_path", ""))
                         if p]
                watcher.seen.extend(paths)
                if any(watcher._relevant(p) for p in paths):
                    watcher.on_change()

        observer = Observer()
        try:
            observer.schedule(Handler(), str(self.root), recursive=True, follow_symlink=False)
            observer.start()
        except (OSError, TypeError) as exc:  # the inotify watch limit; an older watchdog
            return f"cannot watch {self.root}: {exc}"
        self._observer = observer
        return None

    @property
    def watching(self) -> bool:
        """Whether it follows the files now."""
        return self._observer is not None and self._observer.is_alive()

    def stop(self) -> None:
        """Stop watching."""
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            observer.join(5)
