"""``Graph``: the facade over the call graph's parts, with the API its callers use.

It owns a ``SymbolIndex`` (symbols and facts), an ``EdgeIndex`` (call sites and
edges) and a ``Resolver`` (with its memo of lookups); it builds them from symbol
infos and reference rows, keeps them up to date file by file (``replace_file``),
answers queries (``queries``) and saves itself as plain data (``persist``).
"""

from __future__ import annotations

import gc
import os
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

from . import callfile, persist, queries
from .edges import EdgeIndex, InEdges, OutEdges, SiteEdges
from .facts import RefRow, call_site
from .index import SymbolIndex
from .memo import Memo
from .model import CallSite, Edge, SymbolInfo, TypeRef
from .resolve import Resolver


class Graph(queries.EdgeQueries):
    """The call graph of a set of files: built from their symbols and reference rows,
    kept up to date one file at a time, asked for callers, callees and chains."""

    def __init__(self, symbols: list[SymbolInfo], refs: list[RefRow]) -> None:
        self._assemble(SymbolIndex(), None, Memo())
        with gc_paused(settle=True):
            by_path: dict[str, list[RefRow]] = defaultdict(list)
            for s in symbols:
                self._index.add_symbol(s)
            for r in refs:
                by_path[r["path"]].append(r)
            for path, rows in by_path.items():
                self._index.add_facts(path, rows, self._resolver.enclosing_class)
            for rows in by_path.values():
                for r in rows:
                    if r["kind"] == "call":
                        self._add_site(call_site(r))

    def _assemble(self, index: SymbolIndex, edges: EdgeIndex | None, memo: Memo) -> None:
        self._index = index
        self._edges: EdgeIndex = edges if edges is not None else EdgeIndex(index.symbols)
        self._resolver = Resolver(index, memo)
        self.symbols: dict[str, SymbolInfo] = index.symbols  # id → symbol (read-only)
        self.by_name: dict[str, list[SymbolInfo]] = index.by_name  # name → its functions and classes
        self.file_symbols: dict[str, list[str]] = index.file_symbols  # path → its symbol ids
        self.sites: dict[str, list[CallSite]] = self._edges.sites  # path → its call sites

    # --- edges -----------------------------------------------------------------------------

    @property
    def out_edges(self) -> Mapping[str, dict[Edge, None]]:
        """Caller id → its edges (name matches included; read-only)."""
        return OutEdges(self._edges)

    @property
    def in_edges(self) -> Mapping[str, dict[Edge, None]]:
        """Target id → the edges into it (name matches included; read-only)."""
        return InEdges(self._edges)

    @property
    def site_edges(self) -> Mapping[CallSite, list[Edge]]:
        """Call site → its edges, empty for a site with none (read-only)."""
        return SiteEdges(self._edges)

    @property
    def unresolved(self) -> list[CallSite]:
        """Call sites with no edge, outside the repository ones included (``len``)."""
        return list(self._edges.unresolved)

    @property
    def external(self) -> list[CallSite]:
        """Call sites known to call outside the repository (builtins, external
        modules, methods of external types)."""
        return list(self._edges.external)

    # --- building and per-file updates -----------------------------------------------------

    def _add_site(self, site: CallSite) -> None:
        if self._edges.has(site):
            return  # the same call matched twice
        self._edges.sites[site.path].append(site)
        self._link(site)

    def _link(self, site: CallSite) -> None:
        found, external = self._resolver.resolve_site(site)
        self._edges.add(site, found, external)

    def replace_file(self, path: str, symbols: list[SymbolInfo], refs: list[RefRow]) -> None:
        """Swap one file's symbols and references (an edited buffer, a file changed
        on disk; empty lists: the file is gone). The file's call sites that are gone
        lose their edges and new ones are resolved; a site still there, at the same
        place in the same symbol, keeps its edges unless its resolution read a name
        whose facts changed, and so does every site elsewhere. Same edges as building
        the graph again from scratch (tests/test_graph*.py)."""
        edges = self._edges
        own = edges.sites.pop(path, [])
        new_sites = list(dict.fromkeys(call_site(r) for r in refs if r["kind"] == "call"))
        now = set(new_sites)
        edges.unlink([site for site in own if site not in now])
        kept = set(own) & now
        changed = self._index.replace_file(path, symbols, refs, self._resolver.enclosing_class)
        dropped = self._resolver.memo.drop(changed)
        others = edges.affected(dropped)
        edges.unlink(list(others))
        edges.sites[path] = new_sites
        for site in others:
            self._link(site)
        for site in new_sites:
            if site not in kept:
                self._link(site)
        if not new_sites:
            del edges.sites[path]

    def symbols_where(self, field: str, value: str) -> list[SymbolInfo]:
        """The symbols whose ``field`` (``path``, ``name``, ``qualified_name``...) is
        ``value``, in the index's order."""
        if field == "path":
            return [self.symbols[i] for i in self.file_symbols.get(value, ()) if i in self.symbols]
        return [s for s in self.symbols.values() if getattr(s, field) == value]

    def ready_for_edits(self) -> int:
        """Index the remembered lookups by the keys they read (``Memo.index``), which the
        first ``replace_file`` would do otherwise; how many were. The index (a list of
        readers per key: 1.5M lists at the standard library) lasts as the map does, so
        it goes to the permanent generation with it (``gc_paused``): left to the
        collector, every full collection walked it again, 20 ms in the middle of an
        edit's update."""
        with gc_paused(settle=True):
            return self._resolver.memo.index()

    # --- queries (graph.queries; those over the edges alone: queries.EdgeQueries) ---------

    def neighbour_files(self, paths: Iterable[str]) -> list[str]:
        """The files that call into these files or that they call, most edges first
        (``queries.neighbour_files``)."""
        return queries.neighbour_files(self._index, self._edges, paths)

    def most_called(self, n: int = 10) -> list[tuple[str, int]]:
        """Symbols by how many distinct callers call them ("core utilities")."""
        return queries.most_called(self._edges, n)

    def widest_callers(self, n: int = 10) -> list[tuple[str, int]]:
        """Symbols by how many distinct symbols they call ("orchestrators")."""
        return queries.widest_callers(self._edges, n)

    def unused(self) -> list[SymbolInfo]:
        """Functions, methods and classes nothing calls, instantiates, subclasses or
        names as a type (``queries.unused``)."""
        return queries.unused(self._index, self._edges)

    def type_references(self, symbol_id: str) -> dict[str, list[TypeRef] | list[Edge]]:
        """Uses of a class beyond calls of its methods: where it is instantiated,
        subclassed and named as a type."""
        return queries.type_references(self._index, self._edges, self._resolver.type_value, symbol_id)

    def stats(self) -> dict[str, object]:
        """Edges by reason, and sites resolved, by name, external or not, per language."""
        return queries.stats(self._index, self._edges)

    # --- persistence -----------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str], key: str) -> None:
        """Write the resolved map (symbols, facts, each call site's targets and what its
        resolution read) next to the index, so a warm start loads it instead of
        resolving every call again (bench/bench_graph.py). ``key`` names the state it
        was built from (``store_key``); ``load`` with another key answers None. Plain
        data in a versioned format (``graph.persist``), signed with this user's
        secret; written to a temporary file, then renamed. OSError when it cannot be
        written (nor the secret made)."""
        persist.dump(self._index, self._edges, self._resolver.memo, path, key)

    def save_calls(self, path: str | os.PathLike[str], key: str) -> None:
        """Write the calls alone in a file read in place (``graph.callfile``): what
        ``CallFile.open`` answers callers, callees and chains from without loading the
        map. Signed and written like ``save``; OSError when it cannot be written."""
        callfile.dump(self._index, self._edges, path, key)

    @classmethod
    def load(cls, path: str | os.PathLike[str], key: str) -> Graph | None:
        """The map ``save`` wrote for this ``key``; None when there is none, it was
        built from another state or another version, its signature is not this user's,
        or anything in it is not of the expected shape (derived data: the caller
        builds it again). Nothing in the file is run: it is parsed as JSON and checked
        field by field (``graph.persist``)."""
        with gc_paused(settle=True):
            parts = persist.load(path, key)
            if parts is None:
                return None
            graph = cls.__new__(cls)
            graph._assemble(*parts)
        return graph


@contextmanager
def gc_paused(settle: bool = False) -> Iterator[None]:
    """The cyclic garbage collector paused while a graph is built or loaded: millions
    of new objects (4.2M at transformers' 58k symbols), none of them garbage, that
    each collection would walk again and again. With ``settle``, every object alive
    at the end goes to the permanent generation (``gc.freeze``), which walks nothing:
    no later collection walks the graph, in a command or in the server (whose heap,
    ``lsp.heap``, is frozen once its lasting objects are made anyway). A collection
    of the young generations instead walked every new object once, 1.2 s at
    transformers. A graph dropped later is still freed, by reference counts: it holds
    no reference cycle (tests/test_graph.py). What else froze with it (a cycle that
    became garbage meanwhile) waits for ``gc.unfreeze`` (``lsp.heap.release_heap``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if settle:
                gc.freeze()
            gc.enable()
