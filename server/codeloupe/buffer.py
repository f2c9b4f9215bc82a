"""Editor buffers, keystroke by keystroke: one syntax tree per open buffer, edited
(``Tree.edit``) and re-parsed with the old tree, and a re-extraction that redoes
only the top-level definition an edit fell into.

A keystroke inside a function of a 3,000-line file costs a 2 ms re-parse; a full
re-extraction (the tags query over the whole tree and a Symbol per definition)
costs 40 ms. ``splice`` extracts just the top-level node around the edit (with
the comments above it; the indent before it blanked, so columns stay the same),
shifts its lines back to where the node is, and keeps the rest of the previous
extraction with lines shifted (0.1 ms for the node, where the whole buffer with
everything else blanked was 1.5 ms to parse and walk). It gives up (the caller extracts the
whole file) whenever the result could differ from a full extraction: a syntax
error anywhere, an edit that is not strictly inside one top-level node, a node
that shares a line with its neighbours, or definitions in it whose ids, kinds,
parents or signatures changed (names, overloads, scoped Go/C++ methods and
namespaces all depend on the rest of the file). ``tests/test_buffer.py`` checks
it against full extraction edit by edit.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tree_sitter import Node, Point, Tree

from .extract import DOC_TRANSPARENT, extract, parse
from .model import FileExtraction, Reference, Symbol, cut_blocks

# every byte but \n and \r becomes a space
_BLANK = bytes(b if b in (0x0A, 0x0D) else 0x20 for b in range(256))


@dataclass
class DocTree:
    """The syntax tree of one open buffer, the bytes it was last edited to, and the
    last extraction with the bytes it was made from. Only one thread touches it
    at a time (the language server's parser thread)."""

    language: str
    data: bytes = b""
    tree: Tree | None = None
    latest: int | None = None  # the newest version on its way (set by the caller)
    extraction: FileExtraction | None = None
    extracted: bytes = b""  # the bytes ``extraction`` was made from
    parses: int = 0
    incremental: int = 0  # parses that reused the old tree
    spliced: int = 0  # extractions that redid one top-level node only
    # the caller's own model made from ``extraction`` (the language server keeps its
    # FileModel here, to make the next one from it), None when there is none
    derived: object = None


def byte_edit(old: bytes, new: bytes) -> dict[str, object] | None:
    """``Tree.edit`` arguments for the one span where ``old`` and ``new`` differ
    (several changes become one span around them all); None when they are equal.
    Slices compare in C, bisected: about 20 compares for a 100 kB file."""
    if old == new:
        return None
    n = min(len(old), len(new))
    lo, hi = 0, n  # the common prefix is lo bytes long
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix = lo
    lo, hi = 0, n - prefix  # the common suffix, not overlapping the prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid:] == new[len(new) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    old_end, new_end = len(old) - lo, len(new) - lo
    return {
        "start_byte": prefix, "old_end_byte": old_end, "new_end_byte": new_end,
        "start_point": _point(old, prefix), "old_end_point": _point(old, old_end),
        "new_end_point": _point(new, new_end),
    }


def _point(data: bytes, pos: int) -> Point:
    row = data.count(b"\n", 0, pos)
    return Point(row, pos - (data.rfind(b"\n", 0, pos) + 1))


def update(doc: DocTree, path: str, text: str, version: int | None) -> FileExtraction | None:
    """Bring a buffer's tree to ``text`` (edit + re-parse with the old tree) and
    extract it; None when ``doc.latest`` says a newer version is on its way (the
    edit stays in the tree: the next parse takes it along)."""
    data = text.encode("utf-8", "surrogatepass")
    if doc.tree is not None:
        edit = byte_edit(doc.data, data)
        if edit is not None:
            doc.tree.edit(**edit)
    doc.data = data
    if doc.latest != version:
        return None
    old = doc.tree
    doc.tree = parse(doc.language, data, old)
    doc.parses += 1
    doc.incremental += old is not None
    extraction = None
    if doc.extraction is not None:
        extraction = splice(path, doc.language, doc.extraction, doc.extracted, data, doc.tree)
        doc.spliced += extraction is not None
    if extraction is None:
        extraction = extract(path, data, doc.language, tree=doc.tree)
    doc.extraction, doc.extracted = extraction, data
    return extraction


def _column(data: bytes, line_start: int, byte_col: int) -> int:
    return len(data[line_start:line_start + byte_col].decode("utf-8", "replace"))


@dataclasses.dataclass(frozen=True, slots=True)
class _Span:
    """The top-level node an edit fell into, in rows (0-based): its first row, its last
    row after and before the edit, and the first row of the comments above it."""

    node: Node
    top: Node  # the node, or the first comment/attribute right above it
    first_row: int
    new_last: int
    old_last: int
    rows: int  # rows the edit added (negative: removed)

    @property
    def top_row(self) -> int:
        return self.top.start_point.row


def _span(root: Node, edit: dict) -> _Span | None:
    """The top-level node holding the whole edit, with the comments above it; None
    when the edit crosses nodes or a neighbour shares a line with it."""
    start, new_end = edit["start_byte"], edit["new_end_byte"]
    # (not Node.first_child_for_byte: py-tree-sitter 0.26 crashes on a byte past the end)
    node = next((c for c in root.children if c.end_byte > start), None)
    if node is None or not (node.start_byte < start and new_end <= node.end_byte):
        return None
    rows = edit["new_end_point"].row - edit["old_end_point"].row
    first_row, new_last = node.start_point.row, node.end_point.row
    prev, nxt = node.prev_sibling, node.next_sibling
    if nxt is not None and nxt.start_point.row <= new_last:
        return None  # a neighbour on the node's last line: its columns would move
    # the comments and attributes right above it: docs come from them
    top: Node = node
    while prev is not None and ("comment" in prev.type or prev.type in DOC_TRANSPARENT):
        top, prev = prev, prev.prev_sibling
    if prev is not None and prev.end_point.row >= top.start_point.row:
        return None  # a neighbour on the first line
    return _Span(node, top, first_row, new_last, new_last - rows, rows)


def _extract_part(path: str, language: str, data: bytes,
                  span: _Span) -> tuple[list[Symbol], list[Reference], tuple[int, ...]] | None:
    """The node alone extracted, its first line's indent blanked: lines come out
    ``top_row`` lower (columns are the same) and are shifted back. Not the whole
    buffer with the rest blanked: the parser and the extractor would still walk all
    of it. None when the part does not parse, or a symbol came out of the comments."""
    top, top_row = span.top, span.top_row
    snippet = data[top.start_byte - top.start_point.column:top.start_byte].translate(_BLANK) + \
        data[top.start_byte:span.node.end_byte]
    part = extract(path, snippet, language)
    if part.error_count:
        return None
    symbols = [dataclasses.replace(s, start_line=s.start_line + top_row,
                                   end_line=s.end_line + top_row) for s in part.symbols[1:]]
    if any(not span.first_row + 1 <= s.start_line <= span.new_last + 1 for s in symbols):
        return None  # something came out of the comments above it
    refs = [r if r.line == 0 else dataclasses.replace(r, line=r.line + top_row) for r in part.references]
    return symbols, refs, part.blocks


def _split_symbols(old: list[Symbol], span: _Span) -> tuple[list[Symbol], list[Symbol], list[Symbol]] | None:
    """The old symbols before the node, in it, and after it; None for one that
    straddles its edges."""
    before, was, after = [], [], []
    for s in old:
        if s.end_line - 1 < span.top_row:
            before.append(s)
        elif s.start_line - 1 > span.old_last:
            after.append(s)
        elif s.start_line - 1 >= span.first_row and s.end_line - 1 <= span.old_last:
            was.append(s)
        else:
            return None
    return before, was, after


def _inside_one_definition(edit: dict, span: _Span, module: Symbol, was: list[Symbol],
                           inside: list[Symbol], old_data: bytes, data: bytes) -> bool:
    """The edit lies inside one top-level definition, at the same place before and
    after (so its signature, and the module unit's text, did not change: the module
    unit shows the text between top-level definitions as it is)."""
    start, new_end, old_end = edit["start_byte"], edit["new_end_byte"], edit["old_end_byte"]
    line0 = span.node.start_byte - span.node.start_point.column  # the same in old and new bytes
    at_new = _ByteAt(data, line0, span.first_row)
    at_old = _ByteAt(old_data, line0, span.first_row)
    old_of = {s.id: s for s in was}
    return any(
        s.parent == module.id and at_new(s.start_line, s.start_col) < start
        and new_end <= at_new(s.end_line, s.end_col)
        and (o := old_of.get(s.id)) is not None and (o.start_line, o.start_col) == (s.start_line, s.start_col)
        and old_end <= at_old(o.end_line, o.end_col)
        for s in inside)


def _split_references(old: list[Reference], part: list[Reference], split: tuple[list[Symbol], ...],
                      inside: list[Symbol], span: _Span
                      ) -> tuple[list[Reference], list[Reference], list[Reference]] | None:
    """The references before the node (kept), in it (the new part's) and after it
    (kept, to be shifted), in the order of a whole extraction (the document's: the
    order of a file's facts is the resolver's). A reference with a place is before or
    after by its line; a resolution fact without one (line 0: an assignment, a declared
    type, keyed by the symbol it is in) by its symbol, and one of the module unit by
    where it stands among the others. None for a reference in the comments above the
    node, a new fact of the module unit, an old list out of the document's order, or a
    fact of the module unit that could stand on either side of a node without any."""
    side_of = {s.id: side for side, part_ in enumerate(split) for s in part_}
    inside_ids = {s.id for s in inside}
    top, first, last = span.top_row + 1, span.first_row + 1, span.old_last + 1  # 1-based lines
    # 0 before, 1 the node, 2 after, -1 unknown (the module unit's facts), 3 the comments above it
    sides = [side_of.get(r.enclosing, -1) if r.line == 0 else
             0 if r.line < top else 2 if r.line > last else 1 if r.line >= first else 3 for r in old]
    if 3 in sides:
        return None  # a reference in the comments above it
    known = [x for x in sides if x >= 0]
    if known != sorted(known):
        return None  # not the document's order
    if 1 in sides:  # the node's rows, together (a module unit's fact among them: None)
        at, end = sides.index(1), len(sides) - sides[::-1].index(1)
        if -1 in sides[at:end]:
            return None
    else:
        at = end = len(sides) - sides[::-1].index(0) if 0 in sides else 0
        if part and -1 in sides[at:sides.index(2) if 2 in sides else len(sides)]:
            return None  # a module unit's fact right before or right after the node
    before, after = old[:at], old[end:]
    within = []
    for r in part:
        if (r.line == 0 and r.enclosing in inside_ids) or span.first_row + 1 <= r.line <= span.new_last + 1:
            within.append(r)
        else:
            return None  # from the comments above it, or a fact of the module unit
    return before, within, after


def _splice_references(old: FileExtraction, part: list[Reference], part_blocks: tuple[int, ...],
                       split: tuple[list[Symbol], ...], inside: list[Symbol], span: _Span
                       ) -> tuple[list[Reference], tuple[int, ...]] | None:
    """The file's references with the node's replaced by the part's, block by block
    (``FileExtraction.blocks``), those after it shifted by the rows the edit added;
    the new blocks' starts. None where ``_split_references`` says so."""
    if len(old.blocks) != len(part_blocks):
        return None
    references: list[Reference] = []
    blocks: list[int] = []
    for i, (was, now) in enumerate(zip(cut_blocks(old.references, old.blocks), cut_blocks(part, part_blocks),
                                       strict=True)):
        parts = _split_references(was, now, split, inside, span)
        if parts is None:
            return None
        before, within, after = parts
        if i:
            blocks.append(len(references))
        references += before
        references += within
        references += [dataclasses.replace(r, line=r.line + span.rows) if r.line and span.rows else r
                       for r in after]
    return references, tuple(blocks)


def splice(path: str, language: str, old: FileExtraction, old_data: bytes, data: bytes,
           tree: Tree) -> FileExtraction | None:
    """The extraction of ``data`` (parsed as ``tree``) from the extraction of
    ``old_data``, redoing only the top-level node the edit fell into; None when
    that could differ from ``extract(path, data, language, tree=tree)``."""
    root = tree.root_node
    if old.error_count or root.has_error:
        return None
    edit = byte_edit(old_data, data)
    if edit is None:
        return old
    span = _span(root, edit)
    part = None if span is None else _extract_part(path, language, data, span)
    split = None if span is None else _split_symbols(old.symbols[1:], span)
    if span is None or part is None or split is None:
        return None
    inside, part_refs, part_blocks = part
    before, was, after = split
    module = old.symbols[0]
    if [(s.id, s.kind, s.parent, s.signature) for s in was] != \
            [(s.id, s.kind, s.parent, s.signature) for s in inside]:
        return None
    if not _inside_one_definition(edit, span, module, was, inside, old_data, data):
        return None
    refs = _splice_references(old, part_refs, part_blocks, split, inside, span)
    if refs is None:
        return None
    references, blocks = refs
    end = root.end_point
    line_start = data.rfind(b"\n", 0, root.end_byte) + 1 if end.row else 0
    module = dataclasses.replace(module, end_line=end.row + 1,
                                 end_col=_column(data, line_start, end.column),
                                 members=list(module.members))
    if span.rows:
        after = [dataclasses.replace(s, start_line=s.start_line + span.rows, end_line=s.end_line + span.rows)
                 for s in after]
    symbols: list[Symbol] = [module, *before, *inside, *after]
    return FileExtraction(path, language, symbols, references, 0, blocks)


class _ByteAt:
    """Byte offsets of (1-based line, code-point column) positions from line
    ``first_row`` (0-based, starting at byte ``line0``) on, lines found as needed."""

    def __init__(self, data: bytes, line0: int, first_row: int) -> None:
        self.data = data
        self.first_row = first_row
        self.starts = [line0]

    def __call__(self, line1: int, col: int) -> int:
        row = line1 - 1 - self.first_row
        data, starts = self.data, self.starts
        while len(starts) <= row:
            starts.append(data.index(b"\n", starts[-1]) + 1)
        at = starts[row]
        line_end = data.find(b"\n", at)
        text = data[at:line_end if line_end >= 0 else len(data)]
        return at + (col if text.isascii() else len(text.decode("utf-8", "replace")[:col].encode()))
