"""JS/TS: a local closure's parameters take the values its defining function passes.

``const parse = (arg, value) => {...}`` inside a function that calls it
``parse(declared, 1)``: ``arg`` holds ``declared`` (an ``assign`` fact in the closure,
read in the scope of the function defining it, which the closure sees). Only calls
made directly in that function, of arguments that are names, members, subscripts,
calls or ``new``, and none that the closure binds itself. The node types come from
the language (``Language.closure_declarations`` and the like)."""

from __future__ import annotations

import re

from tree_sitter import Node, QueryCursor

from ..languages import Language, query
from ..model import FUNCTION_KINDS, Reference
from .captures import FACT_LIMIT, Def
from .source import Source

_LOCAL_FACTS = frozenset({"typed", "assign", "elem"})
_CALLS = "(call_expression function: (identifier) @callee arguments: (arguments) @args)"
_HEAD = re.compile(r"[A-Za-z_$][\w$]*")
# closure name → (its definition, its parameter names, its function node)
_Closures = dict[str, tuple[Def, list[str | None], Node]]


def closure_param_facts(path: str, lang: Language, real: list[Def], references: list[Reference],
                        src: Source) -> list[Reference]:
    """``assign`` facts of local closures' parameters, from the calls their defining
    functions make."""
    closures, owners = _closures(lang, real, src)
    if not closures:
        return []
    calls = query(lang.grammar, _CALLS)
    bound: dict[str, set[str]] = {}
    for r in references:
        if r.kind in _LOCAL_FACTS:
            bound.setdefault(r.enclosing, set()).add(r.name)
    out: list[Reference] = []
    for key, named in closures.items():
        owner = owners[key]
        inner = [d for d in real if d is not owner and owner.start <= d.start and d.end <= owner.end]
        for _pattern, captures in QueryCursor(calls).matches(owner.node):
            callee, args = captures["callee"][0], captures["args"][0]
            found = named.get(src.node_text(callee))
            if found is None:
                continue
            at = callee.start_byte
            if any(i.start <= at < i.end for i in inner):  # called from another function
                continue
            out += _argument_facts(path, lang, found, args, bound, src)
    return out


def _closures(lang: Language, real: list[Def], src: Source) -> tuple[dict[int, _Closures], dict[int, Def]]:
    """The local closures with parameters, by the node id of the function defining them."""
    closures: dict[int, _Closures] = {}
    owners: dict[int, Def] = {}
    for d in real:
        owner = d.owner
        if (d.symbol is None or d.symbol.kind != "function" or owner is None or owner.symbol is None
                or owner.symbol.kind not in FUNCTION_KINDS
                or d.node.type not in lang.closure_declarations):
            continue
        fn = _function_node(d.node, lang)
        params = _params(fn, src) if fn is not None else []
        if any(params):
            closures.setdefault(owner.node.id, {})[d.name] = (d, params, fn)
            owners[owner.node.id] = owner
    return closures, owners


def _argument_facts(path: str, lang: Language, closure: tuple[Def, list[str | None], Node], args: Node,
                    bound: dict[str, set[str]], src: Source) -> list[Reference]:
    """One call of a closure: a fact per parameter whose argument is worth following."""
    d, params, fn = closure
    assert d.symbol is not None
    own = bound.get(d.symbol.id, set()) | {p for p in params if p}
    values = [a for a in args.named_children if a.type != "comment"]
    out: list[Reference] = []
    for name, arg in zip(params, values, strict=False):
        if name is None or arg.type not in lang.argument_nodes:
            continue
        text = src.node_text(arg)
        head = _HEAD.match(text)
        if head is None or head.group(0) in own or (head.group(0) == "this" and fn.type != "arrow_function"):
            continue
        out.append(Reference(path, "assign", name, "", 0, 0, d.symbol.id, text[:FACT_LIMIT]))
    return out


def _function_node(decl: Node, lang: Language) -> Node | None:
    if decl.type in lang.function_nodes:
        return decl
    for child in decl.named_children:
        if child.type == "variable_declarator":
            value = child.child_by_field_name("value")
            if value is not None and value.type in lang.function_nodes:
                return value
    return None


def _params(fn: Node, src: Source) -> list[str | None]:
    """A function's parameter names by position (None: a destructuring pattern)."""
    single = fn.child_by_field_name("parameter")
    if single is not None:
        return [src.node_text(single)] if single.type == "identifier" else []
    params = fn.child_by_field_name("parameters")
    out: list[str | None] = []
    for p in params.named_children if params is not None else ():
        if p.type == "comment":
            continue
        if p.type in ("required_parameter", "optional_parameter"):  # TypeScript
            p = p.child_by_field_name("pattern") or p
        if p.type == "assignment_pattern":
            p = p.child_by_field_name("left") or p
        if p.type == "rest_pattern":
            break
        out.append(src.node_text(p) if p.type == "identifier" else None)
    return out
