"""Values and types: what a variable, an expression, a name, an attribute or a call
holds, as far as the code says (annotations, assignments, constructors, returns,
elements of sequences, either branch of a conditional), as a ``Value``."""

from __future__ import annotations

import re

from ...languages import (
    CLASS_NAMES,
    EXTERNAL_TYPES,
    INSTANCE_FACTORIES,
    SELF_NAMES,
    UNWRAP_METHODS,
    ImplicitClasses,
    Language,
    PackageScope,
    rules,
)
from ..facts import MUTATIONS
from ..memo import Lookup
from ..model import (
    CLASS_KINDS,
    EXTERNAL,
    FUNCTION_KINDS,
    AttrFact,
    Fact,
    FactForm,
    SymbolInfo,
    Value,
    ValueKind,
    called_or_read,
    either_value,
)
from .callbacks import Callbacks
from .containers import BUILTIN_CONTAINERS, container_member
from .reads import MAX_DEPTH
from .returns import INSTANCE
from .text import (
    LITERAL_START,
    _matching,
    asserted_type,
    container_literal,
    element_name,
    folder,
    generic_args,
    inline_branches,
    receiver_parts,
    split_top,
    ternary_branches,
    type_name,
    union_members,
)

CLASS, MODULE, FUNCTION, ARRAY = ValueKind.CLASS, ValueKind.MODULE, ValueKind.FUNCTION, ValueKind.ARRAY
MAPPING, PAIRS, WRAPPED = ValueKind.MAPPING, ValueKind.PAIRS, ValueKind.WRAPPED
_MAX_ELEMENTS = 16  # elements of a literal read
TYPED, DECLARED, ASSIGNED, ELEMENTS, ITEM, KEYED, SECOND, UNWRAPPED, CALLBACK = FactForm
TYPE, ATTRIBUTE, VARIABLE, RETURNS = Lookup.TYPE, Lookup.ATTRIBUTE, Lookup.VARIABLE, Lookup.RETURNS
_CONSTANTS = ("None", "True", "False", "null", "true", "false", "nil")
_REFERENCE = re.compile(r"^(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)+")
_UNDECIDED = object()  # no scope around has the name: look further
_INHERITED = object()  # none has it, but an outside base of a class around may: look further


class Values(Callbacks):
    """The evaluator of values and types (a part of the ``Resolver``)."""

    def _eval_facts(self, facts: list[Fact] | tuple, path: str, scope: str, depth: int) -> Value | None:
        """The value a variable holds, from what was assigned to it and its annotation.
        An annotation wins; several assignments: the repository classes among them."""
        if depth > MAX_DEPTH:
            return self._cut()
        typed = [f for f in facts if f.form is TYPED]
        first = None
        if typed and len(typed) < len(facts):
            first = self._eval_facts(typed, path, scope, depth + 1)
            if first is not None and first != EXTERNAL:
                return first  # the annotation, when it names repository classes
        chosen = [f for f in facts if f.form is ASSIGNED or f.form in MUTATIONS] \
            if typed and len(typed) < len(facts) else facts
        value = self._facts_value([(f.form, f.text, scope) for f in chosen if f.form is not DECLARED], path, depth)
        if value is not None and len(value.ids) > 1 and len(typed) > 1 and len(typed) == len(facts):
            value = self._most_specific(value)
        return first if value is None else value  # an outside annotation, where the values tell nothing

    def _most_specific(self, value: Value) -> Value:
        """Types declared together of one variable (PHP's `Node $node` and its doc's
        `@param TableCell $node`): each holds, so a class another of them derives
        from says nothing more."""
        ids = value.ids
        kept = tuple(c for c in ids if not any(d != c and c in self._mro(d)[0] for d in ids))
        return value if len(kept) == len(ids) or not kept else Value(value.kind, kept, value.exact)

    def _facts_value(self, facts: list[tuple[FactForm, str, str]], path: str, depth: int) -> Value | None:
        """What (form, text, scope) facts say together: the repository values of the
        first kind among them (a container's elements put into it after the rest: an
        instance of a repository class assigned to it wins); EXTERNAL when only
        outside values are."""
        facts = sorted(facts, key=lambda f: (f[0] is ITEM) + 2 * (f[0] is KEYED))
        classes: list[str] = []
        kind: ValueKind | None = None
        external = False
        exact = True
        for form, text, scope in facts:
            value = self._fact_value(form, text, path, scope, depth + 1)
            if value is None:
                continue
            if value == EXTERNAL:
                external = True
                continue
            if form is KEYED and kind is ARRAY:  # `xs[i] = x` into a sequence
                value = Value(ARRAY, value.ids)
            if kind is None or kind is value.kind:
                kind = value.kind
                classes.extend(c for c in value.ids if c not in classes)
                exact = exact and value.exact
        if classes:
            return Value(kind, tuple(classes), exact)  # type: ignore[arg-type]
        return EXTERNAL if external else None

    def _fact_value(self, form: FactForm, text: str, path: str, scope: str, depth: int) -> Value | None:
        """What one fact says the variable holds: its type, the value assigned, an
        element of the value it iterates, a container of what is put into it."""
        if form is TYPED:
            return self._type_value(text, path, scope, depth + 1)
        if form is CALLBACK:  # what the callee's parameter's function type says there
            return self._callback_value(text, path, scope, depth + 1)
        value = self._expr_value(text, path, scope, depth + 1)
        if form is ASSIGNED or value is None or value == EXTERNAL:
            return value if form is ASSIGNED or form is ELEMENTS or form is SECOND else None
        if form is ELEMENTS:  # `for x in xs`: an element of a sequence (a mapping's keys: unknown)
            return Value(INSTANCE, value.ids) if value.kind is ARRAY or value.kind is WRAPPED else None
        if form is SECOND:  # `for k, v in d.items()`, `enumerate(xs)`
            return Value(INSTANCE, value.ids) if value.kind is PAIRS else None
        if form is UNWRAPPED:  # `if let Some(x) = e`: what e holds (`v.pop()`: modelled as the element)
            return Value(INSTANCE, value.ids) if value.kind is WRAPPED or value.kind is INSTANCE else None
        if value.kind is not INSTANCE:
            return None
        return Value(ARRAY if form is ITEM else MAPPING, value.ids)  # `xs.append(x)`, `d[k] = x`

    def _type_value(self, text: str, path: str, scope: str, depth: int = 0) -> Value | None:
        """The instances a type annotation describes."""
        if depth > MAX_DEPTH:
            return self._cut()
        lang = self.language_of(path)
        generic = generic_args(text) if lang.wrapper_types or lang.pointer_types else None
        if generic is not None and generic[1] and generic[0] in lang.pointer_types:  # `Box<T>`: a T
            return self._type_value(generic[1][0], path, scope, depth + 1)
        if generic is not None and generic[1] and generic[0] in lang.wrapper_types:  # `Result<T, E>`
            value = self._type_value(generic[1][0], path, scope, depth + 1)
            return Value(WRAPPED, value.ids) if value is not None and value.kind is INSTANCE else EXTERNAL
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
            stripped = _REFERENCE.sub("", text.strip())  # Rust `&[u8]`, `&'a mut [T]`: a slice
            head = stripped.split("[", 1)[0].split("<", 1)[0].strip()
            return EXTERNAL if head in EXTERNAL_TYPES or stripped.startswith(("[", "{", "(")) else None
        value = self._memoized((TYPE, path, scope, name), self._compute_type, depth + 1)
        if value is None and lang.closed_types and name.isidentifier() and not any(c in text for c in "<[") \
                and not self.named(name) and not self._bound_around(name, scope):
            return EXTERNAL  # `StreamReader rdr`: no class of the repository, no type parameter
        return value

    def _compute_type(self, path: str, scope: str, name: str, depth: int) -> Value | None:
        parts = name.split(".")
        value = self._name_value(parts[0], path, scope, depth + 1, types_only=True)
        for part in parts[1:]:
            value = self._attr_value(value, part, False, depth + 1)
        if value is not None and value.kind is MODULE:  # a module exporting an object whole
            value = self.module_export(value.ids, depth + 1)
        if value is not None and value.kind is CLASS:
            return Value(INSTANCE, value.ids)
        if value is not None and value.kind is INSTANCE:
            return value
        if value == EXTERNAL:
            return EXTERNAL
        lang = self.language_of(path)
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

    def _package_functions(self, name: str, path: str, lang: Language) -> list[SymbolInfo]:
        """The top-level functions of that name in the other files of the file's folder
        (``PackageScope.DEFINITIONS``: a Go package sees them bare)."""
        here = folder(path)
        return [s for s in self.named(name) if s.kind == "function" and s.path != path
                and s.language == lang.name and folder(s.path) == here
                and s.parent == self.module_of(s.path)]

    def _classes_named(self, name: str, path: str, lang: Language) -> list[SymbolInfo]:
        """Classes of this name visible without an import: the same file, then as the
        language says (``Language.implicit_classes``): none more (Python), the only one
        of that name (JavaScript's JSDoc), or those of a namespace the file is in or
        imports, of a file it includes, of its folder, else the only one."""
        candidates = [s for s in self.named(name) if s.kind in CLASS_KINDS and s.language == lang.name]
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
        if depth > MAX_DEPTH:
            return self._cut()
        t = text.strip()
        lang = self.language_of(path)
        if lang.inline_conditional and " if " in t and " else " in t and not t.startswith("lambda"):
            either = inline_branches(t)
            if either is not None:  # `a if c else b`: either value
                return either_value([self._expr_value(b, path, scope, depth + 1) for b in either])
        if lang.container_literals and t[:1] in "[{(":
            found = self._literal_value(t, path, scope, depth + 1)
            if found is not _UNDECIDED:
                return found  # type: ignore[return-value]
        if not t or t.startswith(LITERAL_START) or t in _CONSTANTS:
            return EXTERNAL if t and not t.startswith(("lambda ", "not ")) else None
        if lang.module_loader and t.startswith(lang.module_loader):
            return None
        copy = lang.sequence_copy.match(t) if lang.sequence_copy is not None else None
        if copy is not None:  # list(xs), sorted(xs), reversed(xs): the same elements
            inner = split_top(copy.group(2), ",")[0].strip()
            value = self._expr_value(inner, path, scope, depth + 1)
            if value is None or value.kind is ARRAY or value.kind is PAIRS:
                return value
            return EXTERNAL
        if lang.allocator_calls and t.split("(", 1)[0].strip() in lang.allocator_calls:
            return self._allocated_value(t, path, scope, depth + 1)  # Go `new(T)`: a *T
        if lang.type_assertions and (asserted := asserted_type(t)) is not None:  # Go `v.(T)`: a T
            return self._type_value(asserted, path, scope, depth + 1)
        for pattern, kind in ((lang.element_call, INSTANCE), (lang.pairs_call, PAIRS)):
            call = pattern.match(t) if pattern is not None else None
            if call is not None:  # next(it), min(xs): an element; enumerate(xs): (index, element)
                inner = split_top(call.group(2), ",")[0].strip()
                value = self._expr_value(inner, path, scope, depth + 1)
                return Value(kind, value.ids) if value is not None and value.kind is ARRAY else EXTERNAL
        branches = ternary_branches(t) if lang.ternaries and "?" in t else None
        if branches is not None:  # `c ? a : b`: either value
            return either_value([self._expr_value(b, path, scope, depth + 1) for b in branches])
        parts = receiver_parts(t)
        if not parts:
            return None
        return self._parts_value(parts, path, scope, depth + 1)

    def _allocated_value(self, text: str, path: str, scope: str, depth: int) -> Value | None:
        """``new(T)`` (``Language.allocator_calls``) and a chain on it,
        ``new(Route).PathPrefix("/a")``: a T, then each member along the chain."""
        head, _, rest = text.partition("(")
        close = _matching("(" + rest)
        value = self._type_value(rest[:close - 1], path, scope, depth + 1)
        tail = rest[close:].strip()
        if not tail or value is None:
            return value
        if not tail.startswith("."):
            return None
        for part in receiver_parts(head.strip() + tail)[1:]:
            is_call = part.endswith("()")
            value = self._attr_value(value, part[:-2] if is_call else part, is_call, depth + 1)
            if value is None or part.startswith("["):
                return None
        return value

    def _literal_value(self, text: str, path: str, scope: str, depth: int) -> Value | None | object:
        """A container literal (``[a, b]``, ``{k: v}``, a comprehension): a sequence (a
        mapping) of the repository instances among its elements; EXTERNAL when it has
        none (``[]``, ``{"a": 1}``); ``_UNDECIDED`` when ``text`` is no such literal."""
        found = container_literal(text)
        if found is None:
            return _UNDECIDED
        mapping, elements, comprehension = found
        if not elements:
            return None if comprehension else EXTERNAL
        value = either_value([self._expr_value(e, path, scope, depth + 1) for e in elements[:_MAX_ELEMENTS]])
        if value is None or value == EXTERNAL or value.kind is not INSTANCE:
            return None if comprehension and value is None else EXTERNAL
        return Value(MAPPING if mapping else ARRAY, value.ids)

    def _qualified_prefix(self, parts: list[str], path: str) -> tuple[Value, list[str]] | None:
        """``net::Transport("x").send``: the longest leading run of names that is the
        qualified name of a class (an instance when it is called), and the parts left
        after it (the first part of what is left stands for that value)."""
        lang = self.language_of(path)
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
                return called_or_read(ids, head[-1].endswith("()")), parts[i - 1:]
        return None

    def _path_prefix(self, parts: list[str], path: str, depth: int) -> tuple[Value, list[str]] | None:
        """``crate::buf::Buffer::with_capacity(n)``: the longest leading run of names
        that is a path to a class the way a ``use`` of it would name it (Rust: a
        module file's item; ``Language.path_roots`` on), as in ``_qualified_prefix``."""
        lang = self.language_of(path)
        if not lang.path_roots:
            return None
        for i in range(len(parts), 1, -1):
            head = parts[:i]
            if any(p.endswith(")") or p.startswith("[") for p in head[:-1]) or head[-1].startswith("["):
                continue
            names = [p[:-2] if p.endswith("()") else p for p in head]
            named = len([n for n in names if n not in lang.path_roots])
            if named < 1 or named < 2 and named == len(names):  # `super::Buf`, not a bare `Buf`
                continue
            found = lang.import_value(self, path, names[-1], "::".join(names), names[-1], depth + 1)
            classes = tuple(s.id for s in found if s.kind in CLASS_KINDS) if isinstance(found, list) else ()
            if classes:
                return called_or_read(classes, head[-1].endswith("()")), parts[i - 1:]
        return None

    def _parts_value(self, parts: list[str], path: str, scope: str, depth: int) -> Value | None:
        first = parts[0]
        if len(parts) > 1 and first in self.language_of(path).super_receivers:
            value = self._super_member(parts[1], scope, depth + 1)  # `super().get(url)`
            parts = parts[1:]
        elif first.endswith("()"):
            value = self._call_value(first[:-2], path, scope, depth + 1)
        else:
            value = self._name_value(first, path, scope, depth + 1)
        if value is None and len(parts) > 1 and self.language_of(path).namespaced:
            found = self._qualified_prefix(parts, path) or self._path_prefix(parts, path, depth + 1)
            if found is not None:
                value, parts = found
        for part in parts[1:]:
            if part.startswith("["):  # xs[i]: an element of a sequence; xs[1:]: the sequence
                value = (value if part == "[:]" else Value(INSTANCE, value.ids)) \
                    if value is not None and value.kind is ARRAY else \
                    Value(INSTANCE, value.ids) if value is not None and value.kind is MAPPING and part == "[]" \
                    else None  # d[k]: a mapping's value
            else:
                is_call = part.endswith("()")
                value = self._attr_value(value, part[:-2] if is_call else part, is_call, depth + 1)
            if value is None:
                return None
        return value

    def _super_member(self, part: str, scope: str, depth: int) -> Value | None:
        """``super().name`` (``super().name()`` when ``part`` ends with ``()``) in
        ``scope``: the member of a base of the enclosing class."""
        cls = self.enclosing_class(scope)
        if cls is None:
            return None
        is_call = part.endswith("()")
        found, _ = self._lookup(cls.id, part[:-2] if is_call else part, skip_self=True, depth=depth + 1)
        return self._value_of_symbols(found, is_call, depth + 1) if found else None

    def _name_value(self, name: str, path: str, scope: str, depth: int, types_only: bool = False) -> Value | None:
        """What a bare name holds where ``scope`` sees it."""
        if depth > MAX_DEPTH:
            return self._cut()
        if name in SELF_NAMES:
            cls = self.enclosing_class(scope)
            if cls is None:
                return None
            return Value(CLASS if name in CLASS_NAMES else INSTANCE, (cls.id,))
        lang = self.language_of(path)
        found, scopes = self._scoped_value(name, path, scope, depth, types_only, lang)
        inherited = found is _INHERITED  # perhaps a member of an outside base: if nothing else is
        if found is not _UNDECIDED and not inherited:
            return found  # type: ignore[return-value]
        module = self.module_of(path)
        if module is not None and module not in {s.id for s in scopes}:
            defs = self.children(module, name)
            if defs:
                classes = tuple(d.id for d in defs if d.kind in CLASS_KINDS)
                if classes:
                    return Value(CLASS, classes)
            if not types_only and self.module_vars(path, name):
                return self._var_value(path, module, name, depth + 1)
        if types_only and lang.type_aliases_as_variables and module is not None:
            # an alias: `Link = Transport` (Ruby), `using Link = net::Transport;` (its own symbol)
            holders = [module, *(d.id for d in self.children(module, name) if d.kind == "type")]
            for holder in holders:
                if self.local_vars(path, holder, name):
                    value = self._var_value(path, holder, name, depth + 1)
                    if value is not None and value.kind is CLASS:
                        return value
        if self.has_import(path, name):
            return self._imported_value(path, name, depth, types_only)
        if lang.package_scope is PackageScope.DEFINITIONS and not types_only:
            funcs = self._package_functions(name, path, lang)
            if funcs:  # Go: `r := NewRouter()`, NewRouter in another file of the package
                return Value(FUNCTION, tuple(f.id for f in funcs))
        if lang.implicit_classes is ImplicitClasses.UNIQUE and name in lang.external_names:
            return EXTERNAL  # JS `process`, `Math` undeclared here: the runtime's, not another file's
        if lang.implicit_classes is not ImplicitClasses.NONE:
            classes = self._classes_named(name, path, lang)
            if classes:
                return Value(CLASS, tuple(c.id for c in classes))
        if inherited or name in lang.external_names:
            return EXTERNAL
        return None

    def _scoped_value(self, name: str, path: str, scope: str, depth: int, types_only: bool,
                      lang: Language) -> tuple[Value | object | None, list[SymbolInfo]]:
        """A name defined or assigned in ``scope`` or a scope around it (a member of the
        class, in a language whose methods see it bare), ``_UNDECIDED`` when none of
        them has it (``_INHERITED`` when a class around has an outside base that may
        define it: an import or a class of that name still wins); and the scopes looked in."""
        scopes = self._scopes(scope)
        inherited = False
        for s in scopes:
            if s.kind in CLASS_KINDS and s.id != scope and not lang.class_body_is_scope:
                continue
            defs = self.children(s.id, name)
            if defs:
                if any(d.kind in CLASS_KINDS for d in defs):
                    return Value(CLASS, tuple(d.id for d in defs if d.kind in CLASS_KINDS)), scopes
                if not types_only:
                    return Value(FUNCTION, tuple(d.id for d in defs if d.kind in FUNCTION_KINDS)), scopes
            if not types_only and s.kind not in CLASS_KINDS:
                local = self.local_vars(path, s.id, name)
                if local and not (s.parent is None and self.has_import(path, name)):
                    return self._var_value(path, s.id, name, depth + 1), scopes
            if types_only and lang.bounded_type_parameters and s.kind in FUNCTION_KINDS and self.local_vars(
                    path, s.id, name):  # Rust `fn f<V: Vector>(v: &mut V)`: V is a Vector
                value = self._var_value(path, s.id, name, depth + 1)
                if value is not None and value.kind is CLASS:
                    return value, scopes
            if s.kind in CLASS_KINDS and lang.implicit_this and not types_only:
                named = [c for c in self._mro(s.id, depth + 1)[0]
                         if (cls := self.symbol(c)) is not None and cls.name == name]
                if named:  # the class or a base by its own name (C++ `Base::send()`)
                    return Value(CLASS, tuple(named)), scopes
                value = self._attr_value(Value(INSTANCE, (s.id,)), name, False, depth + 1)
                if value == EXTERNAL:
                    inherited = True  # NodeTraversor.traverse(...) in a class implementing Cloneable
                elif value is not None:
                    return value, scopes
        return (_INHERITED if inherited else _UNDECIDED), scopes

    def _imported_value(self, path: str, name: str, depth: int, types_only: bool) -> Value | None:
        """What an import binding holds, as a value (its classes, else its functions)."""
        value = self._import_value(path, name, depth + 1)
        if isinstance(value, list):
            classes = tuple(s.id for s in value if s.kind in CLASS_KINDS)
            if classes:
                return Value(CLASS, classes)
            funcs = tuple(s.id for s in value if s.kind in FUNCTION_KINDS)
            return Value(FUNCTION, funcs) if funcs and not types_only else None
        return value

    def _attr_value(self, value: Value | None, attr: str, is_call: bool, depth: int) -> Value | None:
        """``value.attr`` (``value.attr()`` when ``is_call``)."""
        if value is None:
            return None
        if depth > MAX_DEPTH:
            return self._cut()
        if value == EXTERNAL:
            return EXTERNAL
        kind, ids = value.kind, value.ids
        if kind in BUILTIN_CONTAINERS:  # the language's own list, dict, Option: no repository code
            return container_member(value, attr, is_call)
        if attr == "?":  # JavaScript `a?.b`; Rust `?` on a value not known to be a wrapper
            return value
        if kind is MODULE:
            member = self.module_member(ids, attr, depth + 1)
            if isinstance(member, list):
                return self._value_of_symbols(member, is_call, depth + 1)
            if is_call and member is not None and member.kind is CLASS:
                return Value(INSTANCE, member.ids, exact=True)
            return member if not is_call else None
        if kind is CLASS and attr in INSTANCE_FACTORIES and any(
                rules(s.language).instance_factory == attr for s in self._symbols_of(ids)):
            if not any(self._lookup(cid, attr, depth=depth + 1)[0] for cid in ids):  # `Foo.new`: an instance
                return Value(INSTANCE, ids, exact=True)
        if kind is INSTANCE or kind is CLASS:
            found = self._member_value(ids, attr, is_call, depth)
            if found is None and kind is INSTANCE and is_call and attr in UNWRAP_METHODS:
                return value  # `v.first().unwrap()`: a std method's Option, modelled as its element
            return found
        if kind is FUNCTION and is_call:
            return self._value_of_symbols(self._symbols_of(ids), True, depth + 1)
        return None

    def _member_value(self, ids: tuple[str, ...], attr: str, is_call: bool, depth: int) -> Value | None:
        """``attr`` on instances (or classes) of ``ids``: a member (a method's return
        when called), a function a method assigned to it, else the attribute's facts
        along the bases."""
        classes: list[str] = []
        kind_out: ValueKind | None = None
        external = False
        exact = True  # every part made right there (`Transport t = new Transport()`)
        for cid in ids:
            found, ext = self._lookup(cid, attr, depth=depth + 1)
            external = external or (ext and not found)
            if found:
                value = self._value_of_symbols(found, is_call, depth + 1)
                if value is not None and value != EXTERNAL:
                    classes.extend(value.ids)
                    kind_out = value.kind
                    exact = exact and value.exact
                external = external or value == EXTERNAL  # a method returning outside values
                continue
            if is_call:
                assigned = self._assigned_functions(cid, attr, depth + 1)
                value = self._returns(assigned, depth + 1) if assigned else None
                if value is not None and value != EXTERNAL:
                    classes.extend(value.ids)
                    kind_out = value.kind
                    exact = exact and value.exact
                continue
            for mid in self._mro(cid, depth + 1)[0]:
                cls = self.symbol(mid)
                if cls is not None and self.attr_facts(cls, attr):
                    got = self._memoized((ATTRIBUTE, mid, attr), self._compute_attr, depth + 1)
                    if got is not None and got != EXTERNAL:
                        classes.extend(got.ids)
                        kind_out = got.kind
                        exact = exact and got.exact
                    elif got == EXTERNAL:
                        external = True
                    break
        if classes:
            return Value(kind_out, tuple(dict.fromkeys(classes)), exact)  # type: ignore[arg-type]
        return EXTERNAL if external else None

    def _compute_attr(self, cls_id: str, attr: str, depth: int) -> Value | None:
        """An attribute's value: its declared types, else what is assigned to it."""
        if depth > MAX_DEPTH:
            return self._cut()
        cls = self.symbol(cls_id)
        if cls is None:
            return None
        fl: list[AttrFact] | tuple = self.attr_facts(cls, attr)
        typed = [f for f in fl if f.form is TYPED]
        rest = [f for f in fl if f.form is ASSIGNED or f.form in MUTATIONS]
        first = self._facts_value(typed, cls.path, depth + 1) if typed else None
        if first is None and typed and rules(cls.language).impl_blocks:  # `a: T`, `impl<T: Buf> .. for S<T>`
            first = self._impl_bound(cls, [f.text for f in typed], depth + 1)
        if typed and first is not None and first != EXTERNAL and rest and not any(
                (d := self.symbol(c)) is not None and d.kind in ("interface", "trait") for c in first.ids):
            # declared as a class (through an interface, every implementation is read as reached)
            made = self._facts_value(rest, cls.path, depth + 1)
            if made is not None and made != EXTERNAL and made.exact and made.kind is first.kind and all(
                    set(first.ids) & set(self._mro(c)[0]) for c in made.ids):
                return made  # `Transport t = new Transport()`, and nothing else assigned: exactly that
        if typed and (first is not None and first != EXTERNAL or not rest):
            return first  # the annotation, when it names repository classes
        value = self._facts_value(rest, cls.path, depth + 1)
        if value is not None and value.exact:  # undeclared: code elsewhere may assign it too
            value = value._replace(exact=False)
        return value if value is not None or not typed else first

    def _symbols_of(self, ids: tuple[str, ...]) -> list[SymbolInfo]:
        """The symbols of these ids that exist."""
        return [s for i in ids if (s := self.symbol(i)) is not None]

    def _value_of_symbols(self, found: list[SymbolInfo], is_call: bool, depth: int) -> Value | None:
        """Definitions read (or called): classes, or functions (what they return)."""
        classes = tuple(s.id for s in found if s.kind in CLASS_KINDS)
        if classes:
            return called_or_read(classes, is_call)
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
        """A variable's value (remembered: many calls read the same variable)."""
        if not self.local_vars(path, scope, name):
            return None
        return self._memoized((VARIABLE, path, scope, name), self._compute_var, depth + 1)

    def _compute_var(self, path: str, scope: str, name: str, depth: int) -> Value | None:
        return self._eval_facts(self.local_vars(path, scope, name), path, scope, depth)
