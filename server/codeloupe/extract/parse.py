"""Parsing a file, counting its syntax errors, and re-synchronising after an error
that swallowed the rest of it."""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node, Tree

from ..languages import get_parser

_RECOVERY_ATTEMPTS = 24


def parse(language: str, data: bytes, old_tree: Tree | None = None) -> Tree:
    """The syntax tree of ``data`` (re-parsed from ``old_tree`` when given, after its edits)."""
    parser = get_parser(language)
    if old_tree is not None:
        return parser.parse(data, old_tree)
    return parser.parse(data)


def blank_macros(pattern: Any, data: bytes) -> bytes:
    """``data`` with group 1 of each match of ``pattern`` (``Language.blanked_macros``)
    turned to spaces, offsets kept; ``data`` itself when nothing matches."""
    if pattern is None:
        return data
    spans = [m.span(1) for m in pattern.finditer(data)]
    if not spans:
        return data
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = b" " * (end - start)
    return bytes(out)


# `#define NAME body` (a line's first directive; a continued body is no specifier list)
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*([^\n]*?)[ \t]*(\\?)\r?$", re.M)
# what a specifier-only macro may expand to (besides other such macros)
_SPECIFIERS = frozenset(b"""inline static extern const constexpr virtual explicit __inline __inline__
__forceinline __declspec __attribute__ noexcept""".split())
_TOKEN = re.compile(rb"[A-Za-z_]\w*|\(|\)|\S")


def blank_specifier_macros(data: bytes) -> bytes:
    """``data`` with the uses of the file's object-like macros that expand to nothing
    but declaration specifiers blanked (spaces, offsets kept): ``#define PUGI__FN
    inline`` (or empty, on another branch) makes ``PUGI__FN xml_text& xml_text::operator=(int)``
    a definition the grammar can read, where the macro left it an error that hid the
    method's class. Every definition of the name in the file must be such; a body may
    name another such macro (``#define PUGIXML_CLASS PUGIXML_API``)."""
    if b"#" not in data or b"define" not in data:
        return data
    bodies: dict[bytes, list[bytes]] = {}
    for m in _DEFINE.finditer(data):
        bodies.setdefault(m.group(1), []).append(b"\\" if m.group(3) else m.group(2).split(b"//", 1)[0])
    names: set[bytes] = set()
    changed = True
    while changed:
        changed = False
        for name, texts in bodies.items():
            if name not in names and all(_specifiers_only(t, names) for t in texts):
                names.add(name)
                changed = True
    if not names:
        return data
    use = re.compile(rb"\b(?:" + b"|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + rb")\b")
    out = bytearray(data)
    directive = re.compile(rb"^[ \t]*#[^\n]*", re.M)
    skip = [m.span() for m in directive.finditer(data)]
    blanked = False
    i = 0
    for m in use.finditer(data):
        while i < len(skip) and skip[i][1] <= m.start():
            i += 1
        if i < len(skip) and skip[i][0] <= m.start() < skip[i][1]:
            continue  # inside a preprocessor line (`#define`, `#if defined(X)`)
        out[m.start():m.end()] = b" " * (m.end() - m.start())
        blanked = True
    return bytes(out) if blanked else data


def _specifiers_only(body: bytes, names: set[bytes]) -> bool:
    depth = 0
    for tok in _TOKEN.findall(body):
        if tok == b"(":
            depth += 1
        elif tok == b")":
            depth -= 1
        elif depth == 0 and tok not in _SPECIFIERS and tok not in names:
            return False
    return depth == 0


def recover(language: str, data: bytes, tree: Tree) -> tuple[bytes, Tree]:
    """Re-synchronise after a syntax error that swallowed the rest of a file.

    tree-sitter sometimes folds everything after a bad line into one top-level ERROR
    node, and the definitions inside it are lost. Blank (spaces, newlines kept, so
    every offset stays valid) the first line of the first top-level ERROR and parse
    again, until no top-level ERROR remains or the attempts run out; keep the best
    tree, judged by how many bytes ERROR nodes still cover."""
    best_data, best_tree = data, tree
    best_cost = _error_bytes(tree.root_node)
    masked = bytearray(data)
    for _ in range(_RECOVERY_ATTEMPTS):
        errors = [c for c in tree.root_node.children if c.type == "ERROR" or c.is_missing]
        if not errors:
            break
        start = errors[0].start_byte
        line_start = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", start)
        if line_end == -1:
            line_end = len(data)
        if all(b in b" \t\r" for b in masked[line_start:line_end]):
            # the error starts on a blank line: blank through its first non-empty line
            nxt = data.find(b"\n", line_end + 1)
            line_end = len(data) if nxt == -1 else nxt
        for i in range(line_start, line_end):
            if masked[i] not in (0x0A, 0x0D):
                masked[i] = 0x20
        tree = parse(language, bytes(masked))
        cost = _error_bytes(tree.root_node)
        if cost < best_cost:
            best_data, best_tree, best_cost = bytes(masked), tree, cost
    return best_data, best_tree


def _error_bytes(root: Node) -> int:
    return sum(c.end_byte - c.start_byte for c in root.children if c.type == "ERROR")


def count_errors(root: Node) -> int:
    """ERROR and MISSING nodes in the tree (a walk into the subtrees that have some)."""
    count = 0
    cursor = root.walk()
    visited_children = False
    while True:
        node = cursor.node
        if not visited_children:
            if node is not None and (node.is_error or node.is_missing):
                count += 1
            if node is not None and node.has_error and cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
            continue
        if not cursor.goto_parent():
            break
        visited_children = True
    return count
