"""Narrowing the candidates of a call resolved by name only, by the evidence a
careful reader weighs: the arguments the call passes against what each candidate
takes (``extract.arity``), then where the candidates live — in the caller's class
hierarchy, in the caller's file, in a file the caller's file imports. Each step
keeps the candidates it favours when some, not all, are favoured.

Arity rules candidates out (a call passing two arguments to a function taking one
fails; a decorated definition may take anything and is never ruled out); where they
live only favours some (the receiver is unknown: it may be of any candidate's
class), marked in their ``detail``. Neither promotes a candidate into the default
view: the call may well go to none of them (a method of a builtin or C type, a
method bound by an assignment such as tkinter's ``pack = pack_configure``), and on
the standard library most single survivors of arity or imports are such calls
(``os.stat(p)`` → ``Path.stat``). What does promote, ``narrowed``: the caller file's
own copy of a class member whose other copies (the same qualified name) lie in
files the caller's file does not import, nor their package (each test file's
``Timer.tick``), on a receiver that is no imported name, of a name the standard
types do not use. Several left stay name candidates with the evidence in
``detail`` (``queries.evidence``: "by name, 2 candidates"). A ``unique``
candidate whose parameters cannot take the call's arguments goes back to a name
candidate.
"""

from __future__ import annotations

from collections.abc import Callable

from ...languages import COMMON_METHODS, Language
from ...languages.common import ARITHMETIC_TYPES, normal_type
from ...model import TYPE_SEP, is_template_type
from ..memo import Lookup
from ..model import CLASS_KINDS, CONFIDENCE, FactForm, Reason, SymbolInfo, Target
from .values import Values

NAME, UNIQUE, NARROWED = Reason.NAME, Reason.UNIQUE, Reason.NARROWED
# candidates of a name past which a site is left as it is (its targets stay the tuple
# every site of that name shares): evidence seldom brings so many down to the few a
# view offers, and each site would pay for it
NARROW_MAX = 12
ARITY, CLASS, FILE, IMPORT = "arity", "caller's class", "caller's file", "import"


class Narrowing(Values):
    """Name candidates narrowed by evidence (a part of the ``Resolver``)."""

    def _inherent_first(self, targets: tuple[Target, ...], caller: str) -> tuple[Target, ...]:
        """Rust's method lookup (``impl_blocks``): a type's inherent method (of an
        ``impl T`` block) comes before a trait's method of the same name (an ``impl
        Trait for T`` block's), so a call reaching both runs the inherent one; a call
        through a trait (the trait's own method among the targets: a bound, a ``dyn``)
        runs implementations of the trait, never an inherent namesake. In a trait impl
        for an outside type (``impl Vector for Vec<T>``), ``self.push(v)`` inside its
        own ``push`` is the outside type's inherent method, not a recursion."""
        kinds: list[str] = []
        for t in targets:
            s = self.symbol(t.target)
            parent = self.symbol(s.parent) if s is not None and s.parent else None
            kinds.append("" if parent is None else "trait" if parent.kind == "trait" else
                         ("impl-trait" if self.bases(parent) else "inherent") if parent.kind == "impl" else "")
        if "trait" in kinds and "inherent" in kinds:
            return tuple(t for t, k in zip(targets, kinds, strict=True) if k != "inherent")
        if "inherent" in kinds and "impl-trait" in kinds:
            return tuple(t for t, k in zip(targets, kinds, strict=True) if k != "impl-trait")
        if len(targets) == 1 and targets[0].target == caller and kinds[0] == "impl-trait":
            impl = self.symbol(self.symbol(caller).parent)  # type: ignore[union-attr,arg-type]
            value = self._type_value(impl.name, impl.path, impl.parent or "") if impl is not None else None
            defined = [] if value is None or value == self.external_value else [
                d for i in value.ids if (d := self.symbol(i)) is not None and d.kind != "impl"]
            if not defined:  # the type has impl blocks here, its definition is outside
                return ()
        return targets

    def _narrowed(self, targets: tuple[Target, ...], path: str, caller: str, name: str, receiver: str,
                  args: int) -> tuple[Target, ...]:
        """``targets`` (by name or ``unique``) narrowed for a call passing ``args``
        arguments (-1 unknown) from ``caller`` in ``path``."""
        if len(targets) > NARROW_MAX:
            return targets
        lang = self.language_of(path)
        kept = list(targets)
        evidence: list[str] = []
        if args >= 0 and lang.parameters_field:
            known = {t.target: self._takes(t.target, args) for t in kept}
            left = [t for t in kept if known[t.target] is not False]
            if not left or len(left) == len(kept):
                if not left and targets[0].reason is UNIQUE:
                    return (targets[0]._replace(reason=NAME, confidence=CONFIDENCE[NAME],
                                                detail="arguments differ"),)
                if not left:
                    return targets
            else:
                kept = left
                evidence.append(ARITY)
        if targets[0].reason is UNIQUE:
            return targets
        step, favoured = self._favoured(kept, path, caller, lang)
        n = len({t.target for t in targets})
        if (len(favoured) == 1 and step == FILE and receiver and name not in COMMON_METHODS
                and not (name.startswith("__") and name.endswith("__"))
                and not self.has_import(path, receiver.split(".", 1)[0].split("(", 1)[0])
                and self._own_copy(favoured[0], kept, path, lang)):
            s = self.symbol(favoured[0].target)
            evidence.append(f"caller's file has its own {s.qualified_name if s else name}")
            return (Target(favoured[0].target, NARROWED, CONFIDENCE[NARROWED], False,
                           f"{', '.join(evidence)}: 1 of {n} candidates"),)
        if not evidence and not favoured:
            return targets
        left = len({t.target for t in kept})
        base = f"arity: {left} of {n} candidates" if evidence else ""
        ambiguous = left > 1
        conf = round(CONFIDENCE[NAME] / left, 3) if ambiguous else CONFIDENCE[NAME]
        ids = {t.target for t in favoured}
        out = []
        for t in kept:
            detail = "; ".join(x for x in (base, step if t.target in ids else "") if x)
            out.append(Target(t.target, NAME, conf, ambiguous, detail))
        return tuple(out)

    def _favoured(self, kept: list[Target], path: str, caller: str, lang: Language) -> tuple[str, list[Target]]:
        """The first place that holds some, not all, of the candidates (the caller's
        class hierarchy, its file, the files it imports), and those candidates."""
        if len(kept) > 1:
            for step, prefer in ((CLASS, self._in_caller_class), (FILE, self._in_file),
                                 (IMPORT, self._in_imported)):
                favoured = prefer(kept, path, caller, lang)
                if favoured and len(favoured) < len(kept):
                    return step, favoured
        return "", []

    def _own_copy(self, mine: Target, kept: list[Target], path: str, lang: Language) -> bool:
        """Is ``mine`` (of the caller's file) one copy of a class member the other
        candidates repeat under the same qualified name, in files the caller's file
        does not import (each test file's own ``Timer.tick``)?"""
        s = self.symbol(mine.target)
        if s is None or "." not in s.qualified_name:
            return False
        others = [o for t, o in self._candidates(kept) if t.target != mine.target]
        if not others or any(o.qualified_name != s.qualified_name or o.path == path for o in others):
            return False
        modules = self._imported_modules(path)
        if modules is None:  # imports the language does not map to files: it may see them
            return False
        owners = {o.parent for o in others}
        cls_name = s.qualified_name.rsplit(".", 1)[0].rsplit(".", 1)[-1]
        for _, files in modules:
            if any(o.path in files for o in others):
                return False
            member = self.module_member(files, cls_name)  # the other copy, re-exported?
            ids = {x.id for x in member} if isinstance(member, list) else set(member.ids) if member else set()
            if ids & owners:
                return False
        return True

    def _imported_modules(self, path: str) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
        """The modules a file's imports name (the module, and the submodule ``from m
        import x`` may bind), each with its files in the repository; None when the
        language maps some import to no path. Remembered per file."""
        return self._memoized((Lookup.IMPORTED, path), self._compute_imported)

    def _compute_imported(self, path: str) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
        lang = self.language_of(path)
        out: list[tuple[str, tuple[str, ...]]] = []
        for source, original in self.imports_of(path):
            module = lang.star_module_path(source, path)
            if module is None:
                return None
            sub = f"{source}{original}" if source.endswith(".") else f"{source}.{original}"
            for m in (module, lang.star_module_path(sub, path)):
                files = tuple(self.module_files(m)) if m else ()
                if files:
                    out.append((m, files))
        return tuple(out)

    def _overloaded(self, targets: tuple[Target, ...], path: str, caller: str, args: int,
                    argtypes: str) -> tuple[Target, ...]:
        """Targets of one qualified name several times (overloads, where the language has
        them) narrowed to those the call fits: the argument count, then the parameter
        types against what the call shows of its arguments' types (a literal's, a name's
        declared type), the most exact matches winning; every one of a set where none
        fits (a type read wrong loses no edge)."""
        groups: dict[str, list[Target]] = {}
        symbols: dict[str, SymbolInfo] = {}
        for t in targets:
            s = self.symbol(t.target)
            if s is None:
                return targets
            symbols[t.target] = s
            groups.setdefault(s.qualified_name, []).append(t)
        if all(len(g) < 2 for g in groups.values()):
            return targets
        given = [self._argument_type(a, path, caller) for a in argtypes.split(TYPE_SEP)] if argtypes else []
        enum = None if self.language_of(path).enum_from_number else self._is_enum

        def fits(arg: str, param: str) -> bool | None:
            return self._class_fits(arg, param, path)
        boxed_only = self.language_of(path).primitives_box_only
        keep: set[str] = set()
        for group in groups.values():
            if len(group) < 2:
                keep.update(t.target for t in group)
                continue
            fit = [t for t in group if args < 0 or self._takes(t.target, args) is not False] or group
            types = {t.target: self.param_types_of(symbols[t.target]) or () for t in fit}
            scored = [(_fit(types[t.target], given, enum, fits, boxed_only), t) for t in fit]
            viable = [(score, t) for score, t in scored if score >= 0] or [(0, t) for t in fit]
            best = max(score for score, _ in viable)
            chosen = [t for score, t in viable if score == best]
            known = bool(given) and all(g is not None for g in given)
            plain = [t for t in chosen if not any(map(is_template_type, types[t.target]))]
            if known and plain:  # as good with every argument's type known: a function over a template
                chosen = plain
            elif plain:  # a template whose arguments make it one of the functions: the function
                fixed = {_bare_types(types[t.target][:len(given)]) for t in plain}
                chosen = [t for t in chosen if t in plain or _bare_types(_deduced(types[t.target], given)) not in fixed]
            keep.update(t.target for t in chosen)
        return tuple(t for t in targets if t.target in keep)

    def _argument_type(self, shown: str, path: str, caller: str) -> tuple[str, bool] | None:
        """(type, certain) of an argument as the call shows it: a literal's type is
        certain; a name's is its declared type, whose pointers the facts may not show
        (``const char* s`` is declared ``char``); a name no local declares, an
        enumerator of an enum of this file or one it includes: that enum, certain."""
        if not shown:
            return None
        if shown == "=this":  # the caller's class, exactly
            cls = self.enclosing_class(caller)
            pointer = "*" if self.language_of(path).this_pointer else ""
            return (cls.name + pointer, True) if cls is not None else None
        if shown.startswith("@"):  # a call's result: the type its functions declare, if one
            declared = {normal_type(t) for f in self._callee_functions(shown[1:], path, caller, 1)
                        if (t := self.returns_of(f))}
            return (declared.pop(), False) if len(declared) == 1 else None
        if not shown.startswith("="):
            return shown, True
        name, address = shown[1:].rstrip("*"), shown.endswith("*")
        if "." in name:  # `entry.Key`: the field's declared type
            field = self._member_type(path, caller, *name.split(".", 1))
            return (normal_type(field) + ("*" if address else ""), False) if field is not None else None
        local = self.local_vars(path, caller, name)
        typed = [f.text for f in local if f.form is FactForm.TYPED]
        if not local and (field := self._field_type(caller, name)) is not None:
            return normal_type(field) + ("*" if address else ""), False  # a field of the caller's class
        if not local and not address:
            files = [path, *self._included_files(path)] if self.language_of(path).includes_files else [path]
            enums = set(self.enumerator_types(files, name))
            return (normal_type(enums.pop()), True) if len(enums) == 1 else None
        if len(set(typed)) != 1:  # declared in several blocks: the one type, if they agree
            return None
        return normal_type(typed[0]) + ("*" if address else ""), False

    def _member_type(self, path: str, caller: str, head: str, attr: str) -> str | None:
        """The one declared type of field ``attr`` of what ``head`` is: a local or a field
        of the caller's class of a declared class type, else a class (a static field)."""
        local = [f.text for f in self.local_vars(path, caller, head) if f.form is FactForm.TYPED]
        declared = local[0] if len(set(local)) == 1 else None if local else self._field_type(caller, head)
        lang = self.language_of(path)
        classes = self._classes_named(_bare(declared), path, lang) if declared else \
            [] if local else self._classes_named(head, path, lang)
        for cls in classes[:1] if len(classes) == 1 else ():
            for cid in self._mro(cls.id)[0]:
                owner = self.symbol(cid)
                types = {f.text for f in (self.attr_facts(owner, attr) if owner is not None else ())
                         if f.form is FactForm.TYPED}
                if types:
                    return types.pop() if len(types) == 1 else None
        return None

    def _field_type(self, caller: str, name: str) -> str | None:
        """The one type declared for field ``name`` of the caller's class or a base of
        it (`Write(Serial)` in a method of Header, `uint Serial;`), if one."""
        cls = self.enclosing_class(caller)
        if cls is None:
            return None
        for cid in self._mro(cls.id)[0]:
            owner = self.symbol(cid)
            facts = self.attr_facts(owner, name) if owner is not None else ()
            declared = {f.text for f in facts if f.form is FactForm.TYPED}
            if declared:
                return declared.pop() if len(declared) == 1 else None
        return None

    def _class_fits(self, arg: str, param: str, path: str) -> bool | None:
        """Can a value of repository class ``arg`` be passed as ``param``: a class of
        the repository it is or derives from? None when either is no repository class."""
        lang = self.language_of(path)
        have = self._classes_named(_bare(arg), path, lang)
        want = {c.id for c in self._classes_named(_bare(param), path, lang)}
        if not have or not want:
            return None
        return any(want & set(self._mro(c.id)[0]) for c in have)

    def _is_enum(self, type_name: str) -> bool:
        """Is this type, as a parameter declares it, an enum of the repository (and
        nothing else of that name)?"""
        found = self.named(_bare(type_name))
        return bool(found) and all(s.kind == "enum" for s in found if s.kind in CLASS_KINDS) and any(
            s.kind == "enum" for s in found)

    def _takes(self, symbol_id: str, args: int) -> bool | None:
        """Does the function take ``args`` arguments? None: unknown."""
        s = self.symbol(symbol_id)
        bounds = self.params_of(s) if s is not None else None
        if bounds is None:
            return None
        least, most = bounds
        return least <= args and (most < 0 or args <= most)

    def _candidates(self, kept: list[Target]) -> list[tuple[Target, SymbolInfo]]:
        return [(t, s) for t in kept if (s := self.symbol(t.target)) is not None]

    def _in_caller_class(self, kept: list[Target], path: str, caller: str, lang: Language) -> list[Target]:
        """The candidates that are members of the caller's class or its bases."""
        cls = self.enclosing_class(caller)
        if cls is None:
            return []
        mro = set(self._mro(cls.id)[0])
        return [t for t, s in self._candidates(kept) if s.parent in mro]

    def _in_file(self, kept: list[Target], path: str, caller: str, lang: Language) -> list[Target]:
        """The candidates defined in the caller's file."""
        return [t for t, s in self._candidates(kept) if s.path == path]

    def _in_imported(self, kept: list[Target], path: str, caller: str, lang: Language) -> list[Target]:
        """The candidates defined in a file the caller's file imports (the module an
        import names, or the submodule it binds)."""
        files = {f for _, found in self._imported_modules(path) or () for f in found}
        if not files:
            return []
        return [t for t, s in self._candidates(kept) if s.path in files]



def _fit(params: tuple[str, ...] | None, given: list[tuple[str, bool] | None],
         is_enum: Callable[[str], bool] | None = None,
         class_fits: Callable[[str, str], bool | None] | None = None,
         boxed_only: bool = False) -> int:
    """How a call's arguments fit a function's parameters: -1 when one cannot convert
    (a string literal to a number, a number to a pointer, with ``is_enum`` a number to
    an enum; with ``boxed_only``, Java's and C#'s rule, a class to a primitive unless it
    boxes one: a ``Matcher`` is no ``boolean``) or a template's type parameter is
    deduced two ways (``T`` from an ``int`` and from an ``XMLError``), else the exact
    matches; generic arguments do not count (``Matcher<T>`` is a ``Matcher<? super T>``)."""
    if params is None:
        return 0
    score = 0
    deduced: dict[str, tuple[str, bool]] = {}
    for param, arg in zip(params, given, strict=False):
        if arg is None:
            continue
        text, certain = arg
        if is_template_type(param):
            seen = deduced.setdefault(param, arg)
            if seen is not arg and not _same_type(seen, arg):
                return -1
            score += 1
        elif _erased(param) == _erased(text) or not certain and _erased(param).rstrip("*") == _erased(text).rstrip("*"):
            score += 1
        elif boxed_only and _erased(param) in _PRIMITIVES and _erased(text)[:1].isupper() \
                and _erased(text) not in _BOXED:
            return -1
        elif certain and (not _converts(text, param) or is_enum is not None and text in ARITHMETIC_TYPES
                          and is_enum(param) or class_fits is not None and text not in ARITHMETIC_TYPES
                          and "*" not in text and class_fits(text, param) is False):
            return -1
    return score


def _same_type(a: tuple[str, bool], b: tuple[str, bool]) -> bool:
    """Could two arguments be of one type? (a declared type's pointers may not show)"""
    if a[1] and b[1]:
        return _bare(a[0]) == _bare(b[0])
    return _bare(a[0]).rstrip("*") == _bare(b[0]).rstrip("*")


def _deduced(params: tuple[str, ...], given: list[tuple[str, bool] | None]) -> tuple[str, ...] | None:
    """A template's parameter types at the call's arguments with each of its own type
    parameters replaced by the type the arguments deduce for it (``<T>`` at two
    arguments, one of them ``bool``: ``bool`` at both); None when one is left
    undeduced or is deduced two ways (or a deduced argument's type is uncertain)."""
    deduced: dict[str, str] = {}
    for param, arg in zip(params, given, strict=False):
        if is_template_type(param) and arg is not None:
            text, certain = arg
            if not certain or deduced.setdefault(param, text) != text:
                return None
    out = []
    for param in params[:len(given)]:
        if is_template_type(param):
            if param not in deduced:
                return None
            out.append(deduced[param])
        else:
            out.append(param)
    return tuple(out) if len(out) == len(given) else None


# Java's and C#'s primitive types, and the classes that unbox to one
_PRIMITIVES = frozenset({"boolean", "byte", "short", "int", "long", "float", "double", "char", "bool",
                         "sbyte", "ushort", "uint", "ulong", "decimal"})
_BOXED = frozenset({"Boolean", "Byte", "Short", "Integer", "Long", "Float", "Double", "Character",
                    "Nullable", "T", "E", "K", "V", "U", "R"})  # one-letter names: a type parameter


def _erased(t: str) -> str:
    """A type without its namespace and its generic arguments (``a.Matcher<? super T>`` →
    ``Matcher``)."""
    return _bare(t.split("<", 1)[0].strip()) if "<" in t and not t.startswith("<") else _bare(t)


def _bare(t: str) -> str:
    """A type without its namespace or package (``net::Status`` and ``Status`` under a
    ``using``: one type)."""
    return t.rsplit("::", 1)[-1].rsplit(".", 1)[-1]


def _bare_types(types: tuple[str, ...] | None) -> tuple[str, ...] | None:
    return None if types is None else tuple(map(_bare, types))


def _converts(arg: str, param: str) -> bool:
    """Can a literal of type ``arg`` be passed where ``param`` is declared?"""
    pointer = param.endswith("*")
    if arg in ("char*", "nullptr"):  # a string literal, a null pointer: a pointer or a class
        return pointer or param not in ARITHMETIC_TYPES
    return not pointer  # a number, a char, a bool: anything but a pointer
