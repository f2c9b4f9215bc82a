"""A local index's tables as files on disk, read without LanceDB: a digest of every
file of every table folder, which any write to a table changes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

TABLE_SUFFIX = ".lance"  # a table is a folder <name>.lance in the index folder


def tables_state(folder: Path) -> str:
    """A digest of the name, size, mtime and inode of every file under every table
    folder of the index ``folder``. A Lance table is append-only: every commit (an
    add, a delete, an overwrite, a compaction, a drop and re-create) writes new
    files under its folder (a manifest at least) or removes some, so any write
    to any table changes the digest; a damaged file that changed size or time does
    too. The index folder's other files (the lock, the saved graph) are not part
    of it. Reads nothing but directory entries (a few hundred stat calls). OSError
    when the index folder cannot be listed."""
    digest = hashlib.blake2b(digest_size=16)
    rows: list[str] = []
    with os.scandir(folder) as listing:
        tables = sorted(e.name for e in listing
                        if e.name.endswith(TABLE_SUFFIX) and e.is_dir(follow_symlinks=False))
    for table in tables:
        stack = [os.path.join(folder, table)]
        while stack:
            where = stack.pop()
            try:
                entries = list(os.scandir(where))
            except OSError as exc:
                rows.append(f"{where}\0unreadable {exc.errno}")
                continue
            for entry in entries:
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError as exc:
                    rows.append(f"{entry.path}\0gone {exc.errno}")
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                rows.append(f"{entry.path}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}")
    for row in sorted(rows):
        digest.update(row.encode("utf-8", "surrogatepass") + b"\n")
    return digest.hexdigest()


def folder_bytes(folder: str | os.PathLike[str]) -> int:
    """Bytes of every file under ``folder`` (links not followed); files that vanish while
    it counts (a writer's temporary files) are left out."""
    total = 0
    for where, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(where, name)).st_size
            except OSError:
                continue
    return total
