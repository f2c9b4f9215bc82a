"""Definition, references and the call hierarchy (incoming and outgoing calls)."""

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
    return copy_repo(tmp_path_factory.mktemp("lsp-hierarchy"))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):
    await start(lsp_client, repo, {"embeddings": False})
    yield
    await stop(lsp_client)


def doc(repo: Path, rel: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri(repo, rel))


async def test_definition_of_a_method_call_and_of_an_imported_class(client: LanguageClient,
                                                                    repo: Path) -> None:
    cart = (repo / "src/shop/cart.py").read_text()
    http = (repo / "src/shop/http.py").read_text()
    result = await client.text_document_definition_async(types.DefinitionParams(
        text_document=doc(repo, "src/shop/cart.py"), position=position(cart, "client.fetch", offset=9)))
    assert [(loc.uri, loc.range.start) for loc in result] == [
        (uri(repo, "src/shop/http.py"), position(http, "def fetch", offset=4))]
    result = await client.text_document_definition_async(types.DefinitionParams(
        text_document=doc(repo, "src/shop/cart.py"), position=position(cart, "Client()", offset=2)))
    assert [(loc.uri, loc.range.start) for loc in result] == [
        (uri(repo, "src/shop/http.py"), position(http, "class Client", offset=6))]


async def test_references_list_the_call_sites(client: LanguageClient, repo: Path) -> None:
    http = (repo / "src/shop/http.py").read_text()
    result = await client.text_document_references_async(types.ReferenceParams(
        text_document=doc(repo, "src/shop/http.py"), position=position(http, "def send", offset=5),
        context=types.ReferenceContext(include_declaration=False)))
    assert [(loc.uri, loc.range.start) for loc in result] == [
        (uri(repo, "src/shop/http.py"), position(http, "self.send(url)", offset=5))]


async def prepare(client: LanguageClient, repo: Path, rel: str, needle: str, offset: int):
    text = (repo / rel).read_text()
    return await client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(
        text_document=doc(repo, rel), position=position(text, needle, offset=offset)))


async def test_incoming_calls_with_call_site_ranges(client: LanguageClient, repo: Path) -> None:
    [item] = await prepare(client, repo, "src/shop/http.py", "def send", 5)
    assert (item.name, item.kind, item.detail) == ("send", types.SymbolKind.Method, "Client.send")
    http = (repo / "src/shop/http.py").read_text()
    calls = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item))
    assert [c.from_.detail for c in calls] == ["Client.fetch"]
    site = position(http, "self.send(url)", offset=5)
    assert list(calls[0].from_ranges) == [types.Range(start=site, end=types.Position(
        line=site.line, character=site.character + 4))]


async def test_incoming_calls_across_files_and_languages(client: LanguageClient, repo: Path) -> None:
    [item] = await prepare(client, repo, "src/shop/http.py", "def fetch", 5)
    calls = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item))
    assert [(c.from_.name, c.from_.uri) for c in calls] == [("checkout", uri(repo, "src/shop/cart.py"))]
    [item] = await prepare(client, repo, "web/upload.js", "function retryFailedUpload", 10)
    calls = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item))
    assert [c.from_.name for c in calls] == ["uploadFile"]


async def test_outgoing_call_ranges_count_utf16_units(client: LanguageClient, repo: Path) -> None:
    text = (repo / "src/shop/text.py").read_text()
    [item] = await prepare(client, repo, "src/shop/text.py", "def greet", 5)
    calls = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=item))
    assert [c.to.name for c in calls] == ["shout"]
    site = position(text, "shout(name)")
    # the line holds an emoji before the call: UTF-16 and code-point columns differ by one
    assert calls[0].from_ranges[0].start == site
    line = text.split("\n")[site.line]
    assert site.character == line.index("shout(name)") + 1


async def test_prepare_on_a_call_site_names_the_callee(client: LanguageClient, repo: Path) -> None:
    [item] = await prepare(client, repo, "src/shop/cart.py", "client.fetch", 9)
    assert (item.detail, item.uri) == ("Client.fetch", uri(repo, "src/shop/http.py"))
