"""One workspace folder's live model, as the language server and the CLI share it:
its index (opened once, reopened when settings change what is indexed), the phase
of its index run, the model of its files (``disk`` from the index, ``live`` editor
buffers over it, one ``generation`` a change), the call graph of that model
(``graphs.GraphCache``), and its writer thread.

The model is changed on one thread (the language server's event loop); the
graph is made from it in reader threads, one update per generation."""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..graph_store import store_key
from ..index import Index, IndexReport
from ..search import Searcher
from .graphs import GraphCache, Snapshot
from .jobs import Jobs
from .model import FileModel

if TYPE_CHECKING:
    from ..store import FileRefs

log = logging.getLogger("codeloupe.workspace")


_ALIVE = [0]  # indexes opened and not freed yet (status: server.indexes)


def _freed() -> None:
    _ALIVE[0] -= 1


def track_index(index: object) -> None:
    """Count an index the server opened until it is freed."""
    _ALIVE[0] += 1
    weakref.finalize(index, _freed)


def indexes_alive() -> int:
    """How many indexes the server opened are still in memory: one a folder, plus
    those of removed folders (or re-opened indexes) not freed yet."""
    return _ALIVE[0]


@dataclass
class Folder:
    """A workspace folder: its index, run state, model, graph and writer."""

    uri: str
    root: Path
    index: Index | None = None
    state: str = "opening"  # the run's phase: opening, indexing, embedding, ready, failed (``label``)
    progress: dict[str, object] = field(default_factory=dict)
    # set once opening the index has ended (opened or failed); cleared when settings re-open it
    opened: asyncio.Event = field(default_factory=asyncio.Event, repr=False, compare=False)
    # set once the model holds what the index holds (the first run's disk sync)
    loaded: asyncio.Event = field(default_factory=asyncio.Event, repr=False, compare=False)
    warming: asyncio.Future | None = field(default=None, repr=False, compare=False)  # a model load
    graph_warming: asyncio.Future | None = field(default=None, repr=False, compare=False)  # the call graph made once ready
    dropped_index: bool = False  # an index was dropped (re-opened): free it after the next run
    error: str | None = None
    report: dict[str, object] = field(default_factory=dict)
    disk: dict[str, FileModel] = field(default_factory=dict)
    live: dict[str, FileModel] = field(default_factory=dict)
    generation: int = 0
    # the index's store_key when ``disk`` is exactly what the index held (set by a full
    # disk sync; None after a partial one): a saved call graph with this key is ``disk``'s
    disk_key: str | None = None
    graphs: GraphCache = field(init=False, repr=False, compare=False)
    _searcher: Searcher | None = field(default=None, repr=False, compare=False)
    _writer: Jobs | None = None

    def __post_init__(self) -> None:
        self.graphs = GraphCache(lambda: self.index, self._submit_save)

    def searcher(self) -> Searcher:
        """The searcher of the open index: one an index, not one (and a thread) a
        request; a re-opened index gets a new one. It lives with the folder (never in
        a cache keyed by the index, which it holds: that would keep a removed folder's
        index and model alive). LookupError while the index is not open."""
        index = self.index
        if index is None:
            raise LookupError(f"{self.root} has no index yet")
        if self._searcher is None or self._searcher.index is not index:
            if self._searcher is not None:
                self._searcher.close()
            self._searcher = Searcher(index)
        return self._searcher

    @property
    def label(self) -> str:
        """The state as status and every command result report it: ``opening`` (the
        index is not open yet: nothing can be read), ``indexing`` (files → symbols),
        ``embedding N/M`` (N of the M symbols waiting for a vector are embedded),
        ``ready`` or ``failed``."""
        if self.state == "failed":
            return "failed"
        if self.index is None:
            return "opening"
        if self.state == "embedding":
            p = self.progress
            if p.get("stage") == "embed":
                return f"embedding {p.get('done', 0)}/{p.get('total', 0)}"
        return self.state

    @property
    def graph_source(self) -> str | None:
        """How the graph was last made whole: "loaded" (saved beside the index) or "built"."""
        return self.graphs.source

    def reopen(self) -> None:
        """Forget the open index (settings that change what is indexed or how): the
        next run opens it again, and readers wait for that."""
        self.dropped_index = self.dropped_index or self.index is not None
        self.index = None
        self.state = "opening"
        self.opened.clear()

    def writer(self) -> Jobs:
        """This folder's own writer thread: indexing, embedding and every write to its
        index, in order. One per folder, so a cold index of one folder (minutes of
        embedding) does not hold up another folder's buffer writes and re-embedding."""
        if self._writer is None:
            self._writer = Jobs(1, f"codeloupe-writer-{self.root.name}")
        return self._writer

    def _submit_save(self, save: object) -> bool:
        try:
            self.writer().submit(save)  # type: ignore[arg-type]
        except RuntimeError:  # the writer is shut down
            return False
        return True

    def close(self, wait: bool = False) -> Jobs | None:
        """Stop taking work (what is queued still runs, so the index stays consistent);
        returns the writer, if any, to wait for at exit."""
        if self._writer is not None:
            self._writer.shutdown(wait=wait)
        return self._writer

    # --- the model --------------------------------------------------------------------

    def file(self, rel: str) -> FileModel | None:
        """One file's model: the open buffer's, else the disk's; None if neither."""
        return self.live.get(rel) or self.disk.get(rel)

    def files(self) -> list[FileModel]:
        """Every file's model, open buffers over the disk's."""
        merged = dict(self.disk)
        merged.update(self.live)
        return list(merged.values())

    def set_disk(self, models: dict[str, FileModel], paths: list[str] | None = None,
                 key: str | None = None) -> None:
        """Replace the disk model: all of it, or only ``paths`` (missing = deleted).
        ``key``: the index's ``store_key`` read with ``models`` (all of them)."""
        self.disk_key = key if paths is None else None
        if paths is None:
            self.disk = dict(models)
        else:
            disk = dict(self.disk)
            for p in paths:
                if p in models:
                    disk[p] = models[p]
                else:
                    disk.pop(p, None)
            self.disk = disk
        self.generation += 1

    def set_live(self, model: FileModel) -> None:
        """Put an open buffer's model over the disk's (a new generation)."""
        self.live = {**self.live, model.path: model}
        self.generation += 1

    def drop_live(self, rel: str) -> None:
        """Drop an open buffer's model, the disk's showing again (a new generation when
        there was one)."""
        if rel in self.live:
            self.live = {p: m for p, m in self.live.items() if p != rel}
            self.generation += 1

    def current_snapshot(self) -> Snapshot | None:
        """The snapshot of the model as it is now, if it is made already (else None:
        call ``snapshot`` off the event loop). On the event loop, which alone
        changes the model."""
        return self.graphs.current(self.generation)

    def snapshot(self) -> Snapshot:
        """The graph of the current model (``GraphCache.snapshot``; off the event loop)."""
        return self.graphs.snapshot(self.generation, self.disk, self.live, self.disk_key)

    def counts(self) -> dict[str, int]:
        """Files, symbols and open buffers in the model."""
        files = self.files()
        return {"files": len(files), "symbols": sum(len(f.symbols) for f in files),
                "open_buffers": len(self.live)}


# --- index runs' steps (in the folder's writer or a reader thread) -------------------------


def rows_and_key(index: Index) -> tuple[str | None, list[dict], dict[str, FileRefs]]:
    """Every symbol row and every file's reference rows, with the index's ``store_key``
    when no write came between reading it and the rows (it names the saved call graph
    of exactly these rows); None when one did or the key cannot be read."""
    try:
        key: str | None = store_key(index.store)
    except Exception as exc:  # the saved graph is a cache
        log.info("codeloupe: cannot read the index state of %s: %s", index.root, exc)
        key = None
    symbol_rows, ref_rows = index.load_rows()
    if key is not None:
        try:
            if store_key(index.store) != key:
                key = None
        except Exception:
            key = None
    return key, symbol_rows, ref_rows


def sync_files(index: Index, progress) -> IndexReport:  # runs in the writer
    """An incremental disk sync, unless another process holds the index lock (then
    the index is answered from as it is)."""
    with index.write_lock(wait=False) as locked:
        if not locked:
            log.warning("codeloupe: another process is indexing %s; answering from the index "
                        "as it is", index.root)
            return IndexReport()
        return index.sync_files(progress)
