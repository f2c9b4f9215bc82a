"""Linking a call site to its targets, the steps a careful reader takes, in order
(the ``graph`` package docstring): super and self calls, a bare name in its scopes,
its file, its imports and what the language makes visible, a call on a value of
known type, and last the candidates by name. Each target carries the step that
found it and its confidence."""

from __future__ import annotations

from ...languages import (
    COMMON_METHODS,
    SELF_RECEIVERS,
    Language,
    PackageScope,
    family_rules,
    family_standard_methods,
    is_super_receiver,
    rules,
)
from ...model import NARROW_SEP
from ..memo import Lookup, site_key
from ..model import (
    CALLABLE_KINDS,
    CLASS_KINDS,
    CONFIDENCE,
    EXTERNAL,
    FUNCTION_KINDS,
    CallSite,
    FactForm,
    Reason,
    SymbolInfo,
    Target,
    Value,
    ValueKind,
)
from .narrow import Narrowing
from .returns import CONTAINERS
from .text import folder, receiver_parts

INSTANCE, CLASS, MODULE, FUNCTION = ValueKind.INSTANCE, ValueKind.CLASS, ValueKind.MODULE, ValueKind.FUNCTION
ARRAY = ValueKind.ARRAY
LOCAL, SELF, SUPER, IMPORT, TYPE, PACKAGE, SUBCLASS, UNIQUE, NAME = (
    Reason.LOCAL, Reason.SELF, Reason.SUPER, Reason.IMPORT, Reason.TYPE, Reason.PACKAGE, Reason.SUBCLASS,
    Reason.UNIQUE, Reason.NAME)
SOLE = Reason.SOLE_IMPLEMENTATION
BY_NAME = Lookup.NAME
_INTERFACE_KINDS = frozenset({"interface", "trait"})
_DISPATCHED = frozenset({SUBCLASS, SOLE})
# `with_receiver` of a by-name lookup whose receiver is a value: methods only, no
# plain function (``Language.package_functions_imported``)
METHODS_ONLY = "methods"
GLOBAL_FUNCTIONS = "global functions"  # a bare call where functions are global (Language.global_functions)
# the targets, and whether the call is known to leave the repository
Targets = tuple[list[Target] | tuple[Target, ...], bool]


class Calls(Narrowing):
    """Call sites to targets (a part of the ``Resolver``)."""

    def resolve_site(self, site: CallSite) -> tuple[tuple[Target, ...], bool]:
        """The targets of a call site and whether it calls outside the repository,
        remembered under the site's key (``edges.site_key``) with the dependency keys
        it read. Sites alike (same caller, name, receiver and argument count) resolve
        alike: an edit re-links a file's unchanged calls from the memo, at their new
        positions."""
        return self._root(site_key(site), self._resolve_targets)

    def _resolve_targets(self, path: str, caller: str, name: str, receiver: str,
                         args: int, argtypes: str) -> tuple[tuple[Target, ...], bool]:
        self._record(name)  # a definition of this name anywhere may change the answer
        receiver, _, tested = receiver.partition(NARROW_SEP)
        found = self._narrowed_call(path, caller, name, tested) if tested else None
        targets, external = found if found is not None else self._resolve(path, caller, name, receiver)
        targets = targets if isinstance(targets, tuple) else tuple(targets)
        lang = self.language_of(path)
        if targets:
            targets = self._seen(targets, path, lang)
        if args >= 0 and lang.parameters_field and any(t.reason is SUBCLASS for t in targets):
            # an override that cannot take this many arguments is not what runs
            targets = tuple(t for t in targets if t.reason is not SUBCLASS or self._takes(t.target, args) is not False)
        if targets and lang.impl_blocks and targets[0].reason not in (NAME, UNIQUE):
            targets = self._inherent_first(targets, caller)
            external = external or not targets  # an outside type's inherent method
        if len(targets) > 1 and lang.overloads:
            targets = self._overloaded(targets, path, caller, args, argtypes)
        if targets and targets[0].reason in (NAME, UNIQUE):  # by name: narrowed by evidence
            targets = self._narrowed(targets, path, caller, name, receiver, args)
        return targets, external

    def _narrowed_call(self, path: str, caller: str, name: str, tested: str) -> Targets | None:
        """``name`` called on a receiver a type test narrowed to ``tested`` (``if ($h
        instanceof T)``: ``extract.narrowing``): through those types, where they are
        classes of the repository that have it; None: resolve the receiver as written."""
        value = self._type_value(tested, path, caller)
        if value is None or value == EXTERNAL or value.kind is not INSTANCE:
            return None
        found = self._value_call(value, caller, name, self.language_of(path))
        return found if found is not None and found[0] else None

    def _seen(self, targets: tuple[Target, ...], path: str, lang: Language) -> tuple[Target, ...]:
        """The targets code in ``path`` can call (``Language.sees``: Rust's bench and test
        crates); name matches share their confidence among those left. A method that
        runs by dispatch (an impl of the library's trait in a bench crate, reached
        from the trait's default method) is seen from everywhere: it is chosen at run
        time by the value, not named by the caller."""
        seen = tuple(t for t in targets if t.reason in _DISPATCHED or lang.sees(path, t.target.split("::", 1)[0]))
        if len(seen) == len(targets) or not seen or seen[0].reason is not NAME:
            return seen
        conf = round(CONFIDENCE[NAME] / len(seen), 3) if len(seen) > 1 else CONFIDENCE[NAME]
        return tuple(t._replace(confidence=conf, ambiguous=len(seen) > 1) for t in seen)

    def _resolve(self, path: str, caller: str, name: str, receiver: str) -> Targets:
        lang = self.language_of(path)
        if is_super_receiver(receiver):
            cls = self.enclosing_class(caller)
            if cls is None:
                return [], False
            found, external = self._lookup(cls.id, name, skip_self=True)
            return (self._targets(found, SUPER), False) if found else ([], external)
        if receiver in SELF_RECEIVERS:
            return self._self_call(path, caller, name)
        if not receiver:
            if (name in lang.super_method_calls or name in lang.own_constructor_calls
                    or name in lang.base_constructor_calls):
                return self._keyword_call(caller, name, lang)
            return self._bare_call(path, caller, name, lang)
        return self._receiver_call(path, caller, name, receiver, lang)

    def _keyword_call(self, caller: str, name: str, lang: Language) -> Targets:
        """Ruby ``super`` (the method of the same name in a base); ``this(...)`` /
        ``super(...)`` / C# ``base(...)`` in a constructor (a constructor of the class,
        of its first base)."""
        cls = self.enclosing_class(caller)
        if name in lang.super_method_calls:
            method = self.symbol(caller)
            if cls is None or method is None or method.kind not in FUNCTION_KINDS:
                return [], False
            found, external = self._lookup(cls.id, method.name, skip_self=True)
            found = [f for f in found if f.id != caller]  # `super` in a module's method: never itself
            return (self._targets(found, SUPER), False) if found else ([], external)
        if cls is None:
            return [], False
        if name in lang.own_constructor_calls:
            return self._targets(self._constructors(cls), SELF), False
        mro, external = self._mro(cls.id)
        for base_id in mro[1:2]:
            base = self.symbol(base_id)
            if base is not None:
                ctors = self._constructors(base)
                return self._targets(ctors or [base], SUPER), False
        return [], external

    def _receiver_call(self, path: str, caller: str, name: str, receiver: str, lang: Language) -> Targets:
        """``receiver.name()``: through the receiver's value when it is known."""
        parts = receiver_parts(receiver)
        if lang.path_roots and parts and parts[0] in lang.path_roots and not any(p[-1:] in ")]" for p in parts):
            # Rust `crate::abort()`, `super::util::f()`: the function that path names, as a `use` would
            found = lang.import_value(self, path, name, "::".join([*parts, name]), name, 1)
            if isinstance(found, list) and found:
                return self._targets(found, IMPORT, ctor=True), False
        if lang.constant_paths and "::" in receiver:  # `Thor::Util.find(...)`, wherever Thor is reopened
            top = receiver.lstrip().startswith("::")
            found = self._path_call(parts, name, lang, top=top)
            if found is not None:
                return found
            if top and parts and not any(s.qualified_name == parts[0] for s in self._qualified(
                    parts[0], lang, CLASS_KINDS)):
                return [], True  # `::Readline.readline`: a top-level constant the repository does not define
        if lang.constant_paths and receiver[:1].isupper() and receiver.isidentifier():
            found = self._module_function_call(caller, receiver, name)
            if found is not None:  # `Utils.clock_time` in `module Rack`: Rack::Utils's, wherever reopened
                return found
        if lang.allocator_calls and receiver.split("(", 1)[0].strip() in lang.allocator_calls:
            value = self._allocated_value(receiver, path, caller, 0)  # `new(Route).PathPrefix(...)`
        else:
            value = self._parts_value(parts, path, caller, 0) if parts else None
        if value == EXTERNAL:
            return [], True
        if value is not None and (value.kind is ARRAY or value.kind is ValueKind.WRAPPED):
            return [], True  # `free: Vec<Buffer>`, `Option<T>`: a std method, never a repository one
        if value is not None:
            found = self._value_call(value, caller, name, lang)
            if found is not None:
                return found
        if value is None and lang.namespaced:  # `net::Transport(...)`
            found = self._path_call(parts, name, lang)
            if found is not None:
                return found
        if lang.package_functions_imported and parts and not self.has_import(path, parts[0]):
            # Go: `c.WriteJSON(v)` on a value (not an imported package) is a method,
            # never the package function of that name
            return self._memoized((BY_NAME, name, METHODS_ONLY, lang.family), self._name_targets), False
        return self._by_name(name, with_receiver=True, lang=lang)

    def _module_function_call(self, caller: str, const: str, name: str) -> Targets | None:
        """Ruby's ``Utils.clock_time``: the module ``const`` names from the caller's
        lexical scope (``_nested_constant``), and its methods of that name in every file
        reopening it (called on the module itself they are its module functions: a
        ``module_function`` or ``extend self`` one, else the call could not run); None
        where the constant is no module of the repository with such a method."""
        me = self.symbol(caller)
        scope = self.symbol(me.parent) if me is not None and me.parent else None
        if scope is None:
            return None
        modules = [m for m in self._nested_constant(scope, const, rules(scope.language)) if m.kind == "module"]
        found = [c for m in modules for o in self._reopened(m) for c in self.children(o.id, name)
                 if c.kind in FUNCTION_KINDS]
        return (self._targets(list(dict.fromkeys(found)), IMPORT), False) if found else None

    def _path_call(self, parts: list[str], name: str, lang: Language, top: bool = False) -> Targets | None:
        """A receiver of names only (no call, no subscript) and the called name: the
        class or function of that qualified name (``top``: from the top level, Ruby's
        ``::Readline``, no namesake nested elsewhere); None when there is none."""
        if not parts or any(p[-1:] in ")]" for p in parts):
            return None
        dotted = ".".join([*parts, name])
        qualified = self._qualified(dotted, lang)
        if top:
            qualified = [s for s in qualified if s.qualified_name == dotted]
        return (self._targets(qualified, IMPORT, ctor=True), False) if qualified else None

    def _value_call(self, value: Value, caller: str, name: str, lang: Language) -> Targets | None:
        """``name`` called on a module, a class or instances; None: look further."""
        kind, ids = value.kind, value.ids
        if kind is MODULE:
            member = self.module_member(ids, name)
            if isinstance(member, list):
                return self._targets(member, IMPORT, ctor=True), False
            if member is not None and member.kind is MODULE:  # `qs.stringify()`: a module called
                member = self.module_callable(member.ids)
            if member is not None and member.kind in (CLASS, FUNCTION):
                return self._targets(self._symbols_of(member.ids), IMPORT, ctor=True), False
            if member == EXTERNAL:
                return [], True
            return None
        if kind in CONTAINERS:  # `xs.append(x)`: a method of the language's list / dict
            return [], True
        if kind is not INSTANCE and kind is not CLASS:
            return None
        targets: list[SymbolInfo] = []
        external = False
        for cid in ids:
            found, ext = self._lookup(cid, name)
            found = self._static_or_instance(found, kind is INSTANCE)
            if not found and kind is INSTANCE:
                found = self._assigned_functions(cid, name)
            external = external or (ext and not found)
            targets.extend(s for s in found if s not in targets)
        if not targets and kind is CLASS and name == lang.instance_factory:
            return self._targets(self._symbols_of(ids), TYPE, ctor=True), False
        if targets and kind is CLASS and lang.class_qualified_super:
            # `Base::send()` in a method of a class derived from Base
            cls = self.enclosing_class(caller)
            if cls is not None and set(ids) & set(self._mro(cls.id)[0][1:]):
                return self._targets(targets, SUPER), False
        if targets:
            found_targets = self._targets(targets, TYPE, ctor=True)
            sole = self._sole_implementations(ids, name, targets) if kind is INSTANCE else []
            if sole:
                found_targets += self._targets(sole, SOLE)
            else:  # several implementations (or a trait's associated function): each may run
                found_targets += [t for s in self._implemented(ids, name, targets) for t in self._targets([s], SUBCLASS)]
            if kind is INSTANCE and lang.self_dispatch and not value.exact:
                found_targets += self._overrides(ids, name, found_targets, lang)
            return found_targets, False
        if external:
            return [], True
        if kind is CLASS or not lang.dynamic_members:  # dynamic: by name after all
            return [], False
        return None

    def _overrides(self, ids: tuple[str, ...], name: str, found: list[Target], lang: Language) -> list[Target]:
        """Where every method is virtual: ``name`` as the subclasses of these classes
        override it, every level (the value may be an instance of one; the reading of
        Java's abstract ``Evaluator.matches`` and Python's ``self.m()`` alike). Private
        names are never overridden."""
        if _private(name, lang.private_prefix):
            return []
        seen = {t.target for t in found}
        out: list[Target] = []
        for cid in ids:
            for s in self._subclass_members(cid, name, every=True):
                if s.id not in seen and s.kind in FUNCTION_KINDS:
                    seen.add(s.id)
                    out += self._targets([s], SUBCLASS)
        return out

    def _sole_implementations(self, ids: tuple[str, ...], name: str, found: list[SymbolInfo]) -> list[SymbolInfo]:
        """``s.get()`` on a value typed by an interface that exactly one class of the
        repository implements (names as a base, directly or through interfaces that
        extend it): that class's ``get``, as tsserver's go to implementation finds it.
        Two implementations or more: none (the interface member stays the answer)."""
        out: list[SymbolInfo] = []
        for cid in ids:
            iface = self.symbol(cid)
            if iface is None or iface.kind != "interface":
                continue
            impls = self._implementations(iface)
            if len(impls) != 1:
                continue
            members, _ = self._lookup(impls[0].id, name)
            out.extend(m for m in members if m not in found and m not in out and m.kind in FUNCTION_KINDS)
        return out

    def _implemented(self, ids: tuple[str, ...], name: str, found: list[SymbolInfo]) -> list[SymbolInfo]:
        """``name`` as the classes implementing these interfaces or traits define it,
        every level (a call through the interface runs one of them)."""
        out: list[SymbolInfo] = []
        for cid in ids:
            iface = self.symbol(cid)
            if iface is None or iface.kind not in _INTERFACE_KINDS:
                continue
            members = self._method_set_members(iface, name) if rules(iface.language).structural_interfaces \
                else self._subclass_members(cid, name, every=True)
            out.extend(m for m in members if m not in found and m not in out and m.kind in FUNCTION_KINDS)
        return out

    def _method_set_members(self, iface: SymbolInfo, name: str) -> list[SymbolInfo]:
        """Go: ``name`` of the types whose methods include every method the interface
        declares (a method's type: its qualified name's head, in its folder)."""
        wanted = self.member_names(iface.id)
        if not wanted or name not in wanted:
            return []
        types: set[tuple[str, str]] | None = None
        for method in wanted:
            having = {(folder(m.path), m.qualified_name.rsplit(".", 1)[0]) for m in self.named(method)
                      if m.kind == "method" and m.parent != iface.id and "." in m.qualified_name}
            types = having if types is None else types & having
            if not types:
                return []
        return [m for m in self.named(name) if m.kind == "method" and m.parent != iface.id
                and (folder(m.path), m.qualified_name.rsplit(".", 1)[0]) in (types or ())]

    def _implementations(self, iface: SymbolInfo) -> list[SymbolInfo]:
        """The classes (not interfaces) deriving from an interface, through interfaces
        that extend it; at most two are looked for (the search stops at a second)."""
        impls: list[SymbolInfo] = []
        seen = {iface.id}
        queue = [iface]
        while queue and len(seen) < 200 and len(impls) < 2:
            cur = queue.pop()
            for sub in self.subclasses(cur.name):
                if sub in seen or cur.id not in self._mro(sub)[0]:
                    continue
                seen.add(sub)
                cls = self.symbol(sub)
                if cls is None:
                    continue
                if cls.kind == "interface":
                    queue.append(cls)
                elif cls.kind in CLASS_KINDS:
                    impls.append(cls)
        return impls

    def _self_call(self, path: str, caller: str, name: str) -> Targets:
        """``self.name()``: the class and its bases, and where every method is virtual
        the overrides in its subclasses (``self`` may be an instance of one); a
        function a method assigned to the attribute; else the subclasses' (a mixin
        calling its host)."""
        cls = self.enclosing_class(caller)
        lang = self.language_of(path)
        declared = [f.text for f in self.local_vars(path, caller, "this") if f.form is FactForm.TYPED]
        if declared:  # TypeScript `function f(this: Annotation)`: the type it declares
            value = self._type_value(declared[0], path, caller)
            found_value = self._value_call(value, caller, name, lang) \
                if value is not None and value != EXTERNAL and value.kind is INSTANCE else None
            if found_value is not None and found_value[0]:
                return found_value
        if cls is None:
            return self._by_name(name, with_receiver=True, lang=lang)
        found, external = self._lookup(cls.id, name)
        if found:
            targets = self._targets(self._static_or_instance(found, True), SELF, ctor=True)
            if lang.self_dispatch:
                targets = [*targets, *self._overrides((cls.id,), name, targets, lang)]
            return targets, False
        assigned = self._assigned_functions(cls.id, name)
        if assigned:
            return self._targets(assigned, SELF), False
        subs = self._subclass_members(cls.id, name, every=True)
        if subs:  # each may run (by the instance's class): none is a guess
            return [t for s in subs for t in self._targets([s], SUBCLASS)], False
        return [], external

    def _bare_call(self, path: str, caller: str, name: str, lang: Language) -> Targets:
        """``name()``: its scopes, its file, its imports, then what the language shows
        a file without an import, then by name."""
        module = self.module_of(path)
        found = self._scope_call(path, caller, name, lang, module)
        if found is not None:
            return found
        if self.has_import(path, name):
            value = self._import_value(path, name)
            if isinstance(value, list):
                return self._targets(value, IMPORT, ctor=True), False
            if value == EXTERNAL:
                return [], True
            if value is not None:
                return self._value_targets(value, IMPORT)
        if module is not None:
            facts = self.module_vars(path, name)
            if facts:
                return self._value_targets(self._eval_facts(facts, path, module, 1))
        found = self._visible_call(path, name, lang, module)
        if found is not None:
            return found
        if name in lang.external_names:
            return [], True
        return self._by_name(name, with_receiver=GLOBAL_FUNCTIONS if lang.global_functions else False, lang=lang)

    def _scope_call(self, path: str, caller: str, name: str, lang: Language, module: str | None) -> Targets | None:
        """A definition or a local variable of a scope around the call (a member of
        the class, in a language whose methods call it bare), or of the file."""
        own = None  # Ruby: `self` is the innermost class or module; an outer one's methods are not
        for s in self._scopes(caller):  # reached bare (`attr_accessor` in `module Actions` in `class Thor`)
            if lang.constant_paths and (s.kind in CLASS_KINDS or s.kind == "module") and s.id != module:
                if own is not None and s.id != own:
                    continue
                own = s.id
            if s.kind in CLASS_KINDS:
                if lang.implicit_this:
                    found, _ = self._lookup(s.id, name)
                    if found:  # `name()` on the implicit self: its overrides too, as `self.name()`
                        targets = self._targets(found, SELF, ctor=True)
                        if lang.self_dispatch:
                            targets += self._overrides((s.id,), name, targets, lang)
                        return targets, False
                local = self._body_locals(s, name)
                if local:  # a function of an ES5 constructor's body
                    return self._targets(local, LOCAL, ctor=True), False
                continue
            # Ruby: a module reopened in other files is one module (`module Actions` in each
            # of actions/*.rb): a bare call in one file's part reaches the others' methods,
            # where its own part (this file) defines none of that name
            defs = [d for d in self._bare_callables(self.children(s.id, name), lang) if d.kind in CALLABLE_KINDS]
            if not defs and lang.constant_paths and s.kind == "module":
                defs = [d for o in self._reopened(s)[1:] for d in self._bare_callables(self.children(o.id, name), lang)
                        if d.kind in CALLABLE_KINDS]
            if defs:
                return self._targets(defs, LOCAL, ctor=True), False
            if s.id != module:
                local = self.local_vars(path, s.id, name)
                if local:
                    return self._value_targets(self._eval_facts(local, path, s.id, 1))
        if module is not None:
            defs = [d for d in self._bare_callables(self.children(module, name), lang) if d.kind in CALLABLE_KINDS]
            if defs:
                return self._targets(defs, LOCAL, ctor=True), False
            if lang.mixin_modules and (top := self.symbol(module)) is not None and self.bases(top):
                # Ruby: `include M` at a file's top level mixes M into the top-level object
                found, _ = self._lookup(module, name)
                if found:
                    return self._targets(found, SELF, ctor=True), False
        return None

    @staticmethod
    def _bare_callables(defs: list[SymbolInfo] | tuple, lang: Language) -> list[SymbolInfo]:
        """The definitions a bare name may call: no method in a language where a bare
        call has no implicit receiver (a Go method ``Context.WriteJSON`` defined in a
        file without its struct is a child of the file, yet the bare ``WriteJSON(c, v)``
        is the package function)."""
        if lang.implicit_this:
            return list(defs)
        return [d for d in defs if d.kind != "method"]

    def _visible_call(self, path: str, name: str, lang: Language, module: str | None) -> Targets | None:
        """A definition the file sees without importing it: of its package folder, of
        a file it includes, of a namespace it is in, of a ``*`` import."""
        if lang.package_scope is not PackageScope.NONE:
            here, package = folder(path), self.declared_package(path) if lang.declared_packages else ""
            peers = self.package_paths(package) if package else ()
            same = [s for s in self._bare_callables(self.named(name), lang) if s.path != path
                    and (folder(s.path) == here or s.path in peers)
                    and s.language == lang.name and s.parent == self.module_of(s.path)]
            if lang.package_scope is PackageScope.CLASSES:
                same = [s for s in same if s.kind in CLASS_KINDS]
            if same:
                return self._targets(same, PACKAGE, ctor=True), False
        if lang.includes_files:  # defined in a file this one includes / requires
            found = [s for p in self._included_files(path) for s in self.top_level(p, name)
                     if s.kind in CALLABLE_KINDS]
            if found and lang.preprocessor:
                found = self.compiled_for(found, path)
            if found:
                return self._targets(found, IMPORT, ctor=True), False
        if lang.namespaced:  # a class of a namespace this file is in or imports
            classes = self._classes_named(name, path, lang)
            spaces = self._file_namespaces(path)
            classes = [c for c in classes if c.qualified_name.rsplit(".", 1)[0] in spaces and c.path != path]
            if classes:
                return self._targets(classes, IMPORT, ctor=True), False
        stars = self.stars(path)
        if stars and module is not None:
            for source in stars:
                if lang.package_scope is PackageScope.DEFINITIONS:  # Go `import . "pkg"`: its folder
                    files = self.package_files(source.strip('"`'))
                else:
                    modpath = lang.star_module_path(source, path)
                    files = self.module_files(modpath) if modpath else []
                if files:
                    member = self.module_member(tuple(files), name)
                    if isinstance(member, list):
                        return self._targets(member, IMPORT, ctor=True), False
        return None

    def _value_targets(self, value: Value | None, reason: Reason = LOCAL) -> Targets:
        """A call of a variable: the class or function it holds, if known."""
        if value is None:
            return [], False
        if value == EXTERNAL:
            return [], True
        kind, ids = value.kind, value.ids
        if kind is MODULE:  # a call of a module: of the class or function it exports whole
            exported = self.module_callable(ids)
            if exported is None:
                return [], False
            kind, ids = exported.kind, exported.ids
        if kind is CLASS:
            return self._targets(self._symbols_of(ids), reason, ctor=True), False
        if kind is FUNCTION:
            return self._targets(self._symbols_of(ids), reason), False
        return [], False

    def _by_name(self, name: str, *, with_receiver: bool | str, lang: Language) -> Targets:
        """Every definition of that name in the language's family: low confidence, or
        ``unique`` for the only method of a name the standard types do not use (and,
        where functions are global, the only function of a name called bare). The
        targets are remembered and shared by every site calling that name."""
        return self._memoized((BY_NAME, name, with_receiver, lang.family), self._name_targets), False

    def _name_targets(self, name: str, with_receiver: bool | str, family: str) -> tuple[Target, ...]:
        candidates = self._name_candidates(name, with_receiver, family)
        if with_receiver == METHODS_ONLY:
            candidates = [s for s in candidates if s.kind != "function"]
        # one method of that name in the whole repository, and not a name the standard
        # types use: what a reader would take it for, with some doubt left
        unique = (with_receiver and len(candidates) == 1
                  and name not in COMMON_METHODS and name not in family_standard_methods(family)
                  and not (name.startswith("__") and name.endswith("__"))
                  and (with_receiver != GLOBAL_FUNCTIONS or candidates[0].kind == "function"))
        return tuple(self._targets(candidates, UNIQUE if unique else NAME))

    def _name_candidates(self, name: str, with_receiver: bool | str, family: str) -> list[SymbolInfo]:
        lang = family_rules(family)

        candidates = self.named(name)
        if with_receiver and with_receiver != GLOBAL_FUNCTIONS:
            candidates = [s for s in candidates if s.kind in ("method", "constructor")
                          or (s.kind == "function" and lang.functions_as_methods)]
        else:
            candidates = [s for s in candidates if s.kind in FUNCTION_KINDS or s.kind in CLASS_KINDS]
        if family:
            candidates = [s for s in candidates if rules(s.language).family == family]
        return candidates

    def _targets(self, found: list[SymbolInfo], reason: Reason, *, ctor: bool = False) -> list[Target]:
        """Targets with the step's confidence, shared when several (a call of a class
        comes with its constructor)."""
        if not found:
            return []
        confidence = CONFIDENCE[reason]
        if reason is NAME:  # candidates by name: the confidence is shared among them
            ambiguous = len(found) > 1
            conf = round(confidence / len(found), 3) if ambiguous else confidence
        else:  # a precise step with several answers (a union type, overloads: one name)
            ambiguous = len({t.qualified_name for t in found}) > 1
            conf = round(confidence * 0.8, 3) if ambiguous else confidence
        targets = [Target(t.id, reason, conf, ambiguous) for t in found]
        if ctor:
            seen = {t.id for t in found}
            for t in found:
                if t.kind in CLASS_KINDS:
                    for c in self._constructors(t):
                        if c.id not in seen:
                            seen.add(c.id)
                            targets.append(Target(c.id, reason, conf, ambiguous))
        return targets


def _private(name: str, prefix: str) -> bool:
    """A name the language keeps to its class (Python's mangled ``__m``, not ``__m__``)."""
    return bool(prefix) and name.startswith(prefix) and not name.endswith(prefix)

