"""Multi-root workspaces: each folder has its own index; features span them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from .lsp_support import (
    DATA,
    SERVER,
    accept_registrations,
    command,
    end,
    stop,
    until,
    uri,
    wait_ready,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("lsp-workspace")
    shop = base / "shop"
    shutil.copytree(DATA / "src/shop", shop)
    web = base / "web"
    shutil.copytree(DATA / "web", web)
    shutil.copytree(DATA / "cmd", base / "cmd")
    return shop.resolve(), web.resolve()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, roots: tuple[Path, Path]):
    shop, web = roots
    accept_registrations(lsp_client)
    capabilities = client_capabilities("neovim")
    # a client that only understands flat SymbolInformation lists
    capabilities.text_document.document_symbol.hierarchical_document_symbol_support = False
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities,
        workspace_folders=[types.WorkspaceFolder(uri=shop.as_uri(), name="shop"),
                           types.WorkspaceFolder(uri=web.as_uri(), name="web")],
        initialization_options={"embeddings": False},
    ))
    await wait_ready(lsp_client)
    yield
    await stop(lsp_client)


async def test_each_folder_has_its_own_index(client: LanguageClient, roots: tuple[Path, Path]) -> None:
    shop, web = roots
    st = await command(client, "codeloupe.server.status", {})
    assert [(f["root"], f["files"], f["index"]) for f in st["folders"]] == [
        (str(shop), 3, str(shop / ".codeloupe")), (str(web), 1, str(web / ".codeloupe"))]
    one = await command(client, "codeloupe.server.status", {"folder": web.as_uri()})
    assert [f["root"] for f in one["folders"]] == [str(web)]


async def test_workspace_symbol_spans_folders(client: LanguageClient, roots: tuple[Path, Path]) -> None:
    shop, web = roots
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="upload"))
    assert (found[0].name, found[0].location.uri) == ("uploadFile", uri(web, "upload.js"))
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="checkout"))
    assert (found[0].name, found[0].location.uri) == ("checkout", uri(shop, "cart.py"))


async def test_workspace_symbols_carry_their_id(client: LanguageClient, roots: tuple[Path, Path]) -> None:
    shop, web = roots
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="fetch"))
    fetch = next(s for s in found if s.name == "fetch")
    assert fetch.data == {"id": "http.py::Client.fetch"}  # the path is relative to its folder
    [upload] = [s for s in await client.workspace_symbol_async(
        types.WorkspaceSymbolParams(query="uploadFile")) if s.name == "uploadFile"]
    assert upload.data == {"id": "upload.js::uploadFile"}
    # the id is the one the commands take
    [checkout] = [s for s in await client.workspace_symbol_async(
        types.WorkspaceSymbolParams(query="checkout")) if s.name == "checkout"]
    result = await command(client, "codeloupe.server.callChain",
                           {"from": checkout.data["id"], "to": fetch.data["id"], "folder": shop.as_uri()})
    assert result["from"] == ["cart.py::checkout"] and result["to"] == ["http.py::Client.fetch"]
    assert [[s["callee"] for s in chain] for chain in result["chains"]] == [["http.py::Client.fetch"]]


async def test_search_per_folder(client: LanguageClient, roots: tuple[Path, Path]) -> None:
    shop, web = roots
    result = await command(client, "codeloupe.server.search", {"query": "uploadFile", "k": 2,
                                                               "folder": web.as_uri()})
    assert result["results"][0]["path"] == "upload.js"
    result = await command(client, "codeloupe.server.search", {"query": "uploadFile", "k": 2})
    assert all(h["path"] != "upload.js" for h in result["results"])  # the first folder: shop
    with pytest.raises(Exception, match="not a workspace folder"):
        await command(client, "codeloupe.server.search", {"query": "x", "folder": "file:///nowhere"})


async def test_flat_document_symbols_for_clients_without_hierarchy(
    client: LanguageClient, roots: tuple[Path, Path]
) -> None:
    shop, _ = roots
    result = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=uri(shop, "http.py"))))
    assert all(isinstance(s, types.SymbolInformation) for s in result)
    assert [(s.name, s.container_name) for s in result] == [
        ("Client", None), ("fetch", "Client"), ("send", "Client"), ("parse_header", None)]
    assert {s.location.uri for s in result} == {uri(shop, "http.py")}


async def test_folders_added_and_removed(client: LanguageClient, roots: tuple[Path, Path]) -> None:
    shop, web = roots
    cmd = shop.parent / "cmd"
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=cmd.as_uri(), name="cmd")],
            removed=[types.WorkspaceFolder(uri=web.as_uri(), name="web")])))
    st = await until(lambda: command(client, "codeloupe.server.status", {}),
                     lambda st: st["state"] == "ready", "the added folder indexed")
    assert [f["root"] for f in st["folders"]] == [str(shop), str(cmd)]
    names = [s.name for s in await client.workspace_symbol_async(
        types.WorkspaceSymbolParams(query="Greet"))]
    assert "Greet" in names
    assert not await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="uploadFile"))


async def test_a_folder_added_and_removed_again_leaves_nothing_behind(tmp_path: Path) -> None:
    """Each added folder opens its own index and loads its own embedding model; once
    it is removed (and its work has ended) both are freed: adding and removing it
    again and again does not make the server grow (the model's reference cycles
    would otherwise stay out of the collector's reach for good, gc.freeze)."""
    shop, web = tmp_path / "shop", tmp_path / "web"
    shutil.copytree(DATA / "src/shop", shop)
    shutil.copytree(DATA / "web", web)
    client = await SERVER.start()
    try:
        accept_registrations(client)
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[types.WorkspaceFolder(uri=shop.as_uri(), name="shop")]))
        await wait_ready(client)
        status = lambda: command(client, "codeloupe.server.status", {})  # noqa: E731
        folder = types.WorkspaceFolder(uri=web.as_uri(), name="web")
        rss: list[float] = []
        for cycle in range(5):
            client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])))
            await until(status, lambda st: st["state"] == "ready" and len(st["folders"]) == 2,
                        "the added folder indexed")
            # a vector search there: its model is loaded
            found = await command(client, "codeloupe.server.search",
                                  {"query": "upload a file", "k": 1, "mode": "vector", "folder": web.as_uri()})
            assert found["results"][0]["name"] == "uploadFile"
            client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])))
            st = await until(status, lambda st, n=cycle + 1: st["server"]["heap_releases"] == n,
                             "the removed folder freed")
            assert len(st["folders"]) == 1 and st["server"]["indexes"] == 1
            rss.append(st["server"]["rss_mb"])
        if rss[0] is not None:  # Linux: 50 MB more a cycle when nothing is freed, 3 when it is
            assert rss[-1] - rss[0] < 60, rss
        await stop(client)
    finally:
        await end(client)
