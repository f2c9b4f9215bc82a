"""The tables of an index and their columns (``SCHEMA_VERSION``: a change rebuilds)."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

SYMBOLS = "symbols"
FILES = "files"
REFS = "refs"
META = "meta"


def symbols_schema(dim: int) -> pa.Schema:
    """The symbols table: a symbol's place and names, its texts (to embed, to search, to
    show) and its two vectors of ``dim`` floats."""
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
    """The embedding cache: a vector of ``dim`` floats by ``embedding_key``."""
    return pa.schema(
        [pa.field("key", pa.string(), nullable=False), pa.field("vector", pa.list_(pa.float32(), dim))]
    )


@dataclass
class FileRow:
    """One file of the index: its stat and content hash (what a scan compares), language,
    symbol and syntax error counts, and when it was indexed."""

    path: str
    size: int
    mtime_ns: int
    hash: str
    language: str
    symbols: int = 0
    errors: int = 0
    indexed_at: float = 0.0


# The narrowest column of each table: reading it whole touches every data file.
PROBE_COLUMNS = {SYMBOLS: "id", FILES: "path", REFS: "path", META: "key"}
