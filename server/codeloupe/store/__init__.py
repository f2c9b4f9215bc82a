"""LanceDB storage, and the only code that imports lancedb: the symbols table
(vectors + metadata + full text), the files table, the references table and the
embedding cache.

``db`` opens an index (writable or read-only, with its schema version and model
id checked), ``rows`` and ``vectors`` read and write it, ``upkeep`` checks,
repairs and maintains it, ``disk`` digests the tables' files without LanceDB (to
tell whether anything wrote since), ``schema``, ``sql`` and ``errors`` are what they say.
"""

from __future__ import annotations

from .db import Store
from .disk import tables_state
from .errors import FullTextUnavailable, IndexAbsent, IndexDamaged, IndexMismatch, StoreError
from .schema import FILES_SCHEMA, REFS_SCHEMA, SCHEMA_VERSION, FileRow, cache_schema, symbols_schema
from .sql import SymbolFilter, is_local_uri, sql_in, sql_literal
from .upkeep import VECTOR_INDEX_MIN_ROWS

__all__ = [
    "FILES_SCHEMA", "REFS_SCHEMA", "SCHEMA_VERSION", "VECTOR_INDEX_MIN_ROWS", "FileRow",
    "FullTextUnavailable", "IndexAbsent", "IndexDamaged", "IndexMismatch", "Store", "StoreError",
    "SymbolFilter", "cache_schema", "is_local_uri", "sql_in", "sql_literal", "symbols_schema",
    "tables_state",
]
