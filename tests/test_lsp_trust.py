"""The language server on a repository that ships its own index folder, and on a
damaged index: the foreign folder is never served or changed (the user is told
where the index is kept instead); damage is repaired at start, with a message."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import lancedb
import pytest
import pytest_lsp
from pytest_lsp import LanguageClient

from codeloupe.config import Settings
from codeloupe.index import Index

from .lsp_support import SERVER, command, copy_repo, start, stop
from .test_trust import INJECTED, tree_digest

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def foreign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of a repository whose author committed a tampered index folder."""
    base = tmp_path_factory.mktemp("lsp-trust")
    author = copy_repo(base / "author")
    Index(author, Settings()).sync_files()
    table = lancedb.connect(str(author / ".codeloupe")).open_table("symbols")
    table.update(where="kind = 'function'", values={"snippet": INJECTED})
    victim = base / "victim"
    shutil.copytree(author, victim, symlinks=True)
    return victim


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this user's whose references table was damaged since."""
    root = copy_repo(tmp_path_factory.mktemp("lsp-damaged"))
    Index(root, Settings()).sync_files()
    for data in (root / ".codeloupe" / "refs.lance" / "data").glob("*.lance"):
        data.write_bytes(os.urandom(data.stat().st_size))
    return root


@pytest_lsp.fixture(scope="module", config=SERVER)
async def foreign_client(lsp_client: LanguageClient, foreign: Path):
    await start(lsp_client, foreign, {"embeddings": False})
    yield lsp_client
    await stop(lsp_client)


@pytest_lsp.fixture(scope="module", config=SERVER)
async def damaged_client(lsp_client: LanguageClient, damaged: Path):
    await start(lsp_client, damaged, {"embeddings": False})
    yield lsp_client
    await stop(lsp_client)


async def test_a_committed_index_folder_is_not_served(foreign_client: LanguageClient,
                                                      foreign: Path) -> None:
    before = tree_digest(foreign / ".codeloupe")
    found = await command(foreign_client, "codeloupe.server.search",
                          {"query": "parse header", "mode": "fts", "snippets": True})
    assert found["results"] and not any(INJECTED in (r.get("snippet") or "")
                                        for r in found["results"])
    notes = [m.message for m in foreign_client.messages]
    assert any("was not made by codeloupe for this user" in m for m in notes), notes
    status = await command(foreign_client, "codeloupe.server.status", {})
    assert not status["folders"][0]["index"].startswith(str(foreign))
    assert tree_digest(foreign / ".codeloupe") == before


async def test_a_damaged_table_is_repaired_at_start(damaged_client: LanguageClient) -> None:
    notes = [m.message for m in damaged_client.messages]
    assert any("repaired" in m and "refs" in m for m in notes), notes
    status = await command(damaged_client, "codeloupe.server.status", {})
    assert status["folders"][0]["state"] == "ready" and status["folders"][0]["symbols"] > 10
    chain = await command(damaged_client, "codeloupe.server.callChain",
                          {"from": "checkout", "to": "fetch"})
    assert chain["state"] == "ready" and chain["chains"], chain
