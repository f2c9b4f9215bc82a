"""A file's bytes as extraction reads them: text of a span, and byte → character
column conversion (columns are counted in code points of the decoded text)."""

from __future__ import annotations

from tree_sitter import Node


class Source:
    """The file's bytes and text, with byte → (line, character column) conversion."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.ascii = data.isascii()
        self.line_starts = [0]
        pos = data.find(b"\n")
        while pos != -1:
            self.line_starts.append(pos + 1)
            pos = data.find(b"\n", pos + 1)

    def text(self, start: int, end: int) -> str:
        """The decoded text of a byte span."""
        return self.data[start:end].decode("utf-8", "replace")

    def node_text(self, node: Node) -> str:
        """The decoded text of a node."""
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def name_of(self, node: Node | None) -> str:
        """A node's text with its whitespace collapsed ("" for none)."""
        if node is None:
            return ""
        text = self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")
        if text.isascii() and text.isprintable() and " " not in text:
            return text  # most names: no whitespace to collapse (the only printable ASCII one is " ")
        return " ".join(text.split())


    def column(self, row: int, byte_col: int) -> int:
        """The character column of a byte column on a 0-based row."""
        if self.ascii:
            return byte_col
        start = self.line_starts[row] if row < len(self.line_starts) else 0
        return len(self.data[start : start + byte_col].decode("utf-8", "replace"))
