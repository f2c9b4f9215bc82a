"""What the methods of a language's own containers give: a list or array, a dict or
map, the pairs of ``d.items()``, Rust's ``Option`` / ``Result``. No repository code
runs in them; a pure function of the value and the method's name (a part of the
evaluator, ``values``)."""

from __future__ import annotations

from ...languages import (
    ONE_ELEMENT_METHODS,
    SAME_SEQUENCE_METHODS,
    UNWRAP_METHODS,
    WRAPPER_SAME_METHODS,
)
from ...languages.common import MAPPING_PAIRS_METHODS, MAPPING_VALUE_METHODS, MAPPING_VALUES_METHODS
from ..model import EXTERNAL, Value, ValueKind

INSTANCE, ARRAY, MAPPING = ValueKind.INSTANCE, ValueKind.ARRAY, ValueKind.MAPPING
PAIRS, WRAPPED = ValueKind.PAIRS, ValueKind.WRAPPED
BUILTIN_CONTAINERS = frozenset({ARRAY, MAPPING, PAIRS, WRAPPED})


def container_member(value: Value, attr: str, is_call: bool) -> Value:
    """``value.attr`` (a call when ``is_call``) on one of ``BUILTIN_CONTAINERS``: its
    elements, itself again, or what lies outside the repository."""
    kind, ids = value.kind, value.ids
    if kind is WRAPPED:  # `open()?`, `.unwrap()`: what it holds; its other methods are std's
        if attr == "?" or is_call and attr in UNWRAP_METHODS:
            return Value(INSTANCE, ids)
        return value if is_call and attr in WRAPPER_SAME_METHODS else EXTERNAL
    if kind is ARRAY:  # the methods of the language's array / list
        if is_call and attr in SAME_SEQUENCE_METHODS:
            return value
        if is_call and attr in ONE_ELEMENT_METHODS:
            return Value(INSTANCE, ids)
        return EXTERNAL
    if kind is MAPPING:  # the methods of the language's dict / map
        if is_call and attr in MAPPING_VALUE_METHODS:
            return Value(INSTANCE, ids)
        if is_call and attr in MAPPING_VALUES_METHODS:
            return Value(ARRAY, ids)
        if is_call and attr in MAPPING_PAIRS_METHODS:
            return Value(PAIRS, ids)
        return value if is_call and attr in SAME_SEQUENCE_METHODS else EXTERNAL
    return EXTERNAL  # PAIRS
