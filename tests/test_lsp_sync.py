"""Document sync: unsaved edits reach the symbols, the call graph and search at
once; deleting them takes them out again; save and close re-sync with the disk."""

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
    incoming_calls,
    open_document,
    position,
    start,
    stop,
    until,
    uri,
    utf16,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

NEW_FUNCTION = '''
def apply_discount(cart: Cart) -> float:
    """Ten percent off everything in the cart."""
    return cart.total_price({}) * 0.9
'''


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("lsp-sync"))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):
    await start(lsp_client, repo, {"embeddings": False})
    yield
    await stop(lsp_client)


def change(client: LanguageClient, repo: Path, rel: str, version: int,
           start: types.Position, end: types.Position, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri(repo, rel), version=version),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=start, end=end), text=text)],
    ))


async def symbols(client: LanguageClient, repo: Path, rel: str) -> dict[str, types.DocumentSymbol]:
    return flatten(await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel)))))


async def callers_of_total_price(client: LanguageClient, repo: Path) -> list[str]:
    calls = await incoming_calls(client, repo, "src/shop/cart.py", "def total_price")
    return [c.from_.name for c in calls]


async def search_names(client: LanguageClient, query: str) -> list[str]:
    result = await command(client, "codeloupe.server.search", {"query": query, "k": 3})
    return [h["name"] for h in result["results"]]


async def test_typing_a_function_updates_everything_without_a_save(client: LanguageClient,
                                                                    repo: Path) -> None:
    rel = "src/shop/cart.py"
    on_disk = open_document(client, repo, rel)
    assert "apply_discount" not in await symbols(client, repo, rel)
    assert await callers_of_total_price(client, repo) == []

    end = types.Position(line=on_disk.count("\n"), character=0)
    change(client, repo, rel, 2, end, end, NEW_FUNCTION)
    found = await symbols(client, repo, rel)
    assert "apply_discount" in found
    assert found["apply_discount"].range.start.line == on_disk.count("\n") + 1
    assert await callers_of_total_price(client, repo) == ["apply_discount"]
    assert (await search_names(client, "apply_discount"))[0] == "apply_discount"
    assert (repo / rel).read_text() == on_disk  # nothing was saved

    new_end = types.Position(line=on_disk.count("\n") + NEW_FUNCTION.count("\n"), character=0)
    change(client, repo, rel, 3, end, new_end, "")
    assert "apply_discount" not in await symbols(client, repo, rel)
    assert await callers_of_total_price(client, repo) == []
    assert "apply_discount" not in await search_names(client, "apply_discount")

    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel))))


async def test_edits_use_utf16_positions(client: LanguageClient, repo: Path) -> None:
    rel = "src/shop/text.py"
    text = open_document(client, repo, rel)
    at = position(text, "shout(name)")  # after an emoji: UTF-16 column = code points + 1
    change(client, repo, rel, 2, at, at, "shout(")
    change(client, repo, rel, 3, types.Position(line=at.line, character=at.character + 17),
           types.Position(line=at.line, character=at.character + 17), ")")
    new_line = text.split("\n")[at.line].replace("shout(name)", "shout(shout(name))")
    found = await symbols(client, repo, rel)
    assert found["greet"].range.end == types.Position(line=at.line, character=utf16(new_line))
    [item] = await client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel)),
        position=position(text, "def greet", offset=5)))
    calls = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=item))
    assert [c.to.name for c in calls] == ["shout"]
    assert [r.start.character for r in calls[0].from_ranges] == [at.character, at.character + 6]
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel))))
    # closed without saving: back to the disk's version
    calls = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=item))
    assert [len(c.from_ranges) for c in calls] == [1]


async def test_save_then_close_keeps_the_saved_text(client: LanguageClient, repo: Path) -> None:
    rel = "src/shop/cart.py"
    text = open_document(client, repo, rel)
    end = types.Position(line=text.count("\n"), character=0)
    change(client, repo, rel, 2, end, end, NEW_FUNCTION)
    (repo / rel).write_text(text + NEW_FUNCTION)  # what the editor does on save
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel))))
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri(repo, rel))))
    assert "apply_discount" in await symbols(client, repo, rel)
    assert await callers_of_total_price(client, repo) == ["apply_discount"]
    st = await command(client, "codeloupe.server.status", {})
    assert st["folders"][0]["open_buffers"] == 0


async def names_until(client: LanguageClient, query: str, present: bool) -> list[str]:
    async def names() -> list[str]:
        return [s.name for s in await client.workspace_symbol_async(
            types.WorkspaceSymbolParams(query=query))]

    return await until(names, lambda found: (query in found) == present,
                       f"{query} {'found' if present else 'gone'}")


async def test_files_changed_on_disk_arrive_through_watched_files(client: LanguageClient,
                                                                  repo: Path) -> None:
    [reg] = [r for r in client.registrations
             if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    [watcher] = reg.register_options["watchers"]
    assert "py" in watcher["globPattern"] and "go" in watcher["globPattern"]

    tax = repo / "src/shop/tax.py"
    tax.write_text("def value_added_tax(amount):\n    return amount * 0.2\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(repo, "src/shop/tax.py"), type=types.FileChangeType.Created)]))
    assert "value_added_tax" in await names_until(client, "value_added_tax", present=True)
    st = await command(client, "codeloupe.server.status", {})
    assert st["folders"][0]["files"] == 6

    tax.unlink()
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(repo, "src/shop/tax.py"), type=types.FileChangeType.Deleted)]))
    assert "value_added_tax" not in await names_until(client, "value_added_tax", present=False)



async def test_a_long_session_keeps_nothing_of_closed_documents(client: LanguageClient,
                                                                repo: Path) -> None:
    """Buffers edited keystroke by keystroke are re-parsed with their old tree; once
    closed, nothing of them stays (trees, pending updates, timers, symbols)."""
    docs = [f"src/scratch/note_{i}.py" for i in range(12)]
    for n, rel in enumerate(docs):
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(repo, rel), language_id="python", version=1,
                text=f"def scratch_{n}(a):\n    return a\n")))
        for version in range(2, 5):  # type inside the function
            at = types.Position(line=1, character=12)
            change(client, repo, rel, version, at, at, " + 1")
            if version == 3:  # this version is parsed before the next one arrives
                await symbols(client, repo, rel)
    st = await command(client, "codeloupe.server.status", {})
    assert st["server"]["syntax_trees"] == len(docs)
    assert st["server"]["incremental_parses"] >= len(docs)  # the old tree was reused
    assert st["server"]["spliced_extractions"] >= 1  # one function redone, not the file
    assert "scratch_3" in await names_until(client, "scratch_3", present=True)
    found = await symbols(client, repo, docs[3])
    assert found["scratch_3"].range.end.character == len("    return a + 1 + 1 + 1")
    for rel in docs:
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri(repo, rel))))
    assert "scratch_3" not in await names_until(client, "scratch_3", present=False)
    st = await command(client, "codeloupe.server.status", {})
    server = st["server"]
    assert (server["open_documents"], server["syntax_trees"], server["pending_updates"],
            server["timers"]) == (0, 0, 0, 0)
    assert st["folders"][0]["open_buffers"] == 0
    assert server["rss_mb"] is None or server["rss_mb"] > 0
