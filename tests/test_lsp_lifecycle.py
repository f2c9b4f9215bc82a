"""Lifecycle: capabilities, typed options and settings (bad values reported by
name), progress of the first index run, settings changes, a clean shutdown."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from .lsp_support import (
    SERVER,
    command,
    copy_repo,
    end,
    hold_configuration,
    open_document,
    start,
    stop,
    until,
    uri,
    wait_for_progress_end,
    wait_ready,
)

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
    st = await until(lambda: command(client, "codeloupe.server.status", {}),
                     lambda st: st["state"] == "ready" and "go" in st["folders"][0].get("languages", {}),
                     "the index re-opened with the new settings")
    assert st["settings"]["exclude"] == ["web/**"]
    assert st["folders"][0]["languages"] == {"python": 3, "go": 1}  # main.go back in, upload.js out


# --- the end of an index run, and shutdown + exit (a server of their own each) -------------------

# How long shutdown + exit take is measured by bench/bench_exit.py (VS Code's client
# kills a server that has not exited 2 s after `exit`); the tests assert behaviour only:
# the process ends by itself with status 0 (30 s is a hang guard) and what it wrote is
# consistent.


async def own_server(root: Path) -> LanguageClient:
    client = await SERVER.start()
    await start(client, root, wait=False)  # embeddings on (the default)
    return client


async def shutdown_and_exit(client: LanguageClient) -> None:
    """`shutdown`, then `exit`: the process ends by itself, with status 0."""
    await asyncio.wait_for(client.shutdown_async(None), 30)
    client.exit(None)
    await asyncio.wait_for(client._server.wait(), 30)
    assert client._server.returncode == 0


def type_a_function(client: LanguageClient, root: Path) -> None:
    """Open cart.py and add a function: the store write and a re-embed are scheduled."""
    text = open_document(client, root, "src/shop/cart.py")
    end = types.Position(line=text.count("\n"), character=0)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri(root, "src/shop/cart.py"), version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=end, end=end),
            text='\n\ndef refund(cart):\n    """Give the money back."""\n    return checkout(cart)\n')]))


async def test_shutdown_during_the_first_model_load_leaves_a_consistent_index(tmp_path: Path) -> None:
    """Shut down while the first index run loads the embedding model: the server ends
    by itself and leaves no index write unfinished (bench/bench_exit.py times it)."""
    root = copy_repo(tmp_path)
    client = await own_server(root)
    try:
        st = await until(lambda: command(client, "codeloupe.server.status", {}),
                         lambda st: st["folders"][0]["state"].startswith(("embedding", "ready")),
                         "the first run's embedding phase")
        # loading the model alone takes seconds: the run is still at its first symbol
        state = st["folders"][0]["state"]
        assert state.startswith("embedding ") and st["folders"][0]["pending_embeddings"] > 0, st
        done, total = map(int, state.split()[1].split("/"))
        assert done < total
        type_a_function(client, root)
        await shutdown_and_exit(client)
    finally:
        await end(client)
    # what was written is consistent: a new server answers from it and embeds the rest
    client = await own_server(root)
    try:
        st = await wait_ready(client)
        assert st["folders"][0]["files"] == 5 and st["folders"][0]["pending_embeddings"] == 0
        await stop(client)
    finally:
        await end(client)


async def test_ready_when_the_run_ends_and_exit_after_an_edit_is_clean(tmp_path: Path) -> None:
    root = copy_repo(tmp_path)
    client = await own_server(root)  # a cold index: everything gets embedded
    try:
        await wait_ready(client)
        await stop(client)
    finally:
        await end(client)

    # A warm start, nothing to embed. The run's `$/progress` end is sent once its state
    # is ready, so a status request that follows it says ready (the model for search
    # loads afterwards, in the background).
    client = await own_server(root)
    try:
        finished = await wait_for_progress_end(client, "indexing")
        assert finished.message.startswith("5 files, "), finished.message
        st = await command(client, "codeloupe.server.status", {})
        assert st["state"] == "ready", st["folders"][0]["state"]
        assert st["folders"][0]["pending_embeddings"] == 0
        # an edit schedules a buffer write and a re-embed: shut down once the write has
        # run, with the re-embed still to come
        writes = st["server"]["buffer_writes"]
        type_a_function(client, root)
        await until(lambda: command(client, "codeloupe.server.status", {}),
                    lambda st: st["server"]["buffer_writes"] > writes, "the buffer write")
        await shutdown_and_exit(client)
    finally:
        await end(client)

    # what was written is consistent: the next start answers from it (the unsaved
    # function is gone again: the files on disk win) and has nothing left to embed
    client = await own_server(root)
    try:
        st = await wait_ready(client)
        assert st["folders"][0]["files"] == 5 and st["folders"][0]["pending_embeddings"] == 0
        names = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="refund"))
        assert "refund" not in [s.name for s in names]
        await stop(client)
    finally:
        await end(client)


async def test_a_command_before_the_index_is_open_answers_with_the_state(tmp_path: Path) -> None:
    """A command that comes while the index is still opening waits for it briefly,
    then answers with the state: never an empty answer that looks final. The client
    holds its answer to workspace/configuration, which the server waits for before
    it opens any index, so the folder is deterministically still opening."""
    root = copy_repo(tmp_path)
    client = await SERVER.start()
    try:
        release = hold_configuration(client)
        await start(client, root, {"embeddings": False}, wait=False)
        st = await command(client, "codeloupe.server.status", {})
        assert st["state"] == "opening" and st["folders"][0]["state"] == "opening", st
        # each waits (briefly) for the index, then answers with the state
        found, chain, asked = await asyncio.gather(
            command(client, "codeloupe.server.search", {"query": "parse_header", "k": 3}),
            command(client, "codeloupe.server.callChain", {"from": "checkout", "to": "Client.send"}),
            command(client, "codeloupe.server.ask", {"question": "what does checkout do?"}),
            return_exceptions=True)
        assert found["state"] == "opening", found
        assert found["results"] == [] and found["pending_embeddings"] is None
        assert chain["state"] == "opening" and chain["chains"] == [], chain  # not "no such symbol"
        assert isinstance(asked, JsonRpcException) and "still opening" in asked.message, asked
        assert asked.code == -32803  # RequestFailed
        release.set()
        # from now on whatever the timing: real results, or a state that says they are not
        found = await command(client, "codeloupe.server.search", {"query": "parse_header", "k": 3})
        assert found["results"] or found["state"] != "ready", found
        await wait_ready(client)
        found = await command(client, "codeloupe.server.search", {"query": "parse_header", "k": 3})
        assert found["state"] == "ready" and found["results"][0]["name"] == "parse_header"
        chain = await command(client, "codeloupe.server.callChain", {"from": "checkout", "to": "Client.send"})
        assert chain["state"] == "ready" and len(chain["chains"]) == 1
        await stop(client)
    finally:
        await end(client)
