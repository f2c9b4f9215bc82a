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

import hashlib
import logging
import os
import shutil
import time
from collections.abc import Callable
from datetime import timedelta

from .errors import (
    IndexAbsent,
    IndexDamaged,
    IndexMismatch,
    StoreError,
    damage_detail,
    is_failure,
)
from .loading import import_lancedb
from .rows import Rows
from .schema import (
    FILES,
    FILES_SCHEMA,
    META,
    META_SCHEMA,
    REFS,
    REFS_SCHEMA,
    SYMBOLS,
    cache_schema,
    symbols_schema,
)
from .sql import is_local_uri
from .upkeep import Upkeep
from .vectors import Vectors
from .version import SCHEMA_VERSION

log = logging.getLogger("codeloupe.store")


class Store(Rows, Vectors, Upkeep):
    """One index: a LanceDB database at ``uri`` (a folder, or ``s3://…``).

    ``writable``: rebuild on a model or schema change and repair damage (the
    commands that write); else never change anything and raise ``IndexAbsent`` /
    ``IndexMismatch`` / ``IndexDamaged`` instead. ``check_model``: False for
    readers that need symbols and references only (the call graph), which work
    whatever model made the vectors. ``dim`` may be None for such a reader.
    ``rebuild``: False for writers that only follow the files (a search that
    updates first): a model or schema change is then an ``IndexMismatch`` for the
    user to settle with ``codeloupe index``, not a rebuild they did not ask for.
    ``compatible``: where only the model id differs (another backend of the same
    model), a judge ``(store, old_model_id) -> (keep, why)`` that may keep the index
    and its vectors (``kept_reason`` says why); its answer is recorded in the meta
    table, so it is asked once."""

    def __init__(self, uri: str, model_id: str, dim: int | None, text_version: int = 0,
                 extract_version: int = 0, *, writable: bool = True, check_model: bool = True,
                 rebuild: bool = True,
                 compatible: Callable[[Store, str], tuple[bool, str]] | None = None) -> None:
        lancedb = import_lancedb()  # here, not at the top: only a store that opens pays for it
        self.uri = uri
        self.model_id = model_id
        self.dim = dim
        self.text_version = text_version  # how symbols become text: a change rebuilds
        self.extract_version = extract_version  # what extraction makes of a file: a change rebuilds
        self.writable = writable
        self.check_model = check_model
        self.rebuild = rebuild
        self.rebuilt_reason: str | None = None
        self.kept_reason: str | None = None  # an index of another backend kept, and why
        self.compatible = compatible
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

    def reopen(self, model_id: str, dim: int | None) -> None:
        """Open again for another model (the backend ``auto`` settled on after all):
        kept where ``compatible`` allows, else rebuilt or refused as on opening."""
        self.model_id, self.dim = model_id, dim
        self._pending_count = None
        self._open_tables()

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
                "dim": str(self.dim), "text_version": str(self.text_version),
                "extract_version": str(self.extract_version)}

    def _mismatch(self, meta: dict[str, str]) -> str | None:
        """How the index differs from what this run expects, in words; None if not."""
        keys = ["schema_version", "text_version", "extract_version"]
        if self.check_model:
            keys += ["model_id", "dim"]
        expected = self._expected()
        for key in keys:
            if meta.get(key) != expected[key]:
                return (f"the index was built with {key} {meta.get(key)!r}, "
                        f"this run uses {expected[key]!r}")
        return None

    def _only_model_differs(self, meta: dict[str, str]) -> bool:
        expected = self._expected()
        return (self.compatible is not None and self.check_model
                and meta.get("model_id") != expected["model_id"]
                and all(meta.get(k) == expected[k] for k in
                        ("schema_version", "text_version", "extract_version", "dim")))

    def _judge(self, meta: dict[str, str], reason: str) -> tuple[dict[str, str], str | None]:
        """Ask ``compatible`` whether vectors of ``meta``'s model can stay: the meta to
        go on with and None when they can (recorded, when writable), else the reason
        of the rebuild with the judge's why."""
        assert self.compatible is not None
        old = meta.get("model_id", "")
        try:
            self.symbols = self.db.open_table(SYMBOLS)
            keep, why = self.compatible(self, old)
        except BaseException as exc:
            if not is_failure(exc):
                raise
            return meta, reason
        if not keep:
            return meta, f"{reason} ({why})"
        if meta.get("model_id") == self.model_id:  # the judge settled on the index's model
            return meta, None
        self.kept_reason = f"keeping the index built with {old}: {why}"
        log.warning("codeloupe: %s", self.kept_reason)
        meta = {**meta, "model_id": self.model_id, "vectors_from": old}
        if self.writable:
            self._write_meta(meta)
        return meta, None

    def _open_tables(self) -> None:
        names = self._table_names()
        reason = None
        try:
            meta = self._read_meta()
        except BaseException as exc:
            if not is_failure(exc):
                raise
            meta = {}
            reason = f"the index metadata is unreadable ({damage_detail(exc) or exc})"
        if reason is None and meta:
            reason = self._mismatch(meta)
            if reason is not None and self._only_model_differs(meta):
                meta, reason = self._judge(meta, reason)
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
                if not is_failure(exc):
                    raise
                reason = f"a table of the index is unreadable ({damage_detail(exc) or exc})"
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
                    if not is_failure(exc):
                        raise
                    raise IndexDamaged(self.uri, name, damage_detail(exc) or str(exc)) from exc
        except StoreError:
            raise
        except BaseException as exc:
            if not is_failure(exc):
                raise
            raise IndexDamaged(self.uri, "tables", damage_detail(exc) or str(exc)) from exc
        self._meta = meta
        self.cache = None  # a reader needs no embedding cache

    def _drop(self, name: str) -> None:
        """Drop a table, however damaged (its folder goes when LanceDB cannot drop it;
        the index folder holds no symlinks, ``indexdir``)."""
        try:
            self.db.drop_table(name)
            return
        except BaseException as exc:
            if not is_failure(exc):
                raise
            log.info("codeloupe: dropping %s: %s", name, damage_detail(exc) or exc)
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

    def _open_cache(self):  # lancedb table
        name = self._cache_name()
        if name in self._table_names():
            try:
                table = self.db.open_table(name)
                table.count_rows()
                return table
            except BaseException as exc:
                if not is_failure(exc):
                    raise
                log.warning("codeloupe: embedding cache unreadable (%s); starting a new one",
                            damage_detail(exc) or exc)
                self._drop(name)
        assert self.dim is not None
        return self.db.create_table(name, schema=cache_schema(self.dim))


    def touch(self, **values: str) -> None:
        """Record an update now, with these meta values (the skip counts)."""
        self._meta["updated"] = str(time.time())
        self._meta.update(values)
        self._write_meta(self._meta)

    @property
    def updated_at(self) -> float | None:
        """When the index was last updated (epoch seconds); None if never."""
        value = self._meta.get("updated")
        return float(value) if value else None

    @property
    def built_with_skipped(self) -> str:
        """The skip counts the last sync recorded (JSON), to write them only on a change."""
        return self._meta.get("skipped", "{}")

    @property
    def created(self) -> str:
        """When the index was created (epoch seconds as text; a rebuild makes a new one);
        part of ``store_key``."""
        return str(self._meta.get("created", ""))

    @property
    def built_with(self) -> dict[str, str]:
        """What the index says it was built with (model, schema, text and extraction versions)."""
        return {k: self._meta.get(k, "") for k in ("model_id", "schema_version", "text_version",
                                                   "extract_version", "dim")}

