"""Conditional compilation (C, C++): which macros a definition needs defined, and
which macros a file defines. A header may define a function only for the files that
ask for it (``#ifdef UNITY_INCLUDE_SETUP_STUBS`` around weak ``setUp`` stubs, which
``unity.c`` asks for with ``#define UNITY_INCLUDE_SETUP_STUBS`` and a test runner
does not): the resolver leaves such a definition out of what an ``#include`` offers a
file whose translation unit defines none of those macros (``graph.resolve.calls``).

A definition's ``guard`` fact: ``source`` is the macros it needs, space-separated,
read from the conditionals around it: the branch of ``#ifdef M``, the ``#else`` of
``#ifndef M``, and ``#if`` / ``#elif`` conditions that are ``defined(M)``, ``M`` or a
chain of them joined by ``&&`` (anything else needs nothing that can be told). A
file's ``defines`` fact: every macro it ``#define``s, wherever in the file.
"""

from __future__ import annotations

from tree_sitter import Node, QueryCursor

from ..languages import Language, query
from ..model import Reference
from .captures import Def

_DEFINES = "[(preproc_def name: (identifier) @name) (preproc_function_def name: (identifier) @name)]"
_DEFINES_PER_FILE = 2000  # macros a file's `defines` fact names, at most
_GUARD_DEPTH = 24  # conditionals above a definition looked through
_GUARDS_PER_DEFINITION = 8


def preproc_facts(path: str, lang: Language, real: list[Def], root: Node, module_id: str) -> list[Reference]:
    """The file's ``defines`` fact (if it defines any macro) and a ``guard`` fact per
    function defined under a conditional that needs a macro."""
    out: list[Reference] = []
    names: list[str] = []
    seen: set[str] = set()
    for _, caps in QueryCursor(query(lang.grammar, _DEFINES)).matches(root):
        for node in caps.get("name", ()):
            name = node.text.decode("utf-8", "replace")
            if name not in seen and len(names) < _DEFINES_PER_FILE:
                seen.add(name)
                names.append(name)
    if names:
        out.append(Reference(path=path, kind="defines", name="", receiver="", line=0, col=0,
                             enclosing=module_id, source=" ".join(names)))
    for d in real:
        sym = d.symbol
        if sym is None or sym.kind not in ("function", "method"):
            continue
        guards = needed_macros(d.node)
        if guards:
            out.append(Reference(path=path, kind="guard", name=sym.name, receiver="", line=0, col=0,
                                 enclosing=sym.id, source=" ".join(guards)))
    return out


def needed_macros(node: Node) -> list[str]:
    """The macros the conditionals around ``node`` need defined for it to be compiled,
    innermost first."""
    out: list[str] = []
    child, parent = node, node.parent
    for _ in range(_GUARD_DEPTH):
        if parent is None or len(out) >= _GUARDS_PER_DEFINITION:
            break
        kind = parent.type
        if kind == "preproc_ifdef" or kind == "preproc_if" or kind == "preproc_elif":
            if not _in_alternative(parent, child):
                out.extend(_branch_needs(parent))
        elif kind == "preproc_else":
            owner = parent.parent
            if owner is not None and owner.type == "preproc_ifdef" and _directive(owner) == "#ifndef":
                out.extend(_names(owner))
        child, parent = parent, parent.parent
    return [m for i, m in enumerate(out) if m not in out[:i]][:_GUARDS_PER_DEFINITION]


def _in_alternative(conditional: Node, child: Node) -> bool:
    alternative = conditional.child_by_field_name("alternative")
    return alternative is not None and alternative.start_byte <= child.start_byte < alternative.end_byte


def _directive(node: Node) -> str:
    first = node.child(0)
    return first.type if first is not None else ""


def _names(ifdef: Node) -> list[str]:
    name = ifdef.child_by_field_name("name")
    return [name.text.decode("utf-8", "replace")] if name is not None and name.text else []


def _branch_needs(conditional: Node) -> list[str]:
    """What the branch of a conditional needs: ``#ifdef M`` → M, ``#ifndef M`` → none,
    ``#if``/``#elif`` → the macros of a ``defined(M)`` / ``M`` / ``&&`` chain."""
    if conditional.type == "preproc_ifdef":
        return _names(conditional) if _directive(conditional) == "#ifdef" else []
    condition = conditional.child_by_field_name("condition")
    return _condition_needs(condition) if condition is not None else []


def _condition_needs(condition: Node) -> list[str]:
    out: list[str] = []
    stack = [condition]
    while stack:
        n = stack.pop()
        if n.type == "parenthesized_expression" and n.named_child_count == 1:
            stack.append(n.named_children[0])
        elif n.type == "binary_expression":
            operator = n.child_by_field_name("operator")
            if operator is None or operator.type != "&&":
                return []  # `A || B`, `X > 2`: nothing a reader can require
            stack.extend(reversed(n.named_children))
        elif n.type == "preproc_defined":
            out.extend(c.text.decode("utf-8", "replace") for c in n.named_children if c.type == "identifier")
        elif n.type == "identifier":
            out.append(n.text.decode("utf-8", "replace"))
        else:
            return []  # `!defined(M)`, a number, a call: nothing that must be defined
    return out
