"""The call sites of every file and their edges, with what each site's resolution
depends on (to re-link exactly the sites an edit affects).

Precise edges are ``Edge`` objects indexed by caller and target. Sites resolved by
name only (most edges of a large repository: a call of ``get`` has a candidate in
every class defining one) are kept compactly, one entry per site holding its
(shared, remembered) candidates; their edges are made when asked for, so an edit
re-links such a site without building an edge per candidate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Protocol

from .memo import Lookup, site_key
from .model import CallSite, Edge, Reason, SymbolInfo, Target

NAME = Reason.NAME
SITE = Lookup.SITE


class EdgeReader(Protocol):
    """What the edge queries read (``queries``): an ``EdgeIndex``, or a saved call file
    read in place (``callfile.CallFile``)."""

    def edges_in(self, target: str) -> Iterator[Edge]: ...

    def edges_out(self, caller: str) -> Iterator[Edge]: ...

    def candidates(self, site: CallSite) -> int: ...


class EdgeIndex:
    """Call sites, edges, and the dependencies of each site's resolution."""

    def __init__(self, symbols: Mapping[str, SymbolInfo]) -> None:
        self._symbols = symbols
        self.sites: dict[str, list[CallSite]] = defaultdict(list)  # path → its call sites
        # caller / target id → its precise edges (insertion-ordered dicts used as sets:
        # an edit takes a site's edges out of a popular target's bucket in O(1))
        self.out: dict[str, dict[Edge, None]] = defaultdict(dict)
        self.into: dict[str, dict[Edge, None]] = defaultdict(dict)
        self.site_edges: dict[CallSite, list[Edge]] = {}
        self.named: dict[CallSite, tuple[Target, ...]] = {}
        self.named_by_name: dict[str, dict[CallSite, None]] = defaultdict(dict)
        self.named_by_caller: dict[str, dict[CallSite, None]] = defaultdict(dict)
        self._by_key: dict[tuple, dict[CallSite, None]] = {}  # memo key → its sites
        self._unkeyed: list[tuple[list[tuple], list[CallSite]]] = []  # ``add_all``'s, not in ``_by_key`` yet
        self.unresolved: dict[CallSite, None] = {}
        self.external: dict[CallSite, None] = {}

    @property
    def sites_by_key(self) -> dict[tuple, dict[CallSite, None]]:
        """Memo key → the sites whose resolution it remembers (indexed when first asked
        after ``add_all``: a warm start answers before its first edit)."""
        if self._unkeyed:
            batches, self._unkeyed = self._unkeyed, []
            by_key = self._by_key
            for keys, sites in batches:
                for key, site in zip(keys, sites, strict=True):
                    bucket = by_key.get(key)
                    if bucket is None:
                        bucket = by_key[key] = {}
                    bucket[site] = None
        return self._by_key

    def has(self, site: CallSite) -> bool:
        """Is this site linked already?"""
        return site in self.site_edges or site in self.named

    def add(self, site: CallSite, found: tuple[Target, ...], external: bool) -> None:
        """Link a site to its targets (its resolution is remembered under ``site_key``)."""
        self.sites_by_key.setdefault(site_key(site), {})[site] = None
        self._link(site, found, external)

    def add_all(self, keys: list[tuple], sites: list[CallSite], found: Iterable[tuple[Target, ...]],
                external: Iterable[bool]) -> None:
        """Link many sites at once (a loaded graph's), in their files' order, each with
        its memo key (``site_key``), its targets and whether it is known to call outside:
        what ``add`` does, each file's ``sites`` appended to, the memo-key index built
        when first asked."""
        self._unkeyed.append((keys, sites))
        by_path, link = self.sites, self._link
        for site, targets, ext in zip(sites, found, external, strict=True):
            by_path[site.path].append(site)
            link(site, targets, ext)

    def _link(self, site: CallSite, found: tuple[Target, ...], external: bool) -> None:
        if found and found[0].reason is NAME:  # by name only (every candidate is): compactly
            self.named[site] = found
            self.named_by_name[site.name][site] = None
            self.named_by_caller[site.caller][site] = None
            return
        edges = [Edge(site, *t) for t in found]
        self.site_edges[site] = edges
        if not edges:
            self.unresolved[site] = None
            if external:
                self.external[site] = None
        for edge in edges:
            self.out[site.caller][edge] = None
            self.into[edge.target][edge] = None

    def unlink(self, sites: Iterable[CallSite]) -> None:
        """Take these sites' edges out."""
        for site in sites:
            self.unresolved.pop(site, None)
            self.external.pop(site, None)
            _discard(self.sites_by_key, site_key(site), site)
            if self.named.pop(site, None) is not None:
                _discard(self.named_by_name, site.name, site)
                _discard(self.named_by_caller, site.caller, site)
                continue
            for edge in self.site_edges.pop(site, []):
                _discard(self.out, site.caller, edge)
                _discard(self.into, edge.target, edge)

    def affected(self, dropped: list[tuple]) -> dict[CallSite, None]:
        """The sites whose remembered resolution was dropped."""
        return {site: None for key in dropped if key[0] == SITE for site in self.sites_by_key.get(key, {})}

    # --- reading -----------------------------------------------------------------------------

    def edges_in(self, target: str) -> Iterator[Edge]:
        """The edges into a symbol, name matches included."""
        yield from self.into.get(target, ())
        sym = self._symbols.get(target)
        named = self.named_by_name.get(sym.name) if sym is not None else None
        if not named:
            return
        hit: dict[int, Target | None] = {}  # by candidates tuple: sites share them
        for site in named:
            found = self.named[site]
            key = id(found)
            if key not in hit:
                hit[key] = next((t for t in found if t.target == target), None)
            t = hit[key]
            if t is not None:
                yield Edge(site, *t)

    def edges_out(self, caller: str) -> Iterator[Edge]:
        """The edges out of a symbol, name matches included."""
        yield from self.out.get(caller, ())
        for site in self.named_by_caller.get(caller, ()):
            for t in self.named[site]:
                yield Edge(site, *t)

    def candidates(self, site: CallSite) -> int:
        """How many targets a call site has (name matches: how many distinct symbols)."""
        found = self.named.get(site)
        return len({t.target for t in found}) if found is not None else len(self.site_edges.get(site, ()))

    def site_targets(self) -> Iterator[tuple[CallSite, list[Target] | tuple[Target, ...]]]:
        """Every site with its targets."""
        for site, edges in self.site_edges.items():
            yield site, [Target(e.target, e.reason, e.confidence, e.ambiguous, e.detail) for e in edges]
        yield from self.named.items()


class OutEdges(Mapping):
    """``Graph.out_edges``: caller id → {edge: None}, name matches made on demand."""

    def __init__(self, edges: EdgeIndex) -> None:
        self._e = edges

    def __getitem__(self, caller: str) -> dict[Edge, None]:
        edges = dict.fromkeys(self._e.edges_out(caller))
        if not edges:
            raise KeyError(caller)
        return edges

    def __iter__(self) -> Iterator[str]:
        e = self._e
        yield from e.out
        yield from (c for c in e.named_by_caller if c not in e.out)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, caller: object) -> bool:
        return caller in self._e.out or caller in self._e.named_by_caller


class InEdges(Mapping):
    """``Graph.in_edges``: target id → {edge: None}, name matches made on demand."""

    def __init__(self, edges: EdgeIndex) -> None:
        self._e = edges

    def __getitem__(self, target: str) -> dict[Edge, None]:
        edges = dict.fromkeys(self._e.edges_in(target))
        if not edges:
            raise KeyError(target)
        return edges

    def _all(self) -> dict[str, dict[Edge, None]]:
        e = self._e
        out: dict[str, dict[Edge, None]] = {t: dict(v) for t, v in e.into.items()}
        for site, found in e.named.items():
            for t in found:
                out.setdefault(t.target, {})[Edge(site, *t)] = None
        return out

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, target: object) -> bool:
        return any(True for _ in self._e.edges_in(target)) if isinstance(target, str) else False

    def items(self):  # one pass over the name matches, not one per target
        """(target, its edges), computed in one pass."""
        return self._all().items()

    def values(self):
        """The edges of each target, computed in one pass."""
        return self._all().values()


class SiteEdges(Mapping):
    """``Graph.site_edges``: call site → its edges (empty: none), name matches made on demand."""

    def __init__(self, edges: EdgeIndex) -> None:
        self._e = edges

    def __getitem__(self, site: CallSite) -> list[Edge]:
        found = self._e.named.get(site)
        if found is not None:
            return [Edge(site, *t) for t in found]
        return self._e.site_edges[site]

    def __iter__(self) -> Iterator[CallSite]:
        yield from self._e.site_edges
        yield from self._e.named

    def __len__(self) -> int:
        return len(self._e.site_edges) + len(self._e.named)

    def __contains__(self, site: object) -> bool:
        return site in self._e.site_edges or site in self._e.named


def _discard(index: dict, key: object, item: object) -> None:
    """Take ``item`` out of the bucket ``index[key]``; an empty bucket goes."""
    bucket = index.get(key)
    if bucket is not None:
        bucket.pop(item, None)
        if not bucket:
            del index[key]
