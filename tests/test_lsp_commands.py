"""workspace/executeCommand: codeloupe.server.search, .status, .reindex."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from .lsp_support import SERVER, command, copy_repo, start, stop, utf16

pytestmark = pytest.mark.asyncio(loop_scope="module")

SEARCH = "codeloupe.server.search"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("lsp-commands"))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):
    await start(lsp_client, repo)
    yield
    await stop(lsp_client)


async def test_search_answers_like_the_cli(client: LanguageClient) -> None:
    result = await command(client, SEARCH, {"query": "retry a failed upload with backoff", "k": 3})
    assert set(result) == {"query", "results", "pending_embeddings", "state"}
    assert result["pending_embeddings"] == 0 and result["state"] == "ready"
    assert len(result["results"]) == 3
    top = result["results"][0]
    assert top["qualified_name"] == "retryFailedUpload" and top["path"] == "web/upload.js"
    assert set(top) == {"path", "start_line", "end_line", "name", "qualified_name", "kind",
                        "language", "score"}  # `codeloupe search --json` without --snippets


async def test_search_filters_and_snippets(client: LanguageClient) -> None:
    result = await command(client, SEARCH, {"query": "send bytes", "k": 5, "lang": "python",
                                            "kind": "method", "snippets": True})
    assert result["results"]
    assert {h["language"] for h in result["results"]} == {"python"}
    assert {h["kind"] for h in result["results"]} == {"method"}
    assert all("snippet" in h for h in result["results"])


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ([], "exactly one JSON object"),
        (["retry"], "one JSON object"),
        ([{}], "'query' is required"),
        ([{"query": 3}], "'query' must be a string"),
        ([{"query": "x", "k": "ten"}], "'k' must be an integer"),
        ([{"query": "x", "k": 0}], "'k' must be at least 1"),
        ([{"query": "x", "k": 10**15}], "'k' must be at most 1,000"),
        ([{"query": "retry \ud83d"}], "'query' must be valid Unicode text"),
        ([{"query": "x", "limit": 3}], "unknown argument 'limit'"),
        ([{"query": "x", "lang": "cobol"}], "unknown language 'cobol'"),
        ([{"query": "x", "mode": "magic"}], "unknown mode 'magic'"),
    ],
)
async def test_bad_search_arguments_get_an_error_naming_them(
    client: LanguageClient, arguments: list, named: str
) -> None:
    with pytest.raises(JsonRpcException, match=named) as info:
        await command(client, SEARCH, *arguments)
    assert info.value.code == -32602  # InvalidParams
    # the server keeps serving
    assert (await command(client, "codeloupe.server.status"))["state"] == "ready"


async def test_status(client: LanguageClient, repo: Path) -> None:
    st = await command(client, "codeloupe.server.status", {})
    assert st["state"] == "ready" and st["embeddings"] is True
    [folder] = st["folders"]
    assert folder["root"] == str(repo)
    assert folder["files"] == 5 and folder["pending_embeddings"] == 0
    assert folder["symbols"] > 10
    assert folder["model"] == "sentence-transformers/all-MiniLM-L6-v2+onnx-int8"  # auto: onnx
    assert folder["index"] == str(repo / ".codeloupe")
    assert folder["languages"] == {"python": 3, "javascript": 1, "go": 1}


async def test_reindex_picks_up_files_changed_on_disk(client: LanguageClient, repo: Path) -> None:
    (repo / "src/shop/tax.py").write_text("def value_added_tax(amount):\n    return amount * 0.2\n")
    try:
        before = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="value_added_tax"))
        assert not before
        result = await command(client, "codeloupe.server.reindex", {"wait": True})
        assert result["scheduled"] == [str(repo)]
        after = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="value_added_tax"))
        assert [s.name for s in after] == ["value_added_tax"]
        found = await command(client, SEARCH, {"query": "value added tax", "k": 1})
        assert found["results"][0]["name"] == "value_added_tax"
        st = await command(client, "codeloupe.server.status", {})
        assert st["folders"][0]["files"] == 6 and st["folders"][0]["pending_embeddings"] == 0
    finally:
        (repo / "src/shop/tax.py").unlink()
        await command(client, "codeloupe.server.reindex", {"wait": True})


async def test_call_chain(client: LanguageClient) -> None:
    result = await command(client, "codeloupe.server.callChain",
                           {"from": "checkout", "to": "Client.send"})
    assert result["from"] == ["src/shop/cart.py::checkout"]
    assert result["to"] == ["src/shop/http.py::Client.send"]
    assert result["state"] == "ready"
    [chain] = result["chains"]
    assert [(step["caller"], step["callee"]) for step in chain] == [
        ("src/shop/cart.py::checkout", "src/shop/http.py::Client.fetch"),
        ("src/shop/http.py::Client.fetch", "src/shop/http.py::Client.send"),
    ]
    assert chain[1]["reason"] == "self" and chain[1]["path"] == "src/shop/http.py"
    back = await command(client, "codeloupe.server.callChain", {"from": "Client.send", "to": "checkout"})
    assert back["chains"] == []
    with pytest.raises(JsonRpcException, match="'to': no symbol 'nowhere'"):
        await command(client, "codeloupe.server.callChain", {"from": "checkout", "to": "nowhere"})


async def test_call_chain_columns_count_utf16_units(client: LanguageClient, repo: Path) -> None:
    """`col` is a wire column like any LSP position: 😀 before the call counts two."""
    result = await command(client, "codeloupe.server.callChain", {"from": "greet", "to": "shout"})
    [[step]] = result["chains"]
    assert (step["path"], step["callee"]) == ("src/shop/text.py", "src/shop/text.py::shout")
    line = (repo / "src/shop/text.py").read_text(encoding="utf-8").splitlines()[step["line"] - 1]
    before = line[:line.index("shout(")]
    assert "😀" in before
    assert step["col"] == utf16(before) == len(before) + 1


async def test_callers_callees_symbol_and_context_for_agent_tools(client: LanguageClient) -> None:
    """The commands the extension's language-model tools call: the same answers as the
    MCP server's tools, from the server's own index (no second one)."""
    got = await command(client, "codeloupe.server.callers", {"target": "Client.fetch"})
    [answer] = got["symbols"]
    assert answer["symbol"]["qualified_name"] == "Client.fetch"
    assert [(c["caller"]["qualified_name"], c["path"]) for c in answer["callers"]] == [
        ("checkout", "src/shop/cart.py")]
    assert got["state"] == "ready" and got["minConfidence"] == 0.5
    got = await command(client, "codeloupe.server.callees", {"target": "checkout", "depth": 2})
    names = {c["qualified_name"]: c.get("depth") for c in got["symbols"][0]["callees"]}
    assert names["Client.fetch"] == 1 and names["Client.send"] == 2
    got = await command(client, "codeloupe.server.symbol", {"target": "src/shop/http.py:18"})
    [sym] = got["symbols"]
    assert sym["qualified_name"] == "Client.send" and sym["parent"]["qualified_name"] == "Client"
    assert "return url.encode()" in sym["source"]
    got = await command(client, "codeloupe.server.context",
                        {"question": "how does checkout reach the payment server?", "budgetTokens": 800})
    assert got["tokens"] <= 800 and "src/shop/cart.py" in {s["path"] for s in got["sources"]}
    assert "## src/shop/" in got["context"]
    for name, args, named in [
        ("codeloupe.server.callers", {"target": "nowhere"}, "no symbol named 'nowhere'"),
        ("codeloupe.server.callees", {"target": "checkout", "depth": 9}, "'depth' must be at most 5"),
        ("codeloupe.server.symbol", {}, "'target' is required"),
        ("codeloupe.server.context", {"question": " "}, "'question' must not be empty"),
    ]:
        with pytest.raises(JsonRpcException, match=named):
            await command(client, name, args)
