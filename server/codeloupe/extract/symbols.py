"""Definitions into symbols: nesting by containment, qualified names and ids
(overloads ``#2``), owners (a scoped Go / C++ method belongs to its class), and the
module unit of the file (its top-level code, each definition by its signature)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from tree_sitter import Node

from ..languages import Language
from ..model import CONTAINER_KINDS, MODULE_NAME, Symbol
from .captures import Def
from .docs import body_docstring, preceding_comments, signature
from .source import Source

_MODULE_TEXT_LIMIT = 20_000


@dataclass(slots=True)
class FileUnit:
    """The file being extracted: what every step needs to know about it."""

    path: str
    language: str
    lang: Language
    src: Source
    root: Node

    @property
    def module_id(self) -> str:
        """The id of the file's module unit (``path::<module>``)."""
        return f"{self.path}::{MODULE_NAME}"


def content_hash(*parts: str) -> str:
    """A digest of the texts (a symbol's content: re-embedded only when it changes)."""
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def nest(defs: list[Def], namespaces: list[Def]) -> list[Def]:
    """Definitions and namespaces in source order, each with its parent (the innermost
    one containing it). A body-less namespace (``namespace A;``) ends where the next
    one starts."""
    namespaces.sort(key=lambda d: d.start)
    for a, b in zip(namespaces, namespaces[1:], strict=False):
        if a.end > b.start and a.node.child_by_field_name("body") is None:
            a.end = b.start
    ordered = sorted([*defs, *namespaces], key=lambda d: (d.start, -d.end))
    stack: list[Def] = []
    for d in ordered:
        while stack and stack[-1].end <= d.start:
            stack.pop()
        d.parent = stack[-1] if stack else None
        stack.append(d)
    return ordered


def name_definitions(path: str, ordered: list[Def]) -> list[Def]:
    """The definitions that become symbols (namespaces do not), with qualified names,
    ids (overloads get ``#2``, ``#3``, ... in source order) and owners."""
    seen_ids: dict[str, int] = {}
    real = [d for d in ordered if d.kind != "namespace"]
    for d in real:
        parts = [d.name, *reversed(d.scope.split("."))] if d.scope else [d.name]
        p = d.parent
        while p is not None:
            if d.owner is None and p.kind != "namespace":
                d.owner = p
            parts.append(p.name)
            if p.scope:  # in a member defined apart (`View.prototype.render`): `View.render.x`
                parts.extend(reversed(p.scope.split(".")))
            p = p.parent
        d.qualified = ".".join(reversed(parts))
        base_id = f"{path}::{d.qualified}"
        count = seen_ids.get(base_id, 0) + 1
        seen_ids[base_id] = count
        d.id = base_id if count == 1 else f"{base_id}#{count}"
    # A scoped definition (Go method, C++ `void Foo::bar()`) belongs to the class-like
    # symbol of that name in the same file, when there is one.
    containers = {d.qualified: d for d in real if d.kind in CONTAINER_KINDS}
    for d in real:
        if d.scope:
            owner = containers.get(d.qualified.rsplit(".", 1)[0])
            if owner is not None and owner is not d:
                d.owner = owner
    return real


def _makes_methods(owner_kind: str, lang: Language) -> bool:
    """Does a function inside a symbol of this kind become a method? Rust `mod`
    blocks hold free functions; Ruby modules hold methods."""
    if owner_kind == "module":
        return lang.module_functions_are_methods
    return owner_kind in CONTAINER_KINDS


def make_symbols(unit: FileUnit, real: list[Def]) -> list[Symbol]:
    """A Symbol per definition (``Def.symbol`` set), and each owner's members."""
    src, lang = unit.src, unit.lang
    symbols: list[Symbol] = []
    for d in real:
        kind = d.kind
        owner = d.owner
        if kind == "function" and owner is not None and _makes_methods(owner.kind, lang):
            kind = "method"
        node = d.node
        doc = d.doc
        if not doc:
            doc = (body_docstring(node, src) if lang.body_docstrings else "") or preceding_comments(node, src)
        text = src.node_text(node)
        sig = signature(node, src)
        sp, ep = node.start_point, node.end_point
        d.symbol = Symbol(
            id=d.id,
            path=unit.path,
            name=d.name,
            qualified_name=d.qualified,
            kind=kind,
            language=unit.language,
            signature=sig,
            doc=doc,
            parent=owner.id if owner is not None else unit.module_id,
            start_line=sp[0] + 1,
            start_col=src.column(sp[0], sp[1]),
            end_line=ep[0] + 1,
            end_col=src.column(ep[0], ep[1]),
            text=text,
            content_hash=content_hash(kind, d.qualified, sig, doc, text),
        )
        symbols.append(d.symbol)
    for d in real:
        if d.owner is not None and d.owner.symbol is not None and d.symbol is not None:
            d.owner.symbol.members.append(d.symbol.signature)
    return symbols


def module_symbol(unit: FileUnit, ordered: list[Def]) -> Symbol:
    """The module unit: the file's top-level code, each top-level definition shown by
    its signature."""
    src, root, path = unit.src, unit.root, unit.path
    qualified = unit.lang.module_qualified_name(path)
    doc = body_docstring(root, src) if unit.lang.body_docstrings else ""
    top_level = [d for d in ordered if d.parent is None and d.symbol is not None]
    text = _module_text(src, top_level)
    end_row = root.end_point[0]
    return Symbol(
        id=unit.module_id,
        path=path,
        name=path.rsplit("/", 1)[-1],
        qualified_name=qualified,
        kind="module",
        language=unit.language,
        signature=path,
        doc=doc,
        parent=None,
        start_line=1,
        start_col=0,
        end_line=end_row + 1,
        end_col=src.column(end_row, root.end_point[1]),
        text=text,
        content_hash=content_hash("module", qualified, doc, text),
        members=[d.symbol.signature for d in top_level if d.symbol is not None],
    )


def _module_text(src: Source, top_level: list[Def]) -> str:
    """Top-level code of a file, with each top-level definition shown by its signature."""
    pieces: list[str] = []
    pos = 0
    size = 0  # of the pieces so far (summing them each time was quadratic)
    for d in top_level:
        # keep the full line of the definition start (indentation, decorators)
        pieces.append(src.text(pos, d.start))
        assert d.symbol is not None
        pieces.append(d.symbol.signature + " ...")
        size += len(pieces[-2]) + len(pieces[-1])
        pos = d.end
        if size > _MODULE_TEXT_LIMIT:
            break
    else:
        pieces.append(src.text(pos, len(src.data)))
    return "".join(pieces)[:_MODULE_TEXT_LIMIT]
