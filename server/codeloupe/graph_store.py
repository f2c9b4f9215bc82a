"""The call graph of an index: built from the store's symbol and reference rows, and
saved beside the index folder so a later start loads it instead of resolving again;
and the record of the last sync (``SYNC_FILE``), which lets a command answer from
that saved graph without opening the store at all when it proves nothing changed.

The adapter between ``codeloupe.store`` and ``codeloupe.graph`` (which never imports
the store); the CLI (``Graph`` of ``codeloupe calls``), ``ask`` and the language server
share its file and its key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .config import Settings
from .embed import TEXT_VERSION, model_identity
from .errors import CodeloupeError
from .extract import EXTRACT_VERSION
from .graph import SymbolInfo
from .graph.callfile import SavedCalls
from .indexdir import IndexFolder, locate
from .safeio import open_no_follow, replace_file
from .scan import ScanResult, scan
from .store import SCHEMA_VERSION, tables_state
from .userkey import sign, user_secret

if TYPE_CHECKING:  # imported where a map is built or loaded: not by `calls` reading its calls
    from .graph import Graph

GRAPH_FILE = "callgraph.cgraph"  # in the index folder: the map graph_for_store saves (graph.persist)
# beside it, for the same key: its calls alone, read in place by ``codeloupe calls``/``path``
# (graph.callfile: a few symbols' edges without loading the map)
CALLS_FILE = "callgraph.calls"
# what older versions saved there (pickles): never read, deleted when the map is saved
LEGACY_GRAPH_FILES = ("callgraph.pickle",)
SYNC_FILE = "synced.json"  # in the index folder: what the last sync saw and left (record_sync)
_SYNC_FORMAT = 1
log = logging.getLogger("codeloupe.graph")
_SYMBOL_COLUMNS = ["id", "path", "name", "qualified_name", "kind", "parent", "start_line",
                   "end_line", "language"]


def graph_for_store(store: Any) -> Graph:  # codeloupe.store.Store
    """The map of an index: the one saved beside it (``GRAPH_FILE``) when it was
    built from the index as it is now, else built from the store and saved there
    for the next start. The key is ``store_key``: every write of a file's symbols
    and references changes it, so a stale map is never used. An index that is not a
    local folder is not saved beside; a map that cannot be written is only a note."""
    from .graph import Graph

    target = saved_graph_path(store)
    if target is None:
        return graph_from_store(store)
    key = store_key(store)
    graph = Graph.load(target, key)
    if graph is not None:
        return graph
    graph = graph_from_store(store)
    if store_key(store) == key:  # no index run wrote while the map was built
        try:
            save_graph(graph, target, key)
        except OSError as exc:
            log.info("codeloupe: cannot save the call graph to %s: %s", target, exc)
    return graph


def save_graph(graph: Graph, target: Path, key: str) -> None:
    """Save the map at ``target`` (``saved_graph_path``) for ``key`` and its calls beside
    it (``CALLS_FILE``), and delete what an older version saved there
    (``LEGACY_GRAPH_FILES``: never loaded, only stale). OSError when it cannot be
    written."""
    graph.save(target, key)
    graph.save_calls(target.with_name(CALLS_FILE), key)
    for name in LEGACY_GRAPH_FILES:
        try:
            (target.parent / name).unlink(missing_ok=True)
        except OSError as exc:
            log.info("codeloupe: cannot delete the old call graph %s: %s", target.parent / name, exc)


def graph_from_store(store: Any) -> Graph:  # codeloupe.store.Store
    """The map built from every symbol and reference row of the store."""
    from .graph import Graph

    symbols = [SymbolInfo(**row) for row in store.symbol_rows(_SYMBOL_COLUMNS)]
    return Graph(symbols, store.ref_rows())


def store_key(store: Any) -> str:  # codeloupe.store.Store
    """The state of an index that its map is built from: a digest of its files table
    (path, content hash and when each file was indexed) and of when the index was
    created. Writing a file's symbols and references deletes its files row first and
    adds it back last (``Store.replace_files``), so any write, even one cut short,
    changes the key; a rebuilt index has a new creation time."""
    return _state_key(store.created, store.files_state())


def _state_key(created: str, files: Iterable[tuple[str, str, float]]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(created.encode())
    for path, content, when in sorted(files):
        digest.update(f"\0{path}\0{content}\0{when!r}".encode())
    return digest.hexdigest()


def saved_graph_path(store: Any) -> Path | None:  # codeloupe.store.Store
    """Where the map of an index is saved (``GRAPH_FILE`` in its folder); None for an
    index that is not a local folder. The CLI and the language server share it."""
    folder = _local_folder(store)
    return None if folder is None else folder / GRAPH_FILE


def _local_folder(store: Any) -> Path | None:  # codeloupe.store.Store
    uri = getattr(store, "uri", "")
    if not isinstance(uri, str) or ("://" in uri and not uri.startswith("file://")):
        return None
    folder = Path(uri.removeprefix("file://"))
    return folder if folder.is_dir() else None


# --- the record of the last sync ------------------------------------------------------
#
# A sync (``Index.sync_files``) that ends with the files table agreeing with a scan of
# the disk records, signed, in ``SYNC_FILE``: the settings it ran with, the digest of
# that scan, the state of the tables' files on disk and the graph key of the files
# table. A later command with the same settings whose own scan digests the same and
# which finds the tables' files as they were would run a sync that changes nothing and
# load the graph saved for that key: ``current_graph`` answers that graph without
# opening the store (LanceDB's import alone is most of a second). Anything different,
# missing or unreadable, and it answers None: the command opens the index as before.


def settings_key(root: Path, uri: str, settings: Settings, model_id: str) -> str:
    """What a sync's outcome depends on besides the files: the versions of how files
    are read, extracted and stored, the model id, the root and index location, and the
    settings that choose the files."""
    parts = [_SYNC_FORMAT, __version__, SCHEMA_VERSION, TEXT_VERSION, EXTRACT_VERSION, model_id,
             str(root), uri, settings.max_file_bytes, list(settings.include),
             list(settings.exclude), bool(settings.index_generated)]
    return hashlib.blake2b(json.dumps(parts).encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()


def disk_key(files: Iterable[tuple[str, int, int, str]], skipped: Mapping[str, int]) -> str:
    """A digest of (path, size, mtime, language) of files and of the skip counts of a scan."""
    digest = hashlib.blake2b(digest_size=16)
    for path, size, mtime_ns, language in sorted(files):
        digest.update(f"{path}\0{size}\0{mtime_ns}\0{language}\n".encode("utf-8", "surrogatepass"))
    digest.update(json.dumps(sorted(skipped.items())).encode())
    return digest.hexdigest()


def _sign_record(secret: bytes, record: Mapping[str, str]) -> str:
    return sign(secret, "codeloupe-synced", _SYNC_FORMAT, record["settings"], record["disk"],
                record["tables"], record["graph_key"])


def record_sync(store: Any, settings: str, scanned: ScanResult,
                left_out: Collection[str]) -> bool:  # codeloupe.store.Store
    """Record that the files table of ``store`` agrees with ``scanned`` (the scan of the
    sync that just ended, run with ``settings``: a ``settings_key``): every file scanned
    has its files row, with the stat the next sync compares, except ``left_out``, the
    files the sync read and skipped for what they hold (binary, generated, ...), which
    a sync reads again only to skip again. Files whose outcome might change with no
    change to them (unreadable, timed out) must not be in ``left_out``: then nothing
    is recorded. Nothing is recorded either when the rows do not match the scan or
    another writer changed a table meanwhile. True when the record was written (or
    was already this)."""
    folder = _local_folder(store)
    secret = user_secret()
    if folder is None or secret is None:
        return False
    before = tables_state(folder)
    rows = store.load_files()
    created = store.created
    after = tables_state(folder)
    if before != after:
        return False
    files, with_rows = [], 0
    for f in scanned.files:
        row = rows.get(f.path)
        if row is not None:
            files.append((f.path, row.size, row.mtime_ns, f.language))
            with_rows += 1
        elif f.path in left_out:
            files.append((f.path, f.size, f.mtime_ns, f.language))
        else:
            return False  # a file the scan found that has no row
    if with_rows != len(rows):
        return False  # rows of files the scan did not find
    record = {"settings": settings, "disk": disk_key(files, scanned.skipped), "tables": after,
              "graph_key": _state_key(created, ((r.path, r.hash, r.indexed_at) for r in rows.values()))}
    if _read_record(folder, secret) == record:
        return True
    replace_file(folder / SYNC_FILE, json.dumps({**record, "mac": _sign_record(secret, record)}).encode())
    return True


def _read_record(folder: Path, secret: bytes) -> dict[str, str] | None:
    """The record in ``folder`` when it is this user's and of this format, else None."""
    try:
        fd = open_no_follow(folder / SYNC_FILE, os.O_RDONLY)
        with os.fdopen(fd, "rb") as fh:
            doc = json.loads(fh.read(4096))
    except (OSError, ValueError):
        return None
    keys = ("settings", "disk", "tables", "graph_key")
    if type(doc) is not dict or set(doc) != {*keys, "mac"} or not all(
            type(doc[k]) is str for k in (*keys, "mac")):
        return None
    record = {k: doc[k] for k in keys}
    if not hmac.compare_digest(doc["mac"], _sign_record(secret, record)):
        return None
    return record


def current_graph(root: Path, settings: Settings, *, rescan: bool = True,
                  calls: bool = False) -> tuple[Graph | SavedCalls, IndexFolder] | None:
    """The graph saved beside the index of ``root`` and where that index is, when the
    record of the last sync proves it is the graph a command would get after syncing
    (``rescan``: the files on disk are scanned and must be as that sync left them) or,
    without ``rescan``, of the index as it is; else None (the caller opens the index).
    With ``calls``, its calls read in place (``CALLS_FILE``: for callers, callees and
    chains) where they were saved for it; else the map is loaded and its calls saved
    for the next command. Reads the index folder's directory entries, the record and
    what was saved, never the store, and writes nothing but those calls."""
    try:
        root = root.resolve()
        if not root.is_dir():
            return None
        location = locate(root, settings.index_uri, create=False)
        model_id, _ = model_identity(settings.model, settings.max_tokens, settings.embedding_backend,
                                     settings.trust_remote_code, settings.embedding_device)
    except (CodeloupeError, OSError):
        return None
    folder, secret = location.local, user_secret()
    if not location.exists or folder is None or secret is None:
        return None
    record = _read_record(folder, secret)
    if record is None or record["settings"] != settings_key(root, location.uri, settings, model_id):
        return None
    try:
        if tables_state(folder) != record["tables"]:
            return None
    except OSError:
        return None
    if rescan:
        try:
            found = scan(root, max_bytes=settings.max_file_bytes, exclude=settings.exclude,
                         include=settings.include)
        except OSError:
            return None  # the update reports it
        files = ((f.path, f.size, f.mtime_ns, f.language) for f in found.files)
        if disk_key(files, found.skipped) != record["disk"]:
            return None
    if calls and (saved := SavedCalls.open(folder / CALLS_FILE, record["graph_key"])) is not None:
        return saved, location
    from .graph import Graph

    graph = Graph.load(folder / GRAPH_FILE, record["graph_key"])
    if graph is None:
        return None
    if calls:  # saved by a version before the calls file, or lost: there next time
        try:
            graph.save_calls(folder / CALLS_FILE, record["graph_key"])
        except OSError as exc:
            log.info("codeloupe: cannot save the calls beside the call graph in %s: %s", folder, exc)
    return graph, location
