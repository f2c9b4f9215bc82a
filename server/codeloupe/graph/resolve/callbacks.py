"""Callbacks: the value of an inline callback's parameter from the function type of
the parameter it is passed as (``extract.callbacks``, TypeScript), as tsserver infers
it from the context: ``operate((source, subscriber) => ...)`` where ``operate`` takes
``init: (liftedSource: Observable<T>, subscriber: Subscriber<R>) => void``. A part of
the ``Resolver``: it asks the evaluator (``values``) for the callee and the types."""

from __future__ import annotations

from ...model import TYPE_SEP
from ..model import CLASS_KINDS, FUNCTION_KINDS, SymbolInfo, Value, ValueKind, either_value
from .reads import MAX_DEPTH
from .returns import Returns

_NEW = "new "


class Callbacks(Returns):
    """Inline callbacks' parameters (a part of the ``Resolver``; ``Values`` builds on it)."""

    def _callback_value(self, text: str, path: str, scope: str, depth: int) -> Value | None:
        """A ``CALLBACK`` fact's value: ``text`` is the callee as written, ``TYPE_SEP``,
        and the positions of the argument and of the callback's parameter."""
        if depth > MAX_DEPTH:
            return self._cut()
        callee, _, where = text.partition(TYPE_SEP)
        positions = where.split()
        if len(positions) != 2 or not all(p.isdigit() and len(p) < 4 for p in positions):
            return None
        arg, param = int(positions[0]), int(positions[1])
        values: list[Value | None] = []
        for f in self._callee_functions(callee, path, scope, depth + 1):
            per_param = self.callback_types_of(f)
            types = per_param[arg].split(TYPE_SEP) if arg < len(per_param) and per_param[arg] else []
            if param < len(types) and types[param]:
                values.append(self._type_value(types[param], f.path, f.id, depth + 1))
        return either_value(values) if values else None

    def _callee_functions(self, callee: str, path: str, scope: str, depth: int) -> list[SymbolInfo]:
        """The functions a callee as written names: a function, a method of a known
        receiver's class, a class's constructors after ``new``."""
        if callee.startswith(_NEW):
            value = self._expr_value(callee[len(_NEW):], path, scope, depth)
            if value is None or value.kind is not ValueKind.CLASS:
                return []
            out: list[SymbolInfo] = []
            for cls in self._symbols_of(value.ids):
                out.extend(c for c in self._constructors(cls) if c.kind in FUNCTION_KINDS)
            return out
        receiver, dot, name = callee.rpartition(".")
        if not dot:
            value = self._expr_value(callee, path, scope, depth)
            return self._symbols_of(value.ids) if value is not None and value.kind is ValueKind.FUNCTION else []
        value = self._expr_value(receiver, path, scope, depth)
        if value is None or value.kind not in (ValueKind.INSTANCE, ValueKind.CLASS, ValueKind.MODULE):
            return []
        if value.kind is ValueKind.MODULE:
            member = self.module_member(value.ids, name, depth)
            return [s for s in member if s.kind in FUNCTION_KINDS] if isinstance(member, list) else []
        out = []
        for cid in value.ids:
            cls = self.symbol(cid)
            if cls is None or cls.kind not in CLASS_KINDS:
                continue
            found, _ = self._lookup(cid, name)
            out.extend(s for s in found if s.kind in FUNCTION_KINDS and s not in out)
        return out
