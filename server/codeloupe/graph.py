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
        self.symbols = {s.id: s for s in symbols}
        self.by_name: dict[str, list[SymbolInfo]] = defaultdict(list)
        self.by_file: dict[str, dict[str, list[SymbolInfo]]] = defaultdict(lambda: defaultdict(list))
        for s in symbols:
            if s.kind in CALLABLE_KINDS:
                self.by_name[s.name].append(s)
                self.by_file[s.path][s.name].append(s)
        # per file: bound name → (module source, name in that module)
        imports: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
        calls: list[CallSite] = []
        for r in refs:
            if r["kind"] == "import":
                imports[r["path"]][r["name"]] = (r["source"] or r["name"], r.get("original") or r["name"])
            elif r["kind"] == "call":
                calls.append(CallSite(r["path"], r["line"], r["col"], r["name"], r["receiver"] or "",
                                      r["enclosing"]))
        self.imports = imports
        self.out_edges: dict[str, list[Edge]] = defaultdict(list)
        self.in_edges: dict[str, list[Edge]] = defaultdict(list)
        self.unresolved: list[CallSite] = []
        for site in calls:
            edges = self.resolve(site)
            if not edges:
                self.unresolved.append(site)
            for edge in edges:
                self.out_edges[site.caller].append(edge)
                self.in_edges[edge.target].append(edge)

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

    def stats(self) -> dict[str, int]:
        edges = sum(len(v) for v in self.out_edges.values())
        ambiguous = sum(1 for v in self.out_edges.values() for e in v if e.ambiguous)
        return {"edges": edges, "ambiguous": ambiguous, "unresolved": len(self.unresolved)}


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
