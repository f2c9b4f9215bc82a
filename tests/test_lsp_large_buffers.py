"""A buffer over maxFileBytes (the limit the disk scan applies) is tracked but not
parsed, indexed or embedded: the features answer nothing for it, the user is told
why once, other documents keep being answered while it is edited, and once it
shrinks under the limit it is parsed again."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .lsp_support import (
    SERVER,
    command,
    copy_repo,
    end,
    flatten,
    incoming_calls,
    open_document,
    start,
    stop,
    uri,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIMIT = 4000  # bytes: every file of the fixture repository is under it
PADDING = "".join(f"\n\ndef pad_{i}(cart):\n    return checkout(cart)\n" for i in range(200))
TWENTY_MB = 20_000_000


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("lsp-large"))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):
    await start(lsp_client, repo, {"embeddings": False, "maxFileBytes": LIMIT})
    yield
    await stop(lsp_client)


def insert(client: LanguageClient, repo: Path, rel: str, version: int, at: types.Position,
           text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri(repo, rel), version=version),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=at, end=at), text=text)]))


def replace_all(client: LanguageClient, repo: Path, rel: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri(repo, rel), version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def outline(client: LanguageClient, repo: Path, rel: str) -> dict[str, types.DocumentSymbol]:
    return flatten(await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel)))) or [])


def told(client: LanguageClient, rel: str) -> list[str]:
    return [m.message for m in client.messages if rel in m.message and "maxFileBytes" in m.message]


async def search_names(client: LanguageClient, query: str) -> list[str]:
    found = await command(client, "codeloupe.server.search", {"query": query, "k": 5})
    return [h["name"] for h in found["results"]]


async def test_a_buffer_that_grows_over_the_limit_is_set_aside(client: LanguageClient,
                                                               repo: Path) -> None:
    rel = "src/shop/cart.py"
    text = open_document(client, repo, rel)
    assert "checkout" in await outline(client, repo, rel)
    end_of_file = types.Position(line=text.count("\n"), character=0)
    insert(client, repo, rel, 2, end_of_file, PADDING)  # 8 kB now: over the limit

    assert await outline(client, repo, rel) == {}  # tracked, not parsed
    st = await command(client, "codeloupe.server.status", {})
    assert st["server"]["too_large_documents"] == 1 and st["server"]["syntax_trees"] == 0
    [message] = told(client, rel)
    assert "over the 4,000 bytes limit" in message
    # nothing of it reached the model, the call graph or the store
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="pad_7"))
    assert not [s.name for s in found if s.name.startswith("pad_")]
    assert not [n for n in await search_names(client, "pad_7") if n.startswith("pad_")]

    insert(client, repo, rel, 3, end_of_file, "\n# still too large\n")
    assert await outline(client, repo, rel) == {}
    assert len(told(client, rel)) == 1  # once a document

    # back under the limit: parsed again, and everything follows the buffer again
    replace_all(client, repo, rel, 4, text + "\n\ndef pad_one(cart):\n    return checkout(cart)\n")
    assert {"checkout", "pad_one"} <= set(await outline(client, repo, rel))
    assert [c.from_.name for c in await incoming_calls(client, repo, rel, "def checkout")] == ["pad_one"]
    st = await command(client, "codeloupe.server.status", {})
    assert st["server"]["too_large_documents"] == 0 and st["server"]["syntax_trees"] == 1
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel))))


async def test_a_large_buffer_opened_as_it_is(client: LanguageClient, repo: Path) -> None:
    rel = "src/shop/generated.py"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri(repo, rel), language_id="python", version=1, text=PADDING)))
    assert await outline(client, repo, rel) == {}
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel)),
        position=types.Position(line=2, character=5)))
    assert hover is None
    assert len(told(client, rel)) == 1
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel))))
    st = await command(client, "codeloupe.server.status", {})
    assert st["server"]["too_large_documents"] == 0 and st["server"]["open_documents"] == 0


async def test_a_20_mb_buffer_leaves_the_server_answering(tmp_path: Path) -> None:
    """The default limit (1 MB), a 20 MB buffer: opened, edited at both ends, while
    another document is asked about after each change; memory stays in proportion
    to the text, not to a parse of it."""
    root = copy_repo(tmp_path)
    client = await SERVER.start()
    try:
        await start(client, root, {"embeddings": False})
        open_document(client, root, "src/shop/http.py")
        before = (await command(client, "codeloupe.server.status", {}))["server"]["rss_mb"]
        block = "".join(f"def f_{i}(x):\n    return f_{i + 1}(x) + {i}\n\n" for i in range(1000))
        big = block * (TWENTY_MB // len(block) + 1)
        rel = "src/big.py"
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri(root, rel), language_id="python", version=1, text=big)))
        lines = big.count("\n")
        for version in range(2, 8):
            at = types.Position(line=0 if version % 2 else lines, character=0)
            insert(client, root, rel, version, at, f"def edited_{version}():\n    pass\n")
            assert {"Client", "Client.fetch"} <= set(await outline(client, root, "src/shop/http.py"))
            assert await outline(client, root, rel) == {}
        st = await command(client, "codeloupe.server.status", {})
        assert st["server"]["too_large_documents"] == 1
        assert st["folders"][0]["symbols"] < 100  # none of its hundreds of thousands
        [message] = told(client, rel)
        assert "20.0 MB, over the 1.0 MB limit" in message, message
        if before is not None:  # Linux
            # the text (20 MB) with pygls's copy of its lines; a parse would be gigabytes
            assert st["server"]["rss_mb"] - before < 400, (before, st["server"]["rss_mb"])
        # shrunk under the limit (everything replaced): parsed again
        replace_all(client, root, rel, 8, "def small_again():\n    return 1\n")
        assert set(await outline(client, root, rel)) == {"small_again"}
        await stop(client)
    finally:
        await end(client)
