"""textDocument/documentSymbol and workspace/symbol (fuzzy names, semantic fallback)."""

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
    flatten,
    hold_configuration,
    open_document,
    position,
    start,
    stop,
    uri,
    utf16,
    wait_ready,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("lsp-symbols"))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):
    # with embeddings (the semantic fallback needs them); the first test runs while
    # the index is not even open: the client holds the settings the server waits for
    lsp_client.release = hold_configuration(lsp_client)
    await start(lsp_client, repo, wait=False)
    yield
    lsp_client.release.set()  # (when the first test did not run)
    await stop(lsp_client)


async def document_symbols(client: LanguageClient, repo: Path, rel: str) -> list[types.DocumentSymbol]:
    return await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri(repo, rel))))


async def test_requests_are_answered_before_the_index_is_open(client: LanguageClient,
                                                              repo: Path) -> None:
    st = await command(client, "codeloupe.server.status", {})
    assert st["state"] == "opening"
    open_document(client, repo, "src/shop/cart.py")  # an open buffer: answered from its text
    flat = flatten(await document_symbols(client, repo, "src/shop/cart.py"))
    assert {"Cart", "Cart.add_item", "Cart.total_price", "checkout"} <= set(flat)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, "src/shop/cart.py"))))
    client.release.set()
    await wait_ready(client)


async def test_document_symbols_are_hierarchical(client: LanguageClient, repo: Path) -> None:
    result = await document_symbols(client, repo, "src/shop/http.py")
    assert [s.name for s in result] == ["Client", "parse_header"]
    flat = flatten(result)
    assert set(flat) == {"Client", "Client.fetch", "Client.send", "parse_header"}
    assert flat["Client"].kind == types.SymbolKind.Class
    assert flat["Client.fetch"].kind == types.SymbolKind.Method
    assert flat["parse_header"].kind == types.SymbolKind.Function
    text = (repo / "src/shop/http.py").read_text()
    fetch = flat["Client.fetch"]
    assert fetch.selection_range.start == position(text, "def fetch", offset=4)
    assert fetch.range.start == position(text, "def fetch")
    assert fetch.range.end.line == position(text, "raise ConnectionError(url)").line
    assert fetch.detail == "def fetch(self, url: str) -> bytes"


async def test_document_symbol_columns_are_utf16(client: LanguageClient, repo: Path) -> None:
    text = (repo / "src/shop/text.py").read_text()
    flat = flatten(await document_symbols(client, repo, "src/shop/text.py"))
    last = text.rstrip("\n").rsplit("\n", 1)[1]
    assert "\U0001F600" in last  # the emoji is two UTF-16 units, one code point
    assert flat["greet"].range.end == types.Position(line=text.count("\n") - 1, character=utf16(last))


async def test_document_symbols_of_other_languages(client: LanguageClient, repo: Path) -> None:
    js = flatten(await document_symbols(client, repo, "web/upload.js"))
    assert {"uploadFile", "retryFailedUpload"} <= set(js)
    go = flatten(await document_symbols(client, repo, "cmd/main.go"))
    assert "main" in go and any(name.endswith("Greet") for name in go)


async def workspace_symbols(client: LanguageClient, query: str) -> list[types.WorkspaceSymbol]:
    return await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))


async def test_workspace_symbol_matches_names_fuzzily(client: LanguageClient, repo: Path) -> None:
    result = await workspace_symbols(client, "prsHdr")
    assert result[0].name == "parse_header"
    assert result[0].location.uri == uri(repo, "src/shop/http.py")
    result = await workspace_symbols(client, "fetch")
    assert (result[0].name, result[0].container_name) == ("fetch", "Client")
    assert result[0].kind == types.SymbolKind.Method
    result = await workspace_symbols(client, "cart")
    assert result[0].name == "Cart"
    assert not await workspace_symbols(client, "zzzqqq")


async def test_workspace_symbol_falls_back_to_semantic_search(client: LanguageClient) -> None:
    result = await workspace_symbols(client, "download a web page and retry when the connection fails")
    assert result, "a natural-language query with no matching name should search by meaning"
    assert "fetch" in [s.name for s in result[:3]]
