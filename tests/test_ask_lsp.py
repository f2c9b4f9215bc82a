"""codeloupe.server.ask over LSP: the answer streams through $/progress, the result
carries verified sources, errors are LSP errors, and the request is cancellable."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from .llm_server import LLMServer, Reply
from .lsp_support import SERVER, command, copy_repo, start, stop

pytestmark = pytest.mark.asyncio(loop_scope="module")

ASK = "codeloupe.server.ask"
QUESTION = "what does Client.fetch do when a connection fails?"


@pytest.fixture(scope="module")
def llm():
    with LLMServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("lsp-ask"))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path, llm: LLMServer):
    await start(lsp_client, repo, {"llmEndpoint": llm.url, "llmModel": "fake-coder",
                                   "askContextTokens": 800})
    yield
    await stop(lsp_client)


async def _ask(client: LanguageClient, args: dict, token: str | None = None):
    if token is not None:
        client.progress_reports[token] = []  # the client made this token: it knows it
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=ASK, arguments=[args], work_done_token=token))


async def test_ask_streams_the_answer_through_progress(client: LanguageClient,
                                                       llm: LLMServer) -> None:
    result = await _ask(client, {"question": QUESTION}, token="ask-1")
    assert set(result) == {"answer", "sources", "unverified_citations", "model",
                           "context_tokens", "citations", "snippets", "state"}
    assert result["state"] == "ready"
    assert result["model"] == "fake-coder" and 0 < result["context_tokens"] <= 800
    assert result["sources"][0] == {"path": "src/shop/http.py", "start_line": 8, "end_line": 15,
                                    "qualified_name": "Client.fetch", "cited": True}
    assert result["unverified_citations"] == ["nowhere/else.py:7"]
    answer = result["answer"]
    assert [(c["text"], c["verified"], answer[c["start"]:c["end"]]) for c in result["citations"]] == [
        ("src/shop/http.py:8", True, "src/shop/http.py:8"),
        ("nowhere/else.py:7", False, "nowhere/else.py:7")]
    assert result["snippets"][0]["header"] == "src/shop/http.py:8-15 Client.fetch (method)"
    reports = client.progress_reports["ask-1"]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    middle = [r for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert "".join(r.message or "" for r in middle) == result["answer"]
    assert llm.chat_requests[-1]["body"]["stream"] is True
    prompt = llm.chat_requests[-1]["body"]["messages"][1]["content"]
    assert "## src/shop/http.py:8-15 Client.fetch (method)" in prompt


async def test_ask_makes_its_own_progress_token_when_the_client_gives_none(
        client: LanguageClient) -> None:
    before = set(client.progress_reports)
    result = await _ask(client, {"question": QUESTION, "contextTokens": 300})
    assert result["context_tokens"] <= 300
    [token] = [t for t in set(client.progress_reports) - before]
    assert str(token).startswith("codeloupe/ask/")
    reports = client.progress_reports[token]
    text = "".join(r.message or "" for r in reports if isinstance(r, types.WorkDoneProgressReport))
    assert text == result["answer"]


async def test_ask_is_cancellable(client: LanguageClient, llm: LLMServer) -> None:
    llm.script(Reply(text="slowly " * 500, chunk_delay_s=0.02))
    before = llm.disconnects
    task = asyncio.ensure_future(_ask(client, {"question": QUESTION}, token="ask-cancel"))
    deadline = time.monotonic() + 60
    while not any(isinstance(r, types.WorkDoneProgressReport)
                  for r in client.progress_reports.get("ask-cancel", [])):
        assert time.monotonic() < deadline, "no partial answer arrived"
        await asyncio.sleep(0.05)
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token="ask-cancel"))
    with pytest.raises(JsonRpcException) as info:
        await asyncio.wait_for(task, 10)
    assert info.value.code == -32800  # RequestCancelled
    assert isinstance(client.progress_reports["ask-cancel"][-1], types.WorkDoneProgressEnd)
    while llm.disconnects == before and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert llm.disconnects == before + 1  # the generation was stopped, not left running
    assert (await command(client, "codeloupe.server.status"))["state"] == "ready"


async def _settings_become(client: LanguageClient, settings: dict) -> dict:
    """Change the client's codeloupe settings and wait until the server uses them."""
    client.set_configuration(settings, section="codeloupe")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    deadline = time.monotonic() + 30  # a hang detector only
    while True:
        st = await command(client, "codeloupe.server.status")
        if all(st["settings"].get(k) == v for k, v in settings.items()):
            return st["settings"]
        assert time.monotonic() < deadline, f"the server did not take {settings}: {st['settings']}"
        await asyncio.sleep(0.05)


async def test_the_deadline_stops_an_endpoint_that_streams_forever(client: LanguageClient,
                                                                   llm: LLMServer) -> None:
    took = await _settings_become(client, {"llmDeadlineSeconds": 1, "llmMaxTokens": 500})
    assert took["llmDeadlineSeconds"] == 1 and took["llmMaxTokens"] == 500
    llm.script(Reply(forever=True, chunk_delay_s=0.01))  # only the deadline can end it
    before = llm.disconnects
    try:
        result = await asyncio.wait_for(_ask(client, {"question": QUESTION}, token="ask-forever"),
                                        120)  # a hang detector only
    finally:
        await _settings_become(client, {"llmDeadlineSeconds": None, "llmMaxTokens": None})
    assert llm.chat_requests[-1]["body"]["max_tokens"] == 500
    assert result["cut_off"] == "deadline"
    assert "cut off at the deadline of 1s" in result["note"]
    assert result["answer"].startswith("Client.fetch does the work (see src/shop/http.py:8)")
    assert result["unverified_citations"] == ["nowhere/else.py:7"]  # the partial answer's, checked
    assert result["sources"][0]["cited"]
    reports = client.progress_reports["ask-forever"]
    streamed = "".join(r.message or "" for r in reports if isinstance(r, types.WorkDoneProgressReport))
    assert streamed == result["answer"]
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert "deadline" in (reports[-1].message or "")
    assert llm.wait_for(lambda: llm.disconnects == before + 1)  # the connection was closed


async def test_endpoint_failures_are_request_failed_errors(client: LanguageClient,
                                                          llm: LLMServer) -> None:
    llm.script(*[Reply(status=500, headers={"Retry-After": "0"})] * 4)
    with pytest.raises(JsonRpcException, match=r"failed with 500 .* after 4 attempts") as info:
        await _ask(client, {"question": QUESTION})
    assert info.value.code == -32803  # RequestFailed


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({}, "'question' is required"),
        ({"question": 3}, "'question' must be a string"),
        ({"question": "  "}, "'question' must not be empty"),
        ({"question": "x", "contextTokens": 10}, "'contextTokens' must be at least 100"),
        ({"question": "x", "k": 3}, "unknown argument 'k'"),
    ],
)
async def test_bad_ask_arguments_name_the_field(client: LanguageClient, arguments: dict,
                                                named: str) -> None:
    with pytest.raises(JsonRpcException, match=named) as info:
        await command(client, ASK, arguments)
    assert info.value.code == -32602


async def test_cancel_request_stops_the_generation(client: LanguageClient, llm: LLMServer) -> None:
    llm.script(Reply(text="slowly " * 500, chunk_delay_s=0.02))
    before = llm.disconnects
    pending = set(client.protocol._request_futures)
    task = asyncio.ensure_future(_ask(client, {"question": QUESTION}, token="ask-cancel-request"))
    deadline = time.monotonic() + 60
    while not any(isinstance(r, types.WorkDoneProgressReport)
                  for r in client.progress_reports.get("ask-cancel-request", [])):
        assert time.monotonic() < deadline, "no partial answer arrived"
        await asyncio.sleep(0.05)
    [msg_id] = set(client.protocol._request_futures) - pending
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    with pytest.raises(JsonRpcException) as info:
        await asyncio.wait_for(task, 10)
    assert info.value.code == -32800
    while llm.disconnects == before and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert llm.disconnects == before + 1


CITATIONS = "codeloupe.server.citations"


def _utf16(text: str, start: int, end: int) -> str:
    return text.encode("utf-16-le")[2 * start : 2 * end].decode("utf-16-le")


async def test_an_answer_written_elsewhere_is_checked_against_the_context_sent(
        client: LanguageClient, llm: LLMServer) -> None:
    await _settings_become(client, {"llmEndpoint": None})
    try:
        result = await _ask(client, {"question": QUESTION})
    finally:
        await _settings_become(client, {"llmEndpoint": llm.url})
    assert result["answer"] is None and result["citations"] == []
    # what a client's own model gets: the server's prompt, around the context it assembled
    system, user = result["messages"]
    assert system["role"] == "system" and "path:line" in system["content"]
    assert user["role"] == "user" and result["context"] in user["content"]
    assert user["content"].rstrip().endswith(f"Question: {QUESTION}")
    fetch = result["snippets"][0]
    assert fetch["header"] == "src/shop/http.py:8-15 Client.fetch (method)"
    assert {"line": 5, "text": "class Client:"} in fetch["lines"]  # the method's class header
    assert {"line": 12, "text": "                return self.send(url)"} in fetch["lines"]
    sent = {x["line"] for s in result["snippets"] if s["path"] == "src/shop/http.py"
            for x in s["lines"] if x["line"]}
    unsent = next(n for n in range(1, 100) if n not in sent)
    answer = ("🔁 It retries in `src/shop/http.py:12` (see http.py:L9–L10), calls "
              f"src/shop/http.py:{unsent} and src/shop/db.py:40.")
    checked = await command(client, CITATIONS, {"answer": answer,
                                                "contextId": result["context_id"]})
    assert checked["state"] == "ready"
    assert [(c["text"], c["path"], c["start_line"], c["end_line"], c["verified"])
            for c in checked["citations"]] == [
        ("src/shop/http.py:12", "src/shop/http.py", 12, 12, True),
        ("http.py:L9–L10", "src/shop/http.py", 9, 10, True),
        (f"src/shop/http.py:{unsent}", "src/shop/http.py", unsent, unsent, False),  # not sent
        ("src/shop/db.py:40", "src/shop/db.py", 40, 40, False)]
    for c in checked["citations"]:  # offsets in UTF-16 code units: 🔁 counts two
        assert _utf16(answer, c["start"], c["end"]) == c["text"]
    assert checked["citations"][0]["start"] == answer.index("src/shop") + 1
    assert checked["unverified_citations"] == [f"src/shop/http.py:{unsent}", "src/shop/db.py:40"]
    assert checked["sources"][0] == {"path": "src/shop/http.py", "start_line": 8,
                                     "end_line": 15, "qualified_name": "Client.fetch",
                                     "cited": True}
    assert len(checked["sources"]) == len(result["sources"])


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"contextId": "x"}, "'answer' is required"),
        ({"answer": "a.py:1"}, "'contextId' is required"),
        ({"answer": 3, "contextId": "x"}, "'answer' must be a string"),
        ({"answer": "a.py:1", "contextId": "0123456789abcdef"}, "'contextId' '0123456789abcdef' "
                                                                "is not one of the last 32"),
        ({"answer": "a" * 1_000_001, "contextId": "x"}, "'answer' must be at most 1,000,000"),
        ({"answer": "a.py:1", "contextId": "x", "sources": []}, "unknown argument 'sources'"),
    ],
)
async def test_bad_citations_arguments_name_the_field(client: LanguageClient, arguments: dict,
                                                      named: str) -> None:
    with pytest.raises(JsonRpcException, match=named) as info:
        await command(client, CITATIONS, arguments)
    assert info.value.code == -32602


async def test_ask_lets_the_model_call_the_tools_on_the_servers_own_index(
        client: LanguageClient, llm: LLMServer) -> None:
    """The model calls `symbol` through the OpenAI tools API; the server answers it from its
    own index and buffers, streams the answer, and verifies a citation only the tool showed."""
    def model(request: dict) -> dict:
        tool = [m for m in request["messages"] if m["role"] == "tool"]
        if not tool:
            return {"tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "symbol", "arguments": '{"target": "Greeter.Greet"}'}}]}
        return {"content": "Headers are split by parse_header; a greeting is formatted at "
                           "cmd/main.go:10, which the first context did not hold."}

    llm.respond = model
    try:
        result = await _ask(client, {"question": "how are HTTP header lines split?",
                                     "contextTokens": 120}, token="ask-tools")
    finally:
        llm.respond = None
    assert "cmd/main.go" not in llm.chat_requests[-2]["body"]["messages"][1]["content"]
    assert result["tool_calls"] == [{"tool": "symbol", "arguments": '{"target": "Greeter.Greet"}',
                                     "tokens": result["tool_calls"][0]["tokens"]}]
    assert [(c["text"], c["verified"]) for c in result["citations"]] == [("cmd/main.go:10", True)]
    middle = [r for r in client.progress_reports["ask-tools"] if isinstance(r, types.WorkDoneProgressReport)]
    assert "".join(r.message or "" for r in middle) == result["answer"]
