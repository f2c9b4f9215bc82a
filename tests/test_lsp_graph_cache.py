"""The call graph saved beside the index: a warm start loads it instead of resolving
every call again; open buffers still go over it; a file changed on disk since is
never answered from the stale graph."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from codeloupe.graph_store import GRAPH_FILE

from .lsp_support import SERVER, command, copy_repo, end, incoming_calls, start, stop, until, uri

pytestmark = pytest.mark.asyncio(loop_scope="module")

CART_BUFFER_EXTRA = '''

def ping(client: Client) -> bytes:
    return client.send("ping")
'''
HTTP_DISK_EXTRA = '''

def post(url: str) -> bytes:
    return Client().send(url)
'''


async def own_server(root: Path, secret: Path) -> LanguageClient:
    config = ClientServerConfig(server_command=SERVER.server_command,
                                server_env={**os.environ, "CODELOUPE_SECRET_DIR": str(secret)})
    client = await config.start()
    await start(client, root, {"embeddings": False})
    return client


async def callers_of_send(client: LanguageClient, root: Path) -> list[str]:
    return sorted(c.from_.detail for c in await incoming_calls(client, root, "src/shop/http.py", "def send"))


async def folder_status(client: LanguageClient) -> dict:
    [folder] = (await command(client, "codeloupe.server.status", {}))["folders"]
    return folder


async def test_a_warm_start_loads_the_saved_graph_and_never_a_stale_one(tmp_path: Path) -> None:
    root = copy_repo(tmp_path)
    secret = tmp_path / "secret"

    # cold: the graph is built from the index, then saved beside it (in the writer)
    client = await own_server(root, secret)
    try:
        # made in the background once the folder is ready, before anything asks for it
        st = await until(lambda: folder_status(client), lambda st: st["graph"] == "built",
                         "the call graph made after the index run")
        assert await callers_of_send(client, root) == ["Client.fetch"]
        saved = Path(st["index"]) / GRAPH_FILE
        async def is_saved() -> bool:
            return saved.exists()

        await until(is_saved, bool, "the call graph saved")
        await stop(client)
    finally:
        await end(client)

    # warm, nothing changed: loaded; an open buffer goes over the loaded graph
    client = await own_server(root, secret)
    try:
        cart = (root / "src/shop/cart.py").read_text() + CART_BUFFER_EXTRA
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri(root, "src/shop/cart.py"),
                                                 language_id="python", version=1, text=cart)))
        await until(lambda: callers_of_send(client, root),
                    lambda callers: callers == ["Client.fetch", "ping"], "ping among the callers")
        assert (await folder_status(client))["graph"] == "loaded"
        await stop(client)
    finally:
        await end(client)

    # a file changed on disk since the graph was saved: built again, with the change
    with (root / "src/shop/http.py").open("a", encoding="utf-8") as fh:
        fh.write(HTTP_DISK_EXTRA)
    client = await own_server(root, secret)
    try:
        assert await callers_of_send(client, root) == ["Client.fetch", "post"]
        assert (await folder_status(client))["graph"] == "built"
        await stop(client)
    finally:
        await end(client)
