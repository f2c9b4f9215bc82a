"""Receivers narrowed by a type test: inside ``if ($h instanceof ResettableInterface)
{ $h->reset(); }`` the call's receiver is a ``ResettableInterface`` whatever ``$h`` was
declared as, as a reader (and a type checker) takes it.

The tests read, per language (``Language.type_tests``): ``x instanceof T`` (PHP,
JavaScript, TypeScript, Java), ``x is T`` / ``x is T t`` (C#), ``isinstance(x, T)`` and
``isinstance(x, (T, U))`` (Python), ``x.is_a?(T)`` / ``kind_of?`` / ``instance_of?``
(Ruby); alone or as one side of an ``&&`` / ``and`` condition; and a case of Go's type
switch (``switch v := x.(type) { case T: v.m() }``). A call in the branch the
test guards whose receiver is the tested expression, as written, gets the tested types
after ``NARROW_SEP`` (``graph.resolve.calls`` resolves it through them first, and as
written where they name nothing of the repository). A test that binds a name (Java
``x instanceof T t``, C# ``x is T t``) makes that name a ``typed`` fact of the scope.
"""

from __future__ import annotations

from tree_sitter import Node, QueryCursor

from ..languages import Language, query
from ..model import NARROW_SEP
from .captures import RawRef
from .source import Source

_TYPES_LIMIT = 160  # characters of the tested types kept
_RUBY_TESTS = frozenset({"is_a?", "kind_of?", "instance_of?"})
_AND = frozenset({"&&", "and"})


def narrowed_refs(src: Source, lang: Language, root: Node, raw: list[RawRef]) -> list[RawRef]:
    """``raw`` with the receivers of calls under a type test narrowed, and a ``typed``
    row for each name a test binds."""
    guards: list[tuple[int, int, str, str]] = []  # body start, end, the tested text, its types
    bound: list[RawRef] = []
    for _, caps in QueryCursor(query(lang.grammar, lang.type_tests)).matches(root) if lang.type_tests else ():
        cond, body = caps["cond"][0], caps["body"][0]
        for subject, types, name in _tests(src, cond):
            guards.append((body.start_byte, body.end_byte, _plain(subject), types))
            if name is not None:
                bound.append(("typed", name, src.node_text(name), "", types, ""))
    for _, caps in QueryCursor(query(lang.grammar, lang.type_switches)).matches(root) if lang.type_switches else ():
        guards += _switch_cases(src, caps["switch"][0])
    if not guards:
        return raw
    guards.sort(key=lambda g: g[1] - g[0])  # the innermost test first
    out: list[RawRef] = []
    for ref in raw:
        kind, node, name, receiver, source, original = ref
        if kind == "call" and receiver:
            key, at = _plain(receiver), node.start_byte
            types = next((t for start, end, subject, t in guards if start <= at < end and subject == key), None)
            if types is not None:
                ref = (kind, node, name, receiver + NARROW_SEP + types, source, original)
        out.append(ref)
    return out + bound


def _switch_cases(src: Source, switch: Node) -> list[tuple[int, int, str, str]]:
    """Go's `switch v := x.(type) { case Marshaler: v.MarshalTOML() }`: in a case of one
    type, the alias is of that type (a case of several leaves it as x was)."""
    alias = switch.child_by_field_name("alias")
    names = [c for c in alias.named_children if c.type == "identifier"] if alias is not None else []
    if len(names) != 1:
        return []
    out = []
    for case in switch.named_children:
        if case.type != "type_case":
            continue
        types = [t for t in case.children_by_field_name("type") if t.is_named]
        body = next((c for c in case.named_children if c.type == "statement_list"), None)
        text = src.node_text(types[0]) if len(types) == 1 else ""
        if body is not None and text and text != "nil" and not any(c in text for c in "()[]{}\n"):
            out.append((body.start_byte, body.end_byte, src.node_text(names[0]), text[:_TYPES_LIMIT]))
    return out


def _plain(text: str) -> str:
    return "".join(text.split())


def _tests(src: Source, cond: Node) -> list[tuple[str, str, Node | None]]:
    """(tested expression, its types joined by ``|``, the name it binds) of each type
    test a condition makes true in the branch it guards: the condition itself, or a
    side of an ``and``."""
    while cond.type in ("parenthesized_expression", "parenthesized_statements") and cond.named_child_count == 1:
        cond = cond.named_children[0]
    op = cond.child_by_field_name("operator")
    if op is not None and src.node_text(op) in _AND:
        out = []
        for side in ("left", "right"):
            part = cond.child_by_field_name(side)
            if part is not None:
                out += _tests(src, part)
        return out
    found = _test(src, cond, op)
    return [found] if found is not None else []


def _test(src: Source, cond: Node, op: Node | None) -> tuple[str, str, Node | None] | None:
    t = cond.type
    if t == "binary_expression" and op is not None and src.node_text(op) == "instanceof":  # PHP, JS, TS
        subject, tested, name = cond.child_by_field_name("left"), cond.child_by_field_name("right"), None
    elif t == "instanceof_expression":  # Java, with `x instanceof T t`'s binding
        subject, tested, name = cond.child_by_field_name("left"), cond.child_by_field_name("right"), \
            cond.child_by_field_name("name")
    elif t == "is_pattern_expression":  # C# `x is T` / `x is T t`
        subject, pattern = cond.child_by_field_name("expression"), cond.child_by_field_name("pattern")
        if pattern is None:
            return None
        if pattern.type == "declaration_pattern":
            tested, name = pattern.child_by_field_name("type"), pattern.child_by_field_name("name")
        elif pattern.type in ("constant_pattern", "type_pattern") and pattern.named_child_count == 1:
            tested, name = pattern.named_children[0], None
        else:
            return None
    elif t == "call":  # Python `isinstance(x, T)`, Ruby `x.is_a?(T)`
        fn, method = cond.child_by_field_name("function"), cond.child_by_field_name("method")
        args = [a for a in (cond.child_by_field_name("arguments").named_children
                            if cond.child_by_field_name("arguments") is not None else []) if a.type != "comment"]
        if fn is not None and src.node_text(fn) == "isinstance" and len(args) == 2:
            subject, tested, name = args[0], args[1], None
        elif method is not None and src.node_text(method) in _RUBY_TESTS and len(args) == 1:
            subject, tested, name = cond.child_by_field_name("receiver"), args[0], None
        else:
            return None
    else:
        return None
    if subject is None or tested is None:
        return None
    parts = tested.named_children if tested.type in ("tuple", "parenthesized_expression") else [tested]
    types = [src.node_text(p).lstrip("\\") for p in parts]
    if not types or not all(types) or any(c in tt for tt in types for c in "()[]{}\"'\n"):
        return None
    return src.node_text(subject), "|".join(types)[:_TYPES_LIMIT], name
