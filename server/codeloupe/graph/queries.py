"""What users ask of the graph: callers and callees, what a confidence view leaves
out, everything up- or downstream, call chains, the most called and widest symbols,
unused ones, type references, and figures. Functions over an ``EdgeIndex`` (and
the ``SymbolIndex`` where symbols matter); ``Graph`` exposes them as methods."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator

from ..languages import NEUTRAL
from .edges import EdgeIndex, EdgeReader, InEdges, OutEdges
from .index import SymbolIndex
from .model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    CallSite,
    Edge,
    Reason,
    SymbolInfo,
    TypeRef,
    Value,
    ValueKind,
)

NAME, NARROWED = Reason.NAME, Reason.NARROWED
# a call matched by name with at most this many candidates left (after narrowing) is
# offered beside the view, marked "by name, 2 candidates", instead of hidden
OFFER_MAX = 3
_ENTRY_POINTS = ("main", "constructor", "init", "setUp", "tearDown")  # called from outside


def callers(edges: EdgeReader, symbol_id: str, min_confidence: float = 0.0) -> list[Edge]:
    """The edges into a symbol with at least this confidence, by place."""
    return sorted((e for e in edges.edges_in(symbol_id) if e.confidence >= min_confidence),
                  key=lambda e: (e.site.path, e.site.line, e.site.col))


def callees(edges: EdgeReader, symbol_id: str, min_confidence: float = 0.0) -> list[Edge]:
    """The edges out of a symbol with at least this confidence, by place."""
    return sorted((e for e in edges.edges_out(symbol_id) if e.confidence >= min_confidence),
                  key=lambda e: (e.site.line, e.site.col))


def below(edges: EdgeReader, symbol_id: str, min_confidence: float, *, incoming: bool = True) -> tuple[int, int]:
    """What a view at ``min_confidence`` leaves out around a symbol: (call sites below
    it, calling symbols, or called ones when not ``incoming``, reached only below it)."""
    found = edges.edges_in(symbol_id) if incoming else edges.edges_out(symbol_id)
    shown: set[str] = set()
    hidden: set[str] = set()
    sites = 0
    for e in found:
        other = e.site.caller if incoming else e.target
        if e.confidence >= min_confidence:
            shown.add(other)
        else:
            sites += 1
            hidden.add(other)
    return sites, len(hidden - shown)


def candidates(edges: EdgeReader, site: CallSite) -> int:
    """How many targets a call site has."""
    return edges.candidates(site)


def evidence(edges: EdgeReader, edge: Edge) -> str:
    """What users read of why an edge was drawn when resolution fell back on the name:
    "narrowed: arity: 1 of 3 candidates", "by name, 2 candidates (arity: 2 of 5
    candidates)"; "" for an edge of a precise step."""
    if edge.reason is NARROWED:
        return f"narrowed by {edge.detail}" if edge.detail else "narrowed"
    if edge.reason is not NAME:
        return ""
    n = candidates(edges, edge.site)
    text = f"by name, {n} candidate{'s' if n != 1 else ''}"
    return f"{text} ({edge.detail})" if edge.detail else text


def offered(edges: EdgeReader, symbol_id: str, min_confidence: float, *, incoming: bool = True,
            limit: int = OFFER_MAX) -> list[Edge]:
    """The name matches below ``min_confidence`` around a symbol whose call site has
    at most ``limit`` candidates: what a view offers, marked, beside what it shows."""
    found = edges.edges_in(symbol_id) if incoming else edges.edges_out(symbol_id)
    out = [e for e in found if e.confidence < min_confidence and e.reason is NAME
           and candidates(edges, e.site) <= limit]
    return sorted(out, key=lambda e: (e.site.path, e.site.line, e.site.col))


def counts(edges: EdgeReader, symbol_id: str, min_confidence: float, *,
           incoming: bool = True) -> tuple[int, int]:
    """What a view at ``min_confidence`` lists around a symbol, as a lens or a hover
    counts it: (calling symbols shown, or called ones when not ``incoming``; symbols
    offered beside them by name only, ``offered``, that are not among them)."""
    found = edges.edges_in(symbol_id) if incoming else edges.edges_out(symbol_id)
    shown = {e.site.caller if incoming else e.target for e in found if e.confidence >= min_confidence}
    more = {e.site.caller if incoming else e.target
            for e in offered(edges, symbol_id, min_confidence, incoming=incoming)}
    return len(shown), len(more - shown)


def upstream(edges: EdgeReader, symbol_id: str, depth: int = 3, min_confidence: float = 0.0) -> dict[str, int]:
    """Every symbol that reaches this one through calls, within ``depth`` calls:
    symbol id → distance."""
    return _reach(symbol_id, depth, min_confidence, edges.edges_in, lambda e: e.site.caller)


def downstream(edges: EdgeReader, symbol_id: str, depth: int = 3, min_confidence: float = 0.0) -> dict[str, int]:
    """Every symbol this one reaches through calls, within ``depth``."""
    return _reach(symbol_id, depth, min_confidence, edges.edges_out, lambda e: e.target)


def _reach(start: str, depth: int, min_confidence: float, edges: Callable[[str], Iterable[Edge]],
           step: Callable[[Edge], str]) -> dict[str, int]:
    dist = {start: 0}
    frontier = [start]
    for d in range(1, depth + 1):
        nxt = []
        for node in frontier:
            for e in edges(node):
                if e.confidence < min_confidence:
                    continue
                other = step(e)
                if other not in dist:
                    dist[other] = d
                    nxt.append(other)
        frontier = nxt
    del dist[start]
    return dist


def call_chains(edges: EdgeReader, sources: list[str], targets: list[str], max_depth: int = 6,
                limit: int = 10, min_confidence: float = 0.0) -> list[list[Edge]]:
    """The shortest call chains from any of ``sources`` to any of ``targets``
    (breadth first over callees with at least ``min_confidence``, at most
    ``max_depth`` calls long), each a list of edges; at most ``limit`` chains, all of
    the shortest length found."""
    goal = set(targets)
    parents: dict[str, list[Edge]] = {s: [] for s in sources}
    frontier = list(dict.fromkeys(sources))
    found = [s for s in frontier if s in goal]
    depth = 0
    while frontier and not found and depth < max_depth:
        depth += 1
        layer: dict[str, list[Edge]] = {}
        for caller in frontier:
            for edge in callees(edges, caller, min_confidence):
                if edge.target in parents:
                    continue
                layer.setdefault(edge.target, []).append(edge)
        parents.update(layer)
        frontier = list(layer)
        found = [t for t in frontier if t in goal]
    chains: list[list[Edge]] = []
    # back from each target over the parents, depth first (a stack, not recursion:
    # ``max_depth`` is the caller's and a chain may be as long)
    stack: list[tuple[str, list[Edge]]] = [(t, []) for t in reversed(found)]
    while stack and len(chains) < limit:
        node, tail = stack.pop()
        if not parents.get(node):
            chains.append(tail)
            continue
        stack.extend((edge.site.caller, [edge, *tail]) for edge in reversed(parents[node]))
    return [c for c in chains if c]


def all_chains(edges: EdgeReader, sources: list[str], targets: list[str], max_depth: int = 6,
               limit: int = 50, min_confidence: float = 0.0) -> list[list[Edge]]:
    """Every call chain (no symbol twice) from ``sources`` to ``targets`` of at most
    ``max_depth`` calls with at least ``min_confidence`` each, shortest first; one
    edge per caller → callee step (the first call site)."""
    goal = set(targets)
    # distance to a target, over callers: prunes walks that cannot arrive in time
    to_goal = {t: 0 for t in goal}
    frontier = list(goal)
    for d in range(1, max_depth + 1):
        nxt = []
        for node in frontier:
            for e in edges.edges_in(node):
                if e.confidence >= min_confidence and e.site.caller not in to_goal:
                    to_goal[e.site.caller] = d
                    nxt.append(e.site.caller)
        frontier = nxt
    chains: list[list[Edge]] = []

    path: list[Edge] = []
    seen: set[str] = set()

    def steps(node: str) -> Iterator[Edge] | None:
        """The next steps from ``node`` at the end of ``path``; None where the walk
        stops (a target reached, enough chains)."""
        if len(chains) >= limit * 20:
            return None
        if node in goal and path:
            chains.append(list(path))
            return None
        left = max_depth - len(path)
        first: dict[str, Edge] = {}
        for e in callees(edges, node, min_confidence):
            if e.target not in first:
                first[e.target] = e
        return iter([e for target, e in first.items()
                     if target not in seen and to_goal.get(target, max_depth + 1) <= left - 1])

    for s in dict.fromkeys(sources):
        if s not in to_goal:
            continue
        seen.add(s)
        # depth first with a stack of the steps left at each level (no recursion:
        # ``max_depth`` is the caller's)
        stack = [it] if (it := steps(s)) is not None else []
        while stack:
            e = next(stack[-1], None)
            if e is None:
                stack.pop()
                if path:
                    seen.discard(path.pop().target)
                continue
            seen.add(e.target)
            path.append(e)
            it = steps(e.target)
            if it is None:
                path.pop()
                seen.discard(e.target)
            else:
                stack.append(it)
        seen.discard(s)
    chains.sort(key=lambda c: (len(c), -min(e.confidence for e in c)))
    return chains[:limit]


def neighbour_files(index: SymbolIndex, edges: EdgeIndex, paths: Iterable[str]) -> list[str]:
    """The files that call into these files or that these files call (name matches
    included), those with the most edges first; the files themselves left out."""
    own = dict.fromkeys(paths)
    weight: dict[str, int] = defaultdict(int)
    for path in own:
        for site in edges.sites.get(path, ()):
            for edge in edges.site_edges.get(site, ()):
                target = index.symbols.get(edge.target)
                if target is not None and target.path not in own:
                    weight[target.path] += 1
        for symbol_id in index.file_symbols.get(path, ()):
            for edge in edges.edges_in(symbol_id):
                if edge.site.path not in own:
                    weight[edge.site.path] += 1
    return sorted(weight, key=lambda p: (-weight[p], p))


def most_called(edges: EdgeIndex, n: int = 10) -> list[tuple[str, int]]:
    """Symbols by how many distinct callers call them ("core utilities")."""
    counts = [(t, len({e.site.caller for e in found})) for t, found in InEdges(edges).items()]
    counts.sort(key=lambda x: (-x[1], x[0]))
    return counts[:n]


def widest_callers(edges: EdgeIndex, n: int = 10) -> list[tuple[str, int]]:
    """Symbols by how many distinct symbols they call ("orchestrators")."""
    counts = [(c, len({e.target for e in found})) for c, found in OutEdges(edges).items()]
    counts.sort(key=lambda x: (-x[1], x[0]))
    return counts[:n]


def unused(index: SymbolIndex, edges: EdgeIndex) -> list[SymbolInfo]:
    """Functions, methods and classes nothing calls, instantiates, subclasses or
    names as a type (dunder methods, constructors and entry points left out: the
    language or the outside world calls them)."""
    named = {r.name for facts in index.facts.values() for r in facts.type_refs}
    called = set(edges.into) | {t.target for found in edges.named.values() for t in found}
    out = []
    for s in index.symbols.values():
        if s.kind == "module" or s.kind not in CALLABLE_KINDS or s.kind == "impl":
            continue
        if s.name.startswith("__") and s.name.endswith("__") or s.kind == "constructor":
            continue
        if s.name in _ENTRY_POINTS or s.name.startswith("test"):
            continue
        if s.id in called:
            continue
        if s.kind in CLASS_KINDS and s.name in named:
            continue
        out.append(s)
    return sorted(out, key=lambda s: (s.path, s.start_line))


def type_references(index: SymbolIndex, edges: EdgeIndex, type_value: Callable[[str, str, str], Value | None],
                    symbol_id: str) -> dict[str, list[TypeRef] | list[Edge]]:
    """Uses of a class beyond calls of its methods: where it is instantiated,
    subclassed and named as a type (``type_value`` reads a type as written)."""
    target = index.symbols.get(symbol_id)
    out: dict[str, list] = {"instantiated": [], "subclassed": [], "type": []}
    if target is None:
        return out
    out["instantiated"] = callers(edges, symbol_id)
    for facts in index.facts.values():
        for r in facts.type_refs:
            if r.name != target.name:
                continue
            dotted = f"{r.receiver}.{r.name}" if r.receiver else r.name
            value = type_value(dotted, r.path, r.enclosing)
            if value is not None and value.kind is ValueKind.INSTANCE and symbol_id in value.ids:
                out["subclassed" if r.kind == "base" else "type"].append(r)
    return out


def stats(index: SymbolIndex, edges: EdgeIndex) -> dict[str, object]:
    """Edges by reason, sites resolved, by name, external or not, per language."""
    reasons: dict[str, int] = defaultdict(int)
    ambiguous = 0
    for v in edges.out.values():
        for e in v:
            reasons[e.reason] += 1
            ambiguous += e.ambiguous
    for found in edges.named.values():
        reasons[NAME] += len(found)
        ambiguous += sum(1 for t in found if t.ambiguous)
    languages: dict[str, dict[str, int]] = {}
    for site, targets in edges.site_targets():
        lang = index.file_lang.get(site.path, NEUTRAL).name
        row = languages.setdefault(lang, {"sites": 0, "resolved": 0, "ambiguous": 0,
                                          "by_name": 0, "external": 0, "unresolved": 0})
        row["sites"] += 1
        if targets:
            row["resolved"] += 1
            if any(t.ambiguous for t in targets):
                row["ambiguous"] += 1
            if targets[0].reason is NAME:
                row["by_name"] += 1
        elif site in edges.external:
            row["external"] += 1
        else:
            row["unresolved"] += 1
    return {"edges": sum(reasons.values()), "ambiguous": ambiguous, "unresolved": len(edges.unresolved),
            "external": len(edges.external), "sites": len(edges.site_edges) + len(edges.named),
            "reasons": dict(sorted(reasons.items())), "languages": dict(sorted(languages.items()))}


class EdgeQueries:
    """The queries over a graph's edges alone, as methods over ``self._edges``: those of
    ``Graph`` and of a saved call file read in place (``callfile.SavedCalls``)."""

    _edges: EdgeReader

    def callers(self, symbol_id: str, min_confidence: float = 0.0) -> list[Edge]:
        """The edges into a symbol with at least this confidence, by place."""
        return callers(self._edges, symbol_id, min_confidence)

    def callees(self, symbol_id: str, min_confidence: float = 0.0) -> list[Edge]:
        """The edges out of a symbol with at least this confidence, by place."""
        return callees(self._edges, symbol_id, min_confidence)

    def below(self, symbol_id: str, min_confidence: float, *, incoming: bool = True) -> tuple[int, int]:
        """What a view at ``min_confidence`` leaves out around a symbol: (call sites below
        it, calling symbols, or called ones when not ``incoming``, reached only below it)."""
        return below(self._edges, symbol_id, min_confidence, incoming=incoming)

    def offered(self, symbol_id: str, min_confidence: float, *, incoming: bool = True) -> list[Edge]:
        """The name matches below ``min_confidence`` with few candidates around a symbol,
        offered beside the view (``offered``)."""
        return offered(self._edges, symbol_id, min_confidence, incoming=incoming)

    def counts(self, symbol_id: str, min_confidence: float, *, incoming: bool = True) -> tuple[int, int]:
        """(symbols a view at ``min_confidence`` shows around a symbol, symbols it offers
        beside them by name): what a lens or a hover counts (``counts``)."""
        return counts(self._edges, symbol_id, min_confidence, incoming=incoming)

    def evidence(self, edge: Edge) -> str:
        """Why an edge found by name was drawn, in words; "" for a precise one
        (``evidence``)."""
        return evidence(self._edges, edge)

    def upstream(self, symbol_id: str, depth: int = 3, min_confidence: float = 0.0) -> dict[str, int]:
        """Every symbol that reaches this one through calls, within ``depth`` calls:
        symbol id → distance."""
        return upstream(self._edges, symbol_id, depth, min_confidence)

    def downstream(self, symbol_id: str, depth: int = 3, min_confidence: float = 0.0) -> dict[str, int]:
        """Every symbol this one reaches through calls, within ``depth``."""
        return downstream(self._edges, symbol_id, depth, min_confidence)

    def call_chains(self, sources: list[str], targets: list[str], max_depth: int = 6,
                    limit: int = 10, min_confidence: float = 0.0) -> list[list[Edge]]:
        """The shortest call chains from any of ``sources`` to any of ``targets``
        (``call_chains``)."""
        return call_chains(self._edges, sources, targets, max_depth, limit, min_confidence)

    def all_chains(self, sources: list[str], targets: list[str], max_depth: int = 6,
                   limit: int = 50, min_confidence: float = 0.0) -> list[list[Edge]]:
        """Every call chain from ``sources`` to ``targets``, shortest first
        (``all_chains``)."""
        return all_chains(self._edges, sources, targets, max_depth, limit, min_confidence)
