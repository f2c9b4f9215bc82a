"""Keeping an index healthy and fast: checks and repair of damaged tables, the
full-text, scalar and vector indexes, compaction, and what the index holds."""

from __future__ import annotations

import json
import logging
import warnings
from datetime import timedelta
from typing import Any

import numpy as np

from .disk import folder_bytes
from .errors import (
    FullTextUnavailable,
    IndexDamaged,
    StoreError,
    damage_detail,
    guarded,
    is_failure,
)
from .schema import FILES, PROBE_COLUMNS, REFS, SYMBOLS, cache_schema
from .sql import is_local_uri
from .vectors import as_matrix
from .version import SCHEMA_VERSION

log = logging.getLogger("codeloupe.store")

VECTOR_INDEX_MIN_ROWS = 10_000


class Upkeep:
    """``verify``/``repair``, index building and ``optimize``, ``stats``."""

    # what the Store sets up (store/db.py)
    uri: str
    dim: int | None
    db: Any
    symbols: Any
    files: Any
    refs: Any
    cache: Any
    model_id: str
    writable: bool
    repaired: list[str]
    _meta: dict[str, str]

    # --- damage --------------------------------------------------------------------

    def verify(self) -> dict[str, str]:
        """Read every data file of every table (its narrowest column) and probe the
        full-text index: what is damaged → why. Empty when all is well."""
        damaged: dict[str, str] = {}
        tables = {SYMBOLS: self.symbols, FILES: self.files, REFS: self.refs}
        if self.cache is not None:
            tables[self._cache_name()] = self.cache
        for name, table in tables.items():
            column = PROBE_COLUMNS.get(name, "key")
            try:
                table.search().select([column]).limit(None).to_arrow()
            except BaseException as exc:
                detail = damage_detail(exc) if is_failure(exc) else None
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
        except Exception as exc:  # best effort: damage is being repaired
            log.info("codeloupe: could not copy vectors to the cache: %s", exc)
            return
        if table.num_rows == 0:
            return
        keys = table.column("embed_key").to_pylist() + table.column("summary_key").to_pylist()
        vectors = np.concatenate([as_matrix(table.column("vector"), self.dim),
                                  as_matrix(table.column("summary_vector"), self.dim)])
        known = self.cached_vectors(keys)
        new = [i for i, k in enumerate(keys) if k not in known]
        if new:
            self.cache_vectors([keys[i] for i in new], vectors[new])

    @guarded(SYMBOLS)
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


    # --- indexes and maintenance -------------------------------------------------

    @guarded(SYMBOLS)
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

    @guarded(SYMBOLS)
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

    @guarded(SYMBOLS)
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

    @guarded(SYMBOLS)
    def maybe_optimize(self, threshold: int = 500) -> bool:
        """Optimize when the full-text index misses over ``threshold`` rows or the symbols
        table has over 64 fragments; True when it did."""
        fragments = self.symbols.stats()["fragment_stats"]["num_fragments"]
        if self.unindexed_rows() > threshold or fragments > 64:
            self.optimize()
            return True
        return False

    # --- reads ----------------------------------------------------------------------

    @guarded(FILES)
    def stats(self) -> dict[str, object]:
        """What the index holds: files, symbols, pending embeddings, files per language,
        skip counts, model id and schema version."""
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
        return folder_bytes(self.uri.removeprefix("file://"))

