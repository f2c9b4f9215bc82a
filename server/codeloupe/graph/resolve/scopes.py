"""Scopes and classes: the class around a symbol, the scopes a name is looked up in,
a class's members (with methods defined apart from it), its bases in lookup order
(MRO), the members of its subclasses, and its constructors."""

from __future__ import annotations

from collections import deque

from ...languages import FUNCTION_EXPRESSION, Language, MethodsApart, rules, same_family
from ..memo import Lookup
from ..model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    FUNCTION_KINDS,
    FactForm,
    SymbolInfo,
    Value,
    ValueKind,
)
from .reads import MAX_DEPTH, Reads
from .text import folder

INSTANCE, CLASS = ValueKind.INSTANCE, ValueKind.CLASS
ASSIGNED = FactForm.ASSIGNED
MRO, SUBCLASSES = Lookup.MRO, Lookup.SUBCLASSES
_SUBCLASS_LIMIT = 200  # classes visited looking for a member among the subclasses
_ROOT_CLASSES = ("object", "Object")  # bases every class has
_BODY_LOCAL_KINDS = frozenset({"function", "class"})  # in a function's body, not members
_CONSTANT_KINDS = CLASS_KINDS | {"module"}  # what a Ruby constant names: a class or a module


class Scopes(Reads):
    """Scopes, members and class hierarchies (a part of the ``Resolver``)."""

    def enclosing_class(self, symbol_id: str) -> SymbolInfo | None:
        """The class-like symbol a symbol is in (itself, when it is one)."""
        s = self.symbol(symbol_id)
        while s is not None:
            if s.kind in CLASS_KINDS:
                return s
            owner = self._scoped_owner(s)
            if owner is not None:
                return owner
            s = self.symbol(s.parent) if s.parent else None
        return None

    def _scopes(self, symbol_id: str) -> list[SymbolInfo]:
        """The symbol and those around it, innermost first (a method defined out of
        line is in its class too)."""
        out = []
        s = self.symbol(symbol_id)
        while s is not None:
            out.append(s)
            owner = self._scoped_owner(s)
            if owner is not None:
                out.append(owner)
            s = self.symbol(s.parent) if s.parent else None
        return out

    def _bound_around(self, name: str, scope: str) -> bool:
        """Is ``name`` a variable, a member or a type parameter of ``scope`` or of a
        scope around it (``class Store<T>``: T in its methods)?"""
        return any(self.local_vars(s.path, s.id, name) or s.kind in CLASS_KINDS and self.attr_facts(s, name)
                   for s in self._scopes(scope))

    def _body_locals(self, s: SymbolInfo, name: str) -> list[SymbolInfo]:
        """Definitions local to the body of a class that is a function too (an ES5
        constructor or a factory's function lent members, ``Language.expando_members``):
        its children that are no members (functions and classes, not methods)."""
        if not rules(s.language).expando_members:
            return []
        return [d for d in self.children(s.id, name) if d.kind in _BODY_LOCAL_KINDS]

    @staticmethod
    def _static_or_instance(found: list[SymbolInfo], instance: bool) -> list[SymbolInfo]:
        """Members of one name where a class has both methods and functions of it (JS
        ``View.prototype.m`` and a static ``View.m``, ``extract.expando``): the methods
        for an instance, the functions for the class itself."""
        kinds = {s.kind for s in found}
        if "method" not in kinds or "function" not in kinds:
            return found
        drop = "function" if instance else "method"
        return [s for s in found if s.kind != drop]

    def _scoped_owner(self, s: SymbolInfo) -> SymbolInfo | None:
        """The class of a C++ method defined out of line in a file without the class
        (``void Foo::bar() {}`` in foo.cpp, the class in foo.hpp): the class of that
        qualified name (the same file first)."""
        lang = rules(s.language)
        if not lang.out_of_line_methods or s.kind not in FUNCTION_KINDS or "." not in s.qualified_name \
                or s.parent != self.module_of(s.path):
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
        tail = "." + dotted
        found = [c for c in self.named(short) if c.kind in kinds and same_family(c.language, lang.name)
                 and (c.qualified_name == dotted or c.qualified_name.endswith(tail))]
        return sorted(found, key=lambda c: (c.path, c.start_line))

    def _members(self, cls: SymbolInfo, name: str) -> list[SymbolInfo]:
        """Direct members of a class named ``name``, with methods defined apart from it
        (Go methods in other files of the package, Rust ``impl`` blocks, C++ ``Foo::bar``)."""
        found = list(self.children(cls.id, name))
        qualified = self.qualified_members(cls.qualified_name, name)
        if not qualified and rules(cls.language).out_of_line_methods and "." in cls.qualified_name:
            # `xml_text::set` defined where the extractor saw no `namespace pugi` around it
            # (a macro-opened namespace): the class's name without its namespaces
            parts = cls.qualified_name.split(".")
            for i in range(1, len(parts)):
                qualified = self.qualified_members(".".join(parts[i:]), name)
                if qualified:
                    break
        if qualified:
            here = folder(cls.path)
            apart = rules(cls.language).methods_apart
            for s in qualified:
                if s in found or s.language != cls.language or s.kind not in FUNCTION_KINDS:
                    continue
                if s.path == cls.path or apart is MethodsApart.ANYWHERE or (
                        apart is MethodsApart.SAME_FOLDER and folder(s.path) == here):
                    found.append(s)
        return found

    def _mro(self, cls_id: str, depth: int = 0) -> tuple[tuple[str, ...], bool]:
        """The class and its repository bases in lookup order, and whether some base
        lies outside the repository (or could not be found)."""
        return self._memoized((MRO, cls_id), self._compute_mro, depth + 1) or ((cls_id,), True)

    def _compute_mro(self, cls_id: str, depth: int) -> tuple[tuple[str, ...], bool]:
        order: list[str] = []
        external = self._visit_bases(cls_id, depth, set(), order)
        return tuple(order), external

    def _visit_bases(self, cid: str, depth: int, seen: set[str], order: list[str]) -> bool:
        """Depth first, left to right: the class, then each base as it is found (Rust:
        first the type an ``impl`` block implements, and its other impls), appended to
        ``order``; whether some base lies outside the repository. A method, not a
        closure that calls itself: that closure would be a reference cycle holding the
        resolver, one left for the collector by every class's bases computed."""
        if cid in seen:
            return False
        if depth > MAX_DEPTH:
            self._cut()
            return False
        seen.add(cid)
        order.append(cid)
        cls = self.symbol(cid)
        if cls is None:
            return False
        external = False
        lang = rules(cls.language)
        parts = [cls]
        if lang.constant_paths and cls.kind == "class":
            # Ruby: a class reopened in other files is one class (`class Kramdown` in each of
            # parser/kramdown/*.rb, `< Base` written in one of them): its parts come next,
            # then the bases of each (a module's parts are one for bare calls: ``_scope_call``)
            for other in self._reopened(cls, depth + 1)[1:]:
                if other.id not in seen:
                    seen.add(other.id)
                    order.append(other.id)
                    parts.append(other)
        if lang.impl_blocks and cls.kind == "impl":
            value = self._type_value(cls.name, cls.path, cls.parent or "", depth + 1)
            for same in value.ids if value is not None and value.kind is INSTANCE else ():
                external |= self._visit_bases(same, depth + 1, seen, order)
        for part in parts:
            for qualifier, name in self.bases(part):
                if name in _ROOT_CLASSES:
                    continue
                value = self._base_value(part, lang, qualifier, name, depth)
                if value is None or value.kind not in (INSTANCE, CLASS):
                    external = True
                    continue
                for base in value.ids:
                    external |= self._visit_bases(base, depth + 1, seen, order)
        return external

    def _base_value(self, cls: SymbolInfo, lang: Language, qualifier: str, name: str, depth: int) -> Value | None:
        """The classes a base as written names (Ruby: a mixed-in module)."""
        if lang.constant_paths and qualifier:  # `include ::Kramdown::Utils::Html`, `< Parser::Base`
            dotted = ".".join(p for p in qualifier.replace("::", ".").split(".") if p) + "." + name
            found = [c for c in self._qualified(dotted, lang, _CONSTANT_KINDS)
                     if not qualifier.lstrip().startswith("::") or c.qualified_name == dotted]
            if found:
                return Value(INSTANCE, tuple(c.id for c in found))
        value = self._type_value(f"{qualifier}.{name}" if qualifier else name, cls.path, cls.parent or "", depth + 1)
        if value is None and lang.constant_paths and not qualifier:  # `include Base` in `class Thor`: Thor::Base
            nested = self._nested_constant(cls, name, lang)
            value = Value(INSTANCE, tuple(m.id for m in nested)) if nested else None
        if value is None and lang.mixin_modules:  # a mixin: `include M` names a module
            mixins = [m for m in self.every_top_level(name) if m.kind == "module" and m.language == cls.language]
            value = Value(INSTANCE, tuple(m.id for m in mixins)) if mixins else None
        return value

    def _nested_constant(self, cls: SymbolInfo, name: str, lang: Language) -> list[SymbolInfo]:
        """The classes and modules ``name`` names inside ``cls`` or a class or module
        around it, innermost first, in any file reopening them (Ruby's lexical scope:
        ``include Base`` in ``class Thor`` is ``Thor::Base``, defined where another file
        reopens ``Thor``)."""
        scope: SymbolInfo | None = cls
        while scope is not None and scope.kind in _CONSTANT_KINDS:
            found = [c for o in self._reopened(scope) for c in self.children(o.id, name) if c.kind in _CONSTANT_KINDS]
            if found:
                return found
            scope = self.symbol(scope.parent) if scope.parent else None
        return []

    def _reopened(self, scope: SymbolInfo, depth: int = 0) -> list[SymbolInfo]:
        """Every class or module of ``scope``'s constant path, in any file (itself first):
        a top-level one by its name, a nested one among the reopenings of its parent's."""
        parent = self.symbol(scope.parent) if scope.parent else None
        if parent is None or depth > MAX_DEPTH:
            return [scope]
        if parent.parent is None or parent.kind not in _CONSTANT_KINDS:  # at a file's top level
            others = [c for c in self.every_top_level(scope.name) if c.kind in _CONSTANT_KINDS]
        else:
            others = [c for p in self._reopened(parent, depth + 1) for c in self.children(p.id, scope.name)
                      if c.kind in _CONSTANT_KINDS]
        return [scope, *(c for c in others if c.id != scope.id and c.language == scope.language)]

    def _impl_bound(self, cls: SymbolInfo, types: list[str], depth: int) -> Value | None:
        """The instances a field typed by a type parameter (``a: T``) holds: what the
        ``impl`` blocks of its type in the same file bound that parameter by
        (``impl<T: Buf, U> Buf for Chain<T, U>``, or its ``where`` clause), all of them."""
        names = {t.strip() for t in types if t.strip().isidentifier()}
        found: list[str] = []
        for impl in self.top_level(cls.path, cls.name) if names else ():
            if impl.kind != "impl":
                continue
            for name in sorted(names):
                value = self._facts_value(self.attr_facts(impl, name), impl.path, depth + 1)
                if value is not None and value.kind in (CLASS, INSTANCE):
                    found.extend(i for i in value.ids if i not in found)
        return Value(INSTANCE, tuple(found)) if found else None

    def _lookup(self, cls_id: str, name: str, skip_self: bool = False, depth: int = 0
                ) -> tuple[list[SymbolInfo], bool]:
        """``name`` on a class: the members of the first class along its bases that
        defines it; and whether some base is outside the repository."""
        mro, external = self._mro(cls_id, depth + 1)
        for cid in mro[1:] if skip_self else mro:
            cls = self.symbol(cid)
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
        for mid in self._mro(cls_id, depth + 1)[0]:
            cls = self.symbol(mid)
            fl = self.attr_facts(cls, name) if cls is not None else ()
            found: list[SymbolInfo] = []
            for form, text, scope in fl:
                if form is not ASSIGNED or not FUNCTION_EXPRESSION.match(text):
                    continue
                own = self.symbol(scope)
                defs = [own] if own is not None and own.name == name else self.children(scope, name)
                found.extend(d for d in defs if d.kind in FUNCTION_KINDS and d not in found)
            if found:
                return found
        return []

    def _subclass_members(self, cls_id: str, name: str, every: bool = False) -> list[SymbolInfo]:
        """``name`` defined by the classes that derive from this one (a mixin calling
        a method its host class provides): the nearest definition on each line of
        descent, or with ``every`` each one (the overrides of an override too)."""
        out: list[SymbolInfo] = []
        seen = {cls_id}
        queue = deque([cls_id])
        while queue and len(seen) < _SUBCLASS_LIMIT:
            for sub in self._direct_subclasses(queue.popleft()):
                if sub in seen:
                    continue
                seen.add(sub)
                sub_cls = self.symbol(sub)
                if sub_cls is None:
                    continue
                found = self._members(sub_cls, name)
                out.extend(found)
                if every or not found:
                    queue.append(sub)
        return out

    def _direct_subclasses(self, cls_id: str) -> tuple[str, ...]:
        """The classes that name this one as a base and whose bases do lead to it (not
        to another class of its name), sorted; remembered: every method name looked up
        among a class's subclasses walks the same ones (``PreTrainedModel``'s thousand)."""
        return self._memoized((SUBCLASSES, cls_id), self._compute_subclasses) or ()

    def _compute_subclasses(self, cls_id: str) -> tuple[str, ...]:
        cls = self.symbol(cls_id)
        if cls is None:
            return ()
        return tuple(sub for sub in self.subclasses(cls.name) if cls_id in self._mro(sub)[0])

    def _constructors(self, cls: SymbolInfo) -> list[SymbolInfo]:
        """What a call of the class runs: its constructor, found along the bases when
        the language names constructors (``__init__``), else the member named like
        the class and of kind constructor."""
        names = rules(cls.language).constructor_names
        if names is not None:
            for name in names:
                found, _ = self._lookup(cls.id, name)
                if found:
                    return [s for s in found if s.kind in FUNCTION_KINDS]
            return []
        return [s for s in self._members(cls, cls.name) if s.kind == "constructor"]

