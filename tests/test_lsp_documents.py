"""BufferDocument applies incremental changes as pygls's TextDocument does."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types
from pygls.workspace import PositionCodec, TextDocument, Workspace

from codeloupe.lsp.pygls_compat import BufferDocument, use_buffer_documents

PIECES = ["a", "bc", "\n", "\n", "\r\n", "\r", "é", "😀", "\u2028", "\x0c", "\t", "",
          "def f(x):\n    return x\n"]


def random_text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(PIECES) for _ in range(n))


@pytest.mark.parametrize("encoding", [types.PositionEncodingKind.Utf16,
                                      types.PositionEncodingKind.Utf8,
                                      types.PositionEncodingKind.Utf32])
def test_the_same_text_as_pygls_edit_by_edit(encoding: types.PositionEncodingKind) -> None:
    rng = random.Random(str(encoding))
    codec = PositionCodec(encoding=encoding)
    text = random_text(rng, 60)
    ours = BufferDocument("file:///a.py", text, version=1, position_codec=codec)
    theirs = TextDocument("file:///a.py", text, version=1, position_codec=codec)
    for step in range(600):
        lines = len(theirs.lines)
        a = types.Position(line=rng.randrange(lines + 2), character=rng.randrange(8))
        b = types.Position(line=rng.randrange(lines + 2), character=rng.randrange(8))
        if step % 3 and (b.line, b.character) < (a.line, a.character):
            a, b = b, a  # mostly well-formed ranges; now and then a reversed one
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=a, end=b), text=random_text(rng, rng.randrange(4)))
        theirs.apply_change(change)
        ours.apply_change(change)
        assert ours.source == theirs.source, f"step {step}: {change}"
        assert ours.lines == tuple(theirs.source.splitlines(True)), f"step {step}: {change}"
    whole = types.TextDocumentContentChangeWholeDocument(text="x = 1\n")
    ours.apply_change(whole)
    assert ours.source == "x = 1\n"


def test_the_workspace_makes_buffer_documents() -> None:
    ws = Workspace(None)
    use_buffer_documents(ws)
    ws.put_text_document(types.TextDocumentItem(uri="file:///w/a.py", language_id="python",
                                                version=1, text="a\nb\n"))
    doc = ws.get_text_document("file:///w/a.py")
    assert isinstance(doc, BufferDocument)
    ws.update_text_document(types.VersionedTextDocumentIdentifier(uri="file:///w/a.py", version=2),
                            types.TextDocumentContentChangePartial(range=types.Range(
                                start=types.Position(line=0, character=1),
                                end=types.Position(line=1, character=0)), text="X"))
    assert doc.source == "aXb\n" and doc.version == 2
