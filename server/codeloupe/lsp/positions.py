"""Between the store's positions (1-based lines, code-point columns) and the wire's
(0-based lines, columns in the negotiated encoding, UTF-16 unless agreed otherwise)."""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from ..safeio import read_repo_file

_CACHE_SIZE = 256
_disk_lines: OrderedDict[tuple[str, int], list[str]] = OrderedDict()


def disk_lines(root: Path, rel: str, max_bytes: int | None = None) -> list[str]:
    """The lines of a file of the folder ``root`` on disk (cached by path and mtime),
    read as the index reads it: never through a link out of the root, never a FIFO,
    never more than ``max_bytes`` (else no lines)."""
    path = root / rel
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        return []
    key = (str(path), mtime)
    lines = _disk_lines.get(key)
    if lines is None:
        try:
            data, _ = read_repo_file(os.path.realpath(root), path, max_bytes)
            text = data.decode("utf-8", "replace")
        except OSError:  # UnsafeFile too
            return []
        lines = text.splitlines(keepends=True)
        _disk_lines[key] = lines
        if len(_disk_lines) > _CACHE_SIZE:
            _disk_lines.popitem(last=False)
    else:
        _disk_lines.move_to_end(key)
    return lines


class Converter:
    """Store positions to wire positions and back, in the client's position encoding;
    non-ASCII lines alone are converted."""

    def __init__(self, codec: PositionCodec) -> None:
        self.codec = codec

    def position(self, lines: list[str], line0: int, col: int) -> types.Position:
        """The wire position of a 0-based line and code-point column (clamped at 0)."""
        if 0 <= line0 < len(lines):
            text = lines[line0]
            if not text.isascii():
                col = self.codec.client_num_units(text[:col])
        return types.Position(line=max(line0, 0), character=max(col, 0))

    def range(self, lines: list[str], line0: int, col0: int, line1: int, col1: int) -> types.Range:
        """The wire range between two (0-based line, code-point column) positions."""
        return types.Range(start=self.position(lines, line0, col0), end=self.position(lines, line1, col1))

    def from_wire(self, lines: list[str], pos: types.Position) -> tuple[int, int]:
        """(1-based line, code-point column) of a wire position."""
        if 0 <= pos.line < len(lines) and not lines[pos.line].isascii():
            server = self.codec.position_from_client_units(
                lines, types.Position(line=pos.line, character=pos.character)
            )
            return server.line + 1, server.character
        return pos.line + 1, pos.character
