"""Raw references into ``Reference`` records: the innermost symbol around each, the
binding an import makes, and the resolution facts without a position."""

from __future__ import annotations

import bisect

from tree_sitter import Node

from ..languages import Language
from ..model import CONTAINER_KINDS, FACT_KINDS, Reference
from .captures import Def, RawRef
from .symbols import FileUnit

_PARAMETER_DEPTH = 6  # levels above a fact's node searched for a parameter declaration


def make_references(unit: FileUnit, ordered: list[Def], raw: list[RawRef]) -> list[Reference]:
    """The references of the file, in match order; facts carry line 0 and their
    enclosing symbol. A fact at the top level that the language says is no variable
    of the file (a prototype's parameter) is dropped."""
    lang, src, module_id = unit.lang, unit.src, unit.module_id
    starts = [d.start for d in ordered]
    references: list[Reference] = []
    for kind, node, name, receiver, source, original in raw:
        if kind == "import":
            name = lang.import_binding(name.strip("'\"`<>"))
        enclosing = _enclosing(ordered, starts, node.start_byte, module_id, kind == "base")
        fact = kind in FACT_KINDS
        if fact:
            name, receiver = lang.fact_target(name, receiver)  # Ruby `@x = ...`: the instance's `x`
            if enclosing == module_id and lang.drops_module_fact(_in_parameter(node, lang)):
                continue  # a parameter of a prototype (C: every fact is a function's)
        sp = node.start_point
        references.append(
            Reference(
                path=unit.path,
                kind=kind,
                name=name,
                receiver=receiver,
                line=0 if fact else sp[0] + 1,
                col=0 if fact else src.column(sp[0], sp[1]),
                enclosing=enclosing,
                source=source,
                original=original,
            )
        )
    return references


def _enclosing(ordered: list[Def], starts: list[int], pos: int, module_id: str, container: bool = False) -> str:
    """The id of the innermost symbol containing byte ``pos`` (namespaces are not
    symbols: their nearest enclosing symbol), else the module unit's; with
    ``container``, the innermost class-like one (a base stated in a method, a Ruby
    ``included`` hook's, is its class's)."""
    i = bisect.bisect_right(starts, pos) - 1
    while i >= 0:
        d: Def | None = ordered[i]
        if d.start <= pos < d.end:
            while d is not None and (d.symbol is None or container and d.symbol.kind not in CONTAINER_KINDS):
                d = d.parent
            return d.symbol.id if d is not None and d.symbol is not None else module_id
        i -= 1
    return module_id


def _in_parameter(node: Node, lang: Language) -> bool:
    """Is the node inside a parameter declaration (within a few levels)?"""
    if not lang.parameter_nodes:
        return False
    p = node.parent
    for _ in range(_PARAMETER_DEPTH):
        if p is None:
            return False
        if p.type in lang.parameter_nodes:
            return True
        p = p.parent
    return False
