"""What ``codeloupe status`` last read from an index, or what ``codeloupe index`` left in
it, saved beside it (``STATUS_FILE``), signed with this user's key, with the state of the
tables' files it was read from (``store.tables_state``).

While no table has changed since, ``status`` answers from it without opening the store
(LanceDB's import alone is most of a cold process's half second): any write to a table
changes the state, and so does a damaged file that changed size, time or inode, so the
saved answer is one the full read (which reads every table for damage) or the index run
that wrote them gave for exactly these files. A file that is not this user's, a committed one, an edited one, another
format: it is not read, and ``status`` reads the index as before.
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Mapping
from pathlib import Path

from .safeio import open_no_follow, replace_file
from .store.disk import tables_state
from .userkey import sign, user_secret

STATUS_FILE = "status.json"  # in the index folder
_FORMAT = "1"
_MAX_BYTES = 1 << 20
# what the store says, saved; the rest of an answer (root, location, size on disk, the
# settings' model and what follows from it) is worked out again each time
STORE_FIELDS = ("files", "symbols", "pending_embeddings", "languages", "skipped", "model",
                "schema_version", "updated_at", "built_model")


def _mac(secret: bytes, tables: str, body: str) -> str:
    return sign(secret, "codeloupe-status", _FORMAT, tables, body)


def save_status(folder: Path, tables: str, stats: Mapping[str, object]) -> bool:
    """Save ``stats`` (the ``STORE_FIELDS`` of a full read) as what the index held while
    its tables were in state ``tables``, when they still are (a writer that came between
    the read and now makes the saved answer stale: nothing is saved). True when saved."""
    secret = user_secret()
    if secret is None:
        return False
    body = json.dumps({k: stats.get(k) for k in STORE_FIELDS}, sort_keys=True)
    try:
        if tables_state(folder) != tables:
            return False
        replace_file(folder / STATUS_FILE, json.dumps(
            {"format": _FORMAT, "tables": tables, "stats": body,
             "mac": _mac(secret, tables, body)}).encode())
    except OSError:
        return False  # a read-only index folder: status reads the index each time
    return True


def saved_status(folder: Path) -> dict[str, object] | None:
    """The ``STORE_FIELDS`` saved for the tables as they are now, when this user saved
    them; else None."""
    secret = user_secret()
    if secret is None:
        return None
    try:
        fd = open_no_follow(folder / STATUS_FILE, os.O_RDONLY)
        with os.fdopen(fd, "rb") as fh:
            doc = json.loads(fh.read(_MAX_BYTES))
        if (type(doc) is not dict or doc.get("format") != _FORMAT
                or not all(type(doc.get(k)) is str for k in ("tables", "stats", "mac"))):
            return None
        if not hmac.compare_digest(doc["mac"], _mac(secret, doc["tables"], doc["stats"])):
            return None
        if tables_state(folder) != doc["tables"]:
            return None
        stats = json.loads(doc["stats"])
    except (OSError, ValueError):
        return None
    return stats if type(stats) is dict and set(stats) == set(STORE_FIELDS) else None
