"""The call graph of a folder's model, and its cache: one update per generation of
the model (a keystroke swaps the edited file into the graph), a rebuild when many
files changed, and the graph saved beside the index for exactly the disk model,
loaded by the next start — the same cache for the language server and the CLI."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..graph import Graph
from ..graph_store import graph_for_store, save_graph, saved_graph_path, store_key
from .model import FileModel, SymRow

if TYPE_CHECKING:
    from ..index import Index

log = logging.getLogger("codeloupe.workspace")

# More changed files than this (and than this share of all files): build the graph again.
_REBUILD_MIN = 64
_REBUILD_SHARE = 0.25


@dataclass
class Snapshot:
    """The call graph over every file as the folder knows it, at one generation."""

    generation: int
    graph: Graph
    rows: dict[str, SymRow]


class GraphCache:
    """The graph of one folder's model (``disk`` from the index, ``live`` buffers over
    it), kept up to date one generation at a time. The model belongs to the folder;
    this holds the graph made of it, what it was made of, and the graph waiting to
    be saved. ``index`` gives the folder's index (None while it is not open);
    ``save_later`` runs the save in the folder's writer."""

    def __init__(self, index: Callable[[], Index | None],
                 save_later: Callable[[Callable[[], None]], bool]) -> None:
        self._index = index
        self._submit = save_later
        self.source: str | None = None  # how the graph was last made whole: "loaded", "built"
        self._snapshot: Snapshot | None = None
        self._unsaved: tuple[Graph, str] | None = None  # a graph of ``disk`` (key) to save
        self._files: dict[str, FileModel] = {}  # what the graph holds
        self._lock = threading.Lock()

    def current(self, generation: int) -> Snapshot | None:
        """The snapshot of this generation, if it is made already."""
        snap = self._snapshot
        return snap if snap is not None and snap.generation == generation else None

    def ready_for_edits(self) -> None:
        """Make the graph ready for the first edit (``Graph.ready_for_edits``) under the
        snapshot lock; off the event loop (seconds on a million-line repository)."""
        with self._lock:
            if self._snapshot is not None:
                self._snapshot.graph.ready_for_edits()

    def latest(self) -> Snapshot | None:
        """The last snapshot made, of whatever generation (None before the first)."""
        return self._snapshot

    def snapshot(self, generation: int, disk: Mapping[str, FileModel],
                 live: Mapping[str, FileModel], disk_key: str | None) -> Snapshot:
        """The graph of the model at ``generation`` (``disk``, ``live`` over it;
        ``disk_key``: the index's ``store_key`` when ``disk`` is exactly what it holds)
        at most one update per generation (call it off the event loop). Files that
        changed since the last snapshot are swapped into the graph one by one
        (``Graph.replace_file``), so a keystroke costs the edited file, not the
        workspace; many changed files (a first index, a branch switch) build it
        again, or load the graph saved beside the index when it was saved for
        exactly the disk model, open buffers swapped in on top; a graph built from
        the disk model alone is saved there (in the writer) for the next start. The
        graph is shared between snapshots and updated in place; ``rows`` is copied
        on write."""
        with self._lock:
            snap = self._snapshot
            if snap is not None and snap.generation == generation:
                return snap
            merged = dict(disk)
            merged.update(live)
            old = self._files
            changed = [p for p, fm in merged.items() if old.get(p) is not fm]
            changed += [p for p in old if p not in merged]
            if snap is None or len(changed) > max(_REBUILD_MIN, len(merged) * _REBUILD_SHARE):
                graph, rows = self._whole(merged, disk, live, disk_key)
            else:
                self._unsaved = None  # about to change in place: no longer the disk's graph
                graph, rows = snap.graph, dict(snap.rows)
                for path in changed:
                    before, after = old.get(path), merged.get(path)
                    for sym in before.symbols if before else ():
                        rows.pop(sym.id, None)
                    for sym in after.symbols if after else ():
                        rows[sym.id] = sym
                    graph.replace_file(path, after.symbol_infos() if after else [],
                                       list(after.refs) if after else [])
            self._files = merged
            snap = Snapshot(generation, graph, rows)
            self._snapshot = snap
            return snap

    def _whole(self, merged: dict[str, FileModel], disk: Mapping[str, FileModel],
               live: Mapping[str, FileModel], disk_key: str | None
               ) -> tuple[Graph, dict[str, SymRow]]:
        """The graph of every file at once: the saved one, or built (and saved)."""
        rows = {s.id: s for fm in merged.values() for s in fm.symbols}
        graph = self._load(disk_key)
        self._unsaved = None
        if graph is None:
            refs = [r for fm in merged.values() for r in fm.refs]
            graph = Graph([s.info() for s in rows.values()], refs)
            self.source = "built"
            if disk_key is not None and not live:
                self._unsaved = (graph, disk_key)
                if not self._submit(self._save):
                    self._unsaved = None  # the writer is shut down: no next start to save for
        else:
            self.source = "loaded"
            for path, fm in live.items():  # open buffers over the disk's graph
                if disk.get(path) is not fm:
                    graph.replace_file(path, fm.symbol_infos(), list(fm.refs))
        return graph, rows

    def _load(self, key: str | None) -> Graph | None:
        """The graph saved beside the index for the disk model as it is, if any."""
        index = self._index()
        if key is None or index is None:
            return None
        path = saved_graph_path(index.store)
        return None if path is None else Graph.load(path, key)

    def _save(self) -> None:
        """In the writer: save the graph built from the disk model beside the index
        (where ``codeloupe calls`` finds it too), unless the index or the graph changed
        since. Holds the snapshot lock while it writes, so the graph is not changed
        under the writer."""
        unsaved, index = self._unsaved, self._index()
        if unsaved is None or index is None:
            return
        path = saved_graph_path(index.store)
        try:
            if path is None or store_key(index.store) != unsaved[1]:
                return  # the index moved on: this graph is not its graph any more
        except Exception as exc:  # a cache: never fail the writer for it
            log.info("codeloupe: cannot read the index state for the call graph: %s", exc)
            return
        with self._lock:
            if self._unsaved is not unsaved:
                return
            self._unsaved = None
            try:
                save_graph(unsaved[0], path, unsaved[1])
            except OSError as exc:
                log.info("codeloupe: cannot save the call graph to %s: %s", path, exc)


def graph_for(index: Index) -> Graph:
    """The call graph of an index as it is (the CLI's, and ask's without a server):
    the one saved beside it when it was built from the index as it is now, else
    built from the store and saved there for the next start. The key is
    ``store_key``: every write of a file's symbols and references changes it, so a
    stale graph is never used. An index that is not a local folder is not saved
    beside; a graph that cannot be written is only a note."""
    return graph_for_store(index.store)
