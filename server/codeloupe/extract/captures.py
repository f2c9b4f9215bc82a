"""The matches of a tags query, read into definitions (``Def``) and raw references:
the first step of extraction, before names and nesting are known."""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node, Query, QueryCursor

from ..languages.base import dotted
from ..model import Symbol
from .docs import clean_comment
from .jsdoc import doc_type
from .source import Source

FACT_LIMIT = 160  # characters of an assigned expression or a type kept for resolution
_RECEIVER_LIMIT = 120


@dataclass(slots=True)
class Def:
    """A definition the query matched; its names and ids are filled in later."""

    node: Node
    kind: str
    name: str
    doc: str
    start: int
    end: int
    parent: Def | None = None
    scope: str = ""  # Go receiver type / C++ `Foo::` qualifier, dotted
    qualified: str = ""
    id: str = ""
    owner: Def | None = None  # the class-like symbol this one belongs to
    symbol: Symbol | None = None


# A reference the query matched, before its enclosing symbol is known: (kind, node,
# name, receiver, source, original); a plain tuple (a file has thousands).
RawRef = tuple[str, Node, str, str, str, str]


@dataclass(slots=True)
class Captures:
    """What one file's matches hold: definitions (one per node), namespaces, references."""

    defs: list[Def]
    namespaces: list[Def]
    refs: list[RawRef]


def collect(src: Source, root: Node, query: Query) -> Captures:
    """Run the tags query over the tree; every match with a ``@name`` counts."""
    defs_by_node: dict[tuple[int, int], Def] = {}
    namespaces: list[Def] = []
    refs: list[RawRef] = []
    for _pattern, captures in QueryCursor(query).matches(root):
        name_nodes = captures.get("name") or []
        name = src.name_of(name_nodes[0]) if name_nodes else ""
        if not name:
            continue
        for cap, nodes in captures.items():
            if cap.startswith("definition."):
                d = _definition(cap[len("definition."):], nodes[0], name, captures, src)
                if d.kind == "namespace":
                    namespaces.append(d)
                    continue
                key = (d.start, d.end)
                prev = defs_by_node.get(key)
                # Two patterns on one node: the more specific kind wins (method > function).
                if prev is None or (prev.kind == "function" and d.kind != "function"):
                    defs_by_node[key] = d
            elif cap.startswith("reference."):
                ref = _reference(cap[len("reference."):], name_nodes[0], name, captures, src)
                if ref is not None:
                    refs.append(ref)
    return Captures(list(defs_by_node.values()), namespaces, refs)


def _definition(kind: str, node: Node, name: str, captures: dict[str, list[Node]], src: Source) -> Def:
    doc_nodes = captures.get("doc") or []
    doc = clean_comment(src.node_text(doc_nodes[0])) if doc_nodes else ""
    d = Def(node, kind, name, doc, node.start_byte, node.end_byte)
    scope_nodes = captures.get("scope") or []
    if scope_nodes:
        d.scope = ".".join(dotted(src.name_of(n)) for n in scope_nodes)
    if kind == "namespace":
        d.name = dotted(name)
        if node.child_by_field_name("body") is None and node.parent is not None:
            d.end = node.parent.end_byte  # `namespace A;` runs to the next one or EOF
        if node.type == "file_scoped_namespace_declaration" and node.parent is not None:
            d.end = node.parent.end_byte  # `namespace A.B;` covers the rest of the file
    return d


def _reference(kind: str, name_node: Node, name: str, captures: dict[str, list[Node]],
               src: Source) -> RawRef | None:
    receivers = captures.get("receiver") or []
    sources = captures.get("source") or []
    originals = captures.get("original") or []
    source = src.name_of(sources[0]) if sources else ""
    if kind == "typedoc":  # `/** @type {T} */`, `/** @var T */` above a field or variable
        found = doc_type(source)
        if found is None:
            return None
        kind, source = "typed", found
    # import sources are module names (quotes off); the resolution facts
    # (assign / typed) keep an expression or a type as written, cut short
    source = source.strip("'\"`<>") if kind == "import" else source[:FACT_LIMIT]
    return (
        kind,
        name_node,
        name if kind not in ("returns", "return") else name[:FACT_LIMIT],
        src.name_of(receivers[0])[:_RECEIVER_LIMIT] if receivers else "",
        source,
        src.name_of(originals[0]) if originals else "",
    )
