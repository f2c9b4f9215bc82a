"""JS objects and prototypes (``Language.expando_members``): the members a file's top
level assigns to an object or a constructor function become that object's methods; the
body of a function that wraps a module (an IIFE, a UMD or AMD factory, a bundle's
module: ``module_scopes``) is a top level of its own.

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
  ``this`` is its scope's (an arrow member's too: at the top level, not the object).

Object literals are containers too: ``var app = {set: function () {}, get() {}}``
(an ``object`` at the declaration, its function members nested in it, a literal of
functions in it an object of its own, ``app.cookies.set``), ``module.exports = {…}``
(the object ``exports``), ``X.prototype = {render: function () {}}`` (members of X);
``X.prototype = Object.create(Base.prototype)`` / ``new Base()`` give X a base. A
merge inside a function into a function its body declares (``var app = function
() {}; mixin(app, proto)``) makes that function a class with the base. A static
``X.m`` beside ``X.prototype.m`` is a function of X, the method the other
(``own_functions``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter

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
    # `module.exports = {parse: parse, stringify}`: (key, the value's text) of each
    # pair whose value is a name, not a function
    export_members: list[tuple[str, str]] = field(default_factory=list)
    # static members (`View.m = function`), and the names each container's prototype has
    statics: set[tuple[int, int]] = field(default_factory=set)  # their definitions' spans
    prototype_names: dict[str, set[str]] = field(default_factory=dict)
    # a function of a function's body that a merge there lends members: (it, argument, base)
    local_merges: list[tuple[Def, Node, str]] = field(default_factory=list)


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


def _at_top(node: Node, root: Node) -> bool:
    """Is this definition a statement of the file (``export`` in front of it or not)?"""
    parent = node.parent
    if parent is not None and parent.type == "export_statement":
        parent = parent.parent
    return parent is not None and parent.id == root.id


def _top_statements(root: Node) -> list[Node]:
    """The file's statements, an ``export``'s declaration in its place."""
    out = []
    for stmt in root.named_children:
        inner = stmt.child_by_field_name("declaration") if stmt.type == "export_statement" else None
        out.append(inner if inner is not None else stmt)
    return out


def _declared(src: Source, root: Node, lang: Language) -> dict[str, tuple[Node, Node | None]]:
    """Top-level variables: name → (its definition's node: the declaration statement,
    the declarator when the statement declares several; its value through chained
    assignments, ``a = exports = module.exports = {}``)."""
    out: dict[str, tuple[Node, Node | None]] = {}
    for stmt in _top_statements(root):
        if stmt.type not in lang.closure_declarations or stmt.type == "function_declaration":
            continue
        decls = [d for d in stmt.named_children if d.type == "variable_declarator"]
        for decl in decls:
            name = decl.child_by_field_name("name")
            if name is None or name.type != "identifier":
                continue
            out.setdefault(src.node_text(name), (stmt if len(decls) == 1 else decl,
                                                 _chain_value(decl.child_by_field_name("value"), lang)))
    return out


def _chain_value(value: Node | None, lang: Language) -> Node | None:
    """The value at the end of chained assignments (``exports = module.exports = {}``)."""
    while value is not None and value.type == lang.assignment_node:
        value = value.child_by_field_name("right")
    return value


_NESTING = 4  # levels of object literals inside object literals made containers


def _literal_members(src: Source, obj: Node, lang: Language) -> list[tuple[Node, Node, str]]:
    """The function members of an object literal: (the member's node, its function,
    its name) for ``k: function () {}``, ``k: () => {}`` and ``k() {}``."""
    out: list[tuple[Node, Node, str]] = []
    for child in obj.named_children:
        if child.type == lang.pair_node:
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if key is not None and value is not None and key.type == "property_identifier" \
                    and value.type in lang.function_nodes:
                out.append((child, value, src.node_text(key)))
        elif child.type == lang.literal_method_node:
            key = child.child_by_field_name("name")
            if key is not None and key.type == "property_identifier":
                out.append((child, child, src.node_text(key)))
    return out


def _has_members(src: Source, obj: Node, lang: Language, level: int = 0) -> bool:
    """Does the literal (or one nested in it, a few levels down) hold a function member?"""
    if _literal_members(src, obj, lang):
        return True
    return level < _NESTING and any(
        v.type == lang.object_node and _has_members(src, v, lang, level + 1)
        for c in obj.named_children if c.type == lang.pair_node and (v := c.child_by_field_name("value")) is not None)


def _literal_container(src: Source, node: Node, obj: Node, name: str, lang: Language,
                       defs: list[Def], by_span: dict[tuple[int, int], Def], found: Expando,
                       level: int = 0) -> Def:
    """An object literal made a container: the ``object`` definition at ``node`` (its
    members nest in it by position), its function members marked, and the literals of
    its properties that hold functions containers too (``app.router.handle``)."""
    container = Def(node, "object", name, "", node.start_byte, node.end_byte)
    defs.append(container)
    by_span[(container.start, container.end)] = container
    for member, fn, prop in _literal_members(src, obj, lang):
        d = by_span.get((member.start_byte, member.end_byte))
        if d is None:
            d = Def(member, "function", prop, "", member.start_byte, member.end_byte)
            defs.append(d)
            by_span[(d.start, d.end)] = d
        d.kind = "function"
        found.members[fn.id] = d
    for child in obj.named_children:
        key = child.child_by_field_name("key") if child.type == lang.pair_node else None
        value = child.child_by_field_name("value") if key is not None else None
        if value is not None and key is not None and key.type == "property_identifier" \
                and value.type == lang.object_node and level < _NESTING and _has_members(src, value, lang):
            _literal_container(src, child, value, src.node_text(key), lang, defs, by_span, found, level + 1)
    return container


def _named_pairs(src: Source, obj: Node, lang: Language) -> list[tuple[str, str]]:
    """The pairs of an exported object literal whose value is a name or a member
    (``parse: parse``, ``merge: utils.merge``, the shorthand ``stringify``): (key, value)."""
    out: list[tuple[str, str]] = []
    for child in obj.named_children:
        if child.type == lang.shorthand_node:
            out.append((src.node_text(child), src.node_text(child)))
        elif child.type == lang.pair_node:
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if key is not None and value is not None and key.type == "property_identifier" \
                    and value.type in ("identifier", lang.member_node):
                out.append((src.node_text(key), src.node_text(value)))
    return out


def _exported(src: Source, node: Node, lang: Language) -> bool:
    """Is this assignment chain's target (or one in its chain) ``module.exports``?"""
    while node is not None and node.type == lang.assignment_node:
        left = node.child_by_field_name("left")
        if left is not None and src.name_of(left) in lang.export_targets:
            return True
        node = node.child_by_field_name("right")
    return False


# parents of a function expression that make its body a module's: an IIFE's callee
# (`(function () {...})()`, `!function () {...}()`), an argument (a UMD / AMD factory,
# `define([...], function () {...})`), an element of a bundle's module table
# (browserify's `{1: [function (require, module, exports) {...}, {...}]}`)
_WRAPPER_PARENTS = frozenset({"parenthesized_expression", "arguments", "array", "call_expression",
                              "unary_expression"})
_WRAPPER_LIMIT = 2000  # module wrappers read in one file, at most


def module_scopes(root: Node, lang: Language) -> list[Node]:
    """The file's top level, then the bodies of the anonymous functions that wrap
    modules (reached from the top level through expressions and other wrappers only,
    never through a named function, class or method): the statements a module
    pattern or a bundle's module declares its objects and constructors in."""
    out = [root]
    stack = list(root.named_children)
    while stack and len(out) < _WRAPPER_LIMIT:
        node = stack.pop()
        kind = node.type
        if kind in lang.function_nodes:
            parent = node.parent
            body = node.child_by_field_name("body")
            if kind == "function_declaration" or node.child_by_field_name("name") is not None or \
                    parent is None or parent.type not in _WRAPPER_PARENTS or body is None or \
                    body.type != "statement_block":
                continue
            out.append(body)
            stack.extend(body.named_children)
        elif kind not in _NOT_EXPRESSIONS:
            stack.extend(node.named_children)
    return out


_NOT_EXPRESSIONS = frozenset({"class_declaration", "class", "method_definition", "string", "template_string",
                              "comment", "regex", "number", "identifier", "property_identifier"})


def find_members(src: Source, root: Node, lang: Language, defs: list[Def]) -> Expando:
    """Mark the member definitions (``Def.scope``, their name the property's) and the
    containers (their kind), adding the ``object`` symbols variables and object
    literals become, in each module scope of the file (``module_scopes``). Runs on the
    matched definitions, before nesting and naming."""
    found = Expando()
    by_span = {(d.start, d.end): d for d in defs}
    scopes = module_scopes(root, lang)
    _merges(src, root, lang, found, by_span, frozenset(s.id for s in scopes))
    for scope in scopes:
        _scope_members(src, scope, lang, defs, by_span, found)
    return found


def _scope_members(src: Source, root: Node, lang: Language, defs: list[Def],
                   by_span: dict[tuple[int, int], Def], found: Expando) -> None:
    """``find_members`` in one module scope (``root``: the file, or a wrapper's body)."""
    top = {d.name: d for d in defs if _at_top(d.node, root)}
    declared = _declared(src, root, lang)
    for name, (node, value) in declared.items():  # `var app = {set: function () {}}`
        if name not in top and value is not None and value.type == lang.object_node \
                and _has_members(src, value, lang):
            top[name] = _literal_container(src, node, value, name, lang, defs, by_span, found)
    pending: dict[str, list[tuple[Node, Node, str]]] = {}
    for stmt in root.named_children:
        expr = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
        if expr is None:
            continue
        if expr.type == lang.assignment_node:
            _assignment(src, stmt, expr, lang, pending, found, (defs, by_span, top))
    for stmt in root.named_children:  # declarations that export their name
        if stmt.type not in lang.closure_declarations or stmt.type == "function_declaration":
            continue
        for decl in stmt.named_children:
            value = decl.child_by_field_name("value") if decl.type == "variable_declarator" else None
            name = decl.child_by_field_name("name") if value is not None else None
            if name is not None and name.type == "identifier" and _exported(src, value, lang):
                found.exports.append(src.node_text(name))
    for target, _node, _variable, _base in found.merges:  # a function lent members is a class
        if target and target in top and top[target].kind in FUNCTION_KINDS:
            pending.setdefault(target, [])
    for owner, members in pending.items():
        container = top.get(owner)
        if container is None and owner in declared:
            node, value = declared[owner]
            is_function = value is not None and value.type in lang.function_nodes
            container = Def(node, "class" if is_function else "object", owner, "", node.start_byte, node.end_byte)
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
        for node, fn, prop in members:
            d = by_span.get((node.start_byte, node.end_byte))
            if d is None:
                d = Def(node, "function", prop, "", node.start_byte, node.end_byte)
                defs.append(d)
                by_span[(d.start, d.end)] = d
            d.name, d.scope, d.kind = prop, owner, "function"
            found.members[fn.id] = d
    for name, container in top.items():  # literal containers (their members nest in them)
        if container.kind == "object":
            found.containers.setdefault(name, container)


def _assignment(src: Source, stmt: Node, expr: Node, lang: Language,
                pending: dict[str, list[tuple[Node, Node, str]]], found: Expando,
                made: tuple[list[Def], dict[tuple[int, int], Def], dict[str, Def]]) -> None:
    """One top-level assignment statement: a member, an export, a prototype (an
    object literal of members, ``Object.create(Base.prototype)``) or a ``__proto__``."""
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if left is None or right is None:
        return
    if src.name_of(left) in lang.export_targets:
        value = _chain_value(right, lang)
        if value is None:
            return
        if value.type == "identifier":
            found.exports.append(src.node_text(value))
        elif value.type in lang.function_nodes:  # `module.exports = function (a, b) {}`
            d = made[1].get((stmt.start_byte, stmt.end_byte))
            if d is not None and d.kind in FUNCTION_KINDS:
                found.exports.append(d.name)
        elif value.type == lang.object_node:
            found.export_members.extend(_named_pairs(src, value, lang))
            if lang.exports_object not in made[2] and _has_members(src, value, lang):
                defs, by_span, top = made  # `module.exports = {handle() {}}`
                top[lang.exports_object] = _literal_container(src, stmt, value, lang.exports_object, lang,
                                                              defs, by_span, found)
                found.exports.append(lang.exports_object)
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
    if name == lang.prototype_property and not head[1]:
        _prototype(src, head[0], right, lang, pending, found)
        return
    if right.type in lang.function_nodes and prop.type == "property_identifier":
        pending.setdefault(head[0], []).append((stmt, right, name))
        if head[1]:
            found.prototype_names.setdefault(head[0], set()).add(name)
        else:
            found.statics.add((stmt.start_byte, stmt.end_byte))


def _prototype(src: Source, owner: str, value: Node, lang: Language,
               pending: dict[str, list[tuple[Node, Node, str]]], found: Expando) -> None:
    """``X.prototype = {render: function () {}}`` (members of X),
    ``X.prototype = Object.create(Base.prototype)`` or ``= new Base()`` (a base)."""
    value = _chain_value(value, lang) or value
    members = pending.setdefault(owner, [])
    if value.type == lang.object_node:
        literal = _literal_members(src, value, lang)
        members.extend(literal)
        found.prototype_names.setdefault(owner, set()).update(prop for _n, _f, prop in literal)
        return
    base: Node | None = None
    if value.type == "call_expression" and src.name_of(value.child_by_field_name("function")) in lang.prototype_calls:
        args = value.child_by_field_name("arguments")
        base = next((a for a in args.named_children if a.type != "comment"), None) if args is not None else None
    elif value.type == "new_expression":
        base = value.child_by_field_name("constructor")
    name = _object_name(src, base, lang) if base is not None else None
    if name is not None:
        found.merges.append((owner, base, owner, name))


def _merges(src: Source, root: Node, lang: Language, found: Expando,
            by_span: dict[tuple[int, int], Def], scopes: frozenset[int]) -> None:
    """``Object.assign(X, Y, ...)`` and the like at a module scope's top level (a base of
    a container); inside a function, a base of a function that function's body
    declares (``var app = function (req, res) {...}; mixin(app, proto)``), else the
    variable's fact only (so a definition extracted alone, as ``buffer.splice`` does,
    gives the same facts)."""
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "call_expression":
            continue
        stmt = node.parent
        top_level = stmt is not None and stmt.parent is not None and stmt.parent.id in scopes
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None or args is None or src.name_of(fn) not in lang.merge_calls:
            continue
        values = [a for a in args.named_children if a.type != "comment"]
        target = _object_name(src, values[0], lang) if values else None
        if target is None:
            continue
        local = None if top_level else _local_function(src, node, target, lang, by_span)
        if local is not None and local.kind in FUNCTION_KINDS | {"class"}:
            local.kind = "class"  # a function lent members: a class, as at the top level
            found.function_containers.add(id(local))
        for arg in values[1:]:
            base = _object_name(src, arg, lang)
            if base is None:
                continue
            if local is not None and local.kind == "class":
                found.local_merges.append((local, arg, base))
            else:
                found.merges.append((target if top_level else "", arg, target, base))


def _local_function(src: Source, node: Node, name: str, lang: Language,
                    by_span: dict[tuple[int, int], Def]) -> Def | None:
    """The definition of a function named ``name`` among the statements of the body of
    the function around ``node`` (``function router() {}``, ``var app = function () {}``)."""
    fn = node.parent
    while fn is not None and fn.type not in lang.function_nodes and fn.type != lang.literal_method_node:
        fn = fn.parent
    body = fn.child_by_field_name("body") if fn is not None else None
    if body is None:
        return None
    for stmt in body.named_children:
        if stmt.type in lang.function_nodes and src.name_of(stmt.child_by_field_name("name")) == name:
            return by_span.get((stmt.start_byte, stmt.end_byte))
        if stmt.type in lang.closure_declarations:
            for decl in stmt.named_children:
                if decl.type == "variable_declarator" and src.name_of(decl.child_by_field_name("name")) == name:
                    value = decl.child_by_field_name("value")
                    if value is not None and value.type in lang.function_nodes:
                        return by_span.get((stmt.start_byte, stmt.end_byte))
    return None


def member_facts(path: str, lang: Language, found: Expando,
                 module_id: str) -> tuple[list[RawRef], list[list[Reference]]]:
    """The facts of the pass once ids are known: raw ``assign`` facts (enclosed by
    position) for merges into variables, and references made whole, in three blocks
    each in the document's order (``FileExtraction.blocks``): the export, and the
    bases merges give containers, then local functions."""
    raw: list[RawRef] = []
    exports: list[Reference] = []
    for name in dict.fromkeys(found.exports):
        if lang.exports_variable:
            exports.append(Reference(path, "assign", lang.exports_variable, "", 0, 0, module_id, name[:FACT_LIMIT]))
    for key, value in dict.fromkeys(found.export_members) if lang.exports_variable else ():
        exports.append(Reference(path, "assign", f"{lang.exports_variable}.{key}", "", 0, 0, module_id,
                                 value[:FACT_LIMIT]))
    merged: list[Reference] = []
    for target, node, variable, base in found.merges:
        container = found.containers.get(target)
        if container is not None and container.symbol is not None:
            sp = node.start_point
            merged.append(Reference(path, "base", base, "", sp[0] + 1, sp[1], container.symbol.id))
        else:
            raw.append(("assign", node, variable or target, "", base, ""))
    local: list[Reference] = []
    for owner, node, base in found.local_merges:
        if owner.symbol is not None:
            sp = node.start_point
            local.append(Reference(path, "base", base, "", sp[0] + 1, sp[1], owner.symbol.id))
    by_place = attrgetter("line", "col")  # the merges are found statement kind by statement kind
    return raw, [exports, sorted(merged, key=by_place), sorted(local, key=by_place)]


def own_functions(found: Expando, real: list[Def]) -> None:
    """A function declared inside a function container stays a function (it is no
    method of the object); so does a static member (``View.m = function``) whose
    name the prototype has too (``View.prototype.m``): both are ``View.m``, the
    later one ``View.m#2``, told apart by kind (the resolver takes the method for an
    instance, the function for the constructor)."""
    for d in real:
        if d.symbol is None or d.symbol.kind != "method" or d.owner is None:
            continue
        if (id(d.owner) in found.function_containers and not d.scope) or (
                d.scope and (d.start, d.end) in found.statics and d.name in found.prototype_names.get(d.scope, ())):
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
        fn = node.parent  # the nearest function with its own `this` around (not an arrow member)
        while fn is not None and (fn.type not in lang.function_nodes and fn.type != lang.literal_method_node
                                  or fn.type in lang.lexical_this_functions):
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
