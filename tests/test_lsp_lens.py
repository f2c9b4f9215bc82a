"""textDocument/codeLens: the number of callers above each function, kept fresh
while another file is edited (workspace/codeLens/refresh)."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .lsp_support import SERVER, copy_repo, open_document, position, start, stop, until, uri

pytestmark = pytest.mark.asyncio(loop_scope="module")

CALLS_FETCH = '''

def pay_twice(client: Client) -> None:
    client.fetch("a")
    client.fetch("b")


def pay_untyped(client) -> None:
    client.fetch("c")
'''


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("lsp-lens"))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):
    await start(lsp_client, repo, {"embeddings": False})
    yield
    await stop(lsp_client)


async def lenses(client: LanguageClient, repo: Path, rel: str) -> dict[tuple[int, int], str]:
    found = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel))))
    return {(lens.range.start.line, lens.range.start.character): lens.command.title for lens in found}


def at(text: str, needle: str, offset: int) -> tuple[int, int]:
    pos = position(text, needle, offset=offset)
    return pos.line, pos.character


async def test_a_lens_with_the_callers_above_each_function(client: LanguageClient,
                                                          repo: Path) -> None:
    http = (repo / "src/shop/http.py").read_text()
    assert await lenses(client, repo, "src/shop/http.py") == {
        at(http, "def fetch", 4): "1 caller",  # checkout
        at(http, "def send", 4): "1 caller",  # Client.fetch
        at(http, "def parse_header", 4): "0 callers",
    }  # the class Client gets none: it is not a function
    cart = (repo / "src/shop/cart.py").read_text()
    found = await lenses(client, repo, "src/shop/cart.py")
    assert found[at(cart, "def checkout", 4)] == "0 callers"
    assert len(found) == 4  # __init__, add_item, total_price, checkout


async def test_lenses_follow_edits_in_another_file(client: LanguageClient, repo: Path) -> None:
    rel = "src/shop/cart.py"
    text = open_document(client, repo, rel)
    refreshes = client.lens_refreshes
    end = types.Position(line=text.count("\n"), character=0)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri(repo, rel), version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=end, end=end), text=CALLS_FETCH)]))
    # one caller more (pay_twice: two calls on a Client, one caller), without a save; the
    # call on an untyped value (pay_untyped) is a name match: counted apart, not as a caller
    http = (repo / "src/shop/http.py").read_text()
    cart_lenses = await lenses(client, repo, rel)
    assert cart_lenses[(text.count("\n") + 2, 4)] == "0 callers"  # pay_twice itself
    assert (await lenses(client, repo, "src/shop/http.py"))[at(http, "def fetch", 4)] == "2 callers (+1 by name)"
    async def asked() -> int:
        return client.lens_refreshes

    # the client is asked to ask again (after the refresh debounce)
    await until(asked, lambda n: n > refreshes, "workspace/codeLens/refresh")
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel))))
    assert (await lenses(client, repo, "src/shop/http.py"))[at(http, "def fetch", 4)] == "1 caller"
