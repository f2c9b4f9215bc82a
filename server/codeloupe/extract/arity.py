"""Arity: how many arguments a definition takes and a call passes, read from the
tree where the language says how (``Language.parameters_field`` and the node sets
beside it). The resolver narrows name-only candidates with it
(``graph.resolve.narrow``).

A definition's range is a ``params`` fact: ``source`` is ``"<least> <most>"``, the
most ``-1`` when it takes any number (``*args``, ``...T``); a method's first
parameter naming the instance (``self``) is not counted. A call's count goes in
its reference's ``source`` (``"2"``), left empty when unknown (a spread argument).

Where the language overloads (C++), a definition's parameter types are a ``ptypes``
fact (``source``: the types joined by ``TYPE_SEP``, a template's own parameter as
``model.template_type``), and a call's ``source`` carries each argument's type after its count
(``"2\x1fchar*\x1f=v"``): a literal's, ``=name`` for a name (``=name*`` for its
address), empty when the call does not show it.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from ..languages import Language
from ..languages.common import ARITHMETIC_TYPES, normal_type
from ..model import TYPE_SEP, Reference, Symbol, template_type
from .captures import Def

UNBOUNDED = -1
_CALL_DEPTH = 3  # levels above a call's name searched for the call node
_TYPE_LIMIT = 60  # characters of a parameter's type kept
_DECLARATOR_DEPTH = 6  # pointer / reference declarators followed to the parameter list


def param_facts(path: str, lang: Language, real: list[Def]) -> list[Reference]:
    """A ``params`` fact per function or method whose parameters the tree shows."""
    if not lang.parameters_field:
        return []
    out: list[Reference] = []
    kinds = ("function", "method", "constructor") if lang.overloads else ("function", "method")
    for d in real:
        sym: Symbol | None = d.symbol
        if sym is None or sym.kind not in kinds:
            continue
        found = parameter_range(d.node, lang, sym.kind == "method")
        if found is None:
            continue
        least, most = found
        out.append(Reference(path=path, kind="params", name=sym.name, receiver="", line=0, col=0,
                             enclosing=sym.id, source=f"{least} {most}"))
        types = parameter_types(d.node, lang) if lang.overloads else None
        if types:
            out.append(Reference(path=path, kind="ptypes", name=sym.name, receiver="", line=0, col=0,
                                 enclosing=sym.id, source=TYPE_SEP.join(types)))
    return out


def _parameter_list(node: Node, lang: Language) -> Node | None:
    """A definition's parameter list: its ``parameters_field``, or (C++) that of its
    declarator, through pointer and reference declarators."""
    params = node.child_by_field_name(lang.parameters_field)
    d = node
    for _ in range(_DECLARATOR_DEPTH):
        if params is not None or not lang.declarator_field:
            break
        d = d.child_by_field_name(lang.declarator_field) or next(
            (c for c in d.named_children if c.type.endswith("declarator")), None)
        if d is None:
            return None
        params = d.child_by_field_name(lang.parameters_field)
    return params


def parameter_types(node: Node, lang: Language) -> list[str] | None:
    """The type of each parameter of a definition as written, without its qualifiers
    (``const char* s`` → ``char*``); a template's own type parameter ``T`` is ``<T>`` (``model.template_type``).
    None when a parameter shows no type."""
    params = _parameter_list(node, lang)
    if params is None:
        return None
    own = _template_names(node)
    out: list[str] = []
    for p in params.named_children:
        if p.type in lang.variadic_parameter_nodes and lang.varargs_are_arrays:  # Java `Object... xs`
            t = next((c for c in p.named_children if c.type not in ("modifiers", "variable_declarator")), None)
            if t is not None and t.text is not None:
                out.append(normal_type(t.text.decode("utf-8", "replace"))[:_TYPE_LIMIT] + "[]")
            continue
        if p.type in lang.skipped_parameter_nodes or p.type in lang.variadic_parameter_nodes:
            continue
        t = p.child_by_field_name("type")
        if t is None or t.text is None:
            return None
        text = t.text.decode("utf-8", "replace")
        d = p.child_by_field_name("declarator")
        for _ in range(_DECLARATOR_DEPTH):  # `char* s`, `int& n`, `const char** out`
            if d is None or not d.type.endswith("declarator"):
                break
            text += "*" if d.type.startswith("pointer") else "&" if d.type.startswith("reference") else ""
            d = d.child_by_field_name("declarator") or next(
                (c for c in d.named_children if c.type.endswith("declarator")), None)
        out.append(template_type(text) if text in own else normal_type(text)[:_TYPE_LIMIT])
    return out


def _template_names(node: Node) -> frozenset[str]:
    """The type parameters of the template a definition is (``template<class T>``)."""
    parent = node.parent
    if parent is None or parent.type != "template_declaration":
        return frozenset()
    params = parent.child_by_field_name("parameters")
    names = set()
    for p in params.named_children if params is not None else ():
        for c in p.named_children:
            if c.type == "type_identifier" and c.text is not None:
                names.add(c.text.decode("utf-8", "replace"))
    return frozenset(names)


def parameter_range(node: Node, lang: Language, method: bool) -> tuple[int, int] | None:
    """(least, most) arguments a definition takes (most ``UNBOUNDED``: any number);
    None when unknown (no parameter list, a decorated definition)."""
    if node.parent is not None and node.parent.type in lang.arity_opaque_parents:
        return None
    params = _parameter_list(node, lang)
    if params is None:
        return None
    least = most = 0
    variadic = any(c.type in lang.variadic_tokens for c in params.children) if lang.variadic_tokens else False
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
        if lang.receiver_parameter_modifier and any(
                c.text is not None and c.text.decode("utf-8", "replace") == lang.receiver_parameter_modifier
                for c in p.children if c.type == "modifier"):
            return None  # an extension method: called on its first argument, or with it
        names = len(p.children_by_field_name("name")) or 1  # Go `a, b int`
        most += names
        optional = p.type in lang.optional_parameter_nodes or lang.defaults_by_equals and any(
            c.type == "=" for c in p.children)
        if not optional:
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
            types: list[str] = []
            for a in args.named_children:
                if a.type in lang.spread_argument_nodes:
                    return ""
                if a.type not in lang.skipped_parameter_nodes:
                    count += 1
                    if lang.overloads:
                        types.append(_argument_type(a, lang))
            return str(count) + "".join(TYPE_SEP + t for t in types)
        node = node.parent
    return ""


# a field of a name as an argument: C# `member_access_expression`, Java `field_access`, C++
# `field_expression`; read as `=name.field` (the resolver reads the field's declared type)
_MEMBER_NODES = frozenset({"member_access_expression", "field_access", "field_expression"})
_MEMBER = re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_]\w*$")


def _argument_type(a: Node, lang: Language) -> str:
    """What a call shows of an argument's type: a literal's (``1.5`` → ``double``),
    ``=name`` for a name and ``=name*`` for its address (the resolver reads its
    declared type), else ""."""
    if a.type in lang.argument_wrapper_nodes:  # C# `argument`: its value, unless named (`x: 2`)
        if a.child_by_field_name("name") is not None or not a.named_children:
            return ""
        a = a.named_children[-1]
    text = a.text.decode("utf-8", "replace") if a.text is not None else ""
    literal = lang.argument_literals.get(a.type)
    if literal == "number":
        t = text.lower().rstrip("ul")
        if t.startswith("0x") or not any(c in t for c in ".e"):
            return "int"
        return "float" if t.endswith("f") else "double"
    if literal is not None:
        return literal
    if lang.cast_argument_types and a.type == "cast_expression" and (cast := a.child_by_field_name("type")) is not None \
            and cast.text:
        return normal_type(cast.text.decode("utf-8", "replace"))[:_TYPE_LIMIT]  # `(Object[]) x`: what it is cast to
    if lang.cast_argument_types and a.type == "call_expression" and (fn := a.child_by_field_name("function")) \
            is not None and fn.text and (fn.type == "primitive_type" or fn.type == "identifier" and normal_type(
                fn.text.decode("utf-8", "replace")) in ARITHMETIC_TYPES):
        return normal_type(fn.text.decode("utf-8", "replace"))  # C++ `unsigned(100)`, `int(x)`: a cast
    if a.type == "call_expression" and (fn := a.child_by_field_name("function")) is not None and fn.text \
            and fn.type in ("identifier", "field_expression"):
        called = fn.text.decode("utf-8", "replace").replace("->", ".")
        if len(called) <= _TYPE_LIMIT and called.replace(".", "").replace("_", "").isalnum():
            return "@" + called  # `printer.CStr()`: what that call returns (the resolver reads it)
    if a.type == "object_creation_expression" and (made := a.child_by_field_name("type")) is not None \
            and made.text:  # Java, C# `new MyClass()`: exactly that class
        return normal_type(made.text.decode("utf-8", "replace"))[:_TYPE_LIMIT]
    if a.type in ("method_invocation", "invocation_expression"):  # Java, C# `getErrorString(v)`, `o.m()`
        fn = a.child_by_field_name("function")
        if fn is None and (name := a.child_by_field_name("name")) is not None:
            obj = a.child_by_field_name("object")
            called = (f"{obj.text.decode('utf-8', 'replace')}." if obj is not None and obj.text else "") + \
                (name.text or b"").decode("utf-8", "replace")
        else:
            called = fn.text.decode("utf-8", "replace") if fn is not None and fn.text else ""
        if called and len(called) <= _TYPE_LIMIT and called.replace(".", "").replace("_", "").isalnum():
            return "@" + called  # what that call returns (the resolver reads its declared type)
        return ""
    if a.type == "binary_expression" and (op := a.child_by_field_name("operator")) is not None \
            and op.type == "+":  # Java, C# `"x: " + x`: a string, where one side is one
        sides = {lang.argument_literals.get(n.type) for n in (a.child_by_field_name("left"),
                                                                 a.child_by_field_name("right")) if n is not None}
        strings = {t for t in sides if t in ("String", "string")}
        if strings:
            return strings.pop()
        left = a.child_by_field_name("left")
        return _argument_type(left, lang) if left is not None and left.type == "binary_expression" \
            and _argument_type(left, lang) in ("String", "string") else ""
    if a.type == "conditional_expression":  # `ok ? "true" : "false"`: the branches' type, when one
        branches = {_argument_type(b, lang) for b in (a.child_by_field_name("consequence"),
                                                       a.child_by_field_name("alternative")) if b is not None}
        only = branches.pop() if len(branches) == 1 else ""
        return "" if only.startswith("=") else only  # two names: their declared types may differ
    if a.type == "identifier":
        return "=" + text
    if a.type in _MEMBER_NODES:  # `entry.Key`, `Signature.StringSig`, `p->size`: the field's declared type
        member = text.replace("->", ".").replace(" ", "")
        return "=" + member if _MEMBER.match(member) else ""
    if a.type == "this":  # the caller's class (Java, C#: `select(query, this)`)
        return "=this"
    if a.type == "pointer_expression" and text.startswith("&"):  # C++ `&value`
        inner = text[1:].strip()
        return f"={inner}*" if inner.isidentifier() else ""
    return ""
