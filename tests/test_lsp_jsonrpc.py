"""JSON-RPC 2.0 as the specification says: every request gets an answer, with the
error code it names (-32700 parse error, -32600 invalid request, -32602 invalid
params naming the field, -32002 before initialize), and no message ends the
server or stops it answering. Messages no client library would send, written as
bytes (``RawServer``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .lsp_support import RawServer, command_raw, copy_repo, until

pytestmark = pytest.mark.asyncio(loop_scope="module")

STATUS = {"command": "codeloupe.server.status", "arguments": [{}]}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("lsp-jsonrpc"))


@pytest.fixture(scope="module")
async def server(repo: Path):
    srv = await RawServer.start()
    answer = await srv.initialize(repo, {"embeddings": False})
    assert "result" in answer and answer["result"]["serverInfo"]["name"] == "codeloupe"
    yield srv
    assert await srv.close() == 0


async def still_answers(server: RawServer) -> None:
    """A valid request after the bad one gets its answer."""
    answer = await server.request("workspace/executeCommand", STATUS)
    assert answer["result"]["version"], answer


async def test_a_body_that_is_not_json_is_a_parse_error(server: RawServer) -> None:
    server.send_body(b'{"jsonrpc": "2.0", "id": 1, "method": ')
    error = await server.null_id_error()
    assert error["id"] is None and error["error"]["code"] == -32700
    assert "not JSON" in error["error"]["message"]
    server.send_body(b"\xff\xfe\x00garbage")  # not UTF-8 either
    assert (await server.null_id_error())["error"]["code"] == -32700
    await still_answers(server)


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ({"id": 11, "method": "workspace/executeCommand", "params": STATUS}, "'jsonrpc' must be \"2.0\""),
        ({"jsonrpc": "1.0", "id": 12, "method": "workspace/executeCommand", "params": STATUS},
         "'jsonrpc' must be \"2.0\", got '1.0'"),
        ({"jsonrpc": "2.0", "id": 13}, "needs a 'method'"),
        ({"jsonrpc": "2.0", "id": 14, "params": {}}, "needs a 'method'"),
        ({"jsonrpc": "2.0", "id": 15, "method": 7}, "'method' must be a string"),
        ({"jsonrpc": "2.0", "id": 16, "method": "textDocument/didClose",
          "params": {"textDocument": {"uri": "file:///nowhere.py"}}},
         "textDocument/didClose is a notification: send it without an 'id'"),
    ],
)
async def test_invalid_requests_get_an_invalid_request_error(server: RawServer, message: dict,
                                                             named: str) -> None:
    server.send(message)
    answer = await server.answer(message["id"])
    assert answer["error"]["code"] == -32600, answer
    assert named in answer["error"]["message"]
    assert "data" not in answer["error"]  # no traceback
    await still_answers(server)


@pytest.mark.parametrize(
    "message",
    [
        [{"jsonrpc": "2.0", "id": 21, "method": "shutdown"}],  # a batch (LSP has none)
        "just a string",
        {"jsonrpc": "2.0", "id": [21], "method": "shutdown"},  # an id of the wrong type
        {"jsonrpc": "2.0", "id": None, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": 5},  # not a notification either
    ],
)
async def test_messages_without_a_usable_id_get_an_error_with_id_null(server: RawServer,
                                                                     message: object) -> None:
    server.send(message)
    error = await server.null_id_error()
    assert error["error"]["code"] == -32600 and error["id"] is None
    await still_answers(server)  # (and the batch's shutdown did not run)


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"textDocument": {"uri": "file:///x.py"}, "position": {"line": -1, "character": 0}},
         "Position.line should be in range"),
        ({"textDocument": {"uri": "file:///x.py"}, "position": {"line": [], "character": 0}},
         "$.params.position.line"),
        ({"textDocument": {"uri": "file:///x.py"}}, "required field missing @ $.params.position"),
        ("a string", "'params' must be an object or an array"),
    ],
)
async def test_params_that_do_not_fit_the_method_name_the_field(server: RawServer, params: object,
                                                                named: str) -> None:
    msg_id = server.new_id()
    server.send({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover", "params": params})
    answer = await server.answer(msg_id)
    assert answer["error"]["code"] == -32602, answer
    assert named in answer["error"]["message"]
    await still_answers(server)


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"query": "x", "k": 10**15}, "'k' must be at most 1,000"),
        ({"query": "\ud800 lone surrogate"}, "'query' must be valid Unicode text"),
        ({"query": "x", "path": "\udfff"}, "'path' must be valid Unicode text"),
        ({"query": "x", "k": 1e400}, "'k' must be an integer"),  # Infinity, as Python reads it
    ],
)
async def test_bad_command_values_are_invalid_params(server: RawServer, arguments: dict,
                                                     named: str) -> None:
    answer = await server.request("workspace/executeCommand",
                                  {"command": "codeloupe.server.search", "arguments": [arguments]})
    assert answer["error"]["code"] == -32602, answer
    assert named in answer["error"]["message"]
    await still_answers(server)


async def test_an_unknown_method_is_method_not_found(server: RawServer) -> None:
    answer = await server.request("codeloupe/noSuchThing")
    assert answer["error"]["code"] == -32601
    await still_answers(server)


async def test_a_second_initialize_is_refused(server: RawServer, repo: Path) -> None:
    answer = await server.request("initialize", {"capabilities": {}, "rootUri": repo.as_uri()})
    assert answer["error"]["code"] == -32600 and "sent already" in answer["error"]["message"]
    await still_answers(server)


async def test_framing_damage_does_not_end_the_server(server: RawServer) -> None:
    # a header line far past asyncio's line limit, then a message that is fine
    server.send_bytes(b"X-Junk: " + b"a" * 3_000_000 + b"\r\n")
    server.send_bytes(b"\r\n")
    await still_answers(server)


async def test_requests_before_initialize_and_after_shutdown(repo: Path) -> None:
    srv = await RawServer.start()
    try:
        early = await srv.request("workspace/executeCommand", STATUS)
        assert early["error"]["code"] == -32002, early
        await srv.initialize(repo, {"embeddings": False})
        assert "result" in await srv.request("workspace/executeCommand", STATUS)
        shutdown = await srv.request("shutdown")
        assert "result" in shutdown and shutdown["result"] is None, shutdown
        late = await srv.request("workspace/executeCommand", STATUS)
        assert late["error"]["code"] == -32600 and "shutting down" in late["error"]["message"]
    finally:
        assert await srv.close() == 0


@pytest.mark.parametrize(
    "answer",
    [
        {"jsonrpc": "1.0", "result": [{}]},  # not JSON-RPC 2.0
        {"jsonrpc": "2.0", "result": 5},  # not the type asked for (a list)
        {"jsonrpc": "2.0", "error": "an error that is a string"},
    ],
    ids=["version", "type", "error"],
)
async def test_a_broken_answer_to_the_servers_own_request_does_not_stop_it(
        tmp_path: Path, answer: dict) -> None:
    """The server asks for its settings before the first index run: an answer it
    cannot read fails that request (the options from initialize apply) instead of
    leaving the run waiting for ever."""
    root = copy_repo(tmp_path)
    srv = await RawServer.start()
    try:
        srv.reply_to["workspace/configuration"] = lambda request: {**answer, "id": request["id"]}
        await srv.initialize(root, {"embeddings": False}, capabilities={"workspace": {"configuration": True}})
        st = await until(lambda: command_raw(srv, "codeloupe.server.status", {}),
                         lambda st: st["state"] in ("ready", "failed"), "the first index run")
        assert st["state"] == "ready" and st["folders"][0]["files"] == 5, st
        assert [r["method"] for r in srv.server_requests] == ["workspace/configuration"]
    finally:
        assert await srv.close() == 0
