"""The embedding cache and the symbols' vectors: what waits for a vector, what the
cache holds, and committing computed vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .errors import guarded
from .schema import SYMBOLS, cache_schema
from .sql import chunks, sql_in


class Vectors:
    """Pending symbols, the cache by ``embed_key``, vectors stored on symbols."""

    # what the Store sets up (store/db.py)
    uri: str
    dim: int | None
    db: Any
    symbols: Any
    files: Any
    refs: Any
    cache: Any
    _pending_count: tuple[tuple[int, int], int] | None

    # --- embeddings --------------------------------------------------------------

    @guarded("embedding cache")
    def cached_vectors(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors of these keys, those found (none without a cache table)."""
        found: dict[str, np.ndarray] = {}
        if self.cache is None:
            return found
        unique = sorted(set(keys))
        for chunk in chunks(unique):
            table = self.cache.search().where(sql_in("key", chunk)).limit(None).to_arrow()
            if table.num_rows == 0:
                continue
            vecs = as_matrix(table.column("vector"), self.dim)
            for key, vec in zip(table.column("key").to_pylist(), vecs, strict=True):
                found[key] = vec
        return found

    # embed_text is kept exactly while a symbol has no vector (both change in one
    # commit), and filtering on it reads a column of mostly empty strings instead
    # of every vector: 5 ms instead of 64 ms at 20k symbols.
    PENDING = "embed_text != ''"

    _PENDING_COLUMNS = ["id", "path", "embed_key", "embed_text", "summary_key", "summary_text"]

    @guarded(SYMBOLS)
    def pending(self, limit: int | None = None, paths: Sequence[str] | None = None) -> pa.Table:
        """Symbols still waiting for their embeddings (of these files, in their order, or
        any): id, path, embed_key, embed_text, summary_key, summary_text."""
        if paths is None:
            q = self.symbols.search().where(self.PENDING).select(self._PENDING_COLUMNS)
            return q.limit(limit).to_arrow()
        parts = [self.symbols.search().where(f"{self.PENDING} AND {sql_in('path', chunk)}")
                 .select(self._PENDING_COLUMNS).limit(None).to_arrow() for chunk in chunks(paths)]
        table = pa.concat_tables(parts) if parts else self.symbols.search().where("false").select(
            self._PENDING_COLUMNS).limit(0).to_arrow()
        rank = {p: i for i, p in enumerate(paths)}
        where = table.column("path").to_pylist()
        order = sorted(range(table.num_rows), key=lambda i: rank[where[i]])
        table = table.take(pa.array(order, type=pa.int64()))
        return table if limit is None else table.slice(0, limit)

    @guarded(SYMBOLS)
    def pending_paths(self) -> dict[str, int]:
        """How many symbols of each file wait for their embeddings (files with none left out):
        one column read (a few ms at 40k symbols), so an embedding run can choose its order."""
        paths = self.symbols.search().where(self.PENDING).select(["path"]).limit(None).to_arrow()
        if paths.num_rows == 0:
            return {}
        counts = pc.value_counts(paths.column("path").combine_chunks())
        return dict(zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist(),
                        strict=True))

    @guarded(SYMBOLS)
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
        """How many symbols have their vectors."""
        return self.symbol_count() - self.count_pending()

    def _vector_array(self, vectors: np.ndarray) -> pa.FixedSizeListArray:
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
        return pa.FixedSizeListArray.from_arrays(flat, self.dim).cast(pa.list_(pa.float32(), self.dim))

    @guarded("embedding cache")
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

    @guarded(SYMBOLS)
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


def as_matrix(column: pa.ChunkedArray | pa.Array, dim: int | None) -> np.ndarray:
    """A column of fixed-size float lists as an (n, dim) float32 array."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    flat = column.flatten().to_numpy(zero_copy_only=False)
    return flat.reshape(len(column), dim or (len(flat) // max(len(column), 1)))

