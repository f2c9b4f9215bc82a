"""textDocument/hover: signature, doc, callers and callees, related functions."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .lsp_support import SERVER, copy_repo, position, start, stop, uri

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("lsp-hover"))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):
    await start(lsp_client, repo)  # with embeddings: "related functions" need them
    yield
    await stop(lsp_client)


async def hover(client: LanguageClient, repo: Path, rel: str, pos: types.Position):
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel)), position=pos))


async def test_hover_on_a_definition(client: LanguageClient, repo: Path) -> None:
    http = (repo / "src/shop/http.py").read_text()
    result = await hover(client, repo, "src/shop/http.py", position(http, "def fetch", offset=6))
    assert isinstance(result.contents, types.MarkupContent)
    value = result.contents.value
    assert "def fetch(self, url: str) -> bytes" in value
    assert "Download a URL, retrying failed connections with backoff." in value
    assert "1 caller, 1 callee" in value and "`checkout`" in value
    assert "calls `Client.send`" in value
    start = position(http, "def fetch", offset=4)
    assert result.range.start == start and result.range.end.character == start.character + 5


async def test_hover_on_a_call_shows_the_callee(client: LanguageClient, repo: Path) -> None:
    cart = (repo / "src/shop/cart.py").read_text()
    result = await hover(client, repo, "src/shop/cart.py", position(cart, "client.fetch", offset=8))
    assert "def fetch(self, url: str) -> bytes" in result.contents.value
    assert result.range.start == position(cart, "client.fetch", offset=7)


async def test_no_hover_on_blank_space(client: LanguageClient, repo: Path) -> None:
    assert await hover(client, repo, "src/shop/http.py", types.Position(line=2, character=0)) is None


def related_section(value: str) -> list[str]:
    """The list items under the "Related functions" heading."""
    assert "**Related functions**" in value, value
    tail = value.split("**Related functions**", 1)[1].split("---", 1)[0]
    return [line for line in tail.splitlines() if line.startswith("- ")]


async def test_hover_lists_related_functions_that_are_not_callers_or_callees(
        client: LanguageClient, repo: Path) -> None:
    http = (repo / "src/shop/http.py").read_text()
    result = await hover(client, repo, "src/shop/http.py", position(http, "def fetch", offset=6))
    items = related_section(result.contents.value)
    assert 1 <= len(items) <= 5
    # the nearest by meaning: another retry-with-backoff, in another language and file
    upload = uri(repo, "web/upload.js")
    assert any(f"[retryFailedUpload]({upload}#L8)" in item for item in items), items
    linked = " ".join(items)
    # neither the symbol itself nor its caller (checkout) or callee (Client.send)
    for name in ("[Client.fetch]", "[checkout]", "[Client.send]"):
        assert name not in linked
    assert "[Cart]" not in linked  # classes are not functions


async def test_related_functions_follow_the_hovered_symbol(client: LanguageClient,
                                                          repo: Path) -> None:
    upload = (repo / "web/upload.js").read_text()
    result = await hover(client, repo, "web/upload.js",
                         position(upload, "function retryFailedUpload", offset=10))
    items = related_section(result.contents.value)
    assert not any("[uploadFile]" in item for item in items)  # its caller
    assert any("[Client.fetch]" in item for item in items), items
