"""The resolver's only way into the index: reads that record what they read.

Every method here returns a part of the ``SymbolIndex`` and adds the dependency key
(``graph.deps``) under which the index's digest publishes that part to the lookup
being computed. A lookup therefore cannot forget a dependency: it never touches the
tables itself (tests/test_graph_reads.py checks that the other resolver modules do
not and that each read records a key; the edit-equals-rebuild tests that the keys
are those an edit of what was read changes).

``_memoized`` remembers a lookup with the keys it read. Its computation is called
with the parts of its key only (and a depth), so it cannot depend on anything its
key does not say.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...languages import NEUTRAL, Language
from ..deps import (
    STAR,
    defines_key,
    head_key,
    imports_key,
    include_key,
    local_key,
    macro_key,
    members_key,
    module_key,
    namespace_key,
    package_key,
    short_name,
    subclass_key,
)
from ..facts import FileFacts
from ..index import SymbolIndex
from ..memo import Entry, Memo
from ..model import AttrFact, Fact, FactForm, SymbolInfo
from .text import folder

# nested steps of one resolution, counted across remembered lookups (a lookup computed
# deep inside another goes on from its depth): a step is a few Python frames, so a
# resolution stays far below Python's recursion limit whatever the code (chains of
# re-exports, copies, bases, returns: tests/test_graph_bounds.py); past it, unresolved
MAX_DEPTH = 64
MAX_ACTIVE = 48  # nested remembered lookups
_NONE: tuple = ()
_NO_NAMES: dict = {}
_NO_FACTS = FileFacts()


class Reads:
    """Recorded reads of the index, and remembered lookups (``Memo``)."""

    def __init__(self, index: SymbolIndex, memo: Memo) -> None:
        self.index = index
        self.memo = memo
        self._idx_symbols = index.symbols
        self._idx_children = index.children
        self._idx_by_name = index.by_name
        self._idx_by_qualified = index.by_qualified
        self._idx_module_id = index.module_id
        self._idx_file_lang = index.file_lang
        self._idx_facts = index.facts
        self._deps: set[str] | None = None  # the keys the lookup being computed read
        self._active: set[tuple] = set()  # the remembered lookups being computed
        self._scratch: dict[tuple, Entry] = {}  # lookups cut short, for this resolution
        self._tainted = False  # the lookup being computed was cut short

    # --- remembered lookups ----------------------------------------------------------------

    def _memoized(self, key: tuple, compute: Callable[..., Any], *extra: object) -> Any:
        """``compute(*key[1:], *extra)``, remembered with the keys it read. A lookup
        that runs into itself (``x = x.y``, cyclic bases, re-exports in a circle) or
        too deep (``MAX_DEPTH`` steps, ``MAX_ACTIVE`` nested lookups) answers None and
        leaves every result that depended on it unremembered, so a remembered result
        never depends on the order in which sites were resolved. The outermost lookup
        starts with nothing cut short in hand (``_scratch`` empty)."""
        hit = self.memo.values.get(key)
        if hit is None and not self._active:
            self._scratch.clear()
        elif hit is None:
            hit = self._scratch.get(key)
        if hit is None:
            if key in self._active or len(self._active) > MAX_ACTIVE:
                self._tainted = True
                return None
            outer, self._deps = self._deps, set()
            outer_tainted, self._tainted = self._tainted, False
            self._active.add(key)
            try:
                value = compute(*key[1:], *extra)
            finally:
                self._active.discard(key)
                deps, self._deps = self._deps, outer
                tainted, self._tainted = self._tainted, outer_tainted or self._tainted
            hit = (value, tuple(deps))  # a tuple: a third of a frozenset's memory
            if not tainted:
                self.memo.remember(key, hit)
            else:  # cut short by a cycle: good for the rest of this resolution only
                self._scratch[key] = hit
        if self._deps is not None:
            self._deps.update(hit[1])
        return hit[0]

    def _root(self, key: tuple, compute: Callable[..., Any]) -> Any:
        """An outermost lookup that no other lookup ever asks for (a call site's
        targets): ``_memoized``, but remembered even when a lookup inside it was cut
        short by a cycle. Started with no lookup active and nothing cut short in hand,
        its result is a function of its key and of what it read, whatever was resolved
        before; and since nothing reads it from inside another lookup, remembering it
        cannot make another result depend on the order of resolution. (Without this,
        every call whose resolution meets a cycle, ``self.offset = self.offset + n``,
        is resolved again, cycle and all, at each edit that moves it.)"""
        assert not self._active, "a root lookup inside another"
        value = self._memoized(key, compute)
        if key not in self.memo.values:
            hit = self._scratch.pop(key)
            self.memo.remember(key, hit)
        return value

    def _cut(self) -> None:
        """Too deep: the answer is None, and not one to remember."""
        self._tainted = True
        return None

    def _record(self, key: str) -> None:
        deps = self._deps
        if deps is not None:
            deps.add(key)

    # --- symbols ---------------------------------------------------------------------------

    def symbol(self, symbol_id: str) -> SymbolInfo | None:
        """The symbol of this id (published under its name)."""
        s = self._idx_symbols.get(symbol_id)
        deps = self._deps
        if deps is not None:
            deps.add(s.name if s is not None else short_name(symbol_id))
        return s

    def children(self, owner_id: str, name: str) -> list[SymbolInfo] | tuple:
        """The symbols named ``name`` directly inside ``owner_id`` (do not change it)."""
        deps = self._deps
        if deps is not None:
            deps.add(name)
        return self._idx_children.get(owner_id, _NO_NAMES).get(name, _NONE)

    def top_level(self, path: str, name: str) -> list[SymbolInfo]:
        """The top-level definitions named ``name`` of one file (a new list)."""
        self._record(name)
        module = self._idx_module_id.get(path)
        return list(self._idx_children.get(module, _NO_NAMES).get(name, _NONE)) if module else []

    def every_top_level(self, name: str) -> list[SymbolInfo]:
        """The top-level definitions named ``name`` of every file, file by file."""
        self._record(name)
        children = self._idx_children
        return [m for mid in self._idx_module_id.values() for m in children.get(mid, _NO_NAMES).get(name, _NONE)]

    def named(self, name: str) -> list[SymbolInfo] | tuple:
        """The functions, methods and class-like symbols named ``name`` (do not change it)."""
        deps = self._deps
        if deps is not None:
            deps.add(name)
        return self._idx_by_name.get(name, _NONE)

    def qualified_members(self, qualified: str, name: str) -> list[SymbolInfo] | tuple:
        """The symbols whose qualified name is ``qualified.name`` (methods defined apart
        from their class: Go, Rust ``impl``, C++ ``Foo::bar``)."""
        self._record(name)
        return self._idx_by_qualified.get(f"{qualified}.{name}", _NONE)

    def language_of(self, path: str) -> Language:
        """The rules of a file's language. Records nothing: a file's language is a
        function of its path."""
        return self._idx_file_lang.get(path, NEUTRAL)

    def module_of(self, path: str) -> str | None:
        """The id of a file's module unit. Records nothing: a path comes from a read
        that recorded the file (``module_files``) or is the call site's own file."""
        return self._idx_module_id.get(path)

    def module_files(self, modpath: str, exact: bool = False) -> list[str]:
        """Files of the module at this slash path: its stem, or (unless ``exact``: a
        relative import names one place) a stem ending with it."""
        tail = modpath.rsplit("/", 1)[-1]
        self._record(module_key(tail))
        index = self.index
        found = index.stems.get(modpath)
        if found or exact:
            return list(found or ())
        return [p for stem in sorted(index.stem_tails.get(tail, ()))
                if stem.endswith("/" + modpath) for p in index.stems[stem]]

    def package_files(self, source: str) -> list[str]:
        """Go: the files of the package (folder) an import path names; when no folder's
        path ends like it, the files of the one folder that declares the package of
        its last part (`package mux` at the root of module github.com/gorilla/mux,
        imported by its external tests, `package mux_test`)."""
        tail = source.rstrip("/").rsplit("/", 1)[-1]
        self._record(module_key(tail))
        out = []
        for d, paths in self.index.dirs.items():
            if d == source or d.endswith("/" + tail) and (source.endswith("/" + d) or
                                                           d.endswith("/" + source) or d == tail):
                out.extend(paths)
        if not out:
            declared = self.index.packages.get(tail, ())
            if len({folder(p) for p in declared}) == 1:
                out.extend(declared)
        return sorted(out)

    def package_paths(self, package: str) -> frozenset[str] | set[str]:
        """The files that declare this package (Java: wherever their source root is)."""
        self._record(module_key(package))
        return self.index.packages.get(package, frozenset())

    def declared_package(self, path: str) -> str:
        """The package a file declares, "" for none."""
        self._record(package_key(path))
        return self._idx_facts.get(path, _NO_FACTS).package

    def member_names(self, owner_id: str) -> list[str]:
        """The names of the members an interface declares, sorted."""
        self._record(members_key(owner_id))
        return sorted(self._idx_children.get(owner_id, _NO_NAMES))

    def namespace_defined(self, head: str) -> bool:
        """Does any file of a namespaced language define something in a namespace whose
        first part is ``head``?"""
        self._record(head_key(head))
        return bool(self.index.heads.get(head))

    def subclasses(self, name: str) -> list[str]:
        """The ids of the classes that name ``name`` as a base, sorted."""
        self._record(subclass_key(name))
        return sorted(self.index.subclasses.get(name, ()))

    # --- facts -----------------------------------------------------------------------------

    def import_of(self, path: str, bound: str) -> tuple[str, str] | None:
        """(source, original name) of the import binding ``bound`` of a file."""
        self._record(bound)
        found = self._idx_facts.get(path, _NO_FACTS).imports.get(bound)
        if found is not None:
            self._record(found[1])
        return found

    def has_import(self, path: str, name: str) -> bool:
        """Does the file bind ``name`` by an import?"""
        self._record(name)
        return name in self._idx_facts.get(path, _NO_FACTS).imports

    def stars(self, path: str) -> list[str]:
        """The sources of a file's ``*`` imports."""
        self._record(STAR)
        return self._idx_facts.get(path, _NO_FACTS).stars

    def module_vars(self, path: str, name: str) -> list[Fact] | tuple:
        """The facts of a top-level variable of a file."""
        self._record(name)
        facts = self._idx_facts.get(path)
        if facts is None:
            return _NONE
        return facts.vars.get(self._idx_module_id.get(path, ""), _NO_NAMES).get(name, _NONE)

    def local_vars(self, path: str, scope: str, name: str) -> list[Fact] | tuple:
        """The facts of a variable of scope ``scope`` (a function, a file's top level)."""
        self._record(name if scope == self._idx_module_id.get(path) else local_key(scope, name))
        facts = self._idx_facts.get(path)
        if facts is None:
            return _NONE
        return facts.vars.get(scope, _NO_NAMES).get(name, _NONE)

    def attr_facts(self, cls: SymbolInfo, name: str) -> list[AttrFact] | tuple:
        """The facts of an attribute of a class (``self.x = ...``, a typed field)."""
        self._record(name)
        return self._idx_facts.get(cls.path, _NO_FACTS).attrs.get(cls.id, _NO_NAMES).get(name, _NONE)

    def enumerator_types(self, paths: list[str], name: str) -> list[str]:
        """The types of the enumerators named ``name`` of the enums at the top level of
        these files (an enum's enumerators are its typed attributes: C++ names them in
        the scope around the enum)."""
        self._record(name)
        out = []
        for path in paths:
            module = self._idx_module_id.get(path)
            for cls_id, attrs in self._idx_facts.get(path, _NO_FACTS).attrs.items():
                found = attrs.get(name)
                s = self._idx_symbols.get(cls_id) if found else None
                if s is not None and s.kind == "enum" and s.parent == module:
                    out.extend(f.text for f in found if f.form is FactForm.TYPED)
        return out

    def bases(self, cls: SymbolInfo) -> list[tuple[str, str]] | tuple:
        """A class's bases as written: (qualifier, name)."""
        self._record(short_name(cls.id))
        return self._idx_facts.get(cls.path, _NO_FACTS).bases.get(cls.id, _NONE)

    def returns_of(self, f: SymbolInfo) -> str | None:
        """A function's declared return type, as written."""
        self._record(short_name(f.id))
        return self._idx_facts.get(f.path, _NO_FACTS).returns.get(f.id)

    def returned_of(self, f: SymbolInfo) -> list[str] | tuple:
        """The expressions a function returns, as written."""
        self._record(short_name(f.id))
        return self._idx_facts.get(f.path, _NO_FACTS).returned.get(f.id, _NONE)

    def param_types_of(self, f: SymbolInfo) -> tuple[str, ...] | None:
        """The types of a function's parameters (where the language overloads)."""
        self._record(short_name(f.id))
        return self._idx_facts.get(f.path, _NO_FACTS).ptypes.get(f.id)

    def params_of(self, f: SymbolInfo) -> tuple[int, int] | None:
        """(least, most) arguments a function takes (most -1: any); None unknown."""
        self._record(short_name(f.id))
        return self._idx_facts.get(f.path, _NO_FACTS).params.get(f.id)

    def guards_of(self, f: SymbolInfo) -> tuple[str, ...]:
        """The macros a function's conditionals need defined (C: ``extract.preproc``)."""
        self._record(short_name(f.id))
        return self._idx_facts.get(f.path, _NO_FACTS).guards.get(f.id, ())

    def callback_types_of(self, f: SymbolInfo) -> tuple[str, ...]:
        """Per parameter of a function, the types of its function type's parameters
        (joined by ``TYPE_SEP``; "" for a parameter of no function type)."""
        self._record(short_name(f.id))
        return self._idx_facts.get(f.path, _NO_FACTS).cbtypes.get(f.id, ())

    def defines_of(self, path: str) -> frozenset[str]:
        """The macros a file #defines."""
        self._record(defines_key(path))
        return self._idx_facts.get(path, _NO_FACTS).defines

    def macro_defined(self, name: str) -> bool:
        """Does some file of the repository #define this macro?"""
        self._record(macro_key(name))
        return name in self.index.macros

    def imports_of(self, path: str) -> list[tuple[str, str]]:
        """(source, original) of every import of a file, sorted."""
        self._record(imports_key(path))
        facts = self._idx_facts.get(path)
        return sorted(facts.imports.values()) if facts is not None else []

    def include_sources(self, path: str) -> list[tuple[str, str]]:
        """(bound, source) of a file's imports, sorted: what its includes name."""
        self._record(include_key(path))
        facts = self._idx_facts.get(path)
        if facts is None:
            return []
        out = sorted((bound, source) for bound, (source, _) in facts.imports.items())
        for bound, _ in out:
            self._record(bound)
        return out

    def namespaces(self, path: str) -> frozenset[str]:
        """The namespaces a file is in or imports whole."""
        self._record(namespace_key(path))
        return self.index.namespaces(path)
