"""Lifecycle: capabilities, typed options and settings (bad values reported by
name), progress of the first index run, settings changes, a clean shutdown."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .lsp_support import SERVER, command, copy_repo, start, stop

pytestmark = pytest.mark.asyncio(loop_scope="module")

BAD_OPTIONS = {"embeddings": False, "workers": "many", "embedDebounceMs": -5, "colour": "blue"}
# the client's "codeloupe" settings section (workspace/configuration) wins over the options
SETTINGS = {"exclude": ["cmd/**"], "maxFileBytes": "big", "path": "client-side setting"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("lsp-lifecycle"))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):
    lsp_client.set_configuration(SETTINGS, section="codeloupe")
    lsp_client.init_result = await start(lsp_client, repo, BAD_OPTIONS)
    yield
    await stop(lsp_client)


async def test_capabilities_advertise_every_feature(client: LanguageClient) -> None:
    caps: types.ServerCapabilities = client.init_result.capabilities
    sync = caps.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert sync.change == types.TextDocumentSyncKind.Incremental and sync.open_close
    for name in ("document_symbol_provider", "workspace_symbol_provider", "definition_provider",
                 "references_provider", "call_hierarchy_provider", "hover_provider"):
        assert getattr(caps, name), name
    assert caps.execute_command_provider is not None
    assert set(caps.execute_command_provider.commands) >= {
        "codeloupe.server.search", "codeloupe.server.status", "codeloupe.server.reindex",
        "codeloupe.server.callChain"}
    assert client.init_result.server_info.name == "codeloupe"


async def test_bad_options_are_named_and_replaced_by_defaults(client: LanguageClient) -> None:
    text = "\n".join(m.message for m in client.messages)
    assert "initializationOptions.workers" in text and "'many'" in text
    assert "initializationOptions.embedDebounceMs" in text
    assert "initializationOptions.colour is not a codeloupe setting" in text
    assert "codeloupe.maxFileBytes must be an integer, got 'big'" in text
    assert "codeloupe.path" not in text  # the client's own settings share the section
    st = await command(client, "codeloupe.server.status", {})
    assert st["embeddings"] is False  # the good option next to the bad ones still applies
    assert st["settings"]["workers"] == 0 and st["settings"]["embedDebounceMs"] == 500
    assert st["settings"]["exclude"] == ["cmd/**"]
    assert st["state"] == "ready" and st["folders"][0]["files"] == 4  # cmd/main.go excluded


async def test_first_index_reports_progress(client: LanguageClient) -> None:
    runs = [r for r in client.progress_reports.values() if r]
    assert len(runs) == 1
    [reports] = runs
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert "indexing" in reports[0].title
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert "4 files" in reports[-1].message
    middle = [r for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert any("4/4 files" in (r.message or "") for r in middle)


async def test_changed_settings_reindex(client: LanguageClient) -> None:
    client.set_configuration({"exclude": ["web/**"]}, section="codeloupe")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    deadline = time.monotonic() + 20
    while True:
        st = await command(client, "codeloupe.server.status", {})
        languages = st["folders"][0].get("languages", {})
        if (st["state"] == "ready" and "go" in languages) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    assert st["settings"]["exclude"] == ["web/**"]
    assert languages == {"python": 3, "go": 1}  # main.go back in, upload.js out
