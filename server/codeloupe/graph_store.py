"""The call graph of an index: built from the store's symbol and reference rows, and
saved beside the index folder so a later start loads it instead of resolving again.

The adapter between ``codeloupe.store`` and ``codeloupe.graph`` (which never imports
the store); the CLI (``Graph`` of ``codeloupe calls``), ``ask`` and the language server
share its file and its key.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

from .graph import Graph, SymbolInfo

GRAPH_FILE = "callgraph.cgraph"  # in the index folder: the map graph_for_store saves (graph.persist)
# what older versions saved there (pickles): never read, deleted when the map is saved
LEGACY_GRAPH_FILES = ("callgraph.pickle",)
log = logging.getLogger("codeloupe.graph")
_SYMBOL_COLUMNS = ["id", "path", "name", "qualified_name", "kind", "parent", "start_line",
                   "end_line", "language"]


def graph_for_store(store: Any) -> Graph:  # codeloupe.store.Store
    """The map of an index: the one saved beside it (``GRAPH_FILE``) when it was
    built from the index as it is now, else built from the store and saved there
    for the next start. The key is ``store_key``: every write of a file's symbols
    and references changes it, so a stale map is never used. An index that is not a
    local folder is not saved beside; a map that cannot be written is only a note."""
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
    """Save the map at ``target`` (``saved_graph_path``) for ``key``, and delete what an
    older version saved beside it (``LEGACY_GRAPH_FILES``: never loaded, only stale).
    OSError when it cannot be written."""
    graph.save(target, key)
    for name in LEGACY_GRAPH_FILES:
        try:
            (target.parent / name).unlink(missing_ok=True)
        except OSError as exc:
            log.info("codeloupe: cannot delete the old call graph %s: %s", target.parent / name, exc)


def graph_from_store(store: Any) -> Graph:  # codeloupe.store.Store
    """The map built from every symbol and reference row of the store."""
    symbols = [SymbolInfo(**row) for row in store.symbol_rows(_SYMBOL_COLUMNS)]
    return Graph(symbols, store.ref_rows())


def store_key(store: Any) -> str:  # codeloupe.store.Store
    """The state of an index that its map is built from: a digest of its files table
    (path, content hash and when each file was indexed) and of when the index was
    created. Writing a file's symbols and references deletes its files row first and
    adds it back last (``Store.replace_files``), so any write, even one cut short,
    changes the key; a rebuilt index has a new creation time."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(store.created.encode())
    for path, content, when in sorted(store.files_state()):
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
