"""Reading and writing the rows of the files, symbols and references tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .errors import FullTextUnavailable, damage_detail, guarded
from .schema import FILES, FILES_SCHEMA, REFS, REFS_SCHEMA, SYMBOLS, FileRow
from .sql import SymbolFilter, chunks, sql_in


class _Columns:
    """Reference rows of many files, sorted by path, as compact columns: each string
    column as int32 indices into its distinct values (paths, enclosing symbols and
    kinds repeat row after row), each integer column as a numpy array. Transformers'
    1.0M rows: about 50 MB, where dicts of Python strings took 1.1 GB."""

    __slots__ = ("names", "columns")

    def __init__(self, table: pa.Table) -> None:
        self.names = table.column_names
        self.columns = [_compact(table.column(name)) for name in self.names]

    def rows(self, start: int, stop: int) -> list[dict]:
        parts = []
        for held, values in self.columns:
            part = held[start:stop]
            ids = part.tolist() if isinstance(part, np.ndarray) else part
            parts.append([values[i] for i in ids] if values is not None else ids)
        names = self.names
        return [dict(zip(names, row, strict=True)) for row in zip(*parts, strict=True)]


def _compact(column: pa.ChunkedArray) -> tuple[np.ndarray | list, list | None]:
    """A column as (indices, distinct values) for strings (a null: index -1, the last
    value), else (its values, None): a numpy array, or a list where a null must stay
    one."""
    array = column.combine_chunks()
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        encoded = pc.dictionary_encode(array)
        return (pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False),
                [*encoded.dictionary.to_pylist(), None])
    if array.null_count or not (pa.types.is_integer(array.type) or pa.types.is_floating(array.type)):
        return array.to_pylist(), None
    return array.to_numpy(zero_copy_only=False), None


class FileRefs:
    """One file's reference rows kept as the store read them: a range of compact
    columns shared by every file (``group_refs``), read as dicts when asked."""

    __slots__ = ("_columns", "_start", "_stop")

    def __init__(self, columns: _Columns, start: int, stop: int) -> None:
        self._columns = columns
        self._start = start
        self._stop = stop

    def __len__(self) -> int:
        return self._stop - self._start

    def rows(self) -> list[dict]:
        """The rows as dicts of the table's columns, in the order they were written
        (new dicts at each call: keep them no longer than needed)."""
        return self._columns.rows(self._start, self._stop)


def group_refs(table: pa.Table) -> dict[str, FileRefs]:
    """A table of reference rows, file by file (each file's rows in table order)."""
    if table.num_rows == 0:
        return {}
    table = table.take(pc.sort_indices(table, sort_keys=[("path", "ascending")]))  # a stable sort
    counts = pc.value_counts(table.column("path"))  # in order of first appearance: sorted
    columns = _Columns(table)
    out: dict[str, FileRefs] = {}
    start = 0
    for path, n in zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist(), strict=True):
        out[path] = FileRefs(columns, start, start + n)
        start += n
    return out


class Rows:
    """Files, symbols and references: per-file replacement, and every query the
    engine makes of them (LanceDB's query builders stay in this package)."""

    # what the Store sets up (store/db.py)
    uri: str
    dim: int | None
    db: Any
    symbols: Any
    files: Any
    refs: Any
    cache: Any

    # --- files -------------------------------------------------------------------

    @guarded(FILES)
    def load_files(self) -> dict[str, FileRow]:
        """Every files row, by path."""
        table = self.files.to_arrow()
        return {row["path"]: FileRow(**row) for row in table.to_pylist()}

    @guarded(FILES)
    def file_row(self, path: str) -> FileRow | None:
        """The files row of one path; None when the file is not indexed."""
        rows = self.files.search().where(sql_in("path", [path])).limit(1).to_list()
        return FileRow(**rows[0]) if rows else None

    @guarded(FILES)
    def file_paths(self) -> list[str]:
        """The path of every indexed file."""
        return self.files.search().select(["path"]).limit(None).to_arrow().column("path").to_pylist()

    @guarded(FILES)
    def file_count(self) -> int:
        """How many files the index holds."""
        return self.files.count_rows()

    @guarded(FILES)
    def files_state(self) -> list[tuple[str, str, float]]:
        """(path, content hash, indexed at) of every file: what names the index's state."""
        table = self.files.to_arrow().select(["path", "hash", "indexed_at"])
        return list(zip(*(table.column(c).to_pylist() for c in ("path", "hash", "indexed_at")),
                        strict=True))

    @guarded(FILES)
    def update_file_stats(self, rows: Sequence[FileRow]) -> None:
        """Same content, new size/mtime: refresh the stat fields only."""
        if not rows:
            return
        data = pa.Table.from_pylist([r.__dict__ for r in rows], schema=FILES_SCHEMA)
        self.files.merge_insert("path").when_matched_update_all().execute(data)

    # --- per-file writes ---------------------------------------------------------

    @guarded("index")
    def replace_files(
        self,
        file_rows: Sequence[FileRow],
        symbol_rows: list[dict],
        ref_rows: list[dict],
        deleted: Sequence[str] = (),
    ) -> None:
        """Replace everything stored for these files.

        Order matters for kill -9: the files rows go first and come back last, so a
        file whose symbols are half written has no files row and is redone next run.
        """
        paths = [r.path for r in file_rows] + list(deleted)
        for chunk in chunks(paths):
            self.files.delete(sql_in("path", chunk))
        for chunk in chunks(paths):
            where = sql_in("path", chunk)
            self.symbols.delete(where)
            self.refs.delete(where)
        if symbol_rows:
            self.symbols.add(pa.Table.from_pylist(symbol_rows, schema=self.symbols.schema))
        if ref_rows:
            self.refs.add(pa.Table.from_pylist(ref_rows, schema=REFS_SCHEMA))
        if file_rows:
            self.files.add(pa.Table.from_pylist([r.__dict__ for r in file_rows], schema=FILES_SCHEMA))

    # --- symbols and references --------------------------------------------------

    @guarded(SYMBOLS)
    def symbol_count(self) -> int:
        """How many symbols the index holds."""
        return self.symbols.count_rows()

    @guarded(SYMBOLS)
    def symbol_rows(self, columns: Sequence[str], paths: Sequence[str] | None = None) -> list[dict]:
        """These columns of the symbols of these files (all files: None)."""
        if paths is not None and not paths:
            return []
        q = self.symbols.search().select(list(columns))
        if paths is not None:
            q = q.where(sql_in("path", paths))
        return q.limit(None).to_arrow().to_pylist()

    @guarded(REFS)
    def ref_rows(self, paths: Sequence[str] | None = None) -> list[dict]:
        """The reference rows of these files (all files: None)."""
        return self._ref_table(paths).to_pylist()

    @guarded(REFS)
    def refs_by_file(self, paths: Sequence[str] | None = None) -> dict[str, FileRefs]:
        """The reference rows of these files (all files: None), kept as columns, by path."""
        return group_refs(self._ref_table(paths))

    def _ref_table(self, paths: Sequence[str] | None) -> pa.Table:
        if paths is None:
            return self.refs.to_arrow()
        if not paths:
            return REFS_SCHEMA.empty_table()
        return self.refs.search().where(sql_in("path", paths)).limit(None).to_arrow()

    @guarded(SYMBOLS)
    def symbols_named(self, names: Sequence[str], columns: Sequence[str],
                      where: SymbolFilter | None = None, limit: int = 2000) -> list[dict]:
        """Symbols whose name is one of ``names``."""
        clause = sql_in("name", names)
        extra = where.where() if where is not None else None
        if extra:
            clause = f"({clause}) AND ({extra})"
        return self.symbols.search().where(clause).select(list(columns)).limit(limit).to_list()

    @guarded(SYMBOLS)
    def embedded_summaries(self, limit: int) -> list[dict]:
        """Up to ``limit`` embedded symbols whose summary vector is of a text the columns
        rebuild (``embed.summary_of``: a long symbol's kind, qualified name, path,
        signature and doc), with that vector: what another model's vectors are compared
        on (an embedded text itself is not kept)."""
        clause = "embed_text = '' AND summary_key != embed_key AND summary_vector IS NOT NULL"
        columns = ["kind", "qualified_name", "path", "signature", "doc", "summary_vector"]
        return self.symbols.search().where(clause).select(columns).limit(limit).to_list()

    @guarded(SYMBOLS)
    def vectors_of(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored (body) vector of each of these symbols that has one."""
        if not ids:
            return {}
        out: dict[str, list[float]] = {}
        for chunk in chunks(list(ids)):
            rows = (self.symbols.search().where(f"({sql_in('id', chunk)}) AND vector IS NOT NULL")
                    .select(["id", "vector"]).limit(len(chunk) + 10).to_list())
            out.update((r["id"], r["vector"]) for r in rows if r.get("vector") is not None)
        return out

    @guarded(SYMBOLS)
    def nearest(self, vector: Sequence[float] | np.ndarray, column: str, columns: Sequence[str],
                limit: int, where: SymbolFilter | None = None) -> list[dict]:
        """The ``limit`` symbols nearest to ``vector`` by cosine distance in ``column``
        (``vector`` or ``summary_vector``), with ``_distance``."""
        q = self.symbols.search(vector, vector_column_name=column).distance_type("cosine")
        clause = where.where() if where is not None else None
        if clause:
            q = q.where(clause, prefilter=True)
        return q.select([*columns, "_distance"]).limit(limit).to_list()

    def fulltext(self, text: str, columns: Sequence[str] = ("id",), limit: int = 50,
                 where: SymbolFilter | None = None) -> list[dict]:
        """BM25 search over ``search_text``, with ``_score``. ``FullTextUnavailable``
        when the full-text index is missing or unreadable."""
        from lancedb.query import MatchQuery

        try:
            q = self.symbols.search(MatchQuery(text, "search_text"), query_type="fts")
            clause = where.where() if where is not None else None
            if clause:
                q = q.where(clause, prefilter=True)
            return q.select([*columns, "_score"]).limit(limit).to_list()
        except Exception as exc:
            if self.symbols.count_rows() == 0:
                return []  # nothing to find (and no index made yet)
            detail = damage_detail(exc)
            if detail is None and not any(tuple(ix.columns) == ("search_text",)
                                          for ix in self.symbols.list_indices()):
                detail = "it is missing"
            if detail is None:
                raise
            raise FullTextUnavailable(f"the full-text index cannot be read ({detail})") from exc

