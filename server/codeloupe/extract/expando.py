"""JS objects and prototypes (``Language.expando_members``): the members a file's top
level assigns to an object or a constructor function become that object's methods.

``app.set = function set() {}`` makes ``set`` a method of ``app`` (qualified name
``app.set``), ``View.prototype.render = function () {}`` a method of ``View``
(``View.render``). The container is the file's own top-level definition of that name:
a class stays a class, a function with members becomes a class (as tsserver shows an
ES5 constructor), and a variable (``var app = exports = module.exports = {}``)
becomes an ``object`` symbol at its declaration. Besides the symbols, the facts:

* ``module.exports = app``: a module-level variable (``Language.exports_variable``)
  whose value is the object the module exports;
* ``Object.assign(X, Y)``, ``mixin(X, Y)``, ``Object.setPrototypeOf(X, Y)``,
  ``X.__proto__ = Y``: Y is a base of X when X is a container of the file, else an
  ``assign`` fact of the variable X (``X`` holds what ``Y`` holds);
* a ``this`` call inside a plain function nested in a member is not a call on the
  container: its receiver becomes ``<this>`` (unknown), while an arrow function's
  ``this`` is its scope's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from ..languages import Language
from ..model import CONTAINER_KINDS, FUNCTION_KINDS, Reference
from .captures import FACT_LIMIT, Def, RawRef
from .source import Source

UNKNOWN_THIS = "<this>"  # the receiver of a `this` call whose object is not known


@dataclass(slots=True)
class Expando:
    """What the expando pass found in one file."""

    members: dict[int, Def] = field(default_factory=dict)  # function node id → member definition
    containers: dict[str, Def] = field(default_factory=dict)  # name → container definition
    function_containers: set[int] = field(default_factory=set)  # ids of containers that are functions
    facts: list[RawRef] = field(default_factory=list)  # assign facts (position-enclosed)
    # (container at the top level or "", the argument, the variable merged into, the base)
    merges: list[tuple[str, Node, str, str]] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)  # names assigned to module.exports


def _head(src: Source, node: Node, lang: Language) -> tuple[str, bool] | None:
    """The object a member is assigned on: ``app`` → (app, False), ``View.prototype``
    → (View, True); None for anything else."""
    if node.type == "identifier":
        return src.node_text(node), False
    if node.type == lang.member_node:
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is not None and prop is not None and obj.type == "identifier" \
                and src.node_text(prop) == lang.prototype_property:
            return src.node_text(obj), True
    return None


def _object_name(src: Source, node: Node, lang: Language) -> str | None:
    """``X`` / ``X.prototype`` → ``X``; ``require(...)``, literals: None."""
    found = _head(src, node, lang)
    return found[0] if found is not None else None


def _declared(src: Source, root: Node, lang: Language) -> dict[str, tuple[Node, bool]]:
    """Top-level variables: name → (declaration statement, whether its value, through
    chained assignments, is a function)."""
    out: dict[str, tuple[Node, bool]] = {}
    for stmt in root.named_children:
        if stmt.type not in lang.closure_declarations or stmt.type == "function_declaration":
            continue
        for decl in stmt.named_children:
            if decl.type != "variable_declarator":
                continue
            name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
            if name is None or name.type != "identifier":
                continue
            while value is not None and value.type == lang.assignment_node:
                value = value.child_by_field_name("right")
            out.setdefault(src.node_text(name), (stmt, value is not None and value.type in lang.function_nodes))
    return out


def _exported(src: Source, node: Node, lang: Language) -> bool:
    """Is this assignment chain's target (or one in its chain) ``module.exports``?"""
    while node is not None and node.type == lang.assignment_node:
        left = node.child_by_field_name("left")
        if left is not None and src.name_of(left) in lang.export_targets:
            return True
        node = node.child_by_field_name("right")
    return False


def find_members(src: Source, root: Node, lang: Language, defs: list[Def]) -> Expando:
    """Mark the member definitions (``Def.scope``, their name the property's) and the
    containers (their kind), adding the ``object`` symbols variables become. Runs on
    the matched definitions, before nesting and naming."""
    found = Expando()
    by_span = {(d.start, d.end): d for d in defs}
    top = {d.name: d for d in defs if d.node.parent is not None and d.node.parent.id == root.id}
    declared = _declared(src, root, lang)
    pending: dict[str, list[tuple[Node, Node, str]]] = {}
    for stmt in root.named_children:
        expr = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
        if expr is None:
            continue
        if expr.type == lang.assignment_node:
            _assignment(src, stmt, expr, lang, pending, found)
    for stmt in root.named_children:  # declarations that export their name
        if stmt.type not in lang.closure_declarations or stmt.type == "function_declaration":
            continue
        for decl in stmt.named_children:
            value = decl.child_by_field_name("value") if decl.type == "variable_declarator" else None
            name = decl.child_by_field_name("name") if value is not None else None
            if name is not None and name.type == "identifier" and _exported(src, value, lang):
                found.exports.append(src.node_text(name))
    for owner, members in pending.items():
        container = top.get(owner)
        if container is None and owner in declared:
            stmt, is_function = declared[owner]
            container = Def(stmt, "class" if is_function else "object", owner, "", stmt.start_byte, stmt.end_byte)
            defs.append(container)
            by_span[(container.start, container.end)] = container
            if is_function:
                found.function_containers.add(id(container))
        elif container is not None and container.kind in FUNCTION_KINDS:
            found.function_containers.add(id(container))
            container.kind = "class"  # an ES5 constructor, as tsserver shows it
        if container is None or container.kind not in CONTAINER_KINDS:
            continue
        found.containers[owner] = container
        for stmt, fn, prop in members:
            d = by_span.get((stmt.start_byte, stmt.end_byte))
            if d is None:
                d = Def(stmt, "function", prop, "", stmt.start_byte, stmt.end_byte)
                defs.append(d)
                by_span[(d.start, d.end)] = d
            d.name, d.scope, d.kind = prop, owner, "function"
            found.members[fn.id] = d
    _merges(src, root, lang, found)
    return found


def _assignment(src: Source, stmt: Node, expr: Node, lang: Language,
                pending: dict[str, list[tuple[Node, Node, str]]], found: Expando) -> None:
    """One top-level assignment statement: a member, an export or a ``__proto__``."""
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if left is None or right is None:
        return
    if src.name_of(left) in lang.export_targets:
        value = right
        while value.type == lang.assignment_node and value.child_by_field_name("right") is not None:
            value = value.child_by_field_name("right")
        if value.type == "identifier":
            found.exports.append(src.node_text(value))
        return
    if left.type != lang.member_node:
        return
    obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
    if obj is None or prop is None:
        return
    head = _head(src, obj, lang)
    if head is None or head[0] in {t.split(".", 1)[0] for t in lang.export_targets}:
        return
    name = src.node_text(prop)
    if name in lang.proto_properties:
        base = _object_name(src, right, lang)
        if base is not None:
            found.merges.append((head[0], right, head[0], base))
        return
    if right.type in lang.function_nodes and prop.type == "property_identifier":
        pending.setdefault(head[0], []).append((stmt, right, name))


def _merges(src: Source, root: Node, lang: Language, found: Expando) -> None:
    """``Object.assign(X, Y, ...)`` and the like at the file's top level (a base of a
    container); inside a function, the variable's fact only (so a definition
    extracted alone, as ``buffer.splice`` does, gives the same facts)."""
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "call_expression":
            continue
        stmt = node.parent
        top_level = stmt is not None and stmt.parent is not None and stmt.parent.id == root.id
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None or args is None or src.name_of(fn) not in lang.merge_calls:
            continue
        values = [a for a in args.named_children if a.type != "comment"]
        target = _object_name(src, values[0], lang) if values else None
        if target is None:
            continue
        for arg in values[1:]:
            base = _object_name(src, arg, lang)
            if base is not None:
                found.merges.append((target if top_level else "", arg, target, base))


def member_facts(path: str, lang: Language, found: Expando, module_id: str) -> tuple[list[RawRef], list[Reference]]:
    """The facts of the pass once ids are known: raw ``assign`` facts (enclosed by
    position) for merges into variables, and references made whole: the export, and
    the bases merges give containers."""
    raw: list[RawRef] = []
    done: list[Reference] = []
    for name in dict.fromkeys(found.exports):
        if lang.exports_variable:
            done.append(Reference(path, "assign", lang.exports_variable, "", 0, 0, module_id, name[:FACT_LIMIT]))
    for target, node, variable, base in found.merges:
        container = found.containers.get(target)
        if container is not None and container.symbol is not None:
            sp = node.start_point
            done.append(Reference(path, "base", base, "", sp[0] + 1, sp[1], container.symbol.id))
        else:
            raw.append(("assign", node, variable or target, "", base, ""))
    return raw, done


def own_functions(found: Expando, real: list[Def]) -> None:
    """A function declared inside a function container stays a function (it is no
    method of the object)."""
    for d in real:
        if d.owner is not None and id(d.owner) in found.function_containers and not d.scope \
                and d.symbol is not None and d.symbol.kind == "method":
            d.symbol.kind = "function"


def this_receivers(src: Source, lang: Language, found: Expando, refs: list[RawRef]) -> list[RawRef]:
    """Calls on ``this`` inside a member: the container's when the nearest function
    around that is not an arrow function is the member itself; else ``<this>``."""
    if not found.members:
        return refs
    out: list[RawRef] = []
    for ref in refs:
        kind, node, name, receiver, source, original = ref
        head = receiver.split(".", 1)[0]
        if kind != "call" or head not in lang.instance_names:
            out.append(ref)
            continue
        fn = node.parent  # the nearest member, or function with its own `this`, around
        while fn is not None and fn.id not in found.members and (
                fn.type not in lang.function_nodes or fn.type in lang.lexical_this_functions):
            fn = fn.parent
        if (fn is None or fn.id not in found.members) and _member_around(node, found):
            receiver = UNKNOWN_THIS + receiver[len(head):]
        out.append((kind, node, name, receiver, source, original))
    return out


def _member_around(node: Node, found: Expando) -> bool:
    """Is the node inside a member's function?"""
    p = node.parent
    while p is not None:
        if p.id in found.members:
            return True
        p = p.parent
    return False
