"""LanceDB storage, and the only code that imports lancedb: the symbols table
(vectors + metadata + full text), the files table, the references table and the
embedding cache.

``db`` opens an index (writable or read-only, with its schema version and model
id checked), ``rows`` and ``vectors`` read and write it, ``upkeep`` checks,
repairs and maintains it, ``disk`` digests the tables' files without LanceDB (to
tell whether anything wrote since), ``schema``, ``sql`` and ``errors`` are what they say.

Its names are loaded on first use (``__getattr__``): a command that only digests the
tables' files (``disk``, for ``status`` and the saved graph) imports neither LanceDB nor
pyarrow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names

if TYPE_CHECKING:
    from .db import Store
    from .disk import tables_state
    from .errors import FullTextUnavailable, IndexAbsent, IndexDamaged, IndexMismatch, StoreError
    from .rows import FileRefs
    from .schema import (
        FILES_SCHEMA,
        REFS_SCHEMA,
        FileRow,
        cache_schema,
        symbols_schema,
    )
    from .sql import SymbolFilter, is_local_uri, sql_in, sql_literal
    from .upkeep import VECTOR_INDEX_MIN_ROWS
    from .version import SCHEMA_VERSION

_WHERE = {
    "Store": "db", "tables_state": "disk",
    **dict.fromkeys(("FullTextUnavailable", "IndexAbsent", "IndexDamaged", "IndexMismatch",
                     "StoreError"), "errors"),
    **dict.fromkeys(("FILES_SCHEMA", "REFS_SCHEMA", "FileRow", "cache_schema", "symbols_schema"), "schema"),
    "SCHEMA_VERSION": "version", "FileRefs": "rows",
    **dict.fromkeys(("SymbolFilter", "is_local_uri", "sql_in", "sql_literal"), "sql"),
    "VECTOR_INDEX_MIN_ROWS": "upkeep",
}

__all__ = [
    "FILES_SCHEMA", "REFS_SCHEMA", "SCHEMA_VERSION", "VECTOR_INDEX_MIN_ROWS", "FileRefs", "FileRow",
    "FullTextUnavailable", "IndexAbsent", "IndexDamaged", "IndexMismatch", "Store", "StoreError",
    "SymbolFilter", "cache_schema", "is_local_uri", "sql_in", "sql_literal", "symbols_schema",
    "tables_state",
]
assert sorted(__all__) == sorted(_WHERE)


__getattr__ = lazy_names(__name__, _WHERE)
