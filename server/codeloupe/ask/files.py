"""Reading the lines of a repository's files for a context, the way the index reads
them (the language server passes its own reader, which serves unsaved buffers)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ..safeio import read_repo_file
from ..scan import DEFAULT_MAX_BYTES

ReadLines = Callable[[str], "list[str] | None"]  # relative path → its lines, None: unreadable


def disk_reader(root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> ReadLines:
    """Lines of the files as they are on disk, read as the index reads them: never
    through a link out of the root, never a FIFO, never more than ``max_bytes``
    (what cannot be read so is left out of the context). Each file is read once."""
    cache: dict[str, list[str] | None] = {}
    root_real = os.path.realpath(root)

    def read(path: str) -> list[str] | None:
        if path not in cache:
            try:
                data, _ = read_repo_file(root_real, os.path.join(root_real, path), max_bytes)
                cache[path] = data.decode("utf-8", "replace").splitlines()
            except OSError:  # UnsafeFile included
                cache[path] = None
        return cache[path]

    return read
