"""Macro invocations (Rust ``name!(...)``): the invocation is a call of the macro
``name!``, never of a function ``name``; and the calls written in its arguments,
which the grammar gives as a flat token tree, not as expressions, are read from
their tokens: ``f(x)``, ``a.b.f(x)``, ``a::T::new(x)``, ``self.check()``.

Only the invocations the tags query found are read (a token tree nested in one is
read with it, iteratively: any nesting depth costs no Python frames).

C function-like macros (``#define PUT(e, c) (FLUSH(e) && ...)``): a call of one that
the file defines is also a call of each function its body calls by a bare name, at
the call's line, expanded through the macros it uses in turn (``FLUSH`` to
``yaml_emitter_flush``); names the body calls through its parameters (``fn(x)``) and
members (``e->write(x)``) are left out: the macro's user supplies them."""

from __future__ import annotations

import re

from tree_sitter import Node, QueryCursor

from ..languages import Language, query
from .captures import _RECEIVER_LIMIT, RawRef
from .source import Source

_MEMBER = "."
_PATH = "::"
_NOT_CALLED = frozenset({"fn", "struct", "enum", "trait", "impl", "mod", "macro_rules", "if", "while",
                         "match", "for", "loop", "return", "in", "as", "let", "move"})
_CALLS_PER_FILE = 20000  # calls read from token trees, at most, in one file
# a bare name followed by `(` in a macro body (not after `.`, `->`, `::` or `#`)
_BODY_CALL = re.compile(r"(?<![\w.>:#$])([A-Za-z_]\w*)\s*\(")
_C_WORDS = frozenset({"if", "while", "for", "switch", "return", "sizeof", "defined", "_Generic", "_Alignof",
                      "alignof", "offsetof", "typeof", "__typeof__", "__builtin_expect", "do", "case", "else"})
_EXPANDED_PER_CALL = 64  # names one macro call expands to, at most


def macro_refs(src: Source, lang: Language, raw: list[RawRef]) -> list[RawRef]:
    """``raw`` with each macro invocation's call named ``name!``, and after them the
    calls found in the invocations' token trees."""
    out: list[RawRef] = []
    found: list[RawRef] = []
    for ref in raw:
        kind, node = ref[0], ref[1]
        invocation = _invocation(node, lang) if kind == "call" else None
        if invocation is None:
            out.append(ref)
            continue
        out.append((kind, node, ref[2] + "!", *ref[3:]))
        if len(found) < _CALLS_PER_FILE:
            found.extend(_token_calls(src, lang, invocation, _CALLS_PER_FILE - len(found)))
    return out + found


def _invocation(name_node: Node, lang: Language) -> Node | None:
    """The macro invocation whose macro name this is (``m!``, ``a::m!``), else None."""
    parent = name_node.parent
    if parent is not None and parent.type != lang.macro_invocation_node:
        parent = parent.parent  # `a::m!`: the name is in a scoped identifier
    if parent is None or parent.type != lang.macro_invocation_node:
        return None
    macro = parent.child_by_field_name("macro")
    if macro is None or not (macro.start_byte <= name_node.start_byte < macro.end_byte):
        return None
    return parent


def _token_calls(src: Source, lang: Language, invocation: Node, limit: int) -> list[RawRef]:
    """Call-shaped token runs of an invocation's token trees: a name followed by a
    parenthesized tree, with the receiver written before it (``a.b.`` / ``a::T::``)."""
    calls: list[RawRef] = []
    stack = [c for c in invocation.children if c.type == lang.token_tree_node]
    while stack and len(calls) < limit:
        tree = stack.pop()
        tokens = tree.children
        for i, tok in enumerate(tokens):
            if tok.type == lang.token_tree_node:
                stack.append(tok)
                continue
            if tok.type != "identifier" or i + 1 >= len(tokens):
                continue
            args = tokens[i + 1]
            if args.type != lang.token_tree_node or args.child_count == 0 or args.children[0].type != "(":
                continue
            if i > 0 and tokens[i - 1].type in _NOT_CALLED:  # `fn f(` in a macro writing items
                continue
            name = src.node_text(tok)
            if name in _NOT_CALLED:
                continue
            calls.append(("call", tok, name, _receiver(src, lang, tokens, i)[:_RECEIVER_LIMIT], "", ""))
    return calls


def _receiver(src: Source, lang: Language, tokens: list[Node], i: int) -> str:
    """The text of the receiver before token ``i``: names, ``self``, calls and indexes
    joined by ``.`` or ``::``, as written; "" for a bare call."""
    start = i
    j = i - 1
    while j >= 1 and tokens[j].type in (_MEMBER, _PATH):
        k = j - 1
        while k >= 0 and tokens[k].type == lang.token_tree_node:  # `b(x).` / `xs[0].`
            k -= 1
        if k < 0 or tokens[k].type not in ("identifier", "self", "crate", "super", "Self"):
            break
        if k < j - 1 and tokens[j].type == _PATH:
            break  # `f(x)::g`: no path
        start = k
        j = k - 1
    if start == i:
        return ""
    return " ".join(src.text(tokens[start].start_byte, tokens[i - 1].start_byte).split())


def function_macro_refs(src: Source, lang: Language, root: Node, raw: list[RawRef]) -> list[RawRef]:
    """``raw`` and, after them, for each call of a function-like macro the file
    defines, a call of each name its expansion calls (at the macro call's node, its
    argument count unknown)."""
    bodies = _macro_bodies(src, lang, root)
    if not bodies:
        return raw
    expanded: dict[str, list[str]] = {}
    found: list[RawRef] = []
    for ref in raw:
        if ref[0] != "call" or ref[3] or ref[2] not in bodies or len(found) >= _CALLS_PER_FILE:
            continue
        names = expanded.get(ref[2])
        if names is None:
            names = expanded[ref[2]] = _expand(ref[2], bodies)
        found += [("call", ref[1], name, "", "", "") for name in names]
    return raw + found


def _macro_bodies(src: Source, lang: Language, root: Node) -> dict[str, list[str]]:
    """Each function-like macro of the file: the bare names its body calls, in order,
    without its parameters. A name defined twice is almost always defined in the
    alternatives of an ``#if`` / ``#else`` (a redefinition in one configuration is an
    error): a call of it calls the names of either body, as some build does."""
    bodies: dict[str, list[str]] = {}
    for _pattern, captures in QueryCursor(query(lang.grammar, lang.function_macros)).matches(root):
        params = set(re.findall(r"[A-Za-z_]\w*", src.node_text(captures["params"][0])))
        names = bodies.setdefault(src.node_text(captures["name"][0]), [])
        for name in _BODY_CALL.findall(src.node_text(captures["value"][0])):
            if name not in params and name not in _C_WORDS and name not in names:
                names.append(name)
    return bodies


def _expand(macro: str, bodies: dict[str, list[str]]) -> list[str]:
    """The names a call of ``macro`` calls: its body's, each macro among them replaced
    by its own expansion (a macro met again is not expanded twice; at most
    ``_EXPANDED_PER_CALL`` names)."""
    out: list[str] = []
    seen = {macro}
    stack = list(reversed(bodies[macro]))
    while stack and len(out) < _EXPANDED_PER_CALL:
        name = stack.pop()
        if name in bodies:
            if name not in seen:
                seen.add(name)
                stack += reversed(bodies[name])
        elif name not in out:
            out.append(name)
    return out
