"""The graph's records: what it is fed (``SymbolInfo``), what it finds (``CallSite``,
``Edge``, ``TypeRef``), and the typed states of resolution (``Reason``, ``Value``,
``FactForm``), with the confidence of each step.

The enums are ``StrEnum``: a reason is written, compared and sent as the same string
as ever (``"self"``, ``"import"``), in JSON output and in what users see.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from ..model import CONTAINER_KINDS
from ..model import FUNCTION_KINDS as _FUNCTION_KINDS

CALLABLE_KINDS = frozenset({*_FUNCTION_KINDS, *CONTAINER_KINDS}) - {"module"}
CLASS_KINDS = frozenset(CONTAINER_KINDS - {"module"})
FUNCTION_KINDS = _FUNCTION_KINDS


class Reason(StrEnum):
    """The step of resolution that found an edge (module docstring of ``graph``)."""

    LOCAL = "local"  # a definition in an enclosing scope, or a local variable's value
    SELF = "self"  # self / this, along the class and its bases
    SUPER = "super"  # super() / base / parent, along the bases
    IMPORT = "import"  # a name bound by an import, a namespace, an included file
    TYPE = "type"  # a value whose type is known
    PACKAGE = "package"  # a definition of the same package folder (Go, Java, C#)
    SUBCLASS = "subclass"  # a method a mixin calls on self, defined by its subclasses
    # a call through an interface type: the method of the one class in the repository
    # that implements it (beside the edge to the interface member)
    SOLE_IMPLEMENTATION = "sole-implementation"
    UNIQUE = "unique"  # the only method of that name in the repository
    # a name candidate the evidence singles out: the caller file's own copy of a class
    # repeated elsewhere out of its imports' reach (resolve/narrow); why in ``detail``
    NARROWED = "narrowed"
    NAME = "name"  # by name only: every candidate


# confidence of an edge, per step
CONFIDENCE: dict[Reason, float] = {
    Reason.LOCAL: 0.95, Reason.SELF: 0.95, Reason.SUPER: 0.95, Reason.IMPORT: 0.9,
    Reason.TYPE: 0.9, Reason.PACKAGE: 0.85, Reason.SOLE_IMPLEMENTATION: 0.8, Reason.SUBCLASS: 0.6,
    Reason.UNIQUE: 0.6, Reason.NARROWED: 0.6,
    Reason.NAME: 0.3,
}
# What users see by default (call hierarchy, code lens and hover counts, ``codeloupe calls``
# and ``path``, ``codeloupe.server.callChain``): edges found by scope, self/super, imports,
# types, a unique method name or a name candidate narrowed by evidence. Name-match candidates (``name``: 0.3 or less) stay in the
# graph, are counted apart, and are shown with a minimum of 0 (bench/eval_graph.py: at
# >= 0.5 precision 0.98-1.0, recall 0.91-1.0; over every edge precision 0.55-0.89).
DEFAULT_MIN_CONFIDENCE = 0.5


@dataclass(frozen=True, slots=True)
class SymbolInfo:
    """What the graph knows of a symbol (a row of the index's symbols table)."""

    id: str
    path: str
    name: str
    qualified_name: str
    kind: str
    parent: str | None
    start_line: int
    end_line: int
    language: str


class CallSite(NamedTuple):  # a tuple: hashed in C (sites key several indexes)
    """One call in the code: where, what name on which receiver, in which symbol."""

    path: str
    line: int
    col: int
    name: str
    receiver: str
    caller: str  # id of the enclosing symbol
    args: int = -1  # the number of arguments passed, -1 unknown (extract.arity)
    argtypes: str = ""  # where functions overload: each argument's type as shown (extract.arity)


class Target(NamedTuple):
    """Where a resolved call goes: an edge without its site (sites resolved alike share
    one tuple of these)."""

    target: str
    reason: Reason
    confidence: float
    ambiguous: bool
    # the evidence that narrowed name candidates ("arity, import; 1 of 3"), else ""
    detail: str = ""


class Edge:
    """A call site resolved to one target. Compared and hashed by identity (each edge
    is one object, held by two indexes); treat it as immutable. A plain slots class:
    a graph holds hundreds of thousands and a frozen dataclass is slow to build."""

    __slots__ = ("site", "target", "reason", "confidence", "ambiguous", "detail")

    def __init__(self, site: CallSite, target: str, reason: Reason, confidence: float,
                 ambiguous: bool = False, detail: str = "") -> None:
        self.site = site
        self.target = target  # symbol id
        self.reason = reason
        self.confidence = confidence
        self.ambiguous = ambiguous
        self.detail = detail  # Target.detail

    def __repr__(self) -> str:
        return (f"Edge(site={self.site!r}, target={self.target!r}, reason={str(self.reason)!r}, "
                f"confidence={self.confidence!r}, ambiguous={self.ambiguous!r})")


@dataclass(frozen=True, slots=True)
class TypeRef:
    """A use of a class that is not a call: a base class or a type annotation."""

    path: str
    line: int
    col: int
    name: str
    receiver: str
    enclosing: str
    kind: str  # "base" or "type"


# Bumped by every change to resolution that changes the edges a map holds: a map saved
# by another (the same release installed from a newer commit) is built again, never
# served with the old edges (graph.persist checks it beside FORMAT and the version).
# 2: a class-typed value's call runs its subclasses' overrides, unless the value is exact;
# 3: a method run by dispatch is seen from every crate (a bench crate's impl of a trait);
# 4: a bare call on the implicit self runs the overrides too; an override that cannot
#    take the call's argument count is dropped; 5: Ruby modules reopened across files are one;
# 6: a Go type assertion `v.(T)` is a T; 7: an include offers no C definition its
#    translation unit leaves out (behind `#ifdef M`, M an opt-in the unit does not define),
#    an include found elsewhere is the nearest one, C++ overloads by cast argument types,
#    no number → enum, one deduction per template parameter; 8: a JS relative require
#    names one place; JS runtime globals (`process`, `Math`) undeclared are the runtime's;
# 9: Rust `crate::x::f()` calls, a bench/test crate's `use <crate>::X` from the library's
#    root, `super::Trait` bounds, a bodiless trait method's return type; 10: TypeScript
#    inline callbacks' parameters typed by the callee's function-typed parameter;
# 11: Java's declared package across source roots, `import static a.b.C.m`; 12: Java/C#
#    plain type names no file declares (nor a type parameter) are outside types; an outside
#    annotation holds where the assigned values tell nothing; 13: a C++ call argument's
#    type is the declared return type of the function it calls; 14: a bare name a class
#    with an outside base may inherit is an import or a class of that name first;
# 15: a `this` argument is the caller's class, and a class argument fits a class
#    parameter only as that class or a subclass; 16: a path from the top (`::A::B.f`)
# 17: Ruby `include M` at a file's top level gives the top-level object M's methods;
# 18: Rust inherent methods before trait methods of a name, a trait's calls never inherent
# 19: a receiver narrowed by a type test; types declared together, the most specific
# 20: an overload's argument that is a field of the caller's class; Ruby module functions
#    through a lexical constant; Rust paths from the crate root, `self` and `super`
# 21: C# calls dispatched to overrides; an argument `a.f` typed by the field's declaration
# 22: a field declared as a class given only values made there is exactly those; a C++
#    class's methods defined where its namespace is not seen
# 23: TypeScript `this: T`; Ruby classes reopened across files are one class, an outer class's
#    methods not reached bare from a module nested in it, `super` never the method itself
RESOLUTION = 23


class ValueKind(StrEnum):
    """What a value found during resolution is."""

    INSTANCE = "inst"  # instances of these classes
    CLASS = "cls"  # these classes themselves
    MODULE = "mod"  # a module made of these files
    FUNCTION = "fn"  # these functions
    ARRAY = "arr"  # a sequence of instances of these classes
    MAPPING = "map"  # a mapping whose values are instances of these classes (keys unknown)
    PAIRS = "pairs"  # a sequence of pairs whose second items are instances: `d.items()`
    WRAPPED = "wrap"  # an Option / Result of instances of these classes: `?`, `unwrap()` open it
    EXTERNAL = "ext"  # known to lie outside the repository (no ids)


class Value(NamedTuple):
    """A value during resolution: its kind and the ids it is about (class, function or
    symbol ids; file paths for a module). None stands for "unknown"."""

    kind: ValueKind
    ids: tuple[str, ...]
    # an instance made right there by calling its class (`Foo()`, `new Foo()`,
    # `Foo.new`): exactly that class, so no subclass's override runs on it
    exact: bool = False


EXTERNAL = Value(ValueKind.EXTERNAL, ())


def either_value(values: list[Value | None]) -> Value | None:
    """A value that is one of these: the repository ones of the first kind among them
    (``c ? option : null`` → the option); EXTERNAL when every one is."""
    kind: ValueKind | None = None
    ids: list[str] = []
    exact = True
    for value in values:
        if value is None or value == EXTERNAL:
            continue
        if kind is None or value.kind is kind:
            kind = value.kind
            ids.extend(i for i in value.ids if i not in ids)
            exact = exact and value.exact
    if ids:
        return Value(kind, tuple(ids), exact)  # type: ignore[arg-type]
    return EXTERNAL if values and all(v == EXTERNAL for v in values) else None


def called_or_read(classes: tuple[str, ...], is_call: bool) -> Value:
    """Classes called (an instance of exactly one of them: exact) or read (the classes)."""
    return Value(ValueKind.INSTANCE, classes, exact=True) if is_call else Value(ValueKind.CLASS, classes)


class FactForm(StrEnum):
    """How a resolution fact says what a variable holds."""

    TYPED = "t"  # a declared type: `x: Foo`, `Foo x`
    DECLARED = "d"  # declared without a type (`var x`, `auto x`)
    ASSIGNED = "v"  # an assigned expression: `x = Foo()`
    ELEMENTS = "e"  # the elements of a value: `for x in xs`, a callback's parameter
    ITEM = "i"  # an element put into the container: `xs.append(x)`
    KEYED = "k"  # a value stored under a key of the container: `d[k] = x`
    SECOND = "2"  # the second item of each element of a value: `for k, v in d.items()`
    UNWRAPPED = "u"  # the value a wrapper holds: Rust `if let Some(x) = e`, `while let Ok(x) = e`
    # an inline callback's parameter: what the callee's parameter's function type says
    # there (text: the callee, TYPE_SEP, "<argument> <parameter>"; extract.callbacks)
    CALLBACK = "c"


class Fact(NamedTuple):
    """What one fact says of a variable: ``form`` and the type or expression as written."""

    form: FactForm
    text: str


class AttrFact(NamedTuple):
    """A fact of an attribute of a class, and the scope that wrote it (a method)."""

    form: FactForm
    text: str
    scope: str
