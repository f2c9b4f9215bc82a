"""Returns: what calling a function gives, from its declared return type or, without
one, from every ``return`` expression it has (followed through other un-annotated
functions to a depth bound, remembered with the keys each read), and what a call of a
bare name gives. A part of the ``Resolver``: it asks the evaluator (``values``) for
the value of each expression and type."""

from __future__ import annotations

from ..memo import Lookup
from ..model import EXTERNAL, SymbolInfo, Value, ValueKind
from .imports import Imports
from .reads import MAX_DEPTH
from .text import type_name

INSTANCE, CLASS, MODULE, FUNCTION, ARRAY = (ValueKind.INSTANCE, ValueKind.CLASS, ValueKind.MODULE,
                                            ValueKind.FUNCTION, ValueKind.ARRAY)
CONTAINERS = (ARRAY, ValueKind.MAPPING, ValueKind.PAIRS)  # the language's own containers of repository instances
RETURNS = Lookup.RETURNS
_DECLARED_KINDS = (INSTANCE, ARRAY, ValueKind.WRAPPED)  # what a declared return type may give
_SELF_TYPES = ("Self", "this", "typing.Self")  # a return type that is the class itself


class Returns(Imports):
    """What calls return (a part of the ``Resolver``; ``Values`` builds on it)."""

    def _returns(self, funcs: list[SymbolInfo], depth: int) -> Value | None:
        """What calling these functions returns."""
        return self._memoized((RETURNS, tuple(f.id for f in funcs)), self._compute_returns, depth + 1)

    def _compute_returns(self, ids: tuple[str, ...], depth: int) -> Value | None:
        if depth > MAX_DEPTH:
            return self._cut()
        out: list[str] = []
        kind: ValueKind | None = None
        external = False
        for f in self._symbols_of(ids):
            text = self.returns_of(f)
            if not text:
                # no declared type: what it returns (`return new Foo()`, `return this`,
                # `return self.items`); only outside values: outside
                returned = self.returned_of(f)
                outside = 0
                for expr in returned:
                    value = self._expr_value(expr, f.path, f.id, depth + 1)
                    if value == EXTERNAL:
                        outside += 1
                    elif value is not None and value.kind in (INSTANCE, *CONTAINERS) and (
                            kind is None or kind is value.kind):
                        kind = value.kind
                        out.extend(value.ids)
                external = external or bool(returned) and outside == len(returned)
                continue
            if text.strip() in _SELF_TYPES or type_name(text) == "Self":
                cls = self.enclosing_class(f.id)
                if cls is not None:
                    out.append(cls.id)
                    kind = INSTANCE
                continue
            value = self._type_value(text, f.path, f.id, depth + 1)
            if value == EXTERNAL:
                external = True
            elif value is not None and value.kind in _DECLARED_KINDS and (kind is None or kind is value.kind):
                kind = value.kind  # instances, a sequence of them (`@returns {Command[]}`), a `Result<Self>`
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
        if value.kind is MODULE:  # a module called: the class or function it exports whole
            value = self.module_callable(value.ids, depth + 1)
            if value is None:
                return None
        kind, ids = value.kind, value.ids
        if kind is CLASS:
            return Value(INSTANCE, ids, exact=True)
        if kind is FUNCTION:
            return self._returns(self._symbols_of(ids), depth + 1)
        return None
