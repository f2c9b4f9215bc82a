"""What the server knows about each workspace folder, in memory.

A folder's symbols and references come from the store after a disk sync
(``disk``) and from editor buffers as they change (``live``, which wins): the
standard features answer from this model, so unsaved edits are seen at once,
while the store follows in the background (search reads the store).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..graph import Graph, SymbolInfo
from ..graph_store import saved_graph_path, store_key
from ..model import FileExtraction, Reference, Symbol
from .jobs import Jobs

if TYPE_CHECKING:
    from ..index import Index
    from ..search import Searcher

log = logging.getLogger("codeloupe.lsp")
T = TypeVar("T")

@dataclass(frozen=True, slots=True)
class SymRow:
    id: str
    path: str
    name: str
    qualified_name: str
    kind: str
    language: str
    signature: str
    doc: str
    parent: str | None
    start_line: int  # 1-based
    start_col: int  # 0-based, code points
    end_line: int
    end_col: int

    def info(self) -> SymbolInfo:
        return SymbolInfo(self.id, self.path, self.name, self.qualified_name, self.kind,
                          self.parent, self.start_line, self.end_line, self.language)


# More changed files than this (and than this share of all files): build the graph again.
_REBUILD_MIN = 64
_REBUILD_SHARE = 0.25

_REF_FIELDS = ("path", "kind", "name", "receiver", "line", "col", "enclosing", "source", "original")


def _sym_row(s: Symbol) -> tuple[SymRow, SymbolInfo]:
    row = SymRow(s.id, s.path, s.name, s.qualified_name, s.kind, s.language, s.signature, s.doc,
                 s.parent, s.start_line, s.start_col, s.end_line, s.end_col)
    return row, row.info()


def _ref_dict(r: Reference) -> dict:
    return {f: getattr(r, f) for f in _REF_FIELDS}


def _reuse(old: Sequence[Any], made: Sequence[T], new: Sequence[Any], make: Callable[[Any], T]) -> list[T]:
    """``make`` of each of ``new``, where ``made`` is ``make`` of each of ``old``: an item
    that is the very same object in ``old`` keeps what was made of it. A spliced
    extraction keeps the items before and after the edited definition, in order: the
    common head and tail are matched by identity in one pass, the middle by id."""
    n, m = len(old), len(new)
    limit = min(n, m)
    head = 0
    while head < limit and old[head] is new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[n - 1 - tail] is new[m - 1 - tail]:
        tail += 1
    middle = {id(o): (o, x) for o, x in zip(old[head:n - tail], made[head:n - tail], strict=True)}
    out = list(made[:head])
    for item in new[head:m - tail]:
        hit = middle.get(id(item))
        out.append(hit[1] if hit is not None and hit[0] is item else make(item))
    out.extend(made[n - tail:])
    return out


@dataclass(frozen=True, slots=True)
class FileModel:
    path: str
    symbols: tuple[SymRow, ...]
    refs: tuple[dict, ...]
    version: int | None = None  # the document version, for a live buffer
    # the graph's view of ``symbols`` (same order), when made with them
    infos: tuple[SymbolInfo, ...] | None = field(default=None, compare=False, repr=False)

    def symbol_infos(self) -> list[SymbolInfo]:
        return list(self.infos) if self.infos is not None else [s.info() for s in self.symbols]

    @classmethod
    def from_extraction(cls, ex: FileExtraction, version: int | None = None,
                        previous: tuple[FileExtraction, FileModel] | None = None) -> FileModel:
        """The model of an extraction. ``previous``: the extraction of an earlier
        version of this buffer and its model; a symbol or reference that is the very
        same object in both (a spliced re-extraction keeps everything outside the
        edited definition) keeps its row, reference dict and SymbolInfo instead of
        new ones (3,000 reference dicts are 5 ms a keystroke, and as many objects
        for the garbage collector). Rows are never changed in place (frozen, and the
        dicts are only read), so sharing them between versions is safe."""
        old_syms: Sequence[object] = ()
        old_refs: Sequence[object] = ()
        made_syms: Sequence[tuple[SymRow, SymbolInfo]] = ()
        made_refs: Sequence[dict] = ()
        if previous is not None and previous[1].infos is not None:
            pex, pfm = previous
            if len(pex.symbols) == len(pfm.symbols) and len(pex.references) == len(pfm.refs):
                old_syms, old_refs = pex.symbols, pex.references
                made_syms = list(zip(pfm.symbols, pfm.infos, strict=True))
                made_refs = pfm.refs
        pairs = _reuse(old_syms, made_syms, ex.symbols, _sym_row)
        refs = _reuse(old_refs, made_refs, ex.references, _ref_dict)
        rows = [row for row, _ in pairs]
        infos = [info for _, info in pairs]
        return cls(ex.path, tuple(rows), tuple(refs), version, tuple(infos))

    @staticmethod
    def group_rows(symbol_rows: list[dict], ref_rows: list[dict]) -> dict[str, FileModel]:
        syms: dict[str, list[SymRow]] = {}
        refs: dict[str, list[dict]] = {}
        for row in symbol_rows:
            syms.setdefault(row["path"], []).append(SymRow(**row))
        for row in ref_rows:
            refs.setdefault(row["path"], []).append({f: row[f] for f in _REF_FIELDS})
        out = {}
        for path in syms.keys() | refs.keys():
            ordered = sorted(syms.get(path, []), key=lambda s: (s.start_line, s.start_col, -s.end_line))
            out[path] = FileModel(path, tuple(ordered), tuple(refs.get(path, [])))
        return out


@dataclass(frozen=True, slots=True)
class DocContext:
    """A document a request is about: its folder, path in it and model."""

    folder: FolderState
    rel: str
    model: FileModel | None


@dataclass
class Snapshot:
    """The call graph over every file as the folder knows it, at one generation."""

    generation: int
    graph: Graph
    rows: dict[str, SymRow]


@dataclass
class FolderState:
    uri: str
    root: Path
    index: Index | None = None
    state: str = "starting"  # starting, indexing, embedding, ready, failed
    progress: dict[str, object] = field(default_factory=dict)
    error: str | None = None
    report: dict[str, object] = field(default_factory=dict)
    disk: dict[str, FileModel] = field(default_factory=dict)
    live: dict[str, FileModel] = field(default_factory=dict)
    generation: int = 0
    # the index's store_key when ``disk`` is exactly what the index held (set by a full
    # disk sync; None after a partial one): a saved call graph with this key is ``disk``'s
    disk_key: str | None = None
    graph_source: str | None = None  # how the graph was last made whole: "loaded", "built"
    _snapshot: Snapshot | None = None
    _unsaved: tuple[Graph, str] | None = None  # a graph of ``disk`` (key) to save, untouched since
    _graph_files: dict[str, FileModel] = field(default_factory=dict)  # what the graph holds
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _searcher: Searcher | None = None
    _writer: Jobs | None = None

    def writer(self) -> Jobs:
        """This folder's own writer thread: indexing, embedding and every write to its
        index, in order. One per folder, so a cold index of one folder (minutes of
        embedding) does not hold up another folder's buffer writes and re-embedding."""
        if self._writer is None:
            self._writer = Jobs(1, f"codeloupe-writer-{self.root.name}")
        return self._writer

    def close(self, wait: bool = False) -> Jobs | None:
        """Stop taking work (what is queued still runs, so the index stays consistent);
        returns the writer, if any, to wait for at exit."""
        if self._writer is not None:
            self._writer.shutdown(wait=wait)
        return self._writer

    def searcher(self) -> Searcher:
        """One Searcher per index (it owns a thread for the vector half of a hybrid
        query): not a new one, and a new thread, per request."""
        from ..search import Searcher

        index = self.index
        if index is None:
            raise LookupError(f"{self.root} has no index yet")
        searcher = self._searcher
        if searcher is None or searcher.index is not index:
            searcher = self._searcher = Searcher(index)
        return searcher

    # --- the model --------------------------------------------------------------------

    def file(self, rel: str) -> FileModel | None:
        return self.live.get(rel) or self.disk.get(rel)

    def files(self) -> list[FileModel]:
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
        self.live = {**self.live, model.path: model}
        self.generation += 1

    def drop_live(self, rel: str) -> None:
        if rel in self.live:
            self.live = {p: m for p, m in self.live.items() if p != rel}
            self.generation += 1

    def current_snapshot(self) -> Snapshot | None:
        """The snapshot of the model as it is now, if it is made already (else None:
        call ``snapshot`` off the event loop). On the event loop, which alone
        changes the model."""
        snap = self._snapshot
        return snap if snap is not None and snap.generation == self.generation else None

    def snapshot(self) -> Snapshot:
        """The graph of the current model, at most one update per generation (call it
        off the event loop). Files that changed since the last snapshot are swapped
        into the graph one by one (``Graph.replace_file``), so a keystroke costs the
        edited file, not the workspace; many changed files (a first index, a branch
        switch) build it again, or load the graph saved beside the index when it was
        saved for exactly the disk model (``disk_key``), open buffers swapped in on top;
        a graph built from the disk model alone is saved there (in the writer) for the
        next start. The graph is shared between snapshots and updated in place;
        ``rows`` is copied on write."""
        with self._lock:
            snap = self._snapshot
            generation = self.generation
            if snap is not None and snap.generation == generation:
                return snap
            merged = dict(self.disk)
            merged.update(self.live)
            old = self._graph_files
            changed = [p for p, fm in merged.items() if old.get(p) is not fm]
            changed += [p for p in old if p not in merged]
            if snap is None or len(changed) > max(_REBUILD_MIN, len(merged) * _REBUILD_SHARE):
                rows = {s.id: s for fm in merged.values() for s in fm.symbols}
                graph = self._load_graph()
                if graph is None:
                    refs = [r for fm in merged.values() for r in fm.refs]
                    graph = Graph([s.info() for s in rows.values()], refs)
                    self.graph_source = "built"
                    self._unsaved = None
                    if self.disk_key is not None and not self.live:
                        self._unsaved = (graph, self.disk_key)
                        self._save_later()
                else:
                    self.graph_source = "loaded"
                    self._unsaved = None
                    for path, fm in self.live.items():  # open buffers over the disk's graph
                        if self.disk.get(path) is not fm:
                            graph.replace_file(path, fm.symbol_infos(), list(fm.refs))
            else:
                self._unsaved = None  # about to change in place: no longer the disk's graph
                graph = snap.graph
                rows = dict(snap.rows)
                for path in changed:
                    before, after = old.get(path), merged.get(path)
                    for sym in before.symbols if before else ():
                        rows.pop(sym.id, None)
                    for sym in after.symbols if after else ():
                        rows[sym.id] = sym
                    graph.replace_file(path, after.symbol_infos() if after else [],
                                       list(after.refs) if after else [])
            self._graph_files = merged
            snap = Snapshot(generation, graph, rows)
            self._snapshot = snap
            return snap

    def _load_graph(self) -> Graph | None:
        """The graph saved beside the index for the disk model as it is, if any."""
        key, index = self.disk_key, self.index
        if key is None or index is None:
            return None
        path = saved_graph_path(index.store)
        return None if path is None else Graph.load(path, key)

    def _save_later(self) -> None:
        try:
            self.writer().submit(self._save_graph)
        except RuntimeError:  # the writer is shut down: no next start to save for
            self._unsaved = None

    def _save_graph(self) -> None:
        """In the writer: save the graph built from the disk model beside the index
        (where ``codeloupe calls`` finds it too), unless the index or the graph changed
        since. Holds the snapshot lock while it writes, so the graph is not changed
        under the pickler."""
        unsaved, index = self._unsaved, self.index
        if unsaved is None or index is None:
            return
        path = saved_graph_path(index.store)
        try:
            if path is None or store_key(index.store) != unsaved[1]:
                return  # the index moved on: this graph is not its graph any more
        except Exception as exc:  # noqa: BLE001 - a cache: never fail the writer for it
            log.info("codeloupe: cannot read the index state for the call graph: %s", exc)
            return
        with self._lock:
            if self._unsaved is not unsaved:
                return
            self._unsaved = None
            try:
                unsaved[0].save(path, unsaved[1])
            except OSError as exc:
                log.info("codeloupe: cannot save the call graph to %s: %s", path, exc)

    def counts(self) -> dict[str, int]:
        files = self.files()
        return {"files": len(files), "symbols": sum(len(f.symbols) for f in files),
                "open_buffers": len(self.live)}


# --- positions in a file --------------------------------------------------------------------


def _word(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])")


def name_span(sym: SymRow, lines: list[str]) -> tuple[int, int, int]:
    """(line 0-based, start col, end col) of a symbol's name, code points; the start
    of the symbol when the name is not found in its first lines."""
    if sym.kind == "module" and sym.parent is None:
        return sym.start_line - 1, 0, 0
    first = sym.start_line - 1
    pattern = _word(sym.name.rsplit(".", 1)[-1])
    for line0 in range(first, min(first + 6, sym.end_line, len(lines))):
        text = lines[line0]
        start = sym.start_col if line0 == first else 0
        m = pattern.search(text, start)
        if m:
            return line0, m.start(), m.end()
    return first, sym.start_col, sym.start_col


def contains(sym: SymRow, line1: int, col: int) -> bool:
    if line1 < sym.start_line or line1 > sym.end_line:
        return False
    if line1 == sym.start_line and col < sym.start_col:
        return False
    return not (line1 == sym.end_line and col > sym.end_col)


def ref_at(fm: FileModel, line1: int, col: int) -> dict | None:
    for r in fm.refs:
        if r["line"] == line1 and r["col"] <= col <= r["col"] + len(r["name"]):
            return r
    return None


def innermost(fm: FileModel, line1: int, col: int, *, modules: bool = False) -> SymRow | None:
    best: SymRow | None = None
    for s in fm.symbols:
        if not modules and s.kind == "module" and s.parent is None:
            continue
        if contains(s, line1, col) and (
            best is None or (s.start_line, s.start_col) >= (best.start_line, best.start_col)
        ):
            best = s
    return best
