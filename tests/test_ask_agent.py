"""ask with tools: the model gets the first context and may call search_code, symbol,
callers and callees (the MCP server's tools) before it answers, within a round limit and
a token budget; an endpoint that refuses tools gets the one context. Driven by a scripted
OpenAI-compatible model on 127.0.0.1 that issues tool calls (tests/llm_server.py), streamed
and not. Every citation is verified against what the model was shown, tools included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codeloupe import ask as A
from codeloupe.ask.toolbox import TOOL_SPECS, ToolArgumentError, Toolbox
from codeloupe.config import Settings
from codeloupe.graph_store import graph_from_store
from codeloupe.index import Index

from . import test_ask
from .llm_server import LLMServer, Reply

indexed = test_ask.indexed  # the fixture: the sample repository, indexed once a module

QUESTION = "how does checkout pay?"


def _settings(url: str, **kw: object) -> Settings:
    return Settings(llm_url=url, llm_model="fake-coder", **kw)  # type: ignore[arg-type]


def _tool_results(request: dict) -> list[dict]:
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def _call(name: str, n: int, **args: object) -> dict:
    return {"tool_calls": [{"id": f"call_{n}", "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)}}]}


def _follows_the_callees(request: dict) -> dict:
    """A model whose context lacks the code it needs: it asks what checkout calls, reads
    the definition of the callee's own callee, then cites a line only that showed (and
    one nobody showed)."""
    results = _tool_results(request)
    if not results:
        return _call("callees", 0, target="checkout", depth=2)
    if len(results) == 1:
        deepest = [c for c in results[0]["symbols"][0]["callees"] if c.get("depth") == 2]
        return _call("symbol", 1, target=deepest[0]["qualified_name"])
    sym = results[1]["symbols"][0]
    return {"content": f"checkout calls Client.fetch, which ends in {sym['qualified_name']}: "
                       f"it returns the URL as bytes ({sym['path']}:{sym['end_line']}). "
                       "It also logs to nowhere/else.py:7."}


@pytest.mark.parametrize("streamed", [False, True])
def test_the_model_fetches_what_the_context_lacks_and_its_citations_are_verified(
        indexed: Index, streamed: bool) -> None:
    pieces: list[str] = []
    with LLMServer(respond=_follows_the_callees) as llm:
        # a context too small to hold Client.send: only the tools can show it
        result = A.ask(QUESTION, indexed, _settings(llm.url, ask_context_tokens=120),
                       on_delta=pieces.append if streamed else None)
        requests = llm.chat_requests
    first = requests[0]["body"]
    assert {t["function"]["name"] for t in first["tools"]} == {"search_code", "symbol", "callers",
                                                               "callees"}
    assert first["stream"] is streamed and first["tool_choice"] == "auto"
    assert "Client.send" not in first["messages"][1]["content"]  # not in the first context
    assert [c["tool"] for c in result.tool_calls or []] == ["callees", "symbol"]
    shown = _tool_results(requests[2]["body"])[1]["symbols"][0]
    assert shown["qualified_name"] == "Client.send" and "return url.encode()" in shown["source"]
    assert result.answer and "Client.send" in result.answer
    verified = {c.text: c.verified for c in result.citations}
    assert verified == {"src/shop/http.py:18": True, "nowhere/else.py:7": False}
    assert result.unverified_citations == ["nowhere/else.py:7"]
    assert {"path": "src/shop/http.py", "start_line": 17, "end_line": 18,
            "qualified_name": "Client.send", "cited": True} in result.sources
    if streamed:
        assert "".join(pieces) == result.answer and len(pieces) > 3


def test_an_endpoint_that_refuses_tools_gets_the_one_context(indexed: Index) -> None:
    with LLMServer() as llm:
        llm.script(Reply(status=400, body={"error": {
            "message": "registry.ollama.ai/library/gemma:2b does not support tools"}}))
        result = A.ask(QUESTION, indexed, _settings(llm.url))
        first, second = (r["body"] for r in llm.chat_requests)
    assert "tools" in first and "tools" not in second
    assert result.tool_calls is None
    assert result.answer and result.citations[0].verified  # the default answer cites its context


def test_the_round_limit_and_bad_arguments_end_in_an_answer(indexed: Index) -> None:
    def stubborn(request: dict) -> dict:
        if request.get("tool_choice") == "none":
            return {"content": "From what I saw: checkout (src/shop/cart.py:17)."}
        n = len(_tool_results(request))
        return _call("callers", n, target="no_such_thing") if n % 2 else _call(
            "search_code", n, query="send a request", k=2)

    with LLMServer(respond=stubborn) as llm:
        result = A.ask(QUESTION, indexed, _settings(llm.url))
        requests = [r["body"] for r in llm.chat_requests]
    assert len(requests) == A.agent.MAX_ROUNDS + 1
    assert [r["tool_choice"] for r in requests] == ["auto"] * A.agent.MAX_ROUNDS + ["none"]
    errors = [c.get("error") for c in result.tool_calls or []]
    assert errors[1] and "no symbol named 'no_such_thing'" in errors[1] and errors[0] is None
    assert _tool_results(requests[2])[1] == {"error": errors[1]}
    assert result.answer.startswith("From what I saw") and result.citations[0].verified


def test_the_tools_budget_is_kept(indexed: Index) -> None:
    def greedy(request: dict) -> dict:
        if request.get("tool_choice") == "none":
            return {"content": "done"}
        return _call("search_code", len(_tool_results(request)), query="function", k=50)

    with LLMServer(respond=greedy) as llm:
        result = A.agent.answer_with_tools(
            QUESTION, A.build_context(QUESTION, indexed, _settings(llm.url)),
            Toolbox(indexed, graph_from_store(indexed.store), A.disk_reader(indexed.root)),
            A.llm.ChatClient(A.llm_config(_settings(llm.url))), A.estimate_tokens,
            max_rounds=10, budget_tokens=300)
        requests = [r["body"] for r in llm.chat_requests]
    spent = sum(c.tokens for c in result.calls)
    assert spent <= 300 + 100 and len(requests) < 11  # stopped by the budget, not the rounds
    assert requests[-1]["tool_choice"] == "none"


def test_the_toolbox_names_what_is_wrong(indexed: Index) -> None:
    tools = Toolbox(indexed, graph_from_store(indexed.store), A.disk_reader(indexed.root))
    for name, args, named in [
        ("callers", "{not json", "not JSON"),
        ("callers", {"target": "checkout", "depth": 0}, "depth must be an integer between 1 and 5"),
        ("callees", {"target": "checkout", "min_confidence": 2}, "min_confidence must be"),
        ("symbol", {}, "missing 1 required positional argument: 'target'"),
        ("search_code", {"query": "x", "k": "10"}, "k must be an integer"),
        ("rm_rf", {}, "no tool named 'rm_rf'"),
    ]:
        with pytest.raises(ToolArgumentError, match=named):
            tools.call(name, args)
    assert [t["function"]["name"] for t in TOOL_SPECS] == ["search_code", "symbol", "callers", "callees"]
    got = tools.call("callers", {"target": "Client.fetch"})
    [site] = got["symbols"][0]["callers"]
    assert site["code"] == 'return client.fetch("https://pay.example/checkout")'
    assert any(s.path == "src/shop/cart.py" and s.start_line == 19 for s in tools.shown)


def test_the_tool_specs_are_the_mcp_tools(tmp_path: Path) -> None:
    """ask's tools and the MCP server's of the same names take the same arguments."""
    import anyio

    from codeloupe.mcp import Engine
    from codeloupe.mcp.tools import build_server

    (tmp_path / "a.py").write_text("x = 1\n")
    served = {t.name: set(t.input_schema["properties"])
              for t in anyio.run(build_server(Engine(tmp_path, watch=False)).list_tools)}
    for spec in TOOL_SPECS:
        fn = spec["function"]
        assert set(fn["parameters"]["properties"]) == served[fn["name"]], fn["name"]


def test_the_cli_says_what_the_model_fetched_and_no_tools_sends_none(indexed: Index) -> None:
    with LLMServer(respond=_follows_the_callees) as llm:
        env = {"CODELOUPE_LLM_URL": llm.url, "CODELOUPE_LLM_MODEL": "fake-coder"}
        out = test_ask._cli("--root", str(indexed.root), "-q", "--context-tokens", "120", QUESTION, env=env)
        assert out.returncode == 0, out.stderr
        assert "the model fetched more code with: callees(" in out.stderr
        assert "symbol({\"target\": \"Client.send\"})" in out.stderr
        assert "Client.send" in out.stdout and "src/shop/http.py:18" in out.stdout
        plain = test_ask._cli("--root", str(indexed.root), "-q", "--no-tools", "--json", QUESTION, env=env)
        assert plain.returncode == 0, plain.stderr
        assert "tools" not in llm.chat_requests[-1]["body"]
        assert "tool_calls" not in json.loads(plain.stdout)
