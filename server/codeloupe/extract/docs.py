"""What a reader sees of a definition besides its code: its doc (a docstring, the
comments above it, C#'s XML tags read as text) and its signature (the text before
its body)."""

from __future__ import annotations

import re

from tree_sitter import Node

from .source import Source

# Nodes that wrap a definition and carry the comments / decorators above it.
WRAPPERS = frozenset(
    {
        "decorated_definition",
        "export_statement",
        "template_declaration",
        "ambient_declaration",
        "declaration_list",
    }
)
# Siblings between a doc comment and its definition that do not break the doc.
DOC_TRANSPARENT = frozenset(
    {"decorator", "attribute_item", "attribute_list", "annotation", "marker_annotation", "attribute"}
)
# Children that hold a definition's body, when the grammar has no `body` field.
_BODIES = frozenset({"block", "compound_statement", "class_body", "declaration_list",
                     "field_declaration_list", "statement_block", "body_statement"})
_SIGNATURE_LIMIT = 400
_XML_DOC_TAG = re.compile(r"</?(summary|remarks|returns|value|para)>|<(param|typeparam) name=\"(\w+)\">|</(param|typeparam)>")


def _xml_doc(match: re.Match[str]) -> str:
    return f"{match.group(3)}: " if match.group(3) else ""


def clean_comment(text: str) -> str:
    """A comment's text without its markers (``//``, ``/** */``, ``#``, ``*``)."""
    text = _XML_DOC_TAG.sub(_xml_doc, text)  # C# /// <summary> docs
    lines = []
    for raw in text.splitlines():
        line = raw.strip()
        for prefix in ("/**", "/*!", "/*", "///", "//!", "//", "#", "*/", "*"):
            if line.startswith(prefix):
                line = line[len(prefix) :]
                break
        if line.endswith("*/"):
            line = line[:-2]
        lines.append(line.strip())
    return "\n".join(lines).strip()


def _clean_docstring(text: str) -> str:
    body = text.strip()
    for prefix in ('r"""', "r'''", 'b"""', '"""', "'''", 'r"', "r'", '"', "'"):
        if body.startswith(prefix):
            quote = prefix.lstrip("rb")
            body = body[len(prefix) :]
            if body.endswith(quote):
                body = body[: -len(quote)]
            break
    lines = body.splitlines()
    if not lines:
        return ""
    first, rest = lines[0].strip(), lines[1:]
    indent = min((len(ln) - len(ln.lstrip()) for ln in rest if ln.strip()), default=0)
    return "\n".join([first, *(ln[indent:].rstrip() for ln in rest)]).strip()


def body_docstring(node: Node, src: Source) -> str:
    """The first string of a definition's body (or of a module), dedented: a docstring."""
    body = node.child_by_field_name("body") if node.type != "module" else node
    if body is None:
        return ""
    for child in body.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_child_count == 1:
            child = child.named_children[0]
        if child.type in ("string", "concatenated_string"):
            return _clean_docstring(src.node_text(child))
        return ""
    return ""


def preceding_comments(node: Node, src: Source) -> str:
    """The comments right above a definition (through decorators and attributes)."""
    anchor = node
    while anchor.parent is not None and anchor.parent.type in WRAPPERS:
        if anchor.parent.type == "declaration_list":
            break
        anchor = anchor.parent
    comments: list[str] = []
    expected_row = anchor.start_point[0]
    sibling = anchor.prev_named_sibling
    while sibling is not None:
        gap = expected_row - sibling.end_point[0]
        # a /** doc block */ may stand one blank line above; other comments must touch
        if gap > 2 or (gap == 2 and not (comments == [] and src.node_text(sibling).startswith("/**"))):
            break
        if "comment" in sibling.type:
            comments.append(src.node_text(sibling))
        elif sibling.type not in DOC_TRANSPARENT:
            break
        expected_row = sibling.start_point[0]
        sibling = sibling.prev_named_sibling
    if not comments:
        return ""
    comments.reverse()
    return clean_comment("\n".join(comments))


def signature(node: Node, src: Source) -> str:
    """The text of a definition before its body, on one line."""
    body = node.child_by_field_name("body")
    if body is None:
        body = next((child for child in node.children if child.type in _BODIES), None)
    if body is not None and body.start_byte > node.start_byte:
        end = body.start_byte
        # Python: stop at the ":" before the body when only comments stand between
        for child in node.children:
            if child.type == ":" and child.end_byte <= body.start_byte:
                end = child.start_byte
            elif child.start_byte < body.start_byte and "comment" not in child.type:
                end = body.start_byte
        text = src.text(node.start_byte, end)
    else:
        text = src.node_text(node).split("\n", 1)[0]
    text = " ".join(text.split()).rstrip("{:=; ").strip()
    return text[:_SIGNATURE_LIMIT]
