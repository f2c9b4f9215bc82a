"""LanceDB storage: the symbols table (vectors + metadata + full text), the files
table, the references table and the embedding cache.

The schema version and the model id are stored in a ``meta`` table; when either
differs from what the engine expects, the derived tables are dropped and rebuilt
(with a message), never misread. Every filter is built from escaped literals.
"""

from __future__ import annotations

import json
import logging
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

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
    pass


def is_local_uri(uri: str) -> bool:
    return "://" not in uri or uri.startswith("file://")


class Store:
    """One index: a LanceDB database at ``uri`` (a folder, or ``s3://…``)."""

    def __init__(self, uri: str, model_id: str, dim: int, text_version: int = 0) -> None:
        import lancedb

        self.uri = uri
        self.model_id = model_id
        self.dim = dim
        self.text_version = text_version  # how symbols become text: a change rebuilds
        self.rebuilt_reason: str | None = None
        self._pending_count: tuple[tuple[int, int], int] | None = None  # (table, version) → count
        if is_local_uri(uri):
            folder = Path(uri.removeprefix("file://"))
            folder.mkdir(parents=True, exist_ok=True)
            gitignore = folder / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text("# codeloupe index: derived data\n*\n", encoding="utf-8")
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
        import hashlib

        digest = hashlib.blake2b(self.model_id.encode(), digest_size=6).hexdigest()
        return f"embcache_{digest}"

    def _open_tables(self) -> None:
        expected = {
            "schema_version": str(SCHEMA_VERSION),
            "model_id": self.model_id,
            "dim": str(self.dim),
            "text_version": str(self.text_version),
        }
        reason = None
        try:
            meta = self._read_meta()
        except Exception as exc:
            meta = {}
            reason = f"the index metadata is unreadable ({exc})"
        names = self._table_names()
        if reason is None and meta:
            for key, value in expected.items():
                if meta.get(key) != value:
                    reason = (
                        f"the index was built with {key} {meta.get(key)!r}, "
                        f"this run uses {value!r}"
                    )
                    break
        elif reason is None and (names & {SYMBOLS, FILES, REFS}):
            reason = "the index has no metadata"
        if reason is None and meta:
            try:
                self.symbols = self.db.open_table(SYMBOLS)
                self.files = self.db.open_table(FILES)
                self.refs = self.db.open_table(REFS)
                self.symbols.count_rows()
                self.files.count_rows()
                self.refs.count_rows()
            except Exception as exc:
                reason = f"a table of the index is unreadable ({exc})"
        if reason is None and meta:
            self._meta = meta
            self.cache = self._open_cache()
            return
        if reason is not None:
            self.rebuilt_reason = f"{reason}; rebuilding the index"
            log.warning("codeloupe: %s", self.rebuilt_reason)
        for name in (SYMBOLS, FILES, REFS, META):
            if name in names:
                self.db.drop_table(name)
        self.symbols = self.db.create_table(SYMBOLS, schema=symbols_schema(self.dim))
        self.files = self.db.create_table(FILES, schema=FILES_SCHEMA)
        self.refs = self.db.create_table(REFS, schema=REFS_SCHEMA)
        self._meta = {**expected, "created": str(time.time())}
        self._write_meta(self._meta)
        self.cache = self._open_cache()

    def _open_cache(self):  # noqa: ANN202 - lancedb table
        name = self._cache_name()
        if name in self._table_names():
            try:
                table = self.db.open_table(name)
                table.count_rows()
                return table
            except Exception as exc:
                log.warning("codeloupe: embedding cache unreadable (%s); starting a new one", exc)
                self.db.drop_table(name)
        return self.db.create_table(name, schema=cache_schema(self.dim))

    def touch(self) -> None:
        self._meta["updated"] = str(time.time())
        self._write_meta(self._meta)

    @property
    def updated_at(self) -> float | None:
        value = self._meta.get("updated")
        return float(value) if value else None

    # --- files -------------------------------------------------------------------

    def load_files(self) -> dict[str, FileRow]:
        table = self.files.to_arrow()
        return {row["path"]: FileRow(**row) for row in table.to_pylist()}

    def update_file_stats(self, rows: Sequence[FileRow]) -> None:
        """Same content, new size/mtime: refresh the stat fields only."""
        if not rows:
            return
        data = pa.Table.from_pylist([r.__dict__ for r in rows], schema=FILES_SCHEMA)
        self.files.merge_insert("path").when_matched_update_all().execute(data)

    # --- per-file writes ---------------------------------------------------------

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

    # --- embeddings --------------------------------------------------------------

    def cached_vectors(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = sorted(set(keys))
        for chunk in _chunks(unique):
            table = self.cache.search().where(sql_in("key", chunk)).limit(None).to_arrow()
            if table.num_rows == 0:
                continue
            vecs = table.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
            vecs = vecs.reshape(table.num_rows, self.dim)
            for key, vec in zip(table.column("key").to_pylist(), vecs, strict=True):
                found[key] = vec
        return found

    # embed_text is kept exactly while a symbol has no vector (both change in one
    # commit), and filtering on it reads a column of mostly empty strings instead
    # of every vector: 5 ms instead of 64 ms at 20k symbols.
    PENDING = "embed_text != ''"

    def pending(self, limit: int | None = None) -> pa.Table:
        """Symbols still waiting for their embeddings: id, embed_key, embed_text,
        summary_key, summary_text."""
        q = self.symbols.search().where(self.PENDING).select(
            ["id", "embed_key", "embed_text", "summary_key", "summary_text"])
        return q.limit(limit).to_arrow()

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
        return self.symbols.count_rows() - self.count_pending()

    def _vector_array(self, vectors: np.ndarray) -> pa.FixedSizeListArray:
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
        return pa.FixedSizeListArray.from_arrays(flat, self.dim).cast(pa.list_(pa.float32(), self.dim))

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

    def ensure_indexes(self) -> None:
        """The full-text index over search_text and scalar indexes for per-file writes."""
        existing = {tuple(ix.columns): ix for ix in self.symbols.list_indices()}
        if ("search_text",) not in existing and self.symbols.count_rows() > 0:
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

    def maybe_optimize(self, threshold: int = 500) -> bool:
        fragments = self.symbols.stats()["fragment_stats"]["num_fragments"]
        if self.unindexed_rows() > threshold or fragments > 64:
            self.optimize()
            return True
        return False

    # --- reads ----------------------------------------------------------------------

    def stats(self) -> dict[str, object]:
        langs = self.files.search().select(["language"]).limit(None).to_arrow()
        counts: dict[str, int] = {}
        for lang in langs.column("language").to_pylist():
            counts[lang] = counts.get(lang, 0) + 1
        return {
            "files": self.files.count_rows(),
            "symbols": self.symbols.count_rows(),
            "pending_embeddings": self.count_pending(),
            "languages": dict(sorted(counts.items(), key=lambda kv: -kv[1])),
            "model": self.model_id,
            "schema_version": SCHEMA_VERSION,
        }

    def size_bytes(self) -> int | None:
        if not is_local_uri(self.uri):
            return None
        folder = Path(self.uri.removeprefix("file://"))
        return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())

    def meta_json(self) -> str:
        return json.dumps(self._meta)

