"""The reference map: resolving call references to symbols, callers and callees.

A call is resolved the way a careful reader would, in order; each edge records the
step that found it (``reason``) and a ``confidence``:

1. ``local``: a function or class defined in an enclosing scope (closures, then
   the file's top level); a call of a local variable's value follows the value;
2. ``self`` / ``super``: ``self``/``cls``/``this``/``super()`` to the enclosing
   class and its bases defined in the repository (left-to-right, depth-first
   like Python's MRO, ``extends``/``implements``, mixins, Go embedding); a method a
   mixin calls on ``self`` but only its subclasses define resolves to those, with
   a lower confidence; Java/C#/C++/Ruby bare calls are ``this`` calls; Ruby
   ``super``, C# ``base(...)``, C++ ``Base::send()`` from a derived class; a C++
   method defined out of line (``int Foo::send() {}``) belongs to the class
   ``Foo``; a Rust ``impl`` block sees its type's fields and its trait;
3. ``import``: a name bound by an import (Python relative imports and
   ``__init__`` re-exports, ``import a.b as c``, JS/TS ``import``/``require``, Java
   imports, Go packages, Rust ``use`` paths, C# ``using``, PHP ``use``, C++
   ``using``: by qualified name), and ``module.name`` through such a binding; a
   class of a namespace the file is in or imports whole (C#, PHP, C++); a function
   or class of a file named by ``#include`` / ``require`` (with the sources that
   share a header's stem: ``net/transport.h`` → ``net/transport.c``);
4. ``type``: a call on a value whose type is known from local inference
   (``x = Foo()``, ``x: Foo``, annotated parameters and returns, ``self.x = Foo()``,
   ``a.b().c()`` through known return types; elements of typed sequences: ``xs[0]``,
   ``xs.slice(-1)[0]``, array-method callbacks, ``@returns {X[]}``; either branch
   of ``c ? a : b``; every assignment of a variable assigned again; a JS closure's
   parameters from the calls its defining function makes; a function a method
   assigns to ``this.name``, for ``x.name()`` on an instance whose class has no
   such member);
5. ``name``: only when nothing above found the target (nor showed it lies outside
   the repository: a builtin, an external module, a method of an external type), by
   name across the repository: low confidence, every candidate kept and the edges
   marked ambiguous when there are several; ``unique`` (0.6) when a call on an
   unknown value names a method that exactly one class in the repository defines
   and that the standard types do not use (``get``, ``close``, ``append`` ...).

A call of a class is a call of its constructor as well: the edge to the class comes
with one to its ``__init__``/``constructor`` (found along the bases).

Every lookup a resolution makes is keyed by a name and recorded with the call site,
so replacing one file re-resolves exactly the sites that looked up a name whose
facts (definitions, bases, imports, attribute and return types) changed there.
"""

from __future__ import annotations

import gc
import hmac
import os
import pickle
import re
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from .. import __version__
from ..languages import (
    CLASS_NAMES,
    COMMON_METHODS,
    EXTERNAL_TYPES,
    INSTANCE_FACTORIES,
    NEUTRAL,
    NO_TYPE,
    ONE_ELEMENT_METHODS,
    SAME_SEQUENCE_METHODS,
    SELF_NAMES,
    SELF_RECEIVERS,
    ImplicitClasses,
    Language,
    MethodsApart,
    PackageScope,
    is_super_receiver,
    join_path,
    module_stem,
    rules,
    same_family,
)
from ..userkey import user_secret
from .model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    CONFIDENCE,
    EXTERNAL,
    FUNCTION_KINDS,
    AttrFact,
    CallSite,
    Edge,
    Fact,
    FactForm,
    Reason,
    SymbolInfo,
    Target,
    TypeRef,
    Value,
    ValueKind,
)
from .resolve.text import (
    LITERAL_START,
    element_name,
    receiver_parts,
    split_top,
    ternary_branches,
    type_name,
    union_members,
)

INSTANCE, CLASS, MODULE, FUNCTION, ARRAY = (ValueKind.INSTANCE, ValueKind.CLASS, ValueKind.MODULE,
                                            ValueKind.FUNCTION, ValueKind.ARRAY)
LOCAL, SELF, SUPER, IMPORT, TYPE, PACKAGE, SUBCLASS, UNIQUE, NAME = Reason
TYPED, DECLARED, ASSIGNED, ELEMENTS = FactForm
# a function expression as written: `(a, b) => ...`, `x => ...`, `async function () {...}`
_FUNCTION_EXPR = re.compile(r"^(?:async\s+)?(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)")
GRAPH_FORMAT = 2  # of Graph.save files
_MAGIC = b"codeloupe-graph\n"
# nested steps of one resolution, counted across remembered lookups (a lookup computed
# deep inside another goes on from its depth): a step is a few Python frames, so a
# resolution stays far below Python's recursion limit whatever the code (chains of
# re-exports, copies, bases, returns: tests/test_graph_bounds.py); past it, unresolved
_MAX_DEPTH = 64
_MAX_ACTIVE = 48  # nested remembered lookups


@dataclass(slots=True)
class _Facts:
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # bound → (source, original)
    stars: list[str] = field(default_factory=list)
    bases: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # class id → [(qualifier, name)]
    vars: dict[str, dict[str, list[tuple[str, str]]]] = field(default_factory=dict)  # scope → name → facts
    attrs: dict[str, dict[str, list[tuple[str, str, str]]]] = field(default_factory=dict)
    returns: dict[str, str] = field(default_factory=dict)  # function id → type text
    returned: dict[str, list[str]] = field(default_factory=dict)  # function id → returned expressions
    type_refs: list[TypeRef] = field(default_factory=list)


class _Memo:
    """Results of lookups that many call sites share, each with the names it read,
    so an edit drops only the entries that read a changed name."""

    def __init__(self) -> None:
        self.values: dict[tuple, tuple[object, frozenset[str]]] = {}
        self.by_dep: dict[str, set[tuple]] = defaultdict(set)

    def drop(self, names: Iterable[str]) -> list[tuple]:
        """Forget the entries that read one of these names; the keys forgotten."""
        dropped = []
        for name in names:
            for key in self.by_dep.pop(name, ()):
                if self.values.pop(key, None) is not None:
                    dropped.append(key)
        return dropped


class Graph:
    def __init__(self, symbols: list[SymbolInfo], refs: list[dict]) -> None:
        self.symbols: dict[str, SymbolInfo] = {}
        self.by_name: dict[str, list[SymbolInfo]] = defaultdict(list)
        self.by_file: dict[str, dict[str, list[SymbolInfo]]] = defaultdict(partial(defaultdict, list))
        self.children: dict[str, dict[str, list[SymbolInfo]]] = defaultdict(partial(defaultdict, list))
        self.by_qualified: dict[str, list[SymbolInfo]] = defaultdict(list)
        self.file_symbols: dict[str, list[str]] = defaultdict(list)  # path → symbol ids
        self.file_lang: dict[str, Language] = {}
        self.module_id: dict[str, str] = {}
        self.stems: dict[str, list[str]] = defaultdict(list)  # module stem → paths
        self.stem_tails: dict[str, set[str]] = defaultdict(set)  # last part of a stem → stems
        self.dirs: dict[str, list[str]] = defaultdict(list)  # folder → paths
        self.facts: dict[str, _Facts] = {}
        self.subclasses: dict[str, set[str]] = defaultdict(set)  # base name → class ids naming it
        # caller / target id → its edges found by a precise step (insertion-ordered dicts
        # used as sets: an edit takes a site's edges out of a popular target's bucket in
        # O(1)); ``out_edges`` / ``in_edges`` / ``site_edges`` add the name matches
        self._out: dict[str, dict[Edge, None]] = defaultdict(dict)
        self._in: dict[str, dict[Edge, None]] = defaultdict(dict)
        self.sites: dict[str, list[CallSite]] = defaultdict(list)  # path → its call sites
        self._site_edges: dict[CallSite, list[Edge]] = {}
        # sites resolved by name only (most edges of a large repository: a call of `get`
        # has a candidate in every class defining one): kept compactly, one entry per
        # site holding its (shared, remembered) candidates; their edges are made when
        # asked for, so an edit re-links such a site without building an edge per candidate
        self._named: dict[CallSite, tuple[tuple[str, str, float, bool], ...]] = {}
        self._named_by_name: dict[str, dict[CallSite, None]] = defaultdict(dict)
        self._named_by_caller: dict[str, dict[CallSite, None]] = defaultdict(dict)
        # a site's resolution: its memo key (the entry knows the names it read), or
        # the names themselves when the result could not be remembered
        self.site_deps: dict[CallSite, tuple | frozenset[str]] = {}
        self.sites_by_key: dict[tuple, dict[CallSite, None]] = {}
        self.sites_by_dep: dict[str, dict[CallSite, None]] = defaultdict(dict)
        self._unresolved: dict[CallSite, None] = {}
        self._external: dict[CallSite, None] = {}
        self._memo = _Memo()
        self._deps: set[str] | None = None
        self._active: set[tuple] = set()
        self._scratch: dict[tuple, tuple[object, frozenset[str]]] = {}
        self._tainted = False
        # the last digest of each edited file (what others see of it): the next edit of
        # that file starts from it instead of computing it again (it reads only the file)
        self._digests: dict[str, dict[str, frozenset]] = {}
        self._depth = 0
        with gc_paused():
            self._build(symbols, refs)

    def _build(self, symbols: list[SymbolInfo], refs: list[dict]) -> None:
        by_path: dict[str, list[dict]] = defaultdict(list)
        for s in symbols:
            self._add_symbol(s)
        for r in refs:
            by_path[r["path"]].append(r)
        for path, rows in by_path.items():
            self._add_facts(path, rows)
        for rows in by_path.values():
            for r in rows:
                if r["kind"] == "call":
                    self._add_site(_site(r))

    @property
    def out_edges(self) -> Mapping[str, dict[Edge, None]]:
        """Caller id → its edges (name matches included; read-only)."""
        return _OutEdges(self)

    @property
    def in_edges(self) -> Mapping[str, dict[Edge, None]]:
        """Target id → the edges into it (name matches included; read-only)."""
        return _InEdges(self)

    @property
    def site_edges(self) -> Mapping[CallSite, list[Edge]]:
        """Call site → its edges, empty for a site with none (read-only)."""
        return _SiteEdges(self)

    def _edges_in(self, target: str) -> Iterator[Edge]:
        yield from self._in.get(target, ())
        sym = self.symbols.get(target)
        named = self._named_by_name.get(sym.name) if sym is not None else None
        if not named:
            return
        hit: dict[int, tuple[str, str, float, bool] | None] = {}  # by candidates tuple: sites share them
        for site in named:
            found = self._named[site]
            key = id(found)
            if key not in hit:
                hit[key] = next((t for t in found if t[0] == target), None)
            t = hit[key]
            if t is not None:
                yield Edge(site, *t)

    def _edges_out(self, caller: str) -> Iterator[Edge]:
        yield from self._out.get(caller, ())
        for site in self._named_by_caller.get(caller, ()):
            for t in self._named[site]:
                yield Edge(site, *t)

    @property
    def unresolved(self) -> list[CallSite]:
        """Call sites with no edge, outside the repository ones included (``len``)."""
        return list(self._unresolved)

    @property
    def external(self) -> list[CallSite]:
        """Call sites known to call outside the repository (builtins, external
        modules, methods of external types)."""
        return list(self._external)

    # --- building and per-file updates ---------------------------------------------------

    def _add_symbol(self, s: SymbolInfo) -> None:
        self.symbols[s.id] = s
        self.file_symbols[s.path].append(s.id)
        if s.kind == "module" and s.parent is None:
            self.file_lang[s.path] = rules(s.language)
            self.module_id[s.path] = s.id
            stem = module_stem(s.path)
            self.stems[stem].append(s.path)
            self.stem_tails[stem.rsplit("/", 1)[-1]].add(stem)
            self.dirs[s.path.rsplit("/", 1)[0] if "/" in s.path else ""].append(s.path)
            return
        if s.kind in CALLABLE_KINDS:
            self.by_name[s.name].append(s)
            self.by_file[s.path][s.name].append(s)
            self.by_qualified[s.qualified_name].append(s)
        if s.parent is not None:
            self.children[s.parent][s.name].append(s)

    def _remove_symbols(self, path: str) -> None:
        """Take a file's symbols out of every index, one pass per touched list."""
        gone = [self.symbols[i] for i in self.file_symbols.pop(path, []) if i in self.symbols]
        touched: dict[tuple[int, object], tuple[dict, object]] = {}
        for s in gone:
            del self.symbols[s.id]
            if s.kind == "module" and s.parent is None:
                self.file_lang.pop(s.path, None)
                self.module_id.pop(s.path, None)
                stem = module_stem(s.path)
                _drop(self.stems, stem, s.path)
                if stem not in self.stems:
                    tails = self.stem_tails.get(stem.rsplit("/", 1)[-1])
                    if tails is not None:
                        tails.discard(stem)
                _drop(self.dirs, s.path.rsplit("/", 1)[0] if "/" in s.path else "", s.path)
                continue
            if s.kind in CALLABLE_KINDS:
                touched[(id(self.by_name), s.name)] = (self.by_name, s.name)
                touched[(id(self.by_qualified), s.qualified_name)] = (self.by_qualified, s.qualified_name)
            if s.parent is not None:  # a parent is always of the same file
                self.children.pop(s.parent, None)
        self.by_file.pop(path, None)
        for index, key in touched.values():
            bucket = index.get(key)
            if bucket is not None:
                bucket[:] = [x for x in bucket if x.path != path]
                if not bucket:
                    del index[key]

    def _add_facts(self, path: str, refs: list[dict]) -> None:
        facts = _Facts()
        self.facts[path] = facts
        module = self.module_id.get(path, f"{path}::<module>")
        property_receivers = self.file_lang.get(path, NEUTRAL).parameter_property_receivers
        for r in refs:
            kind = r["kind"]
            if kind == "call":
                continue
            if kind == "import":
                if r["name"] == "*":
                    facts.stars.append(r["source"] or "")
                else:
                    facts.imports[r["name"]] = (r["source"] or r["name"], r.get("original") or r["name"])
                continue
            enclosing = r["enclosing"]
            if kind == "base":
                facts.bases.setdefault(enclosing, []).append((r["receiver"] or "", r["name"]))
                self.subclasses[r["name"]].add(enclosing)
                facts.type_refs.append(TypeRef(path, r["line"], r["col"], r["name"], r["receiver"] or "",
                                               enclosing, "base"))
            elif kind == "class":
                facts.type_refs.append(TypeRef(path, r["line"], r["col"], r["name"], r["receiver"] or "",
                                               enclosing, "type"))
            elif kind == "returns":
                facts.returns[enclosing] = r["name"]
            elif kind == "return":
                facts.returned.setdefault(enclosing, []).append(r["name"])
            elif kind in ("typed", "assign", "elem"):
                source = r["source"] or ""
                if kind == "typed":
                    fact = Fact(TYPED, source) if source and source not in NO_TYPE else Fact(DECLARED, "")
                else:
                    fact = Fact(ASSIGNED if kind == "assign" else ELEMENTS, source)
                receiver = r["receiver"] or ""
                scope = self.symbols.get(enclosing)
                if receiver:
                    if receiver not in SELF_RECEIVERS and receiver not in property_receivers:
                        continue
                    cls = self._enclosing_class(enclosing)
                    if cls is not None:
                        facts.attrs.setdefault(cls.id, {}).setdefault(r["name"], []).append(
                            AttrFact(fact.form, fact.text, enclosing))
                    if receiver in SELF_RECEIVERS:
                        continue
                if scope is not None and scope.kind in CLASS_KINDS:
                    facts.attrs.setdefault(scope.id, {}).setdefault(r["name"], []).append(
                        AttrFact(fact.form, fact.text, enclosing))
                else:
                    facts.vars.setdefault(enclosing if scope is not None else module, {}).setdefault(
                        r["name"], []).append(fact)
        if facts.bases:  # a base class is a "class" reference too: keep it once, as a base
            at = {(r.line, r.col) for r in facts.type_refs if r.kind == "base"}
            facts.type_refs = [r for r in facts.type_refs if r.kind == "base" or (r.line, r.col) not in at]

    def _remove_facts(self, path: str) -> None:
        facts = self.facts.pop(path, None)
        if facts is None:
            return
        for cls_id, bases in facts.bases.items():
            for _, name in bases:
                ids = self.subclasses.get(name)
                if ids is not None:
                    ids.discard(cls_id)
                    if not ids:
                        del self.subclasses[name]

    def _digest(self, path: str) -> dict[str, frozenset]:
        """What other files can see of this one, by the name a lookup would use."""
        out: dict[str, set] = defaultdict(set)
        for sid in self.file_symbols.get(path, ()):
            s = self.symbols.get(sid)
            if s is None:
                continue
            if s.kind == "module" and s.parent is None:
                stem = module_stem(path)
                out["mod:" + stem.rsplit("/", 1)[-1]].add(("file", path))
                folder = path.rsplit("/", 1)[0] if "/" in path else ""
                out["mod:" + folder.rsplit("/", 1)[-1]].add(("file", path))  # a Go package
                continue
            out[s.name].add(("s", s.id, s.kind, s.parent, s.qualified_name))
        facts = self.facts.get(path)
        if facts is not None:
            for bound, (source, original) in facts.imports.items():
                out[bound].add(("i", source, original))
                out[original].add(("i<", bound, source))
            for source in facts.stars:
                out["*"].add(("*", path, source))
            for cls_id, bases in facts.bases.items():
                name = cls_id.rsplit("::", 1)[-1].rsplit(".", 1)[-1].split("#", 1)[0]
                out[name].add(("b", cls_id, tuple(bases)))
                for _, base in bases:
                    out["sub:" + base].add(cls_id)
            module = self.module_id.get(path)
            for scope, names in facts.vars.items():
                for name, fl in names.items():
                    # a function's locals are seen by its own file only: keyed by scope,
                    # so a common local name edited here re-resolves nothing elsewhere
                    out[name if scope == module else _local_key(scope, name)].add(("v", scope, tuple(fl)))
            for cls_id, attrs in facts.attrs.items():
                for name, fl in attrs.items():
                    deep = []
                    for form, text, scope in fl:
                        head = text.split(".", 1)[0].split("(", 1)[0].strip()
                        local = facts.vars.get(scope, {}).get(head, ())
                        deep.append((form, text, scope, tuple(local)))
                    out[name].add(("a", cls_id, tuple(deep)))
            for fid, text in facts.returns.items():
                out[fid.rsplit("::", 1)[-1].rsplit(".", 1)[-1].split("#", 1)[0]].add(("r", fid, text))
            for fid, texts in facts.returned.items():
                out[fid.rsplit("::", 1)[-1].rsplit(".", 1)[-1].split("#", 1)[0]].add(("rv", fid, tuple(texts)))
        lang = self.file_lang.get(path, NEUTRAL)
        if lang.namespaced:
            out["ns:" + path].add(tuple(sorted(self._compute_namespaces(path))))
        if lang.includes_files and facts is not None:

            out["inc:" + path].add(tuple(sorted(source for source, _ in facts.imports.values())))
        return {k: frozenset(v) for k, v in out.items()}

    def _add_site(self, site: CallSite) -> None:
        if site in self._site_edges or site in self._named:
            return  # the same call matched twice
        self.sites[site.path].append(site)
        self._link(site)

    def _link(self, site: CallSite) -> None:
        self._scratch.clear()
        outer, self._deps = self._deps, set()
        try:
            # sites alike (same caller, name and receiver) resolve alike: an edit re-links
            # a file's unchanged calls from the memo, at their new positions
            key = ("site", site.path, site.caller, site.name, site.receiver)
            found, external = self._memoized(key, lambda: self._resolve_targets(site))  # type: ignore[misc]
        finally:
            deps, self._deps = self._deps, outer
        if key in self._memo.values:  # the memo entry carries the names it read
            self.sites_by_key.setdefault(key, {})[site] = None
            self.site_deps[site] = key
        else:  # resolved through a cycle, not remembered: the site keeps its names itself
            deps.add(site.name)
            self.site_deps[site] = frozenset(deps)
            for dep in deps:
                self.sites_by_dep[dep][site] = None
        if found and found[0].reason is NAME:  # by name only (every candidate is): compactly
            self._named[site] = found
            self._named_by_name[site.name][site] = None
            self._named_by_caller[site.caller][site] = None
            return
        edges = [Edge(site, *t) for t in found]
        self._site_edges[site] = edges
        if not edges:
            self._unresolved[site] = None
            if external:
                self._external[site] = None
        for edge in edges:
            self._out[site.caller][edge] = None
            self._in[edge.target][edge] = None

    def _unlink(self, sites: list[CallSite]) -> None:
        """Take these sites' edges out."""
        for site in sites:
            self._unresolved.pop(site, None)
            self._external.pop(site, None)
            entry = self.site_deps.pop(site, None)
            if isinstance(entry, tuple):
                same = self.sites_by_key.get(entry)
                if same is not None:
                    same.pop(site, None)
                    if not same:
                        del self.sites_by_key[entry]
            for dep in entry if isinstance(entry, frozenset) else ():
                bucket = self.sites_by_dep.get(dep)
                if bucket is not None:
                    bucket.pop(site, None)
                    if not bucket:
                        del self.sites_by_dep[dep]
            if self._named.pop(site, None) is not None:
                for index, key in ((self._named_by_name, site.name), (self._named_by_caller, site.caller)):
                    bucket = index.get(key)
                    if bucket is not None:
                        bucket.pop(site, None)
                        if not bucket:
                            del index[key]
                continue
            for edge in self._site_edges.pop(site, []):
                for edges, key in ((self._out, site.caller), (self._in, edge.target)):
                    bucket = edges.get(key)
                    if bucket is not None:
                        bucket.pop(edge, None)
                        if not bucket:
                            del edges[key]

    def replace_file(self, path: str, symbols: list[SymbolInfo], refs: list[dict]) -> None:
        """Swap one file's symbols and references (an edited buffer, a file changed
        on disk; empty lists: the file is gone). The file's call sites that are gone
        lose their edges and new ones are resolved; a site still there, at the same
        place in the same symbol, keeps its edges unless its resolution read a name
        whose facts changed, and so does every site elsewhere. Same edges as building
        the graph again from scratch (tests/test_graph*.py)."""
        before = self._digests.pop(path, None)
        if before is None:
            before = self._digest(path)
        own = self.sites.pop(path, [])
        new_sites = list(dict.fromkeys(_site(r) for r in refs if r["kind"] == "call"))
        now = set(new_sites)
        self._unlink([site for site in own if site not in now])
        kept = set(own) & now
        self._remove_symbols(path)
        self._remove_facts(path)
        for s in symbols:
            self._add_symbol(s)
        self._add_facts(path, refs)
        after = self._digest(path)
        if symbols or refs:
            self._digests[path] = after
        changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        dropped = self._memo.drop(changed)
        others = {site: None for key in dropped if key[0] == "site" for site in self.sites_by_key.get(key, {})}
        others.update((site, None) for name in changed for site in self.sites_by_dep.get(name, {}))
        self._unlink(list(others))
        self.sites[path] = new_sites
        for site in others:
            self._link(site)
        for site in new_sites:
            if site not in kept:
                self._link(site)
        if not new_sites:
            del self.sites[path]

    # --- persistence -----------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str], key: str) -> None:
        """Write the resolved map (edges, facts, remembered lookups) next to the index,
        so a warm start loads it instead of resolving every call again (stdlib: load
        0.8 s against 3.4 s to resolve, bench/bench_graph.py). ``key`` names the
        state it was built from (``store_key``); ``load`` with another key answers
        None. Signed with this user's secret (``load`` unpickles only what it
        verifies: an index folder may come from elsewhere); written to a temporary
        file, then renamed. OSError when it cannot be written (nor the secret made)."""
        secret = user_secret()
        if secret is None:
            raise OSError("no codeloupe secret to sign the call graph with")
        payload = pickle.dumps((GRAPH_FORMAT, __version__, key, self), protocol=5)
        target = Path(path)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.partial")  # two writers: one wins whole
        try:
            with tmp.open("wb") as fh:
                fh.write(_MAGIC + hmac.digest(secret, payload, "sha256"))
                fh.write(payload)
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: str | os.PathLike[str], key: str) -> Graph | None:
        """The map ``save`` wrote for this ``key``; None when there is none, it was
        built from another state or another version, its signature is not this user's,
        or it cannot be read (derived data: the caller builds it again)."""
        try:
            data = Path(path).read_bytes()
        except OSError:
            return None
        secret = user_secret()
        head = len(_MAGIC) + 32
        if secret is None or not data.startswith(_MAGIC) or not hmac.compare_digest(
                data[len(_MAGIC):head], hmac.digest(secret, memoryview(data)[head:], "sha256")):
            return None
        enabled = gc.isenabled()
        gc.disable()  # a million new objects: the cyclic GC would walk them again and again
        try:
            fmt, version, stored_key, graph = pickle.loads(memoryview(data)[head:])  # noqa: S301 - signed by us
        except Exception:  # noqa: BLE001 - a damaged file: build again
            return None
        finally:
            if enabled:
                gc.enable()
        if (fmt, version, stored_key) != (GRAPH_FORMAT, __version__, key) or not isinstance(graph, cls):
            return None
        return graph

    # --- lookups (each records the names it reads) ---------------------------------------

    def _need(self, name: str) -> None:
        if self._deps is not None:
            self._deps.add(name)

    def _memoized(self, key: tuple, fn: Callable[[], object]) -> object:
        """``fn()``, remembered with the names it read. A lookup that runs into itself
        (``x = x.y``, cyclic bases, re-exports in a circle) or too deep (``_MAX_DEPTH``
        steps, ``_MAX_ACTIVE`` nested lookups) answers None and leaves every result
        that depended on it unremembered, so a remembered result never depends on the
        order in which sites were resolved."""
        hit = self._memo.values.get(key) or self._scratch.get(key)
        if hit is None:
            if key in self._active or len(self._active) > _MAX_ACTIVE:
                self._tainted = True
                return None
            outer, self._deps = self._deps, set()
            outer_tainted, self._tainted = self._tainted, False
            self._active.add(key)
            try:
                value = fn()
            finally:
                self._active.discard(key)
                deps, self._deps = self._deps, outer
                tainted, self._tainted = self._tainted, outer_tainted or self._tainted
            hit = (value, frozenset(deps))
            if not tainted:
                self._memo.values[key] = hit
                for dep in deps:
                    self._memo.by_dep[dep].add(key)
            else:  # cut short by a cycle: good for the rest of this resolution only
                self._scratch[key] = hit
        if self._deps is not None:
            self._deps |= hit[1]
        return hit[0]

    def _cut(self) -> None:
        """Too deep: the answer is None, and not one to remember."""
        self._tainted = True
        return None

    def _enclosing_class(self, symbol_id: str) -> SymbolInfo | None:
        s = self.symbols.get(symbol_id)
        while s is not None:
            self._need(s.name)
            if s.kind in CLASS_KINDS:
                return s
            owner = self._scoped_owner(s)
            if owner is not None:
                return owner
            s = self.symbols.get(s.parent) if s.parent else None
        return None

    def _scopes(self, symbol_id: str) -> list[SymbolInfo]:
        out = []
        s = self.symbols.get(symbol_id)
        while s is not None:
            self._need(s.name)
            out.append(s)
            owner = self._scoped_owner(s)
            if owner is not None:
                out.append(owner)
            s = self.symbols.get(s.parent) if s.parent else None
        return out

    def _scoped_owner(self, s: SymbolInfo) -> SymbolInfo | None:
        """The class of a C++ method defined out of line in a file without the class
        (``void Foo::bar() {}`` in foo.cpp, the class in foo.hpp): the class of that
        qualified name (the same file first)."""
        lang = rules(s.language)
        if not lang.out_of_line_methods or s.kind not in FUNCTION_KINDS or "." not in s.qualified_name \
                or s.parent != self.module_id.get(s.path):
            return None
        owner = s.qualified_name.rsplit(".", 1)[0]
        found = self._qualified(owner, lang, CLASS_KINDS)
        if not found:
            return None
        return next((c for c in found if c.path == s.path), found[0])

    def _qualified(self, dotted: str, lang: Language, kinds: frozenset[str] = CALLABLE_KINDS) -> list[SymbolInfo]:
        """Symbols whose qualified name is this dotted name or ends with it
        (``net.Transport`` for ``net::Transport``), of the language's family."""
        short = dotted.rsplit(".", 1)[-1]
        self._need(short)
        tail = "." + dotted
        found = [c for c in self.by_name.get(short, ()) if c.kind in kinds and same_family(c.language, lang.name)
                 and (c.qualified_name == dotted or c.qualified_name.endswith(tail))]
        return sorted(found, key=lambda c: (c.path, c.start_line))

    def _included_files(self, path: str) -> list[str]:
        """Files this one names by #include / require / require_relative (relative
        to its folder, else anywhere the path matches), with the sources sharing their
        stem (``net/transport.h`` → ``net/transport.c``)."""
        return self._memoized(("inc", path), lambda: self._compute_included(path)) or []  # type: ignore[return-value]

    def _compute_included(self, path: str) -> list[str]:
        self._need("inc:" + path)  # an include added or removed
        facts = self.facts.get(path)
        if facts is None:
            return []
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        lang = self.file_lang.get(path, NEUTRAL)
        out: list[str] = []
        for bound, (source, _) in sorted(facts.imports.items()):
            self._need(bound)
            if not lang.names_file(source):
                continue
            stem = module_stem(source.lstrip("./") if not source.startswith("..") else source)
            near = module_stem(join_path(folder, source)) if folder else stem
            files = self._module_files(near) or self._module_files(stem)
            out.extend(p for p in files if p != path and p not in out)
        return out

    def _file_namespaces(self, path: str) -> frozenset[str]:
        """Namespaces whose names a file sees unqualified: those its definitions are
        in (and their parents), and those it imports whole (C# ``using A.B;``, C++
        ``using namespace a;``)."""
        return self._memoized(("ns", path), lambda: self._compute_namespaces(path)) or frozenset()  # type: ignore[return-value]

    def _compute_namespaces(self, path: str) -> frozenset[str]:
        self._need("ns:" + path)
        out: set[str] = set()
        for sid in self.file_symbols.get(path, ()):
            s = self.symbols.get(sid)
            if s is None or s.kind not in CLASS_KINDS and s.kind not in FUNCTION_KINDS:
                continue
            parts = s.qualified_name.split(".")[:-1]
            for i in range(1, len(parts) + 1):
                out.add(".".join(parts[:i]))
        facts = self.facts.get(path)
        for bound, (source, original) in (facts.imports.items() if facts is not None else ()):
            dotted = source.replace("::", ".").replace("\\", ".").strip(".")
            if original == bound and (dotted == bound or dotted.endswith("." + bound)):
                out.add(dotted)
        return frozenset(out)

    def _module_files(self, modpath: str) -> list[str]:
        """Files of the module at this slash path: its stem, or a stem ending with it."""
        tail = modpath.rsplit("/", 1)[-1]
        self._need("mod:" + tail)
        exact = self.stems.get(modpath)
        if exact:
            return list(exact)
        found = [p for stem in sorted(self.stem_tails.get(tail, ()))
                 if stem.endswith("/" + modpath) for p in self.stems[stem]]
        return found

    def _package_files(self, source: str) -> list[str]:
        """Go: the files of the package (folder) an import path names."""
        tail = source.rstrip("/").rsplit("/", 1)[-1]
        self._need("mod:" + tail)
        out = []
        for d, paths in self.dirs.items():
            if d == source or d.endswith("/" + tail) and (source.endswith("/" + d) or
                                                           d.endswith("/" + source) or d == tail):
                out.extend(paths)
        return sorted(out)

    def _top(self, path: str, name: str) -> list[SymbolInfo]:
        self._need(name)
        module = self.module_id.get(path)
        return list(self.children.get(module, {}).get(name, ())) if module else []

    def _members(self, cls: SymbolInfo, name: str) -> list[SymbolInfo]:
        """Direct members of a class named ``name``, with methods defined apart from it
        (Go methods in other files of the package, Rust ``impl`` blocks, C++ ``Foo::bar``)."""
        self._need(name)
        found = list(self.children.get(cls.id, {}).get(name, ()))
        qualified = self.by_qualified.get(f"{cls.qualified_name}.{name}")
        if qualified:
            folder = cls.path.rsplit("/", 1)[0]
            apart = rules(cls.language).methods_apart
            for s in qualified:
                if s in found or s.language != cls.language or s.kind not in FUNCTION_KINDS:
                    continue
                if s.path == cls.path or apart is MethodsApart.ANYWHERE or (
                        apart is MethodsApart.SAME_FOLDER and s.path.rsplit("/", 1)[0] == folder):
                    found.append(s)
        return found

    def _mro(self, cls_id: str, depth: int = 0) -> tuple[tuple[str, ...], bool]:
        """The class and its repository bases in lookup order, and whether some base
        lies outside the repository (or could not be found)."""
        return self._memoized(("mro", cls_id),  # type: ignore[return-value]
                              lambda: self._compute_mro(cls_id, depth + 1)) or ((cls_id,), True)

    def _compute_mro(self, cls_id: str, depth: int) -> tuple[tuple[str, ...], bool]:
        order: list[str] = []
        external = False
        seen: set[str] = set()

        def visit(cid: str, depth: int) -> None:
            nonlocal external
            if cid in seen:
                return
            if depth > _MAX_DEPTH:
                self._cut()
                return
            seen.add(cid)
            order.append(cid)
            cls = self.symbols.get(cid)
            if cls is None:
                return
            self._need(cls.name)
            facts = self.facts.get(cls.path)
            lang = rules(cls.language)
            if lang.impl_blocks and cls.kind == "impl":
                # an impl block: the type it implements (its fields) and its other impls
                value = self._type_value(cls.name, cls.path, cls.parent or "", depth + 1)
                for same in value.ids if value is not None and value.kind is INSTANCE else ():
                    visit(same, depth + 1)
            for qualifier, name in (facts.bases.get(cid, ()) if facts else ()):
                if name in ("object", "Object"):
                    continue
                value = self._type_value(f"{qualifier}.{name}" if qualifier else name, cls.path,
                                         cls.parent or "", depth + 1)
                if value is None and lang.mixin_modules:  # a mixin: `include M` names a module
                    self._need(name)
                    mixins = [m for mid in self.module_id.values() for m in self.children.get(mid, {}).get(name, ())
                              if m.kind == "module" and m.language == cls.language]
                    value = Value(INSTANCE, tuple(m.id for m in mixins)) if mixins else None
                if value is None or value.kind not in (INSTANCE, CLASS):
                    external = True
                    continue
                for base in value.ids:
                    visit(base, depth + 1)

        visit(cls_id, depth)
        return tuple(order), external

    def _lookup(self, cls_id: str, name: str, skip_self: bool = False, depth: int = 0
                ) -> tuple[list[SymbolInfo], bool]:
        """``name`` on a class: the members of the first class along its bases that
        defines it; and whether some base is outside the repository."""
        mro, external = self._mro(cls_id, depth + 1)
        for cid in mro[1:] if skip_self else mro:
            cls = self.symbols.get(cid)
            if cls is None:
                continue
            found = self._members(cls, name)
            if found:
                return found, external
        return [], external

    def _assigned_functions(self, cls_id: str, name: str, depth: int = 0) -> list[SymbolInfo]:
        """Functions that a method of the class (or of a base) assigns to an attribute
        of the instance, ``this.parseArg = (arg) => {...}``: what ``x.parseArg()``
        calls on an instance whose class has no member of that name. The function is
        the symbol defined by that assignment (``Argument.choices.parseArg``)."""
        self._need(name)
        for mid in self._mro(cls_id, depth + 1)[0]:
            cls = self.symbols.get(mid)
            facts = self.facts.get(cls.path) if cls is not None else None
            fl = facts.attrs.get(mid, {}).get(name) if facts is not None else None
            found: list[SymbolInfo] = []
            for form, text, scope in fl or ():
                if form is not ASSIGNED or not _FUNCTION_EXPR.match(text):
                    continue
                own = self.symbols.get(scope)
                defs = [own] if own is not None and own.name == name else \
                    self.children.get(scope, {}).get(name, [])
                found.extend(d for d in defs if d.kind in FUNCTION_KINDS and d not in found)
            if found:
                return found
        return []

    def _subclass_members(self, cls_id: str, name: str) -> list[SymbolInfo]:
        """``name`` defined by the classes that derive from this one (a mixin calling
        a method its host class provides)."""
        out: list[SymbolInfo] = []
        seen = {cls_id}
        queue = deque([cls_id])
        while queue and len(seen) < 200:
            cid = queue.popleft()
            cls = self.symbols.get(cid)
            if cls is None:
                continue
            self._need("sub:" + cls.name)
            for sub in sorted(self.subclasses.get(cls.name, ())):
                if sub in seen:
                    continue
                if cid not in self._mro(sub)[0]:
                    continue
                seen.add(sub)
                sub_cls = self.symbols.get(sub)
                if sub_cls is None:
                    continue
                found = self._members(sub_cls, name)
                if found:
                    out.extend(found)
                else:
                    queue.append(sub)
        return out

    def _constructors(self, cls: SymbolInfo) -> list[SymbolInfo]:
        names = rules(cls.language).constructor_names

        if names is not None:
            for name in names:
                found, _ = self._lookup(cls.id, name)
                if found:
                    return [s for s in found if s.kind in FUNCTION_KINDS]
            return []
        return [s for s in self._members(cls, cls.name) if s.kind == "constructor"]

    # --- values and types ------------------------------------------------------------

    def _import_value(self, path: str, bound: str, depth: int = 0) -> Value | list[SymbolInfo] | None:
        return self._memoized(("imp", path, bound),  # type: ignore[return-value]
                              lambda: self._compute_import(path, bound, depth + 1))

    def _compute_import(self, path: str, bound: str, depth: int) -> Value | list[SymbolInfo] | None:
        if depth > _MAX_DEPTH:
            return self._cut()
        self._need(bound)
        facts = self.facts.get(path)
        if facts is None or bound not in facts.imports:
            return None
        source, original = facts.imports[bound]
        self._need(original)
        return self.file_lang.get(path, NEUTRAL).import_value(self, path, bound, source, original, depth)

    # --- what a language's import rule asks (languages.ImportContext) -----------------

    external_value = EXTERNAL

    @staticmethod
    def module(files: Iterable[str]) -> Value:
        return Value(MODULE, tuple(files))

    def module_files(self, modpath: str) -> list[str]:
        return self._module_files(modpath)

    def package_files(self, source: str) -> list[str]:
        return self._package_files(source)

    def module_member(self, files: tuple[str, ...], name: str, depth: int) -> Value | list[SymbolInfo] | None:
        return self._module_member(files, name, depth)

    def top_level(self, path: str, name: str) -> list[SymbolInfo]:
        return self._top(path, name)

    def qualified(self, dotted: str, language: Language) -> list[SymbolInfo]:
        return self._qualified(dotted, language)

    def symbols_named(self, name: str) -> list[SymbolInfo]:
        self._need(name)
        return self.by_name.get(name, [])

    def assigned_texts(self, path: str, name: str) -> list[str]:
        facts = self.facts.get(path)
        if facts is None:
            return []
        return [text for form, text in facts.vars.get(self.module_id.get(path, ""), {}).get(name, ()) if form is ASSIGNED]

    def _module_member(self, files: tuple[str, ...], name: str, depth: int = 0
                       ) -> Value | list[SymbolInfo] | None:
        """``name`` in a module: a definition, a module-level variable, a re-export
        (an import in that module, ``export … from``, ``*``), or a submodule."""
        if depth > _MAX_DEPTH:
            return self._cut()
        self._need(name)
        found = [s for p in files for s in self._top(p, name)]
        if found:
            return found
        for p in files:
            facts = self.facts.get(p)
            if facts is None:
                continue
            module = self.module_id.get(p, "")
            if name in facts.vars.get(module, {}):
                return self._var_value(p, module, name, depth + 1)
            if name in facts.imports:
                return self._import_value(p, name, depth + 1)
        for p in files:
            facts = self.facts.get(p)
            self._need("*")
            if facts is None or not facts.stars:
                continue
            for source in facts.stars:
                modpath = self.file_lang.get(p, NEUTRAL).star_module_path(source, p)
                if not modpath:
                    continue
                sub = self._module_files(modpath)
                if sub and tuple(sub) != files:
                    got = self._module_member(tuple(sub), name, depth + 1)
                    if got is not None:
                        return got
        if files and self.file_lang.get(files[0], NEUTRAL).is_package_entry(files[0]):
            sub = self._module_files(module_stem(files[0]) + "/" + name)
            if sub:
                return Value(MODULE, tuple(sub))
        return None

    def _eval_facts(self, facts: list[tuple[str, str]], path: str, scope: str, depth: int) -> Value | None:
        """The value a variable holds, from what was assigned to it and its annotation.
        An annotation wins; several assignments: the repository classes among them."""
        if depth > _MAX_DEPTH:
            return self._cut()
        typed = [f for f in facts if f.form is TYPED]
        if typed and len(typed) < len(facts):
            first = self._eval_facts(typed, path, scope, depth + 1)
            if first is not None and first != EXTERNAL:
                return first  # the annotation, when it names repository classes
        chosen = [f for f in facts if f.form is ASSIGNED] if typed and len(typed) < len(facts) else facts
        chosen = [f for f in chosen if f.form is not DECLARED]
        classes: list[str] = []
        kind: ValueKind | None = None
        external = False
        for form, text in chosen:
            value = self._type_value(text, path, scope, depth + 1) if form is TYPED else \
                self._expr_value(text, path, scope, depth + 1)
            if form is ELEMENTS and value is not None and value != EXTERNAL:
                value = Value(INSTANCE, value.ids) if value.kind is ARRAY else None  # its elements
            if value is None:
                continue
            if value == EXTERNAL:
                external = True
                continue
            if kind is None or kind is value.kind:
                kind = value.kind
                classes.extend(c for c in value.ids if c not in classes)
        if classes:
            return Value(kind, tuple(classes))  # type: ignore[arg-type]
        return EXTERNAL if external else None

    def _type_value(self, text: str, path: str, scope: str, depth: int = 0) -> Value | None:
        """The instances a type annotation describes."""
        if depth > _MAX_DEPTH:
            return self._cut()
        element = element_name(text)
        if element is not None:  # a sequence of repository instances
            value = self._type_value(element, path, scope, depth + 1)
            if value is not None and value.kind is INSTANCE:
                return Value(ARRAY, value.ids)
            return EXTERNAL
        name = type_name(text)
        if name is None and "|" in text:  # a union: the repository classes among its members
            classes: list[str] = []
            for alt in union_members(text):  # each shorter than the union: no re-entry
                value = self._type_value(alt, path, scope, depth + 1)
                if value is not None and value.kind is INSTANCE:
                    classes.extend(c for c in value.ids if c not in classes)
            if classes:
                return Value(INSTANCE, tuple(classes))
        if name is None:
            stripped = text.strip()
            head = stripped.split("[", 1)[0].split("<", 1)[0].strip()
            return EXTERNAL if head in EXTERNAL_TYPES or stripped.startswith(("[", "{", "(")) else None
        return self._memoized(("type", path, scope, name),  # type: ignore[return-value]
                              lambda: self._compute_type(name, path, scope, depth + 1))

    def _compute_type(self, name: str, path: str, scope: str, depth: int) -> Value | None:
        parts = name.split(".")
        value = self._name_value(parts[0], path, scope, depth + 1, types_only=True)
        for part in parts[1:]:
            value = self._attr_value(value, part, False, depth + 1)
        if value is not None and value.kind is CLASS:
            return Value(INSTANCE, value.ids)
        if value is not None and value.kind is INSTANCE:
            return value
        if value == EXTERNAL:
            return EXTERNAL
        lang = self.file_lang.get(path, NEUTRAL)
        if len(parts) == 1:
            classes = self._classes_named(parts[0], path, lang)
            if classes:
                return Value(INSTANCE, tuple(c.id for c in classes))
        elif lang.namespaced:  # `net::Transport`, `Acme.Net.Transport`, `\App\Net\Transport`
            classes = self._qualified(".".join(p for p in parts if p not in lang.path_roots), lang, CLASS_KINDS)
            if classes:
                return Value(INSTANCE, tuple(c.id for c in classes))
        if parts[-1] in EXTERNAL_TYPES or name in EXTERNAL_TYPES:
            return EXTERNAL
        return None

    def _classes_named(self, name: str, path: str, lang: Language) -> list[SymbolInfo]:
        """Classes of this name visible without an import: the same file, then as the
        language says (``Language.implicit_classes``): none more (Python), the only one
        of that name (JavaScript's JSDoc), or those of a namespace the file is in or
        imports, of a file it includes, of its folder, else the only one."""
        self._need(name)
        candidates = [s for s in self.by_name.get(name, ()) if s.kind in CLASS_KINDS and s.language == lang.name]
        if not candidates:
            return []
        same_file = [s for s in candidates if s.path == path]
        if same_file:
            return same_file
        if lang.implicit_classes is ImplicitClasses.NONE:
            return []
        if lang.implicit_classes is ImplicitClasses.UNIQUE:
            return candidates if len(candidates) == 1 else []
        if lang.namespaced:  # in a namespace this file is in or imports whole
            spaces = self._file_namespaces(path)
            seen = [s for s in candidates if s.qualified_name.rsplit(".", 1)[0] in spaces]
            if seen:
                return seen
        if lang.includes_files:
            files = set(self._included_files(path))
            included = [s for s in candidates if s.path in files]
            if included:
                return included
        folder = path.rsplit("/", 1)[0]
        same_dir = [s for s in candidates if s.path.rsplit("/", 1)[0] == folder]
        if same_dir:
            return same_dir
        return candidates if len(candidates) == 1 else []

    def _expr_value(self, text: str, path: str, scope: str, depth: int = 0) -> Value | None:
        """The value of an expression as written (``Foo(1)``, ``self.pool``, ``new a.B()``)."""
        if depth > _MAX_DEPTH:
            return self._cut()
        t = text.strip()
        if not t or t.startswith(LITERAL_START) or t in ("None", "True", "False", "null", "true", "false", "nil"):
            return EXTERNAL if t and not t.startswith(("lambda ", "not ")) else None
        lang = self.file_lang.get(path, NEUTRAL)
        if lang.module_loader and t.startswith(lang.module_loader):
            return None
        copy = lang.sequence_copy.match(t) if lang.sequence_copy is not None else None
        if copy is not None:  # list(xs), sorted(xs), reversed(xs): the same elements
            inner = split_top(copy.group(2), ",")[0].strip()
            value = self._expr_value(inner, path, scope, depth + 1)
            if value is None or value.kind is ARRAY:
                return value
            return EXTERNAL
        branches = ternary_branches(t) if lang.ternaries and "?" in t else None
        if branches is not None:  # `c ? a : b`: either value
            return self._either_value([self._expr_value(b, path, scope, depth + 1) for b in branches])
        parts = receiver_parts(t)
        if not parts:
            return None
        return self._parts_value(parts, path, scope, depth + 1)

    def _qualified_prefix(self, parts: list[str], path: str) -> tuple[Value, list[str]] | None:
        """``net::Transport("x").send``: the longest leading run of names that is the
        qualified name of a class (an instance when it is called), and the parts left
        after it (the first part of what is left stands for that value)."""
        lang = self.file_lang.get(path, NEUTRAL)
        for i in range(len(parts), 1, -1):
            head = parts[:i]
            if any(p.endswith(")") or p.startswith("[") for p in head[:-1]) or head[-1].startswith("["):
                continue
            names = [p[:-2] if p.endswith("()") else p for p in head]
            names = [n for n in names if n not in lang.path_roots]
            if len(names) < 2:
                continue
            classes = self._qualified(".".join(names), lang, CLASS_KINDS)
            if classes:
                ids = tuple(c.id for c in classes)
                return Value(INSTANCE if head[-1].endswith("()") else CLASS, ids), parts[i - 1:]
        return None

    @staticmethod
    def _either_value(values: list[Value | None]) -> Value | None:
        """A value that is one of these: the repository ones of the first kind among
        them (``c ? option : null`` → the option); EXTERNAL when every one is."""
        kind: ValueKind | None = None
        ids: list[str] = []
        for value in values:
            if value is None or value == EXTERNAL:
                continue
            if kind is None or value.kind is kind:
                kind = value.kind
                ids.extend(i for i in value.ids if i not in ids)
        if ids:
            return Value(kind, tuple(ids))  # type: ignore[arg-type]
        return EXTERNAL if values and all(v == EXTERNAL for v in values) else None

    def _parts_value(self, parts: list[str], path: str, scope: str, depth: int) -> Value | None:
        first = parts[0]
        if first.endswith("()"):
            value = self._call_value(first[:-2], path, scope, depth + 1)
        else:
            value = self._name_value(first, path, scope, depth + 1)
        if value is None and len(parts) > 1 and self.file_lang.get(path, NEUTRAL).namespaced:

            found = self._qualified_prefix(parts, path)
            if found is not None:
                value, parts = found
        for part in parts[1:]:
            if part.startswith("["):  # xs[i]: an element of a sequence; xs[1:]: the sequence
                value = (value if part == "[:]" else Value(INSTANCE, value.ids)) \
                    if value is not None and value.kind is ARRAY else None
            else:
                is_call = part.endswith("()")
                value = self._attr_value(value, part[:-2] if is_call else part, is_call, depth + 1)
            if value is None:
                return None
        return value

    def _name_value(self, name: str, path: str, scope: str, depth: int, types_only: bool = False) -> Value | None:
        """What a bare name holds where ``scope`` sees it."""
        if depth > _MAX_DEPTH:
            return self._cut()
        self._need(name)
        if name in SELF_NAMES:
            cls = self._enclosing_class(scope)
            if cls is None:
                return None
            return Value(CLASS if name in CLASS_NAMES else INSTANCE, (cls.id,))
        lang = self.file_lang.get(path, NEUTRAL)
        facts = self.facts.get(path)
        for s in self._scopes(scope):
            if s.kind in CLASS_KINDS and s.id != scope and not lang.class_body_is_scope:
                continue
            defs = self.children.get(s.id, {}).get(name)
            if defs:
                if any(d.kind in CLASS_KINDS for d in defs):
                    return Value(CLASS, tuple(d.id for d in defs if d.kind in CLASS_KINDS))
                if not types_only:
                    return Value(FUNCTION, tuple(d.id for d in defs if d.kind in FUNCTION_KINDS))
            if facts is not None and not types_only and s.kind not in CLASS_KINDS:
                if s.parent is not None:
                    self._need(_local_key(s.id, name))
                local = facts.vars.get(s.id, {}).get(name)
                if local and not (s.parent is None and name in facts.imports):
                    return self._var_value(path, s.id, name, depth + 1)
            if s.kind in CLASS_KINDS and lang.implicit_this and not types_only:
                named = [c for c in self._mro(s.id, depth + 1)[0]
                         if c in self.symbols and self.symbols[c].name == name]
                if named:  # the class or a base by its own name (C++ `Base::send()`)
                    return Value(CLASS, tuple(named))
                value = self._attr_value(Value(INSTANCE, (s.id,)), name, False, depth + 1)
                if value is not None:
                    return value
        module = self.module_id.get(path)
        if module is not None and (module not in {s.id for s in self._scopes(scope)}):
            self._need(name)
            defs = self.children.get(module, {}).get(name)
            if defs:
                classes = tuple(d.id for d in defs if d.kind in CLASS_KINDS)
                if classes:
                    return Value(CLASS, classes)
            if facts is not None and not types_only and name in facts.vars.get(module, {}):
                return self._var_value(path, module, name, depth + 1)
        if types_only and lang.type_aliases_as_variables and facts is not None and module is not None:
            # an alias: `Link = Transport` (Ruby), `using Link = net::Transport;` (its own symbol)
            holders = [module, *(d.id for d in self.children.get(module, {}).get(name, ()) if d.kind == "type")]
            for holder in holders:
                if name in facts.vars.get(holder, {}):
                    value = self._var_value(path, holder, name, depth + 1)
                    if value is not None and value.kind is CLASS:
                        return value
        if facts is not None and name in facts.imports:
            value = self._import_value(path, name, depth + 1)
            if isinstance(value, list):
                classes = tuple(s.id for s in value if s.kind in CLASS_KINDS)
                if classes:
                    return Value(CLASS, classes)
                funcs = tuple(s.id for s in value if s.kind in FUNCTION_KINDS)
                return Value(FUNCTION, funcs) if funcs and not types_only else None
            return value
        if lang.implicit_classes is not ImplicitClasses.NONE:
            classes = self._classes_named(name, path, lang)
            if classes:
                return Value(CLASS, tuple(c.id for c in classes))
        if name in lang.external_names:
            return EXTERNAL
        return None

    def _attr_value(self, value: Value | None, attr: str, is_call: bool, depth: int) -> Value | None:
        """``value.attr`` (``value.attr()`` when ``is_call``)."""
        if value is None:
            return None
        if depth > _MAX_DEPTH:
            return self._cut()
        if value == EXTERNAL:
            return EXTERNAL
        kind, ids = value
        if kind is MODULE:
            member = self._module_member(ids, attr, depth + 1)
            if isinstance(member, list):
                return self._value_of_symbols(member, is_call, depth + 1)
            if is_call and member is not None and member.kind is CLASS:
                return Value(INSTANCE, member.ids)
            return member if not is_call else None
        if kind is CLASS and attr in INSTANCE_FACTORIES and any(
                rules(self.symbols[i].language).instance_factory == attr for i in ids if i in self.symbols):
            if not any(self._lookup(cid, attr, depth=depth + 1)[0] for cid in ids):  # `Foo.new`: an instance
                return Value(INSTANCE, ids)
        if kind is INSTANCE or kind is CLASS:
            classes: list[str] = []
            external = False
            for cid in ids:
                found, ext = self._lookup(cid, attr, depth=depth + 1)
                external = external or (ext and not found)
                if found:
                    value = self._value_of_symbols(found, is_call, depth + 1)
                    if value is not None and value != EXTERNAL:
                        classes.extend(value.ids)
                        kind_out = value.kind
                    continue
                if is_call:
                    assigned = self._assigned_functions(cid, attr, depth + 1)
                    value = self._returns(assigned, depth + 1) if assigned else None
                    if value is not None and value != EXTERNAL:
                        classes.extend(value.ids)
                        kind_out = value.kind
                    continue
                for mid in self._mro(cid, depth + 1)[0]:
                    cls = self.symbols.get(mid)
                    facts = self.facts.get(cls.path) if cls else None
                    self._need(attr)
                    fl = facts.attrs.get(mid, {}).get(attr) if facts else None
                    if fl:
                        got = self._memoized(("attr", mid, attr),  # type: ignore[assignment]
                                             lambda fl=fl, cls=cls: self._need(attr) or self._eval_attr(
                                                 fl, cls.path, depth + 1))
                        if got is not None and got != EXTERNAL:
                            classes.extend(got.ids)
                            kind_out = got.kind
                        elif got == EXTERNAL:
                            external = True
                        break
            if classes:
                return Value(kind_out, tuple(dict.fromkeys(classes)))
            return EXTERNAL if external else None
        if kind is ARRAY:  # the methods of the language's array / list
            if is_call and attr in SAME_SEQUENCE_METHODS:
                return value
            if is_call and attr in ONE_ELEMENT_METHODS:

                return Value(INSTANCE, ids)
            return EXTERNAL
        if kind is FUNCTION and is_call:
            return self._value_of_symbols([self.symbols[i] for i in ids if i in self.symbols], True, depth + 1)
        return None

    def _eval_attr(self, fl: list[AttrFact], path: str, depth: int) -> Value | None:
        """An attribute's value: its declared types, else what is assigned to it."""
        if depth > _MAX_DEPTH:
            return self._cut()
        chosen = [f for f in fl if f.form is TYPED] or [f for f in fl if f.form is ASSIGNED]
        classes: list[str] = []
        kind: ValueKind | None = None
        external = False
        for form, text, scope in chosen:
            value = self._type_value(text, path, scope, depth + 1) if form is TYPED else \
                self._expr_value(text, path, scope, depth + 1)

            if value is None:
                continue
            if value == EXTERNAL:
                external = True
                continue
            if kind is None or kind is value.kind:
                kind = value.kind
                classes.extend(c for c in value.ids if c not in classes)
        if classes:
            return Value(kind, tuple(classes))  # type: ignore[arg-type]
        return EXTERNAL if external else None

    def _value_of_symbols(self, found: list[SymbolInfo], is_call: bool, depth: int) -> Value | None:
        classes = tuple(s.id for s in found if s.kind in CLASS_KINDS)
        if classes:
            return Value(INSTANCE if is_call else CLASS, classes)
        funcs = [s for s in found if s.kind in FUNCTION_KINDS]
        if not funcs:
            return None
        if not is_call:
            # a method read as an attribute: a property (`self.params.add()`) when it
            # declares what it returns, else the function itself
            if all(s.kind == "method" for s in funcs):
                value = self._returns(funcs, depth + 1)
                if value is not None and value != EXTERNAL:
                    return value
            return Value(FUNCTION, tuple(s.id for s in funcs))
        return self._returns(funcs, depth + 1)

    def _var_value(self, path: str, scope: str, name: str, depth: int = 0) -> Value | None:
        """A variable's value (memoized: many calls read the same variable)."""
        facts = self.facts.get(path)
        fl = facts.vars.get(scope, {}).get(name) if facts is not None else None
        if not fl:
            return None
        def compute() -> Value | None:
            self._need(name if scope == self.module_id.get(path) else _local_key(scope, name))
            return self._eval_facts(fl, path, scope, depth + 1)

        return self._memoized(("var", path, scope, name), compute)  # type: ignore[return-value]

    def _returns(self, funcs: list[SymbolInfo], depth: int) -> Value | None:
        return self._memoized(("ret", *(f.id for f in funcs)),  # type: ignore[return-value]
                              lambda: self._compute_returns(funcs, depth + 1))

    def _compute_returns(self, funcs: list[SymbolInfo], depth: int) -> Value | None:
        if depth > _MAX_DEPTH:
            return self._cut()
        out: list[str] = []
        kind: ValueKind | None = None
        external = False
        for f in funcs:
            facts = self.facts.get(f.path)
            self._need(f.name)
            text = facts.returns.get(f.id) if facts else None
            if not text:
                # no declared type: what it returns (`return new Foo()`, `return this`)
                for expr in (facts.returned.get(f.id, ()) if facts else ()):
                    value = self._expr_value(expr, f.path, f.id, depth + 1)
                    if value is not None and value.kind is INSTANCE:
                        kind = INSTANCE
                        out.extend(value.ids)
                continue
            if text.strip() in ("Self", "this", "typing.Self") or type_name(text) == "Self":
                cls = self._enclosing_class(f.id)
                if cls is not None:
                    out.append(cls.id)
                    kind = INSTANCE
                continue
            value = self._type_value(text, f.path, f.id, depth + 1)
            if value == EXTERNAL:
                external = True
            elif value is not None and value.kind in (INSTANCE, ARRAY) and (kind is None or kind is value.kind):
                kind = value.kind  # instances, or a sequence of them (`@returns {Command[]}`)
                out.extend(value.ids)
        if out:
            return Value(kind, tuple(dict.fromkeys(out)))  # type: ignore[arg-type]
        return EXTERNAL if external else None

    def _call_value(self, callee: str, path: str, scope: str, depth: int) -> Value | None:
        """The value a call of the bare name ``callee`` returns."""
        value = self._name_value(callee, path, scope, depth + 1)
        if value is None:
            return None
        if value == EXTERNAL:
            return EXTERNAL
        kind, ids = value
        if kind is CLASS:
            return Value(INSTANCE, ids)
        if kind is FUNCTION:
            return self._returns([self.symbols[i] for i in ids if i in self.symbols], depth + 1)
        return None

    # --- resolution ------------------------------------------------------------------

    def _resolve_targets(self, site: CallSite) -> tuple[tuple[Target, ...], bool]:
        targets, external = self._resolve(site)
        return tuple(targets), external


    def _resolve(self, site: CallSite) -> tuple[list[Target], bool]:
        """(edges, known to be outside the repository)."""
        name, receiver = site.name, site.receiver
        self._need(name)
        lang = self.file_lang.get(site.path, NEUTRAL)
        if is_super_receiver(receiver):
            cls = self._enclosing_class(site.caller)
            if cls is None:
                return [], False
            found, external = self._lookup(cls.id, name, skip_self=True)
            return (self._targets(found, SUPER), False) if found else ([], external)
        if receiver in SELF_RECEIVERS:
            return self._self_call(site, name, receiver)
        if not receiver:
            if name in lang.super_method_calls:  # Ruby `super`: the method of the same name in a base
                cls = self._enclosing_class(site.caller)
                caller = self.symbols.get(site.caller)
                if cls is None or caller is None or caller.kind not in FUNCTION_KINDS:
                    return [], False
                self._need(caller.name)
                found, external = self._lookup(cls.id, caller.name, skip_self=True)
                return (self._targets(found, SUPER), False) if found else ([], external)
            if name in lang.own_constructor_calls or name in lang.base_constructor_calls:
                cls = self._enclosing_class(site.caller)
                if cls is None:
                    return [], False
                if name in lang.own_constructor_calls:
                    return self._targets(self._constructors(cls), SELF), False
                mro, external = self._mro(cls.id)
                for base_id in mro[1:2]:
                    base = self.symbols.get(base_id)
                    if base is not None:
                        ctors = self._constructors(base)
                        return self._targets(ctors or [base], SUPER), False
                return [], external
            return self._bare_call(site, name, lang)
        parts = receiver_parts(receiver)
        value = self._parts_value(parts, site.path, site.caller, 0) if parts else None
        if value == EXTERNAL:
            return [], True
        if value is not None:
            kind, ids = value
            if kind is MODULE:
                member = self._module_member(ids, name)
                if isinstance(member, list):
                    return self._targets(member, IMPORT, ctor=True), False
                if member is not None and member.kind is CLASS:
                    return self._targets(self._symbols(member.ids), IMPORT, ctor=True), False
                if member == EXTERNAL:
                    return [], True
            elif kind is INSTANCE or kind is CLASS:

                targets: list[SymbolInfo] = []
                external = False
                for cid in ids:
                    found, ext = self._lookup(cid, name)
                    if not found and kind is INSTANCE:
                        found = self._assigned_functions(cid, name)
                    external = external or (ext and not found)
                    targets.extend(s for s in found if s not in targets)
                if not targets and kind is CLASS and name == lang.instance_factory:
                    return self._targets(self._symbols(ids), TYPE, ctor=True), False
                if targets and kind is CLASS and lang.class_qualified_super:
                    # `Base::send()` in a method of a class derived from Base
                    cls = self._enclosing_class(site.caller)
                    if cls is not None and set(ids) & set(self._mro(cls.id)[0][1:]):
                        return self._targets(targets, SUPER), False
                if targets:
                    return self._targets(targets, TYPE, ctor=True), False
                if external:
                    return [], True
                if kind is CLASS or not lang.dynamic_members:  # dynamic: by name after all
                    return [], False
        if value is None and lang.namespaced and parts and all(p[-1:] not in ")]" for p in parts):
            found = self._qualified(".".join([*parts, name]), lang)
            if found:  # a namespace-qualified class or function: `net::Transport(...)`
                return self._targets(found, IMPORT, ctor=True), False
        return self._by_name(name, with_receiver=True, lang=lang)

    def _symbols(self, ids: Iterable[str]) -> list[SymbolInfo]:
        return [self.symbols[i] for i in ids if i in self.symbols]

    def _self_call(self, site: CallSite, name: str, receiver: str) -> tuple[list[Target], bool]:
        cls = self._enclosing_class(site.caller)
        if cls is None:
            return self._by_name(name, with_receiver=True, lang=self.file_lang.get(site.path, NEUTRAL))
        found, external = self._lookup(cls.id, name)
        if found:
            return self._targets(found, SELF, ctor=True), False
        assigned = self._assigned_functions(cls.id, name)
        if assigned:
            return self._targets(assigned, SELF), False
        subs = self._subclass_members(cls.id, name)
        if subs:
            return self._targets(subs, SUBCLASS), False
        return [], external

    def _bare_call(self, site: CallSite, name: str, lang: Language) -> tuple[list[Target], bool]:
        path = site.path
        facts = self.facts.get(path)
        module = self.module_id.get(path)
        for s in self._scopes(site.caller):
            if s.kind in CLASS_KINDS and not lang.implicit_this:
                continue
            if s.kind in CLASS_KINDS:
                found, external = self._lookup(s.id, name)
                if found:
                    return self._targets(found, SELF, ctor=True), False
                continue
            defs = [d for d in self.children.get(s.id, {}).get(name, ()) if d.kind in CALLABLE_KINDS]
            if defs:
                return self._targets(defs, LOCAL, ctor=True), False
            if s.id != module:
                self._need(_local_key(s.id, name))
            local = facts.vars.get(s.id, {}).get(name) if facts is not None else None
            if local and s.id != module:
                value = self._eval_facts(local, path, s.id, 1)
                return self._value_targets(value)
        if module is not None:
            self._need(name)
            defs = [d for d in self.children.get(module, {}).get(name, ()) if d.kind in CALLABLE_KINDS]
            if defs:
                return self._targets(defs, LOCAL, ctor=True), False
        if facts is not None and name in facts.imports:
            value = self._import_value(path, name)
            if isinstance(value, list):
                return self._targets(value, IMPORT, ctor=True), False
            if value == EXTERNAL:
                return [], True
            if value is not None:
                return self._value_targets(value, IMPORT)
        if facts is not None and module is not None and name in facts.vars.get(module, {}):
            value = self._eval_facts(facts.vars[module][name], path, module, 1)
            return self._value_targets(value)
        if lang.package_scope is not PackageScope.NONE:
            folder = path.rsplit("/", 1)[0] if "/" in path else ""
            self._need(name)
            same = [s for s in self.by_name.get(name, ()) if s.path != path
                    and (s.path.rsplit("/", 1)[0] if "/" in s.path else "") == folder
                    and s.language == lang.name and s.parent == self.module_id.get(s.path)]
            if lang.package_scope is PackageScope.CLASSES:
                same = [s for s in same if s.kind in CLASS_KINDS]
            if same:
                return self._targets(same, PACKAGE, ctor=True), False
        if lang.includes_files:  # defined in a file this one includes / requires
            found = [s for p in self._included_files(path) for s in self._top(p, name)
                     if s.kind in CALLABLE_KINDS]
            if found:
                return self._targets(found, IMPORT, ctor=True), False
        if lang.namespaced:  # a class of a namespace this file is in or imports
            classes = self._classes_named(name, path, lang)
            spaces = self._file_namespaces(path)
            classes = [c for c in classes if c.qualified_name.rsplit(".", 1)[0] in spaces
                       and c.path != path]
            if classes:
                return self._targets(classes, IMPORT, ctor=True), False
        self._need("*")
        if facts is not None and facts.stars and module is not None:
            for source in facts.stars:
                modpath = lang.star_module_path(source, path)
                files = self._module_files(modpath) if modpath else []
                if files:
                    member = self._module_member(tuple(files), name)
                    if isinstance(member, list):
                        return self._targets(member, IMPORT, ctor=True), False
        if name in lang.external_names:
            return [], True
        return self._by_name(name, with_receiver=False, lang=lang)

    def _value_targets(self, value: Value | None, reason: Reason = LOCAL) -> tuple[list[Target], bool]:
        """A call of a variable: the class or function it holds, if known."""
        if value is None:
            return [], False
        if value == EXTERNAL:
            return [], True
        kind, ids = value
        if kind is CLASS:
            return self._targets(self._symbols(ids), reason, ctor=True), False
        if kind is FUNCTION:
            return self._targets(self._symbols(ids), reason), False
        return [], False

    def _by_name(self, name: str, *, with_receiver: bool, lang: Language) -> tuple[list[Target], bool]:
        candidates = self._memoized(("name", name, with_receiver, lang.family),
                                    lambda: self._name_candidates(name, with_receiver, lang))
        # one method of that name in the whole repository, and not a name the standard
        # types use: what a reader would take it for, with some doubt left
        unique = (with_receiver and len(candidates) == 1  # type: ignore[arg-type]
                  and name not in COMMON_METHODS and not (name.startswith("__") and name.endswith("__")))
        return self._targets(candidates, UNIQUE if unique else NAME), False  # type: ignore[arg-type]

    def _name_candidates(self, name: str, with_receiver: bool, lang: Language) -> list[SymbolInfo]:
        self._need(name)
        candidates = self.by_name.get(name, [])
        if with_receiver:
            candidates = [s for s in candidates if s.kind in ("method", "constructor")
                          or (s.kind == "function" and lang.functions_as_methods)]
        else:
            candidates = [s for s in candidates
                          if s.kind in FUNCTION_KINDS or s.kind in CLASS_KINDS]
        if lang.name:
            candidates = [s for s in candidates if same_family(s.language, lang.name)]
        return candidates


    def _targets(self, targets: list[SymbolInfo], reason: Reason, *, ctor: bool = False) -> list[Target]:
        if not targets:
            return []
        confidence = CONFIDENCE[reason]
        if reason is NAME:  # candidates by name: the confidence is shared among them
            ambiguous = len(targets) > 1
            conf = round(confidence / len(targets), 3) if ambiguous else confidence
        else:  # a precise step with several answers (a union type, overloads: one name)
            ambiguous = len({t.qualified_name for t in targets}) > 1
            conf = round(confidence * 0.8, 3) if ambiguous else confidence
        edges = [Target(t.id, reason, conf, ambiguous) for t in targets]
        if ctor:
            seen = {t.id for t in targets}
            for t in targets:
                if t.kind in CLASS_KINDS:
                    for c in self._constructors(t):
                        if c.id not in seen:
                            seen.add(c.id)
                            edges.append(Target(c.id, reason, conf, ambiguous))
        return edges

    # --- queries -----------------------------------------------------------------------

    def callers(self, symbol_id: str, min_confidence: float = 0.0) -> list[Edge]:
        """The edges into a symbol with at least this confidence, by place."""
        return sorted((e for e in self._edges_in(symbol_id) if e.confidence >= min_confidence),
                      key=lambda e: (e.site.path, e.site.line, e.site.col))

    def callees(self, symbol_id: str, min_confidence: float = 0.0) -> list[Edge]:
        """The edges out of a symbol with at least this confidence, by place."""
        return sorted((e for e in self._edges_out(symbol_id) if e.confidence >= min_confidence),
                      key=lambda e: (e.site.line, e.site.col))

    def below(self, symbol_id: str, min_confidence: float, *, incoming: bool = True) -> tuple[int, int]:
        """What a view at ``min_confidence`` leaves out around a symbol: (call sites below
        it, calling symbols, or called ones when not ``incoming``, reached only below it)."""
        edges = self._edges_in(symbol_id) if incoming else self._edges_out(symbol_id)
        shown: set[str] = set()
        hidden: set[str] = set()
        sites = 0
        for e in edges:
            other = e.site.caller if incoming else e.target
            if e.confidence >= min_confidence:
                shown.add(other)
            else:
                sites += 1
                hidden.add(other)
        return sites, len(hidden - shown)

    def upstream(self, symbol_id: str, depth: int = 3, min_confidence: float = 0.0) -> dict[str, int]:
        """Every symbol that reaches this one through calls, within ``depth`` calls:
        symbol id → distance."""
        return self._reach(symbol_id, depth, min_confidence, self._edges_in, lambda e: e.site.caller)

    def downstream(self, symbol_id: str, depth: int = 3, min_confidence: float = 0.0) -> dict[str, int]:
        """Every symbol this one reaches through calls, within ``depth``."""
        return self._reach(symbol_id, depth, min_confidence, self._edges_out, lambda e: e.target)

    @staticmethod
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

    def call_chains(self, sources: list[str], targets: list[str], max_depth: int = 6,
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
                for edge in self.callees(caller, min_confidence):
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

    def all_chains(self, sources: list[str], targets: list[str], max_depth: int = 6,
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
                for e in self._edges_in(node):
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
            for e in self.callees(node, min_confidence):
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

    def most_called(self, n: int = 10) -> list[tuple[str, int]]:
        """Symbols by how many distinct callers call them ("core utilities")."""
        counts = [(t, len({e.site.caller for e in edges})) for t, edges in self.in_edges.items()]
        counts.sort(key=lambda x: (-x[1], x[0]))
        return counts[:n]

    def widest_callers(self, n: int = 10) -> list[tuple[str, int]]:
        """Symbols by how many distinct symbols they call ("orchestrators")."""
        counts = [(c, len({e.target for e in edges})) for c, edges in self.out_edges.items()]
        counts.sort(key=lambda x: (-x[1], x[0]))
        return counts[:n]

    def unused(self) -> list[SymbolInfo]:
        """Functions, methods and classes nothing calls, instantiates, subclasses or
        names as a type (dunder methods, constructors and entry points left out: the
        language or the outside world calls them)."""
        named = {r.name for facts in self.facts.values() for r in facts.type_refs}
        called = set(self._in) | {t[0] for found in self._named.values() for t in found}
        out = []
        for s in self.symbols.values():
            if s.kind == "module" or s.kind not in CALLABLE_KINDS or s.kind == "impl":
                continue
            if s.name.startswith("__") and s.name.endswith("__") or s.kind == "constructor":
                continue
            if s.name in ("main", "constructor", "init", "setUp", "tearDown") or s.name.startswith("test"):
                continue
            if s.id in called:
                continue
            if s.kind in CLASS_KINDS and s.name in named:
                continue
            out.append(s)
        return sorted(out, key=lambda s: (s.path, s.start_line))

    def type_references(self, symbol_id: str) -> dict[str, list[TypeRef] | list[Edge]]:
        """Uses of a class beyond calls of its methods: where it is instantiated,
        subclassed and named as a type."""
        target = self.symbols.get(symbol_id)
        out: dict[str, list] = {"instantiated": [], "subclassed": [], "type": []}
        if target is None:
            return out
        out["instantiated"] = [e for e in self.callers(symbol_id)]
        for facts in self.facts.values():
            for r in facts.type_refs:
                if r.name != target.name:
                    continue
                dotted = f"{r.receiver}.{r.name}" if r.receiver else r.name
                value = self._type_value(dotted, r.path, r.enclosing)
                if value is not None and value.kind is INSTANCE and symbol_id in value.ids:
                    out["subclassed" if r.kind == "base" else "type"].append(r)
        return out

    def _site_edges_items(self) -> Iterator[tuple[CallSite, list[tuple[str, str, float, bool]]]]:
        """Every site with its edges as (target, reason, confidence, ambiguous)."""
        for site, edges in self._site_edges.items():
            yield site, [(e.target, e.reason, e.confidence, e.ambiguous) for e in edges]
        yield from ((site, list(found)) for site, found in self._named.items())

    def stats(self) -> dict[str, object]:
        reasons: dict[str, int] = defaultdict(int)
        ambiguous = 0
        for v in self._out.values():
            for e in v:
                reasons[e.reason] += 1
                ambiguous += e.ambiguous
        for found in self._named.values():
            reasons[NAME] += len(found)
            ambiguous += sum(1 for t in found if t[3])
        edges = sum(reasons.values())
        languages: dict[str, dict[str, int]] = {}
        for site, site_edges in self._site_edges_items():
            lang = self.file_lang.get(site.path, NEUTRAL).name
            row = languages.setdefault(lang, {"sites": 0, "resolved": 0, "ambiguous": 0,
                                              "by_name": 0, "external": 0, "unresolved": 0})
            row["sites"] += 1
            if site_edges:
                row["resolved"] += 1
                if any(e[3] for e in site_edges):
                    row["ambiguous"] += 1
                if site_edges[0][1] is NAME:
                    row["by_name"] += 1
            elif site in self._external:
                row["external"] += 1
            else:
                row["unresolved"] += 1
        return {"edges": edges, "ambiguous": ambiguous, "unresolved": len(self._unresolved),
                "external": len(self._external), "sites": len(self._site_edges) + len(self._named),
                "reasons": dict(sorted(reasons.items())), "languages": dict(sorted(languages.items()))}


class _OutEdges(Mapping):
    """``Graph.out_edges``: caller id → {edge: None}, name matches made on demand."""

    def __init__(self, graph: Graph) -> None:
        self._g = graph

    def __getitem__(self, caller: str) -> dict[Edge, None]:
        edges = dict.fromkeys(self._g._edges_out(caller))
        if not edges:
            raise KeyError(caller)
        return edges

    def __iter__(self) -> Iterator[str]:
        g = self._g
        yield from g._out
        yield from (c for c in g._named_by_caller if c not in g._out)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, caller: object) -> bool:
        return caller in self._g._out or caller in self._g._named_by_caller


class _InEdges(Mapping):
    """``Graph.in_edges``: target id → {edge: None}, name matches made on demand."""

    def __init__(self, graph: Graph) -> None:
        self._g = graph

    def __getitem__(self, target: str) -> dict[Edge, None]:
        edges = dict.fromkeys(self._g._edges_in(target))
        if not edges:
            raise KeyError(target)
        return edges

    def _all(self) -> dict[str, dict[Edge, None]]:
        g = self._g
        out: dict[str, dict[Edge, None]] = {t: dict(v) for t, v in g._in.items()}
        for site, found in g._named.items():
            for t in found:
                out.setdefault(t[0], {})[Edge(site, *t)] = None
        return out

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, target: object) -> bool:
        return any(True for _ in self._g._edges_in(target)) if isinstance(target, str) else False

    def items(self):  # noqa: ANN201 - one pass over the name matches, not one per target
        return self._all().items()

    def values(self):  # noqa: ANN201
        return self._all().values()


class _SiteEdges(Mapping):
    """``Graph.site_edges``: call site → its edges (empty: none), name matches made on demand."""

    def __init__(self, graph: Graph) -> None:
        self._g = graph

    def __getitem__(self, site: CallSite) -> list[Edge]:
        found = self._g._named.get(site)
        if found is not None:
            return [Edge(site, *t) for t in found]
        return self._g._site_edges[site]

    def __iter__(self) -> Iterator[CallSite]:
        yield from self._g._site_edges
        yield from self._g._named

    def __len__(self) -> int:
        return len(self._g._site_edges) + len(self._g._named)

    def __contains__(self, site: object) -> bool:
        return site in self._g._site_edges or site in self._g._named


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a graph is built or loaded: hundreds
    of thousands of new objects, none of them garbage, that each full collection
    would walk again (its records and enum members stay tracked, where tuples of
    strings were untracked)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _local_key(scope: str, name: str) -> str:

    return f"{scope}\0{name}"


def _drop(index: dict, key: object, item: object) -> None:
    bucket = index.get(key)
    if bucket is None:
        return
    try:
        bucket.remove(item)
    except ValueError:
        return
    if not bucket:
        del index[key]


def _site(r: dict) -> CallSite:
    return CallSite(r["path"], r["line"], r["col"], r["name"], r["receiver"] or "", r["enclosing"])
