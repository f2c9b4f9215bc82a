"""LanceDB storage: the symbols table (vectors + metadata + full text), the files
table, the references table and the embedding cache.

The schema version and the model id are stored in a ``meta`` table. A store
opened for writing (``codeloupe index``, a search that updates first, the
language server) rebuilds the derived tables when either differs from what the
engine expects, with a message, never misreading them; one opened read-only
never changes anything and says what it found (``IndexMismatch``). Every
LanceDB error that means damaged data (a truncated or garbage data file, a lost
index) comes out of this module as ``IndexDamaged`` naming the table; ``repair``
rebuilds what is damaged and keeps what is intact (vectors go through the
embedding cache). Every filter is built from escaped literals.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import shutil
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
VECTOR_INDEX_MIN_ROWS = 10_000
_IN_CHUNK = 400  # literals per IN (...) list

SYMBOLS = "symbols"
FILES = "files"
REFS = "refs"
META = "meta"


def sql_literal(value: str) -> str:
    """A SQL string literal: quotes doubled, so paths with quotes cannot break out."""
    return "'" + value.replace("'", "''") + "'"


def sql_in(column: str, values: Iterable[str]) -> str:
    vals = list(values)
    if not vals:
        return "false"
    return f"{column} IN ({', '.join(sql_literal(v) for v in vals)})"


def _chunks(values: Sequence[str], size: int = _IN_CHUNK) -> Iterator[Sequence[str]]:
    for i in range(0, len(values), size):
        yield values[i : i + size]


def symbols_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("path", pa.string(), nullable=False),
            pa.field("name", pa.string()),
            pa.field("qualified_name", pa.string()),
            pa.field("kind", pa.string()),
            pa.field("language", pa.string()),
            pa.field("signature", pa.string()),
            pa.field("doc", pa.string()),
            pa.field("parent", pa.string()),
            pa.field("start_line", pa.int32()),
            pa.field("start_col", pa.int32()),
            pa.field("end_line", pa.int32()),
            pa.field("end_col", pa.int32()),
            pa.field("content_hash", pa.string()),
            pa.field("embed_key", pa.string()),
            # kept only until the symbol is embedded, so an interrupted run resumes
            pa.field("embed_text", pa.string()),
            pa.field("search_text", pa.string()),
            pa.field("snippet", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), dim), nullable=True),
            # name, signature and doc without the body (embed.summary_text); the
            # same key and vector as above for a short symbol
            pa.field("summary_key", pa.string()),
            pa.field("summary_text", pa.string()),
            pa.field("summary_vector", pa.list_(pa.float32(), dim), nullable=True),
        ]
    )


FILES_SCHEMA = pa.schema(
    [
        pa.field("path", pa.string(), nullable=False),
        pa.field("size", pa.int64()),
        pa.field("mtime_ns", pa.int64()),
        pa.field("hash", pa.string()),
        pa.field("language", pa.string()),
        pa.field("symbols", pa.int32()),
        pa.field("errors", pa.int32()),
        pa.field("indexed_at", pa.float64()),
    ]
)

REFS_SCHEMA = pa.schema(
    [
        pa.field("path", pa.string(), nullable=False),
        pa.field("kind", pa.string()),
        pa.field("name", pa.string()),
        pa.field("receiver", pa.string()),
        pa.field("line", pa.int32()),
        pa.field("col", pa.int32()),
        pa.field("enclosing", pa.string()),
        pa.field("source", pa.string()),
        pa.field("original", pa.string()),
    ]
)

META_SCHEMA = pa.schema([pa.field("key", pa.string()), pa.field("value", pa.string())])


def cache_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [pa.field("key", pa.string(), nullable=False), pa.field("vector", pa.list_(pa.float32(), dim))]
    )


@dataclass
class FileRow:
    path: str
    size: int
    mtime_ns: int
    hash: str
    language: str
    symbols: int = 0
    errors: int = 0
    indexed_at: float = 0.0


class StoreError(RuntimeError):
    """The index cannot be used as asked; the message says why and what to run."""


class IndexAbsent(StoreError):
    """A read-only command found no index."""


class IndexMismatch(StoreError):
    """A read-only command found an index built by another model, schema or text
    version: it is left as it is, and the message says what ``index`` will do."""


class IndexDamaged(StoreError):
    """A table of the index (or one of its indexes) cannot be read."""

    def __init__(self, uri: str, table: str, detail: str) -> None:
        super().__init__(f"the index at {uri} is damaged ({table}: {detail}); "
                         "`codeloupe index` repairs it, reusing what is intact")
        self.table = table
        self.detail = detail


class FullTextUnavailable(StoreError):
    """The full-text index is missing or unreadable (search goes on without it)."""


F = TypeVar("F", bound=Callable[..., Any])


_DATA_LIBRARIES = ("lancedb", "lance", "pyarrow")


def _raised_in_data_library(exc: BaseException) -> bool:
    """Did the exception come out of LanceDB / Lance / Arrow code (not ours)?"""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return False
    module = str(last.tb_frame.f_globals.get("__name__", ""))
    return module.split(".", 1)[0] in _DATA_LIBRARIES


def _damage_detail(exc: BaseException) -> str | None:
    """The first line of an error that means damaged data: any error LanceDB, Lance
    or Arrow raise while reading or writing the tables (a missing, truncated or
    garbage file, an undecodable manifest, a Rust panic), and file errors; None for
    any other exception (a bug of ours is not damage)."""
    text = str(exc).strip()
    panic = type(exc).__name__ == "PanicException"  # pyo3's, a BaseException
    if panic or isinstance(exc, (pa.ArrowException, OSError)) or (
            isinstance(exc, (RuntimeError, ValueError)) and (
                _raised_in_data_library(exc) or "lance" in text.lower())):
        first = text.splitlines()[0] if text else type(exc).__name__
        return first[:200]
    return None


def _failure(exc: BaseException) -> bool:
    """An error to handle (anything but an interrupt or an exit: a Rust panic from
    Lance is a BaseException too)."""
    return not isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit))


def _guard(table: str) -> Callable[[F], F]:
    """Turn the damaged-data errors of a method that reads ``table`` into ``IndexDamaged``."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def guarded(self: Store, *args: Any, **kwargs: Any) -> Any:
            try:
                return fn(self, *args, **kwargs)
            except (StoreError, KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # a Rust panic is a BaseException
                detail = _damage_detail(exc)
                if detail is None:
                    raise
                raise IndexDamaged(self.uri, table, detail) from exc

        return guarded  # type: ignore[return-value]

    return wrap


def is_local_uri(uri: str) -> bool:
    return "://" not in uri or uri.startswith("file://")


@dataclass(frozen=True)
class SymbolFilter:
    """Which symbols a query may return (all of them by default)."""

    languages: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    paths: tuple[str, ...] | None = None  # None: any path; (): none

    def where(self) -> str | None:
        clauses = []
        if self.languages:
            clauses.append(sql_in("language", self.languages))
        if self.kinds:
            clauses.append(sql_in("kind", self.kinds))
        if self.paths is not None:
            clauses.append(sql_in("path", self.paths))  # "false" when empty
        return " AND ".join(f"({c})" for c in clauses) if clauses else None


# The narrowest column of each table: reading it whole touches every data file.
_PROBE_COLUMNS = {SYMBOLS: "id", FILES: "path", REFS: "path", META: "key"}


class Store:
    """One index: a LanceDB database at ``uri`` (a folder, or ``s3://…``).

    ``writable``: rebuild on a model or schema change and repair damage (the
    commands that write); else never change anything and raise ``IndexAbsent`` /
    ``IndexMismatch`` / ``IndexDamaged`` instead. ``check_model``: False for
    readers that need symbols and references only (the call graph), which work
    whatever model made the vectors. ``dim`` may be None for such a reader.
    ``rebuild``: False for writers that only follow the files (a search that
    updates first): a model or schema change is then an ``IndexMismatch`` for the
    user to settle with ``codeloupe index``, not a rebuild they did not ask for."""

    def __init__(self, uri: str, model_id: str, dim: int | None, text_version: int = 0, *,
                 writable: bool = True, check_model: bool = True, rebuild: bool = True) -> None:
        import lancedb

        self.uri = uri
        self.model_id = model_id
        self.dim = dim
        self.text_version = text_version  # how symbols become text: a change rebuilds
        self.writable = writable
        self.check_model = check_model
        self.rebuild = rebuild
        self.rebuilt_reason: str | None = None
        self.repaired: list[str] = []  # what repair() rebuilt, for the user
        self._pending_count: tuple[tuple[int, int], int] | None = None  # (table, version) → count
        if writable and dim is None:
            raise ValueError("a writable store needs the vector dimension")
        try:
            # Always read the latest version: another process (the CLI beside the
            # server, a second index run) may have written since the table was opened.
            self.db = lancedb.connect(uri, read_consistency_interval=timedelta(0))
        except Exception as exc:
            raise StoreError(f"cannot open index at {uri}: {exc}") from exc
        self._open_tables()

    # --- lifecycle ---------------------------------------------------------------

    def _table_names(self) -> set[str]:
        result = self.db.list_tables()
        names = getattr(result, "tables", result)
        return set(names)

    def _read_meta(self) -> dict[str, str]:
        if META not in self._table_names():
            return {}
        rows = self.db.open_table(META).to_arrow().to_pylist()
        return {r["key"]: r["value"] for r in rows}

    def _write_meta(self, values: dict[str, str]) -> None:
        rows = [{"key": k, "value": v} for k, v in values.items()]
        self.db.create_table(META, data=rows, schema=META_SCHEMA, mode="overwrite")

    def _cache_name(self) -> str:
        digest = hashlib.blake2b(self.model_id.encode(), digest_size=6).hexdigest()
        return f"embcache_{digest}"

    def _expected(self) -> dict[str, str]:
        return {"schema_version": str(SCHEMA_VERSION), "model_id": self.model_id,
                "dim": str(self.dim), "text_version": str(self.text_version)}

    def _mismatch(self, meta: dict[str, str]) -> str | None:
        """How the index differs from what this run expects, in words; None if not."""
        keys = ["schema_version", "text_version"]
        if self.check_model:
            keys += ["model_id", "dim"]
        expected = self._expected()
        for key in keys:
            if meta.get(key) != expected[key]:
                return (f"the index was built with {key} {meta.get(key)!r}, "
                        f"this run uses {expected[key]!r}")
        return None

    def _open_tables(self) -> None:
        names = self._table_names()
        reason = None
        try:
            meta = self._read_meta()
        except BaseException as exc:
            if not _failure(exc):
                raise
            meta = {}
            reason = f"the index metadata is unreadable ({_damage_detail(exc) or exc})"
        if reason is None and meta:
            reason = self._mismatch(meta)
        elif reason is None and (names & {SYMBOLS, FILES, REFS}):
            reason = "the index has no metadata"
        if not self.writable or (not self.rebuild and meta and reason is not None
                                 and "unreadable" not in reason):
            self._open_read_only(meta, reason, names)
            return
        if reason is None and meta:
            try:
                self.symbols = self.db.open_table(SYMBOLS)
                self.files = self.db.open_table(FILES)
                self.refs = self.db.open_table(REFS)
                for table in (self.symbols, self.files, self.refs):
                    table.count_rows()
            except BaseException as exc:
                if not _failure(exc):
                    raise
                reason = f"a table of the index is unreadable ({_damage_detail(exc) or exc})"
        if reason is None and meta:
            self._meta = meta
            self.cache = self._open_cache()
            return
        if reason is not None:
            self.rebuilt_reason = f"{reason}; rebuilding the index"
            log.warning("codeloupe: %s", self.rebuilt_reason)
        self._create_tables(names)

    def _open_read_only(self, meta: dict[str, str], reason: str | None, names: set[str]) -> None:
        """Open without changing anything: every problem is an exception that says
        what was found and what ``codeloupe index`` will do."""
        if not meta and not (names & {SYMBOLS, FILES, REFS}):
            raise IndexAbsent(f"no index at {self.uri} yet: run `codeloupe index`")
        if reason is not None:
            if "unreadable" in reason or "no metadata" in reason:
                raise IndexDamaged(self.uri, META, reason)
            raise IndexMismatch(f"{reason}; nothing was changed: `codeloupe index` rebuilds the "
                                f"index for this run's settings (vectors already computed for "
                                f"them are reused), or run this command with the settings the "
                                f"index was built with")
        try:
            self.symbols = self.db.open_table(SYMBOLS)
            self.files = self.db.open_table(FILES)
            self.refs = self.db.open_table(REFS)
            for name, table in ((SYMBOLS, self.symbols), (FILES, self.files), (REFS, self.refs)):
                try:
                    table.count_rows()
                except BaseException as exc:
                    if not _failure(exc):
                        raise
                    raise IndexDamaged(self.uri, name, _damage_detail(exc) or str(exc)) from exc
        except StoreError:
            raise
        except BaseException as exc:
            if not _failure(exc):
                raise
            raise IndexDamaged(self.uri, "tables", _damage_detail(exc) or str(exc)) from exc
        self._meta = meta
        self.cache = None  # a reader needs no embedding cache

    def _drop(self, name: str) -> None:
        """Drop a table, however damaged (its folder goes when LanceDB cannot drop it;
        the index folder holds no symlinks, ``indexdir``)."""
        try:
            self.db.drop_table(name)
            return
        except BaseException as exc:
            if not _failure(exc):
                raise
            log.info("codeloupe: dropping %s: %s", name, _damage_detail(exc) or exc)
        if is_local_uri(self.uri):
            folder = os.path.join(self.uri.removeprefix("file://"), f"{name}.lance")
            if os.path.islink(folder):
                os.unlink(folder)
            elif os.path.isdir(folder):
                shutil.rmtree(folder)

    def _create_tables(self, names: set[str]) -> None:
        for name in (SYMBOLS, FILES, REFS, META):
            if name in names:
                self._drop(name)
        assert self.dim is not None
        self.symbols = self.db.create_table(SYMBOLS, schema=symbols_schema(self.dim))
        self.files = self.db.create_table(FILES, schema=FILES_SCHEMA)
        self.refs = self.db.create_table(REFS, schema=REFS_SCHEMA)
        self._meta = {**self._expected(), "created": str(time.time())}
        self._write_meta(self._meta)
        self._pending_count = None
        self.cache = self._open_cache()

    def _open_cache(self):  # noqa: ANN202 - lancedb table
        name = self._cache_name()
        if name in self._table_names():
            try:
                table = self.db.open_table(name)
                table.count_rows()
                return table
            except BaseException as exc:
                if not _failure(exc):
                    raise
                log.warning("codeloupe: embedding cache unreadable (%s); starting a new one",
                            _damage_detail(exc) or exc)
                self._drop(name)
        assert self.dim is not None
        return self.db.create_table(name, schema=cache_schema(self.dim))

    # --- damage --------------------------------------------------------------------

    def verify(self) -> dict[str, str]:
        """Read every data file of every table (its narrowest column) and probe the
        full-text index: what is damaged → why. Empty when all is well."""
        damaged: dict[str, str] = {}
        tables = {SYMBOLS: self.symbols, FILES: self.files, REFS: self.refs}
        if self.cache is not None:
            tables[self._cache_name()] = self.cache
        for name, table in tables.items():
            column = _PROBE_COLUMNS.get(name, "key")
            try:
                table.search().select([column]).limit(None).to_arrow()
            except BaseException as exc:
                detail = _damage_detail(exc) if _failure(exc) else None
                if detail is None:
                    raise
                damaged[name] = detail
        if SYMBOLS not in damaged:
            try:
                problem = self.fulltext_problem()
            except IndexDamaged as exc:
                problem = exc.detail
            if problem is not None:
                damaged["full-text index"] = problem
        return damaged

    def repair(self) -> list[str]:
        """Rebuild what ``verify`` finds damaged, keeping what is intact: a damaged
        embedding cache is refilled from the symbols' vectors; damaged symbols,
        files or references are dropped together (the next sync parses the files
        again; their vectors come back from the cache); a damaged full-text index
        is built again. What was rebuilt, in words (also in ``repaired``)."""
        if not self.writable:
            raise StoreError("a read-only store cannot be repaired")
        damaged = self.verify()
        done: list[str] = []
        cache_name = self._cache_name()
        if cache_name in damaged:
            self._drop(cache_name)
            self.cache = self.db.create_table(cache_name, schema=cache_schema(self.dim))
            if SYMBOLS not in damaged:
                self._salvage_vectors()
            done.append(f"the embedding cache ({damaged[cache_name]})")
        broken = [t for t in (SYMBOLS, FILES, REFS) if t in damaged]
        if broken:
            if SYMBOLS not in damaged:
                self._salvage_vectors()
            self._create_tables(self._table_names())
            done.append(", ".join(f"the {t} table ({damaged[t]})" for t in broken)
                        + " (files are parsed again; vectors come from the cache)")
        elif "full-text index" in damaged:
            self.ensure_indexes(rebuild_fulltext=True)
            done.append(f"the full-text index ({damaged['full-text index']})")
        if done:
            log.warning("codeloupe: repaired %s", "; ".join(done))
        self.repaired.extend(done)
        return done

    def _salvage_vectors(self) -> None:
        """Copy the symbols' vectors into the embedding cache (what a table rebuild
        or a new cache would otherwise lose)."""
        try:
            table = (self.symbols.search().where("vector IS NOT NULL")
                     .select(["embed_key", "vector", "summary_key", "summary_vector"])
                     .limit(None).to_arrow())
        except Exception as exc:  # noqa: BLE001 - best effort: damage is being repaired
            log.info("codeloupe: could not copy vectors to the cache: %s", exc)
            return
        if table.num_rows == 0:
            return
        keys = table.column("embed_key").to_pylist() + table.column("summary_key").to_pylist()
        vectors = np.concatenate([_as_matrix(table.column("vector"), self.dim),
                                  _as_matrix(table.column("summary_vector"), self.dim)])
        known = self.cached_vectors(keys)
        new = [i for i, k in enumerate(keys) if k not in known]
        if new:
            self.cache_vectors([keys[i] for i in new], vectors[new])

    @_guard(SYMBOLS)
    def fulltext_problem(self) -> str | None:
        """Why the full-text index cannot answer (missing while there are symbols,
        or unreadable); None when it can."""
        if self.symbols.count_rows() == 0:
            return None
        if not any(tuple(ix.columns) == ("search_text",) for ix in self.symbols.list_indices()):
            return "it is missing"
        try:
            self.fulltext("probe", limit=1)
        except FullTextUnavailable as exc:
            return str(exc)
        return None

    def touch(self, **values: str) -> None:
        self._meta["updated"] = str(time.time())
        self._meta.update(values)
        self._write_meta(self._meta)

    @property
    def updated_at(self) -> float | None:
        value = self._meta.get("updated")
        return float(value) if value else None

    @property
    def built_with_skipped(self) -> str:
        """The skip counts the last sync recorded (JSON), to write them only on a change."""
        return self._meta.get("skipped", "{}")

    @property
    def created(self) -> str:
        return str(self._meta.get("created", ""))

    @property
    def built_with(self) -> dict[str, str]:
        """What the index says it was built with (model, schema, text version)."""
        return {k: self._meta.get(k, "") for k in ("model_id", "schema_version", "text_version", "dim")}

    # --- files -------------------------------------------------------------------

    @_guard(FILES)
    def load_files(self) -> dict[str, FileRow]:
        table = self.files.to_arrow()
        return {row["path"]: FileRow(**row) for row in table.to_pylist()}

    @_guard(FILES)
    def file_row(self, path: str) -> FileRow | None:
        rows = self.files.search().where(sql_in("path", [path])).limit(1).to_list()
        return FileRow(**rows[0]) if rows else None

    @_guard(FILES)
    def file_paths(self) -> list[str]:
        return self.files.search().select(["path"]).limit(None).to_arrow().column("path").to_pylist()

    @_guard(FILES)
    def file_count(self) -> int:
        return self.files.count_rows()

    @_guard(FILES)
    def files_state(self) -> list[tuple[str, str, float]]:
        """(path, content hash, indexed at) of every file: what names the index's state."""
        table = self.files.to_arrow().select(["path", "hash", "indexed_at"])
        return list(zip(*(table.column(c).to_pylist() for c in ("path", "hash", "indexed_at")),
                        strict=True))

    @_guard(FILES)
    def update_file_stats(self, rows: Sequence[FileRow]) -> None:
        """Same content, new size/mtime: refresh the stat fields only."""
        if not rows:
            return
        data = pa.Table.from_pylist([r.__dict__ for r in rows], schema=FILES_SCHEMA)
        self.files.merge_insert("path").when_matched_update_all().execute(data)

    # --- per-file writes ---------------------------------------------------------

    @_guard("index")
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
        for chunk in _chunks(paths):
            self.files.delete(sql_in("path", chunk))
        for chunk in _chunks(paths):
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

    @_guard(SYMBOLS)
    def symbol_count(self) -> int:
        return self.symbols.count_rows()

    @_guard(SYMBOLS)
    def symbol_rows(self, columns: Sequence[str], paths: Sequence[str] | None = None) -> list[dict]:
        """These columns of the symbols of these files (all files: None)."""
        if paths is not None and not paths:
            return []
        q = self.symbols.search().select(list(columns))
        if paths is not None:
            q = q.where(sql_in("path", paths))
        return q.limit(None).to_arrow().to_pylist()

    @_guard(REFS)
    def ref_rows(self, paths: Sequence[str] | None = None) -> list[dict]:
        """The reference rows of these files (all files: None)."""
        if paths is not None and not paths:
            return []
        if paths is None:
            return self.refs.to_arrow().to_pylist()
        return self.refs.search().where(sql_in("path", paths)).limit(None).to_arrow().to_pylist()

    @_guard(SYMBOLS)
    def symbols_named(self, names: Sequence[str], columns: Sequence[str],
                      where: SymbolFilter | None = None, limit: int = 2000) -> list[dict]:
        """Symbols whose name is one of ``names``."""
        clause = sql_in("name", names)
        extra = where.where() if where is not None else None
        if extra:
            clause = f"({clause}) AND ({extra})"
        return self.symbols.search().where(clause).select(list(columns)).limit(limit).to_list()

    @_guard(SYMBOLS)
    def vectors_of(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored (body) vector of each of these symbols that has one."""
        if not ids:
            return {}
        out: dict[str, list[float]] = {}
        for chunk in _chunks(list(ids)):
            rows = (self.symbols.search().where(f"({sql_in('id', chunk)}) AND vector IS NOT NULL")
                    .select(["id", "vector"]).limit(len(chunk) + 10).to_list())
            out.update((r["id"], r["vector"]) for r in rows if r.get("vector") is not None)
        return out

    @_guard(SYMBOLS)
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
            detail = _damage_detail(exc)
            if detail is None and not any(tuple(ix.columns) == ("search_text",)
                                          for ix in self.symbols.list_indices()):
                detail = "it is missing"
            if detail is None:
                raise
            raise FullTextUnavailable(f"the full-text index cannot be read ({detail})") from exc

    # --- embeddings --------------------------------------------------------------

    @_guard("embedding cache")
    def cached_vectors(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        if self.cache is None:
            return found
        unique = sorted(set(keys))
        for chunk in _chunks(unique):
            table = self.cache.search().where(sql_in("key", chunk)).limit(None).to_arrow()
            if table.num_rows == 0:
                continue
            vecs = _as_matrix(table.column("vector"), self.dim)
            for key, vec in zip(table.column("key").to_pylist(), vecs, strict=True):
                found[key] = vec
        return found

    # embed_text is kept exactly while a symbol has no vector (both change in one
    # commit), and filtering on it reads a column of mostly empty strings instead
    # of every vector: 5 ms instead of 64 ms at 20k symbols.
    PENDING = "embed_text != ''"

    @_guard(SYMBOLS)
    def pending(self, limit: int | None = None) -> pa.Table:
        """Symbols still waiting for their embeddings: id, embed_key, embed_text,
        summary_key, summary_text."""
        q = self.symbols.search().where(self.PENDING).select(
            ["id", "embed_key", "embed_text", "summary_key", "summary_text"])
        return q.limit(limit).to_arrow()

    @_guard(SYMBOLS)
    def count_pending(self) -> int:
        """Symbols without vectors. Counting scans a column (5 ms at 20k symbols, on
        every search): the count is kept for the table version it was made on."""
        key = (id(self.symbols), self.symbols.version)
        cached = self._pending_count
        if cached is not None and cached[0] == key:
            return cached[1]
        count = self.symbols.count_rows(self.PENDING)
        self._pending_count = (key, count)
        return count

    def count_embedded(self) -> int:
        return self.symbol_count() - self.count_pending()

    def _vector_array(self, vectors: np.ndarray) -> pa.FixedSizeListArray:
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
        return pa.FixedSizeListArray.from_arrays(flat, self.dim).cast(pa.list_(pa.float32(), self.dim))

    @_guard("embedding cache")
    def cache_vectors(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Remember computed vectors by key, so an interrupted run or a symbol seen
        again costs nothing."""
        if not keys:
            return
        unique: dict[str, int] = {}
        for i, key in enumerate(keys):
            unique.setdefault(key, i)
        rows = pa.table(
            {
                "key": pa.array(list(unique)),
                "vector": self._vector_array(vectors).take(pa.array(list(unique.values()))),
            },
            schema=cache_schema(self.dim),
        )
        self.cache.add(rows)

    @_guard(SYMBOLS)
    def store_vectors(self, ids: Sequence[str], vectors: np.ndarray, summary_vectors: np.ndarray) -> None:
        """Put both vectors on their symbols, which stop being pending (atomically per call)."""
        if not ids:
            return
        update = pa.table(
            {
                "id": pa.array(list(ids)),
                "embed_text": pa.array([""] * len(ids)),
                "summary_text": pa.array([""] * len(ids)),
                "vector": self._vector_array(vectors),
                "summary_vector": self._vector_array(summary_vectors),
            }
        )
        self.symbols.merge_insert("id").when_matched_update_all().execute(update)

    # --- indexes and maintenance -------------------------------------------------

    @_guard(SYMBOLS)
    def ensure_indexes(self, rebuild_fulltext: bool = False) -> None:
        """The full-text index over search_text and scalar indexes for per-file writes."""
        existing = {tuple(ix.columns): ix for ix in self.symbols.list_indices()}
        if (rebuild_fulltext or ("search_text",) not in existing) and self.symbols.count_rows() > 0:
            # Identifiers are split into words before they reach the index (see
            # embed.search_text); stemming lets "retries" find "retry".
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.symbols.create_fts_index(
                    "search_text", stem=True, remove_stop_words=True, replace=True
                )
        for table, column in ((self.symbols, "path"), (self.refs, "path"), (self.cache, "key")):
            if table.count_rows() == 0:
                continue
            cols = {tuple(ix.columns) for ix in table.list_indices()}
            if (column,) not in cols:
                table.create_scalar_index(column, index_type="BTREE")

    @_guard(SYMBOLS)
    def ensure_vector_index(self, min_rows: int = VECTOR_INDEX_MIN_ROWS) -> bool:
        """An ANN index once brute force gets slow (measured: 13 ms at 10k rows,
        211 ms at 100k; IVF_HNSW_SQ 6-9 ms at recall@10 0.97-0.98, built in 3 s at
        10k rows). Rows written later are searched flat beside it until optimize()."""
        embedded = self.count_embedded()
        if embedded < min_rows:
            return False
        cols = {tuple(ix.columns) for ix in self.symbols.list_indices()}
        made = False
        for column in ("vector", "summary_vector"):
            if (column,) not in cols:
                self.symbols.create_index(metric="cosine", index_type="IVF_HNSW_SQ",
                                          vector_column_name=column)
                made = True
        return made

    @_guard(SYMBOLS)
    def unindexed_rows(self) -> int:
        """Rows written since the full-text index was last refreshed (searched flat)."""
        return sum(
            int(ix.num_unindexed_rows or 0)
            for ix in self.symbols.list_indices()
            if tuple(ix.columns) == ("search_text",)
        )

    def optimize(self) -> None:
        """Compact small fragments and fold new rows into the indexes."""
        for table in (self.symbols, self.files, self.refs, self.cache):
            try:
                table.optimize(cleanup_older_than=timedelta(minutes=5))
            except Exception as exc:  # maintenance must never fail an index run
                log.warning("codeloupe: optimize of %s failed: %s", table.name, exc)

    @_guard(SYMBOLS)
    def maybe_optimize(self, threshold: int = 500) -> bool:
        fragments = self.symbols.stats()["fragment_stats"]["num_fragments"]
        if self.unindexed_rows() > threshold or fragments > 64:
            self.optimize()
            return True
        return False

    # --- reads ----------------------------------------------------------------------

    @_guard(FILES)
    def stats(self) -> dict[str, object]:
        langs = self.files.search().select(["language"]).limit(None).to_arrow()
        counts: dict[str, int] = {}
        for lang in langs.column("language").to_pylist():
            counts[lang] = counts.get(lang, 0) + 1
        try:
            skipped = json.loads(self._meta.get("skipped") or "{}")
        except ValueError:
            skipped = {}
        return {
            "files": self.files.count_rows(),
            "symbols": self.symbol_count(),
            "pending_embeddings": self.count_pending(),
            "languages": dict(sorted(counts.items(), key=lambda kv: -kv[1])),
            "skipped": skipped if isinstance(skipped, dict) else {},
            "model": self._meta.get("model_id", self.model_id),
            "schema_version": SCHEMA_VERSION,
        }

    def size_bytes(self) -> int | None:
        """Bytes on disk (a local index); files that vanish while it counts (a
        writer's temporary files) are left out."""
        if not is_local_uri(self.uri):
            return None
        total = 0
        for folder, _, names in os.walk(self.uri.removeprefix("file://")):
            for name in names:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(folder, name)).st_size
        return total

    def meta_json(self) -> str:
        return json.dumps(self._meta)


def _as_matrix(column: pa.ChunkedArray | pa.Array, dim: int | None) -> np.ndarray:
    """A column of fixed-size float lists as an (n, dim) float32 array."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    flat = column.flatten().to_numpy(zero_copy_only=False)
    return flat.reshape(len(column), dim or (len(flat) // max(len(column), 1)))
