"""The reference map: resolving call references to symbols, callers and callees.

A first version. A call is resolved, in order, by

1. ``self``/``this``/``cls``/``super`` receivers: a method of that name on the
   enclosing class (then anywhere in the same file);
2. an unqualified name defined in the same file;
3. an unqualified name bound by an import in the same file: symbols of that name
   in files whose path matches the import's source;
4. only then by name across the repository: low confidence, and every candidate
   is kept (an ambiguous call is marked so, never silently merged).

Each edge carries the step that found it (``reason``) and a ``confidence``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from .model import CONTAINER_KINDS

SELF_RECEIVERS = frozenset({"self", "this", "cls", "super", "super()", "$this", "Self", "base"})
_SOURCE_EXT = re.compile(r"\.(m?[jt]sx?|cjs|py|rb|php|h|hpp)$")
CALLABLE_KINDS = frozenset({"function", "method", "constructor", *CONTAINER_KINDS}) - {"module"}


@dataclass(frozen=True, slots=True)
class SymbolInfo:
    id: str
    path: str
    name: str
    qualified_name: str
    kind: str
    parent: str | None
    start_line: int
    end_line: int
    language: str


@dataclass(frozen=True, slots=True)
class CallSite:
    path: str
    line: int
    col: int
    name: str
    receiver: str
    caller: str  # id of the enclosing symbol


@dataclass(frozen=True, slots=True)
class Edge:
    site: CallSite
    target: str  # symbol id
    reason: str  # "self", "local", "import", "name"
    confidence: float
    ambiguous: bool = False


class Graph:
    def __init__(self, symbols: list[SymbolInfo], refs: list[dict]) -> None:
        self.symbols: dict[str, SymbolInfo] = {}
        self.by_name: dict[str, list[SymbolInfo]] = defaultdict(list)
        self.by_file: dict[str, dict[str, list[SymbolInfo]]] = defaultdict(lambda: defaultdict(list))
        self.file_symbols: dict[str, list[str]] = defaultdict(list)  # path → symbol ids
        for s in symbols:
            self._add_symbol(s)
        # per file: bound name → (module source, name in that module)
        self.imports: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
        calls: list[CallSite] = []
        for r in refs:
            if r["kind"] == "import":
                self._add_import(r)
            elif r["kind"] == "call":
                calls.append(_site(r))
        self.out_edges: dict[str, list[Edge]] = defaultdict(list)
        self.in_edges: dict[str, list[Edge]] = defaultdict(list)
        self.sites: dict[str, list[CallSite]] = defaultdict(list)  # path → its call sites
        # name looked up across files (the called name, or what an import binds it to)
        # → the sites that looked it up: re-resolved when a symbol of that name changes
        self.sites_by_name: dict[str, dict[CallSite, None]] = defaultdict(dict)
        self.site_edges: dict[CallSite, list[Edge]] = {}
        self._unresolved: dict[CallSite, None] = {}
        for site in calls:
            self._add_site(site)

    @property
    def unresolved(self) -> list[CallSite]:
        return list(self._unresolved)

    # --- building and per-file updates ---------------------------------------------------

    def _add_symbol(self, s: SymbolInfo) -> None:
        self.symbols[s.id] = s
        self.file_symbols[s.path].append(s.id)
        if s.kind in CALLABLE_KINDS:
            self.by_name[s.name].append(s)
            self.by_file[s.path][s.name].append(s)

    def _add_import(self, r: dict) -> None:
        self.imports[r["path"]][r["name"]] = (r["source"] or r["name"], r.get("original") or r["name"])

    def _lookup_names(self, site: CallSite) -> tuple[str, ...]:
        bound = self.imports.get(site.path, {}).get(site.name)
        return (site.name, bound[1]) if bound and bound[1] != site.name else (site.name,)

    def _add_site(self, site: CallSite) -> None:
        if site in self.site_edges:
            return  # the same call matched twice
        self.sites[site.path].append(site)
        for name in self._lookup_names(site):
            self.sites_by_name[name][site] = None
        self._link(site)

    def _link(self, site: CallSite) -> None:
        edges = self.resolve(site)
        self.site_edges[site] = edges
        if not edges:
            self._unresolved[site] = None
        for edge in edges:
            self.out_edges[site.caller].append(edge)
            self.in_edges[edge.target].append(edge)

    def _unlink(self, sites: list[CallSite]) -> None:
        """Take these sites' edges out (in one pass over each touched edge list)."""
        dead: set[int] = set()
        callers: set[str] = set()
        targets: set[str] = set()
        for site in sites:
            self._unresolved.pop(site, None)
            for edge in self.site_edges.pop(site, []):
                dead.add(id(edge))
                callers.add(site.caller)
                targets.add(edge.target)
        for edges, keys in ((self.out_edges, callers), (self.in_edges, targets)):
            for key in keys:
                bucket = edges.get(key)
                if bucket is None:
                    continue
                bucket[:] = [e for e in bucket if id(e) not in dead]
                if not bucket:
                    del edges[key]

    def replace_file(self, path: str, symbols: list[SymbolInfo], refs: list[dict]) -> None:
        """Swap one file's symbols and references (an edited buffer, a file changed
        on disk; empty lists: the file is gone) and re-resolve only the call sites
        that can see the change: the file's own, and those elsewhere that look up a
        name whose definitions in this file were added, removed or changed. Same
        edges as building the graph again from scratch (tests/test_graph.py)."""
        # Resolution sees a symbol's id, name, kind, parent and path, never its lines:
        # only names whose definitions changed in those can change other files' edges.
        old_syms = [self.symbols.pop(i) for i in self.file_symbols.pop(path, []) if i in self.symbols]
        before = {_key(s) for s in old_syms if s.kind in CALLABLE_KINDS}
        after = {_key(s) for s in symbols if s.kind in CALLABLE_KINDS}
        names = {key[1] for key in before ^ after}
        gone: dict[str, set[str]] = defaultdict(set)
        for old in old_syms:
            if old.kind in CALLABLE_KINDS:
                gone[old.name].add(old.id)
        for name, ids in gone.items():
            same = self.by_name.get(name)
            if same is not None:
                same[:] = [x for x in same if x.id not in ids]
                if not same:
                    del self.by_name[name]
        self.by_file.pop(path, None)
        own = self.sites.pop(path, [])
        self._unlink(own)
        for site in own:
            for name in self._lookup_names(site):
                bucket = self.sites_by_name.get(name)
                if bucket is not None:
                    bucket.pop(site, None)
                    if not bucket:
                        del self.sites_by_name[name]
        self.imports.pop(path, None)

        for s in symbols:
            self._add_symbol(s)
        calls: list[CallSite] = []
        for r in refs:
            if r["kind"] == "import":
                self._add_import(r)
            elif r["kind"] == "call":
                calls.append(_site(r))
        others = {site: None for name in names for site in self.sites_by_name.get(name, {})}
        self._unlink(list(others))
        for site in others:
            self._link(site)
        for site in calls:
            self._add_site(site)

    @classmethod
    def from_store(cls, store) -> Graph:  # noqa: ANN001 - codeloupe.store.Store
        cols = ["id", "path", "name", "qualified_name", "kind", "parent", "start_line",
                "end_line", "language"]
        symbols = [SymbolInfo(**row) for row in
                   store.symbols.search().select(cols).limit(None).to_arrow().to_pylist()]
        refs = store.refs.to_arrow().to_pylist()
        return cls(symbols, refs)

    # --- resolution ------------------------------------------------------------------

    def _enclosing_class(self, symbol_id: str) -> SymbolInfo | None:
        s = self.symbols.get(symbol_id)
        while s is not None:
            if s.kind in CONTAINER_KINDS and s.kind != "module":
                return s
            s = self.symbols.get(s.parent) if s.parent else None
        return None

    def resolve(self, site: CallSite) -> list[Edge]:
        name, receiver = site.name, site.receiver
        if receiver in SELF_RECEIVERS:
            cls = self._enclosing_class(site.caller)
            if cls is not None:
                members = [s for s in self.by_file[cls.path].get(name, []) if s.parent == cls.id]
                if members:
                    return [Edge(site, s.id, "self", 0.95) for s in members]
            same_file = [s for s in self.by_file[site.path].get(name, []) if s.kind != "class"]
            if same_file:
                return self._edges(site, same_file, "self", 0.7)
        elif not receiver:
            local = self.by_file[site.path].get(name, [])
            if local:
                return self._edges(site, local, "local", 0.9)
            bound = self.imports.get(site.path, {}).get(name)
            if bound:
                source, original = bound
                found = [s for s in self.by_name.get(original, []) if _path_matches(s.path, source)]
                if found:
                    return self._edges(site, found, "import", 0.85)
        candidates = self.by_name.get(name, [])
        if receiver:
            candidates = [s for s in candidates if s.kind in ("method", "function", "constructor")]
        return self._edges(site, candidates, "name", 0.3)

    @staticmethod
    def _edges(site: CallSite, targets: list[SymbolInfo], reason: str, confidence: float) -> list[Edge]:
        ambiguous = len(targets) > 1
        conf = confidence / len(targets) if ambiguous else confidence
        return [Edge(site, t.id, reason, round(conf, 3), ambiguous) for t in targets]

    # --- queries -----------------------------------------------------------------------

    def callers(self, symbol_id: str) -> list[Edge]:
        return sorted(self.in_edges.get(symbol_id, []), key=lambda e: (e.site.path, e.site.line))

    def callees(self, symbol_id: str) -> list[Edge]:
        return sorted(self.out_edges.get(symbol_id, []), key=lambda e: (e.site.line, e.site.col))

    def call_chains(self, sources: list[str], targets: list[str], max_depth: int = 6,
                    limit: int = 10) -> list[list[Edge]]:
        """The shortest call chains from any of ``sources`` to any of ``targets``
        (breadth first over callees, at most ``max_depth`` calls long), each a list of
        edges; at most ``limit`` chains, all of the shortest length found."""
        goal = set(targets)
        parents: dict[str, list[Edge]] = {s: [] for s in sources}
        frontier = list(dict.fromkeys(sources))
        found = [s for s in frontier if s in goal]
        depth = 0
        while frontier and not found and depth < max_depth:
            depth += 1
            layer: dict[str, list[Edge]] = {}
            for caller in frontier:
                for edge in self.callees(caller):
                    if edge.target in parents:
                        continue
                    layer.setdefault(edge.target, []).append(edge)
            parents.update(layer)
            frontier = list(layer)
            found = [t for t in frontier if t in goal]
        chains: list[list[Edge]] = []

        def walk(node: str, tail: list[Edge]) -> None:
            if len(chains) >= limit:
                return
            if not parents.get(node):
                chains.append(tail)
                return
            for edge in parents[node]:
                walk(edge.site.caller, [edge, *tail])

        for target in found:
            walk(target, [])
        return [c for c in chains if c]

    def stats(self) -> dict[str, int]:
        edges = sum(len(v) for v in self.out_edges.values())
        ambiguous = sum(1 for v in self.out_edges.values() for e in v if e.ambiguous)
        return {"edges": edges, "ambiguous": ambiguous, "unresolved": len(self.unresolved)}


def _key(s: SymbolInfo) -> tuple[str, str, str, str | None, str]:
    return (s.id, s.name, s.kind, s.parent, s.path)


def _site(r: dict) -> CallSite:
    return CallSite(r["path"], r["line"], r["col"], r["name"], r["receiver"] or "", r["enclosing"])


def _path_matches(path: str, source: str) -> bool:
    """Does a file path look like the module an import names? (``.x`` / ``pkg.x`` /
    ``./x`` / ``pkg/x``)"""
    stem = path.rsplit(".", 1)[0]
    if stem.endswith("/__init__") or stem.endswith("/index"):
        stem = stem.rsplit("/", 1)[0]
    mod = _SOURCE_EXT.sub("", source.strip()).lstrip("./")
    mod = mod.replace("::", "/").replace(".", "/").replace("\\", "/")
    if not mod:
        return False
    return stem == mod or stem.endswith("/" + mod)
