"""The in-memory model of a folder's files: a row per symbol and a dict per reference,
as the store holds them (``disk``) or as an editor buffer's extraction made them
(``live``); made again from the previous version of a buffer where a spliced
extraction kept the objects; and where things are in a file."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ..graph import SymbolInfo
from ..model import FileExtraction, Reference, Symbol, cut_blocks

if TYPE_CHECKING:
    from ..store import FileRefs

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SymRow:
    """One symbol as the model holds it (the store's columns; lines 1-based)."""

    id: str
    path: str
    name: str
    qualified_name: str
    kind: str
    language: str
    signature: str
    doc: str
    parent: str | None
    start_line: int  # 1-based
    start_col: int  # 0-based, code points
    end_line: int
    end_col: int

    def info(self) -> SymbolInfo:
        """The graph's view of the symbol."""
        return SymbolInfo(self.id, self.path, self.name, self.qualified_name, self.kind,
                          self.parent, self.start_line, self.end_line, self.language)


_REF_FIELDS = ("path", "kind", "name", "receiver", "line", "col", "enclosing", "source", "original")


def _sym_row(s: Symbol) -> tuple[SymRow, SymbolInfo]:
    row = SymRow(s.id, s.path, s.name, s.qualified_name, s.kind, s.language, s.signature, s.doc,
                 s.parent, s.start_line, s.start_col, s.end_line, s.end_col)
    return row, row.info()


def _ref_dict(r: Reference) -> dict:
    return {f: getattr(r, f) for f in _REF_FIELDS}


def _reuse(old: Sequence[Any], made: Sequence[T], new: Sequence[Any], make: Callable[[Any], T]) -> list[T]:
    """``make`` of each of ``new``, where ``made`` is ``make`` of each of ``old``: an item
    that is the very same object in ``old`` keeps what was made of it. A spliced
    extraction keeps the items before and after the edited definition, in order (in each
    block of its references: ``FileModel.from_extraction`` hands them one by one): the
    common head and tail are matched by identity in one pass, the middle by id."""
    n, m = len(old), len(new)
    limit = min(n, m)
    head = 0
    while head < limit and old[head] is new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[n - 1 - tail] is new[m - 1 - tail]:
        tail += 1
    middle = {id(o): (o, x) for o, x in zip(old[head:n - tail], made[head:n - tail], strict=True)}
    out = list(made[:head])
    for item in new[head:m - tail]:
        hit = middle.get(id(item))
        out.append(hit[1] if hit is not None and hit[0] is item else make(item))
    out.extend(made[n - tail:])
    return out


@dataclass(frozen=True, slots=True)
class FileModel:
    """One file's symbols and references (a buffer's carries its version)."""

    path: str
    symbols: tuple[SymRow, ...]
    # the reference dicts; or, for a file as the store holds it, its rows kept as the
    # store's columns (``store.FileRefs``), read as dicts when asked (``refs``): the
    # graph saved beside the index answers without them, and a million dicts of
    # strings held for every file took 1.1 GB at transformers
    held_refs: tuple[dict, ...] | FileRefs
    version: int | None = None  # the document version, for a live buffer
    # the graph's view of ``symbols`` (same order), when made with them
    infos: tuple[SymbolInfo, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def refs(self) -> Sequence[dict]:
        """The file's reference dicts (do not change them). For a file as the store
        holds it they are made at each call: keep them no longer than needed."""
        held = self.held_refs
        return held if isinstance(held, tuple) else held.rows()

    def symbol_infos(self) -> list[SymbolInfo]:
        """The graph's view of the symbols, in order (made now when the model was not made
        with them)."""
        return list(self.infos) if self.infos is not None else [s.info() for s in self.symbols]

    @classmethod
    def from_extraction(cls, ex: FileExtraction, version: int | None = None,
                        previous: tuple[FileExtraction, FileModel] | None = None) -> FileModel:
        """The model of an extraction. ``previous``: the extraction of an earlier
        version of this buffer and its model; a symbol or reference that is the very
        same object in both (a spliced re-extraction keeps everything outside the
        edited definition) keeps its row, reference dict and SymbolInfo instead of
        new ones (3,000 reference dicts are 5 ms a keystroke, and as many objects
        for the garbage collector). Rows are never changed in place (frozen, and the
        dicts are only read), so sharing them between versions is safe."""
        old_syms: Sequence[object] = ()
        old_refs: Sequence[object] = ()
        made_syms: Sequence[tuple[SymRow, SymbolInfo]] = ()
        made_refs: Sequence[dict] = ()
        old_blocks: tuple[int, ...] | None = None
        if previous is not None and previous[1].infos is not None:
            pex, pfm = previous
            if len(pex.symbols) == len(pfm.symbols) and len(pex.references) == len(pfm.refs):
                old_syms, old_refs, old_blocks = pex.symbols, pex.references, pex.blocks
                made_syms = list(zip(pfm.symbols, pfm.infos, strict=True))
                made_refs = pfm.refs
        pairs = _reuse(old_syms, made_syms, ex.symbols, _sym_row)
        if old_blocks is not None and len(old_blocks) == len(ex.blocks):  # block by block (a splice's order)
            refs = [x for o, m, e in zip(cut_blocks(old_refs, old_blocks), cut_blocks(made_refs, old_blocks),
                                         cut_blocks(ex.references, ex.blocks), strict=True)
                    for x in _reuse(o, m, e, _ref_dict)]
        else:
            refs = _reuse(old_refs, made_refs, ex.references, _ref_dict)
        rows = [row for row, _ in pairs]
        infos = [info for _, info in pairs]
        return cls(ex.path, tuple(rows), tuple(refs), version, tuple(infos))

    @staticmethod
    def group_rows(symbol_rows: list[dict], refs: Mapping[str, FileRefs]) -> dict[str, FileModel]:
        """Models of the store's symbol rows and reference rows (``Index.load_rows``),
        by path; symbols in source order."""
        syms: dict[str, list[SymRow]] = {}
        for row in symbol_rows:
            syms.setdefault(row["path"], []).append(SymRow(**row))
        out = {}
        for path in syms.keys() | refs.keys():
            ordered = sorted(syms.get(path, []), key=lambda s: (s.start_line, s.start_col, -s.end_line))
            out[path] = FileModel(path, tuple(ordered), refs.get(path, ()))
        return out


# --- positions in a file --------------------------------------------------------------------


def _word(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])")


def name_span(sym: SymRow, lines: list[str]) -> tuple[int, int, int]:
    """(line 0-based, start col, end col) of a symbol's name, code points; the start
    of the symbol when the name is not found in its first lines."""
    if sym.kind == "module" and sym.parent is None:
        return sym.start_line - 1, 0, 0
    first = sym.start_line - 1
    pattern = _word(sym.name.rsplit(".", 1)[-1])
    for line0 in range(first, min(first + 6, sym.end_line, len(lines))):
        text = lines[line0]
        start = sym.start_col if line0 == first else 0
        m = pattern.search(text, start)
        if m:
            return line0, m.start(), m.end()
    return first, sym.start_col, sym.start_col


def contains(sym: SymRow, line1: int, col: int) -> bool:
    """Is the position (1-based line, code-point column) within the symbol?"""
    if line1 < sym.start_line or line1 > sym.end_line:
        return False
    if line1 == sym.start_line and col < sym.start_col:
        return False
    return not (line1 == sym.end_line and col > sym.end_col)


def ref_at(fm: FileModel, line1: int, col: int) -> dict | None:
    """The reference whose name is at the position (1-based line, code-point column); None
    if none."""
    for r in fm.refs:
        if r["line"] == line1 and r["col"] <= col <= r["col"] + len(r["name"]):
            return r
    return None


def innermost(fm: FileModel, line1: int, col: int, *, modules: bool = False) -> SymRow | None:
    """The innermost symbol around the position (1-based line, code-point column), file
    units left out unless ``modules``; None if none."""
    best: SymRow | None = None
    for s in fm.symbols:
        if not modules and s.kind == "module" and s.parent is None:
            continue
        if contains(s, line1, col) and (
            best is None or (s.start_line, s.start_col) >= (best.start_line, best.start_col)
        ):
            best = s
    return best
