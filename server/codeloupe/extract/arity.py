"""Arity: how many arguments a definition takes and a call passes, read from the
tree where the language says how (``Language.parameters_field`` and the node sets
beside it). The resolver narrows name-only candidates with it
(``graph.resolve.narrow``).

A definition's range is a ``params`` fact: ``source`` is ``"<least> <most>"``, the
most ``-1`` when it takes any number (``*args``, ``...T``); a method's first
parameter naming the instance (``self``) is not counted. A call's count goes in
its reference's ``source`` (``"2"``), left empty when unknown (a spread argument).
"""

from __future__ import annotations

from tree_sitter import Node

from ..languages import Language
from ..model import Reference, Symbol
from .captures import Def

UNBOUNDED = -1
_CALL_DEPTH = 3  # levels above a call's name searched for the call node


def param_facts(path: str, lang: Language, real: list[Def]) -> list[Reference]:
    """A ``params`` fact per function or method whose parameters the tree shows."""
    if not lang.parameters_field:
        return []
    out: list[Reference] = []
    for d in real:
        sym: Symbol | None = d.symbol
        if sym is None or sym.kind not in ("function", "method"):
            continue
        found = parameter_range(d.node, lang, sym.kind == "method")
        if found is None:
            continue
        least, most = found
        out.append(Reference(path=path, kind="params", name=sym.name, receiver="", line=0, col=0,
                             enclosing=sym.id, source=f"{least} {most}"))
    return out


def parameter_range(node: Node, lang: Language, method: bool) -> tuple[int, int] | None:
    """(least, most) arguments a definition takes (most ``UNBOUNDED``: any number);
    None when unknown (no parameter list, a decorated definition)."""
    if node.parent is not None and node.parent.type in lang.arity_opaque_parents:
        return None
    params = node.child_by_field_name(lang.parameters_field)
    if params is None:
        return None
    least = most = 0
    variadic = False
    first = True
    for p in params.named_children:
        if p.type in lang.skipped_parameter_nodes:
            continue
        if first and method and _names_instance(p, lang):
            first = False
            continue
        first = False
        if p.type in lang.variadic_parameter_nodes:
            variadic = True
            continue
        names = len(p.children_by_field_name("name")) or 1  # Go `a, b int`
        most += names
        if p.type not in lang.optional_parameter_nodes:
            least += names
    return least, UNBOUNDED if variadic else most


def _names_instance(p: Node, lang: Language) -> bool:
    """Is the parameter the instance or class a method runs on (``self``, ``cls``)?"""
    ident = p if p.type == "identifier" else next((c for c in p.named_children if c.type == "identifier"), None)
    if ident is None or ident.text is None:
        return False
    return ident.text.decode("utf-8", "replace") in lang.instance_names | lang.class_names


def call_arity(name_node: Node, lang: Language) -> str:
    """The number of arguments of the call whose called name is ``name_node``, as
    text; "" when unknown (no argument list found, a spread argument)."""
    if not lang.argument_list_nodes:
        return ""
    node = name_node.parent
    for _ in range(_CALL_DEPTH):
        if node is None:
            return ""
        args = node.child_by_field_name("arguments")
        if args is not None:
            if args.start_byte <= name_node.start_byte < args.end_byte or args.type not in lang.argument_list_nodes:
                return ""
            count = 0
            for a in args.named_children:
                if a.type in lang.spread_argument_nodes:
                    return ""
                if a.type not in lang.skipped_parameter_nodes:
                    count += 1
            return str(count)
        node = node.parent
    return ""
