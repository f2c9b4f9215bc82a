"""``codeloupe mcp``: the index over the Model Context Protocol, driven by the official
SDK's own client (``mcp`` 2.x) over stdio and over streamable HTTP on 127.0.0.1, and by
an agent-style session: a scripted OpenAI-compatible model on 127.0.0.1 that calls the
tools, each call carried out through the MCP client.

Every wait is on a state (a sync counted by ``index_status``, a port that accepts, a
process that ends), bounded by a generous deadline; nothing sleeps."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from codeloupe.mcp import Engine, ToolInputError

from .conftest import SAMPLE_REPO, write_tree
from .llm_server import LLMServer

TOOLS = {"search_code", "symbol", "callers", "callees", "call_path", "context_for", "index_status"}
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
       "CODELOUPE_NO_GPU": "1", "LANCE_LOG": "error"}
DEADLINE_S = 300


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write_tree(root, SAMPLE_REPO)
    return root


# --- the engine in process ------------------------------------------------------------------


def test_the_engine_answers_every_tool_and_rejects_bad_arguments(repo: Path) -> None:
    engine = Engine(repo, embed=False, watch=False)
    engine.start()
    try:
        hits = engine.search_code("parse_header", k=3)["results"]
        assert hits[0]["qualified_name"] == "parse_header"
        assert hits[0]["signature"].startswith("def parse_header")
        callers = engine.callers("Client.fetch")["symbols"][0]["callers"]
        assert [(c["caller"]["qualified_name"], c["line"]) for c in callers] == [("checkout", 19)]
        callees = engine.callees("checkout")["symbols"][0]["callees"]
        assert "Client.fetch" in {c["qualified_name"] for c in callees}
        sym = engine.symbol("src/shop/http.py:18")["symbols"][0]
        assert sym["qualified_name"] == "Client.send"
        assert sym["parent"]["qualified_name"] == "Client"
        assert "   18 |         return url.encode()" in sym["source"]
        chain = engine.call_path("checkout", "Client.send")["chains"][0]
        assert [s["callee"]["qualified_name"] for s in chain] == ["Client.fetch", "Client.send"]
        ctx = engine.context_for("how does checkout reach the payment server?", 1000)
        assert ctx["tokens"] <= 1000 and "src/shop/cart.py" in {s["path"] for s in ctx["sources"]}
        status = engine.index_status()
        assert status["files"] == 4 and status["symbols"] == status["symbols_in_model"] == 18
        for call, needle in [
            (lambda: engine.search_code(" "), "query must be a non-empty string"),
            (lambda: engine.search_code("x", k=0), "k must be an integer between 1 and 100"),
            (lambda: engine.search_code("x", lang="cobol"), "cobol"),
            (lambda: engine.callers("no_such_function"), "no symbol named 'no_such_function'"),
            (lambda: engine.callers("checkout", depth=9), "depth must be an integer between 1 and 5"),
            (lambda: engine.symbol("src/nowhere.py:3"), "no indexed file 'src/nowhere.py'"),
            (lambda: engine.call_path("checkout", "nothing_here"), "to: no symbol named"),
            (lambda: engine.context_for("why?", budget_tokens=10), "budget_tokens must be"),
        ]:
            with pytest.raises(ToolInputError, match=needle):
                call()
    finally:
        engine.close()


def test_an_edit_on_disk_reaches_search_and_callers_without_a_restart(repo: Path) -> None:
    engine = Engine(repo, embed=False)  # the watcher follows the files
    engine.start()
    try:
        assert engine.callers("checkout")["symbols"][0]["callers"] == []
        synced = engine.syncs
        cart = repo / "src/shop/cart.py"
        cart.write_text(cart.read_text() + "\n\ndef settle_invoice(cart):\n    return checkout(cart)\n")
        assert engine.wait_synced(synced, DEADLINE_S), "the change on disk was never synced"
        callers = engine.callers("checkout")["symbols"][0]["callers"]
        assert [(c["caller"]["qualified_name"], c["line"]) for c in callers] == [("settle_invoice", 23)]
        assert engine.search_code("settle_invoice", k=1)["results"][0]["qualified_name"] == "settle_invoice"
        assert engine.index_status()["watching"] is True
    finally:
        engine.close()


def test_the_watcher_ignores_the_index_folder_and_links_out_of_the_root(tmp_path: Path) -> None:
    from codeloupe.mcp.watch import Watcher

    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    write_tree(root, {"a.py": "x = 1\n"})
    outside.mkdir()
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / ".codeloupe").mkdir()
    changed = threading.Event()
    watcher = Watcher(root, changed.set, [root / ".codeloupe"])
    assert not watcher._relevant(str(root / ".codeloupe" / "symbols.lance" / "x"))
    assert not watcher._relevant(str(root / ".git" / "index"))
    assert not watcher._relevant(str(tmp_path / "elsewhere.py"))
    assert not watcher._relevant(str(root / "link" / "secret.py"))  # resolves out of the root
    assert watcher._relevant(str(root / "a.py"))
    assert watcher.start() is None
    try:
        (outside / "secret.py").write_text("token = 1\n")  # first: one inotify queue, in order
        (root / ".codeloupe" / "meta").write_text("{}")
        (root / "a.py").write_text("x = 2\n")
        assert changed.wait(DEADLINE_S), "the change in the root was never heard"
        assert str(root / "a.py") in watcher.seen
        assert not [p for p in watcher.seen if "secret" in p], list(watcher.seen)
    finally:
        watcher.stop()


# --- the SDK's client over stdio --------------------------------------------------------------


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def _error(result: Any) -> str:
    assert result.is_error, f"expected a tool error, got {result.content[0].text[:200]}"
    return result.content[0].text


@contextlib.asynccontextmanager
async def _stdio_session(root: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "codeloupe", "mcp", str(root)],
                                   env=ENV, cwd=str(root))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def _wait_for_sync(session: ClientSession, after: int) -> dict[str, Any]:
    """index_status until it counts a sync after ``after`` (a state, not a clock)."""
    while True:
        status = _data(await session.call_tool("index_status", {}))
        if status["syncs"] > after:
            return status
        await anyio.sleep(0.05)  # between two polls of the state; the deadline is the caller's


async def _every_tool(session: ClientSession) -> None:
    """Each tool with good arguments, then bad ones: a tool error naming the problem, and
    the server goes on."""
    found = _data(await session.call_tool("search_code", {"query": "split an HTTP header line"}))
    assert found["results"][0]["qualified_name"] == "parse_header"
    assert "complete" in found["index"]
    callers = _data(await session.call_tool("callers", {"target": "Client.fetch"}))
    assert callers["symbols"][0]["callers"][0]["caller"]["qualified_name"] == "checkout"
    callees = _data(await session.call_tool("callees", {"target": "checkout"}))
    assert "Client.fetch" in {c["qualified_name"] for c in callees["symbols"][0]["callees"]}
    sym = _data(await session.call_tool("symbol", {"target": "Greeter.Greet"}))
    assert sym["symbols"][0]["path"] == "cmd/main.go"
    chain = _data(await session.call_tool("call_path", {"source": "checkout", "target": "Client.send"}))
    assert len(chain["chains"]) == 1
    ctx = _data(await session.call_tool("context_for", {"question": "how are uploads retried?",
                                                        "budget_tokens": 800}))
    assert "web/upload.js" in ctx["context"]

    # bad arguments: a tool error naming the problem, and the server goes on
    assert "k" in _error(await session.call_tool("search_code", {"query": "x", "k": 0}))
    assert "k" in _error(await session.call_tool("search_code", {"query": "x", "k": "many"}))
    assert "target" in _error(await session.call_tool("callers", {}))
    assert "no symbol named 'nope'" in _error(await session.call_tool("callees", {"target": "nope"}))
    assert "depth" in _error(await session.call_tool("callers", {"target": "checkout", "depth": 50}))
    assert "no indexed file 'src/nowhere.py'" in _error(
        await session.call_tool("symbol", {"target": "src/nowhere.py:3"}))
    assert "target" in _error(await session.call_tool("call_path", {"source": "checkout"}))
    assert "budget_tokens" in _error(await session.call_tool("context_for", {"question": "x",
                                                                              "budget_tokens": 5}))
    assert _data(await session.call_tool("index_status", {}))["files"] == 4


async def test_stdio_lists_the_tools_answers_each_and_follows_an_edit(repo: Path) -> None:
    with anyio.fail_after(DEADLINE_S):
        async with _stdio_session(repo) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == TOOLS
            for tool in tools.values():
                assert len(tool.description or "") > 80, tool.name  # written for a model
            assert {"query", "k", "lang", "path", "kind"} <= set(tools["search_code"].input_schema["properties"])

            await _every_tool(session)

            status = _data(await session.call_tool("index_status", {}))
            cart = repo / "src/shop/cart.py"
            cart.write_text(cart.read_text() + "\n\ndef refund_order(cart):\n    return checkout(cart)\n")
            await _wait_for_sync(session, status["syncs"])
            callers = _data(await session.call_tool("callers", {"target": "checkout"}))
            assert [c["caller"]["qualified_name"] for c in callers["symbols"][0]["callers"]] == ["refund_order"]
            found = _data(await session.call_tool("search_code", {"query": "refund_order", "k": 1}))
            assert found["results"][0]["qualified_name"] == "refund_order"


# --- streamable HTTP, and an agent that chains the tools ---------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_listening(port: int, proc: subprocess.Popen) -> None:
    while proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=60).close()
            return
        except ConnectionRefusedError:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.05)  # not listening yet: wait on the process meanwhile
    raise AssertionError(f"the MCP server exited with {proc.returncode} before listening: "
                         f"{proc.stderr.read().decode() if proc.stderr else ''}")


def _scripted_agent(request: dict) -> dict:
    """A model that answers "who calls the code that retries failed connections?" the
    way an agent does: search, then the callers of the best hit, then the caller's
    definition, then an answer citing it. Each step reads the previous tool result."""
    messages = request["messages"]
    results = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]

    def call(name: str, args: dict) -> dict:
        return {"tool_calls": [{"id": f"call_{len(results)}", "type": "function",
                                "function": {"name": name, "arguments": json.dumps(args)}}]}

    if not results:
        return call("search_code", {"query": "retry failed connections with backoff", "k": 3})
    if len(results) == 1:
        return call("callers", {"target": results[0]["results"][0]["qualified_name"]})
    if len(results) == 2:
        caller = results[1]["symbols"][0]["callers"][0]["caller"]
        return call("symbol", {"target": f"{caller['path']}:{caller['start_line']}"})
    sym = results[2]["symbols"][0]
    return {"content": f"{sym['qualified_name']} calls it ({sym['path']}:{sym['start_line']})."}


def _chat(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


async def test_an_agent_over_streamable_http_chains_search_callers_and_symbol(repo: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "codeloupe", "mcp", "--http", "--port", str(port),
                             str(repo)], env=ENV, cwd=repo, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        _wait_listening(port, proc)
        with LLMServer(respond=_scripted_agent) as model, anyio.fail_after(DEADLINE_S):
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                listed = (await session.list_tools()).tools
                assert {t.name for t in listed} == TOOLS
                await _every_tool(session)
                tools = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                           "parameters": t.input_schema}} for t in listed]
                messages: list[dict] = [{"role": "user", "content": "Who calls the code that "
                                         "retries failed connections?"}]
                called = []
                for _ in range(6):  # the round limit of the loop
                    reply = await anyio.to_thread.run_sync(
                        _chat, f"http://127.0.0.1:{model.port}/v1/chat/completions",
                        {"model": "fake-coder", "messages": messages, "tools": tools})
                    message = reply["choices"][0]["message"]
                    messages.append(message)
                    if not message.get("tool_calls"):
                        break
                    for tc in message["tool_calls"]:
                        fn = tc["function"]
                        called.append(fn["name"])
                        result = await session.call_tool(fn["name"], json.loads(fn["arguments"]))
                        assert not result.is_error, result.content[0].text
                        messages.append({"role": "tool", "tool_call_id": tc["id"],
                                         "content": result.content[0].text})
        # a page elsewhere that resolves its own name to 127.0.0.1 (DNS rebinding) is refused
        forged = urllib.request.Request(
            f"http://127.0.0.1:{port}/mcp", data=b"{}", headers={
                "Host": "attacker.example", "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(forged, timeout=60)
        assert 400 <= refused.value.code < 500
        assert called == ["search_code", "callers", "symbol"]
        assert messages[-1]["content"] == "checkout calls it (src/shop/cart.py:17)."
        assert len(model.chat_requests) == 4
        assert {t["function"]["name"] for t in model.chat_requests[0]["body"]["tools"]} == TOOLS
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --- one index folder, the MCP server and the CLI side by side ------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codeloupe", *args], env=ENV, capture_output=True,
                          text=True, timeout=DEADLINE_S)


def test_the_cli_and_the_mcp_server_share_the_index_folder(repo: Path) -> None:
    """The engine writes (sync, embeddings) while the CLI indexes and reads the same folder:
    one writer at a time (the index's lock), nothing damaged. A change the CLI indexed
    reaches the engine's model too, though the engine's own sync then finds nothing to
    write (no watcher here: the engine syncs when told)."""
    engine = Engine(repo, watch=False)
    engine.start()
    try:
        assert engine.wait_synced(0, DEADLINE_S)
        cart = repo / "src/shop/cart.py"
        cart.write_text(cart.read_text() + "\n\ndef void_order(cart):\n    return checkout(cart)\n")
        index = _cli("index", "--json", str(repo))  # waits for the engine's run, if any
        assert index.returncode == 0, index.stderr
        assert json.loads(index.stdout)["files_parsed"] == 1  # the CLI wrote the change
        synced = engine.syncs
        engine.changed()
        assert engine.wait_synced(synced, DEADLINE_S)
        mcp_callers = engine.callers("checkout")["symbols"][0]["callers"]
        assert [c["caller"]["qualified_name"] for c in mcp_callers] == ["void_order"]
        calls = _cli("calls", "--json", "--root", str(repo), "checkout")
        assert calls.returncode == 0, calls.stderr
        assert [c["caller"]["qualified_name"] for c in json.loads(calls.stdout)["callers"]] == ["void_order"]
        status = _cli("status", "--json", str(repo))
        assert status.returncode == 0, status.stderr
        st = json.loads(status.stdout)
        assert st["symbols"] == engine.index_status()["symbols"] == 19
        assert not st.get("damaged"), st
        found = _cli("search", "--json", "--root", str(repo), "void_order")
        assert json.loads(found.stdout)["results"][0]["qualified_name"] == "void_order"
    finally:
        engine.close()


def test_the_extension_offers_the_same_tools_with_the_same_arguments(tmp_path: Path) -> None:
    """VS Code's language-model tools (package.json) and the MCP tools: one set, one
    argument list each, so an agent meets the same tools in both."""
    from codeloupe.mcp.tools import build_server

    pkg = json.loads((Path(__file__).resolve().parent.parent / "vscode-extension" / "package.json")
                     .read_text(encoding="utf-8"))
    declared = {t["name"].removeprefix("codeloupe_"): (set(t["inputSchema"]["properties"]),
                                                       set(t["inputSchema"].get("required", [])))
                for t in pkg["contributes"]["languageModelTools"]}
    (tmp_path / "a.py").write_text("x = 1\n")
    tools = anyio.run(build_server(Engine(tmp_path, watch=False)).list_tools)
    served = {t.name: (set(t.input_schema["properties"]), set(t.input_schema.get("required", [])))
              for t in tools}
    assert declared == served
