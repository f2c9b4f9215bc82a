"""Run a language's tags query on a syntax tree and turn the matches into symbols
and references.

Captures understood (the tree-sitter tags conventions):

* ``@definition.<kind>`` on a definition node, with ``@name`` on its name and an
  optional ``@doc``. A ``function`` directly inside a class-like symbol becomes a
  ``method``. ``@definition.namespace`` is a container only: its name prefixes the
  qualified names inside it, but it is not a symbol of its own.
* ``@reference.call`` / ``@reference.class`` on the using node with ``@name`` on the
  used name and an optional ``@receiver`` (the object of a method call).
* ``@reference.import`` with ``@name`` on the bound name, an optional ``@source``
  (the module it comes from) and an optional ``@original`` (the name in that module
  when the import renames it).
* ``@scope`` on a definition: a qualifier written outside the body (a Go method's
  receiver type, C++ ``void Foo::bar()``); it joins the qualified name.

Syntax errors do not stop extraction: tree-sitter recovers, and every match it
still finds is kept.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass

from tree_sitter import Node, QueryCursor, Tree

from .languages import Language, get_parser, get_query, query, rules
from .model import CONTAINER_KINDS, FACT_KINDS, MODULE_NAME, FileExtraction, Reference, Symbol

# Nodes that wrap a definition and carry the comments / decorators above it.
_WRAPPERS = frozenset(
    {
        "decorated_definition",
        "export_statement",
        "template_declaration",
        "ambient_declaration",
        "declaration_list",
    }
)
# Siblings between a doc comment and its definition that do not break the doc.
_DOC_TRANSPARENT = frozenset(
    {"decorator", "attribute_item", "attribute_list", "annotation", "marker_annotation", "attribute"}
)
_MODULE_TEXT_LIMIT = 20_000
_SIGNATURE_LIMIT = 400
_FACT_LIMIT = 160  # characters of an assigned expression or a type kept for resolution


def parse(language: str, data: bytes, old_tree: Tree | None = None) -> Tree:
    parser = get_parser(language)
    if old_tree is not None:
        return parser.parse(data, old_tree)
    return parser.parse(data)


def content_hash(*parts: str) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


@dataclass(slots=True)
class _Def:
    node: Node
    kind: str
    name: str
    doc: str
    start: int
    end: int
    parent: _Def | None = None
    scope: str = ""  # Go receiver type / C++ `Foo::` qualifier, dotted
    qualified: str = ""
    id: str = ""
    owner: _Def | None = None  # the class-like symbol this one belongs to
    symbol: Symbol | None = None


class _Source:
    """The file's bytes and text, with byte → (line, character column) conversion."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.ascii = data.isascii()
        self.line_starts = [0]
        pos = data.find(b"\n")
        while pos != -1:
            self.line_starts.append(pos + 1)
            pos = data.find(b"\n", pos + 1)

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def node_text(self, node: Node) -> str:
        return self.text(node.start_byte, node.end_byte)

    def column(self, row: int, byte_col: int) -> int:
        if self.ascii:
            return byte_col
        start = self.line_starts[row] if row < len(self.line_starts) else 0
        return len(self.data[start : start + byte_col].decode("utf-8", "replace"))



_XML_DOC_TAG = re.compile(r"</?(summary|remarks|returns|value|para)>|<(param|typeparam) name=\"(\w+)\">|</(param|typeparam)>")


def _xml_doc(match: re.Match[str]) -> str:
    return f"{match.group(3)}: " if match.group(3) else ""


def _clean_comment(text: str) -> str:
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


def _python_docstring(node: Node, src: _Source) -> str:
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


def _preceding_comments(node: Node, src: _Source) -> str:
    anchor = node
    while anchor.parent is not None and anchor.parent.type in _WRAPPERS:
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
        elif sibling.type not in _DOC_TRANSPARENT:
            break
        expected_row = sibling.start_point[0]
        sibling = sibling.prev_named_sibling
    if not comments:
        return ""
    comments.reverse()
    return _clean_comment("\n".join(comments))


def _signature(node: Node, src: _Source) -> str:
    body = node.child_by_field_name("body")
    if body is None:
        for child in node.children:
            if child.type in ("block", "compound_statement", "class_body", "declaration_list",
                              "field_declaration_list", "statement_block", "body_statement"):
                body = child
                break
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


def _dotted(name: str) -> str:
    """Namespace paths in one notation: ``a::b`` and ``A\\B`` become ``a.b`` / ``A.B``."""
    return name.replace("::", ".").replace("\\", ".").strip(".")


def _makes_methods(owner_kind: str, lang: Language) -> bool:
    """Does a function inside a symbol of this kind become a method? Rust `mod`
    blocks hold free functions; Ruby modules hold methods."""
    if owner_kind == "module":
        return lang.module_functions_are_methods
    return owner_kind in CONTAINER_KINDS


def _name_of(node: Node | None, src: _Source) -> str:
    if node is None:
        return ""
    return " ".join(src.node_text(node).split())


def extract(path: str, data: bytes, language: str, tree: Tree | None = None) -> FileExtraction:
    """Symbols and references of one file. ``data`` is the file's UTF-8 bytes."""
    if tree is None:
        tree = parse(language, data)
    original_errors = _count_errors(tree.root_node) if tree.root_node.has_error else 0
    if original_errors:
        data, tree = _recover(language, data, tree)
    src = _Source(data)
    root = tree.root_node
    lang = rules(language)
    defs_by_node: dict[tuple[int, int], _Def] = {}
    namespaces: list[_Def] = []
    raw_refs: list[tuple[str, Node, str, str, str, str]] = []  # kind, node, name, receiver, source, original

    for _pattern, captures in QueryCursor(get_query(language)).matches(root):
        name_nodes = captures.get("name") or []
        name = _name_of(name_nodes[0], src) if name_nodes else ""
        for cap, nodes in captures.items():
            if cap.startswith("definition."):
                if not name:
                    continue
                kind = cap.split(".", 1)[1]
                node = nodes[0]
                doc_nodes = captures.get("doc") or []
                doc = _clean_comment(src.node_text(doc_nodes[0])) if doc_nodes else ""
                d = _Def(node, kind, name, doc, node.start_byte, node.end_byte)
                scope_nodes = captures.get("scope") or []
                if scope_nodes:
                    d.scope = ".".join(_dotted(_name_of(n, src)) for n in scope_nodes)
                if kind == "namespace":
                    d.name = _dotted(name)
                    if node.child_by_field_name("body") is None and node.parent is not None:
                        d.end = node.parent.end_byte  # `namespace A;` runs to the next one or EOF
                    if node.type == "file_scoped_namespace_declaration" and node.parent is not None:
                        d.end = node.parent.end_byte  # `namespace A.B;` covers the rest of the file
                    namespaces.append(d)
                    continue
                key = (node.start_byte, node.end_byte)
                prev = defs_by_node.get(key)
                # Two patterns on one node: the more specific kind wins (method > function).
                if prev is None or (prev.kind == "function" and kind != "function"):
                    defs_by_node[key] = d
            elif cap.startswith("reference."):
                if not name:
                    continue
                receivers = captures.get("receiver") or []
                sources = captures.get("source") or []
                originals = captures.get("original") or []
                ref_kind = cap.split(".", 1)[1]
                source = _name_of(sources[0], src) if sources else ""
                if ref_kind == "typedoc":  # `/** @type {T} */` above a field or variable
                    found = _JSDOC_TYPE.search(source)
                    if found is None:
                        continue
                    ref_kind, source = "typed", found.group(1).strip()
                # import sources are module names (quotes off); the resolution facts
                # (assign / typed) keep an expression or a type as written, cut short
                source = source.strip("'\"`<>") if ref_kind == "import" else source[:_FACT_LIMIT]
                raw_refs.append(
                    (
                        ref_kind,
                        name_nodes[0] if name_nodes else nodes[0],
                        name if ref_kind not in ("returns", "return") else name[:_FACT_LIMIT],
                        _name_of(receivers[0], src)[:120] if receivers else "",
                        source,
                        _name_of(originals[0], src) if originals else "",
                    )
                )

    # A body-less namespace ends where the next one starts.
    namespaces.sort(key=lambda d: d.start)
    for a, b in zip(namespaces, namespaces[1:], strict=False):
        if a.end > b.start and a.node.child_by_field_name("body") is None:
            a.end = b.start
    # Nest definitions (and namespaces) by containment.
    ordered = sorted([*defs_by_node.values(), *namespaces], key=lambda d: (d.start, -d.end))
    stack: list[_Def] = []
    for d in ordered:
        while stack and stack[-1].end <= d.start:
            stack.pop()
        d.parent = stack[-1] if stack else None
        stack.append(d)

    module_qn = lang.module_qualified_name(path)
    module_id = f"{path}::{MODULE_NAME}"
    module_doc = _python_docstring(root, src) if lang.body_docstrings else ""
    symbols: list[Symbol] = []
    seen_ids: dict[str, int] = {}

    # Pass 1: qualified names and ids, in source order (overloads get #2, #3, ...).
    real = [d for d in ordered if d.kind != "namespace"]
    for d in real:
        parts = [d.name, *reversed(d.scope.split("."))] if d.scope else [d.name]
        p = d.parent
        while p is not None:
            if d.owner is None and p.kind != "namespace":
                d.owner = p
            parts.append(p.name)
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

    # Pass 2: the symbols.
    for d in real:
        kind = d.kind
        owner = d.owner
        if kind == "function" and owner is not None and _makes_methods(owner.kind, lang):
            kind = "method"
        node = d.node
        doc = d.doc
        if not doc:
            doc = (
                _python_docstring(node, src) if lang.body_docstrings else ""
            ) or _preceding_comments(node, src)
        text = src.node_text(node)
        signature = _signature(node, src)
        sp, ep = node.start_point, node.end_point
        d.symbol = Symbol(
            id=d.id,
            path=path,
            name=d.name,
            qualified_name=d.qualified,
            kind=kind,
            language=language,
            signature=signature,
            doc=doc,
            parent=owner.id if owner is not None else module_id,
            start_line=sp[0] + 1,
            start_col=src.column(sp[0], sp[1]),
            end_line=ep[0] + 1,
            end_col=src.column(ep[0], ep[1]),
            text=text,
            content_hash=content_hash(kind, d.qualified, signature, doc, text),
        )
        symbols.append(d.symbol)
    for d in real:
        if d.owner is not None and d.owner.symbol is not None and d.symbol is not None:
            d.owner.symbol.members.append(d.symbol.signature)

    top_level = [d for d in ordered if d.parent is None and d.symbol is not None]
    module_text = _module_text(src, top_level)
    end_row = root.end_point[0]
    module = Symbol(
        id=module_id,
        path=path,
        name=path.rsplit("/", 1)[-1],
        qualified_name=module_qn,
        kind="module",
        language=language,
        signature=path,
        doc=module_doc,
        parent=None,
        start_line=1,
        start_col=0,
        end_line=end_row + 1,
        end_col=src.column(end_row, root.end_point[1]),
        text=module_text,
        content_hash=content_hash("module", module_qn, module_doc, module_text),
        members=[d.symbol.signature for d in top_level if d.symbol is not None],
    )

    # Innermost enclosing symbol of each reference: one sweep over sorted starts.
    starts = [d.start for d in ordered]
    references: list[Reference] = []
    for kind, node, name, receiver, source, original in raw_refs:
        if kind == "import":
            name = lang.import_binding(name.strip("'\"`<>"))
        pos = node.start_byte
        i = bisect.bisect_right(starts, pos) - 1
        enclosing = module_id
        while i >= 0:
            d = ordered[i]
            if d.start <= pos < d.end:
                # climb to the nearest real symbol (namespaces are not symbols)
                while d is not None and d.symbol is None:
                    d = d.parent
                if d is not None and d.symbol is not None:
                    enclosing = d.symbol.id
                break
            i -= 1
        sp = node.start_point
        fact = kind in FACT_KINDS
        if fact:
            name, receiver = lang.fact_target(name, receiver)  # Ruby `@x = ...`: the instance's `x`
        if fact and enclosing == module_id and lang.drops_module_fact(_in_parameter(node, lang)):
            continue  # a parameter of a prototype (C: every fact is a function's), no variable of the file
        references.append(
            Reference(
                path=path,
                kind=kind,
                name=name,
                receiver=receiver,
                line=0 if fact else sp[0] + 1,
                col=0 if fact else src.column(sp[0], sp[1]),
                enclosing=enclosing,
                source=source,
                original=original,
            )
        )

    if lang.jsdoc:
        references += _jsdoc_facts(symbols, path)
    if lang.closure_declarations:
        references += _closure_param_facts(path, lang, real, references, src)
    return FileExtraction(path, language, [module, *symbols], references, original_errors)


def _in_parameter(node: Node, lang: Language) -> bool:
    """Is the node inside a parameter declaration (within a few levels)?"""
    if not lang.parameter_nodes:
        return False
    p = node.parent
    for _ in range(6):
        if p is None:
            return False
        if p.type in lang.parameter_nodes:
            return True
        p = p.parent
    return False


_JSDOC_TYPE = re.compile(r"@type\s+\{([^}]+)\}")
_JSDOC_PARAM = re.compile(r"@(?:param|arg|argument)\s+\{([^}]+)\}\s+\[?([A-Za-z_$][\w$]*)")
_JSDOC_RETURNS = re.compile(r"@returns?\s+\{([^}]+)\}")


def _jsdoc_facts(symbols: list[Symbol], path: str) -> list[Reference]:
    """JSDoc types as resolution facts: ``@param {Option} option``, ``@returns {Help}``."""
    out: list[Reference] = []
    for s in symbols:
        if s.kind not in ("function", "method", "constructor") or "@" not in s.doc:
            continue
        for type_text, name in _JSDOC_PARAM.findall(s.doc):
            out.append(Reference(path, "typed", name, "", 0, 0, s.id, type_text.strip()[:_FACT_LIMIT]))
        m = _JSDOC_RETURNS.search(s.doc)
        if m:
            out.append(Reference(path, "returns", m.group(1).strip()[:_FACT_LIMIT], "", 0, 0, s.id))
    return out


# JS/TS: a local closure's parameters take the values its defining function passes
_LOCAL_FACTS = frozenset({"typed", "assign", "elem"})
_CALLS = "(call_expression function: (identifier) @callee arguments: (arguments) @args)"


def _js_function_node(decl: Node, lang: Language) -> Node | None:
    if decl.type in lang.function_nodes:
        return decl
    for child in decl.named_children:
        if child.type == "variable_declarator":
            value = child.child_by_field_name("value")
            if value is not None and value.type in lang.function_nodes:
                return value
    return None


def _js_params(fn: Node, src: _Source) -> list[str | None]:
    """A function's parameter names by position (None: a destructuring pattern)."""
    single = fn.child_by_field_name("parameter")
    if single is not None:
        return [src.node_text(single)] if single.type == "identifier" else []
    params = fn.child_by_field_name("parameters")
    out: list[str | None] = []
    for p in params.named_children if params is not None else ():
        if p.type == "comment":
            continue
        if p.type in ("required_parameter", "optional_parameter"):  # TypeScript
            p = p.child_by_field_name("pattern") or p
        if p.type == "assignment_pattern":
            p = p.child_by_field_name("left") or p
        if p.type == "rest_pattern":
            break
        out.append(src.node_text(p) if p.type == "identifier" else None)
    return out


def _closure_param_facts(path: str, lang: Language, real: list[_Def], references: list[Reference],
                         src: _Source) -> list[Reference]:
    """``const parse = (arg, value) => {...}`` inside a function that calls it
    ``parse(declared, 1)``: ``arg`` holds ``declared`` (an ``assign`` fact in the
    closure, read in the scope of the function defining it, which the closure sees).
    Only calls made directly in that function, of arguments that are names, members,
    subscripts, calls or ``new``, and none that the closure binds itself."""
    closures: dict[int, dict[str, tuple[_Def, list[str | None], Node]]] = {}  # owner node id → name → closure
    owners: dict[int, _Def] = {}
    for d in real:
        owner = d.owner
        if (d.symbol is None or d.symbol.kind != "function" or owner is None or owner.symbol is None
                or owner.symbol.kind not in ("function", "method", "constructor")
                or d.node.type not in lang.closure_declarations):
            continue
        fn = _js_function_node(d.node, lang)
        params = _js_params(fn, src) if fn is not None else []
        if any(params):
            closures.setdefault(owner.node.id, {})[d.name] = (d, params, fn)
            owners[owner.node.id] = owner
    if not closures:
        return []
    calls = query(lang.grammar, _CALLS)
    bound: dict[str, set[str]] = {}
    for r in references:
        if r.kind in _LOCAL_FACTS:
            bound.setdefault(r.enclosing, set()).add(r.name)
    out: list[Reference] = []
    for key, named in closures.items():
        owner = owners[key]
        inner = [d for d in real if d is not owner and owner.start <= d.start and d.end <= owner.end]
        for _pattern, captures in QueryCursor(calls).matches(owner.node):
            callee, args = captures["callee"][0], captures["args"][0]
            found = named.get(src.node_text(callee))
            if found is None:
                continue
            d, params, fn = found
            at = callee.start_byte
            if any(i.start <= at < i.end for i in inner):  # called from another function
                continue
            own = bound.get(d.symbol.id, set()) | {p for p in params if p}
            values = [a for a in args.named_children if a.type != "comment"]
            for name, arg in zip(params, values, strict=False):
                if name is None or arg.type not in lang.argument_nodes:

                    continue
                text = src.node_text(arg)
                head = re.match(r"[A-Za-z_$][\w$]*", text)
                if head is None or head.group(0) in own or (
                        head.group(0) == "this" and fn.type != "arrow_function"):
                    continue
                out.append(Reference(path, "assign", name, "", 0, 0, d.symbol.id, text[:_FACT_LIMIT]))
    return out


_RECOVERY_ATTEMPTS = 24


def _recover(language: str, data: bytes, tree: Tree) -> tuple[bytes, Tree]:
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
        err = errors[0]
        start = err.start_byte
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


def _module_text(src: _Source, top_level: list[_Def]) -> str:
    """Top-level code of a file, with each top-level definition shown by its signature."""
    pieces: list[str] = []
    pos = 0
    size = 0  # of the pieces so far (summing them each time was quadratic)
    for d in top_level:
        start = d.start
        # keep the full line of the definition start (indentation, decorators)
        pieces.append(src.text(pos, start))
        assert d.symbol is not None
        pieces.append(d.symbol.signature + " ...")
        size += len(pieces[-2]) + len(pieces[-1])
        pos = d.end
        if size > _MODULE_TEXT_LIMIT:
            break
    else:
        pieces.append(src.text(pos, len(src.data)))
    text = "".join(pieces)
    return text[:_MODULE_TEXT_LIMIT]


def _count_errors(root: Node) -> int:
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


def extract_text(path: str, text: str, language: str) -> FileExtraction:
    """Convenience for callers that hold decoded text (tests, editor buffers)."""
    return extract(path, text.encode("utf-8", "surrogatepass"), language)
