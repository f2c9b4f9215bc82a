"""Helpers for the end-to-end language server tests (pytest-lsp over stdio)."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

DATA = Path(__file__).parent / "data" / "lsp" / "repo"
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "codeloupe", "serve"])
READY_TIMEOUT_S = 90.0


def copy_repo(tmp: Path) -> Path:
    root = tmp / "repo"
    shutil.copytree(DATA, root)
    return root.resolve()


def uri(root: Path, rel: str) -> str:
    return (root / rel).as_uri()


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def position(text: str, needle: str, nth: int = 0, offset: int = 0) -> types.Position:
    """The wire position (UTF-16 columns) of the nth occurrence of ``needle`` plus
    ``offset`` characters."""
    idx = -1
    for _ in range(nth + 1):
        idx = text.index(needle, idx + 1)
    idx += offset
    line = text.count("\n", 0, idx)
    line_start = text.rfind("\n", 0, idx) + 1
    return types.Position(line=line, character=utf16(text[line_start:idx]))


async def command(client: LanguageClient, name: str, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(arguments))
    )


def accept_registrations(client: LanguageClient) -> None:
    """Answer client/registerCapability and workspace/codeLens/refresh as an editor
    does (pytest-lsp's client does not), keeping what was registered in
    ``client.registrations`` and counting refreshes in ``client.lens_refreshes``."""
    client.registrations = []
    client.lens_refreshes = 0

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def refresh_lenses(params: None) -> None:
        client.lens_refreshes += 1


async def start(client: LanguageClient, root: Path, options: dict | None = None,
                capabilities: str = "visual-studio-code", wait: bool = True) -> types.InitializeResult:
    """Initialize like VS Code would, then (``wait``) until the first index run is done."""
    accept_registrations(client)
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(capabilities),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=options,
        )
    )
    if wait:
        await wait_ready(client)
    return result


async def wait_ready(client: LanguageClient) -> dict:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        st = await command(client, "codeloupe.server.status", {})
        if st["state"] == "ready":
            return st
        if st["state"] == "failed":
            raise AssertionError(f"indexing failed: {st}")
        if time.monotonic() > deadline:
            raise AssertionError(f"the index was not ready after {READY_TIMEOUT_S}s: {st}")
        await asyncio.sleep(0.1)


def open_document(client: LanguageClient, root: Path, rel: str, version: int = 1) -> str:
    text = (root / rel).read_text(encoding="utf-8")
    language = {".py": "python", ".js": "javascript", ".go": "go"}[Path(rel).suffix]
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri(root, rel), language_id=language,
                                             version=version, text=text)))
    return text


def flatten(symbols: list[types.DocumentSymbol], prefix: str = "") -> dict[str, types.DocumentSymbol]:
    """{"Class.method": symbol} over a hierarchical documentSymbol answer."""
    out = {}
    for s in symbols:
        name = f"{prefix}{s.name}"
        out[name] = s
        out.update(flatten(s.children or [], name + "."))
    return out


async def stop(client: LanguageClient) -> None:
    """Shut the server down the clean way and check that it exited with 0."""
    await client.shutdown_session()
    server = client._server  # the subprocess pytest-lsp started
    assert server is not None and server.returncode == 0, f"server exit code {server and server.returncode}"


async def end(client: LanguageClient) -> None:
    """End a client of its own; a server still running (a failed test) is killed, not
    waited for."""
    server = client._server
    if server is not None and server.returncode is None:
        server.kill()
    await client.stop()


async def incoming_calls(client: LanguageClient, root: Path, rel: str,
                         definition: str) -> list[types.CallHierarchyIncomingCall]:
    """Call hierarchy's incoming calls of the function whose ``def NAME`` line is given."""
    text = (root / rel).read_text()
    [item] = await client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(
        text_document=types.TextDocumentIdentifier(uri=uri(root, rel)),
        position=position(text, definition, offset=5)))
    return await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item))


def hold_configuration(client: LanguageClient) -> asyncio.Event:
    """Make the client hold its answer to ``workspace/configuration`` until the event
    is set. The server asks for it in ``initialized`` before it opens any index, so
    while it is held every folder is deterministically still ``opening``."""
    release = asyncio.Event()
    features = client.protocol.fm.features
    answer = features[types.WORKSPACE_CONFIGURATION]

    async def configuration(params: types.ConfigurationParams) -> list:
        await release.wait()
        return answer(params)

    features[types.WORKSPACE_CONFIGURATION] = configuration
    return release


async def wait_for_progress_end(client: LanguageClient, title: str) -> types.WorkDoneProgressEnd:
    """The `end` of the first `$/progress` run whose `begin` title holds ``title``,
    waiting for it (polling what the client received; generous deadline)."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        for reports in list(client.progress_reports.values()):
            if (reports and isinstance(reports[0], types.WorkDoneProgressBegin)
                    and title in reports[0].title and isinstance(reports[-1], types.WorkDoneProgressEnd)):
                return reports[-1]
        assert time.monotonic() < deadline, f"no progress {title!r} ended: {client.progress_reports}"
        await asyncio.sleep(0.02)


async def until(probe: Any, done: Any, what: str, timeout: float = READY_TIMEOUT_S) -> Any:
    """Call the coroutine function ``probe`` until ``done(its value)``; its last value.
    Waiting on a state: the deadline is a hang guard, not a bound on how fast."""
    deadline = time.monotonic() + timeout
    while True:
        value = await probe()
        if done(value):
            return value
        assert time.monotonic() < deadline, f"{what}: still {value!r} after {timeout:.0f}s"
        await asyncio.sleep(0.05)


class RawServer:
    """`codeloupe serve` over stdio without an LSP library in between, for messages no
    client library would send: bytes are framed (or not) by the caller, and answers
    are matched by id. Requests from the server are answered with null (a list of
    nulls for workspace/configuration), or by ``reply_to[method](request)``: the
    message to send back, or None to send nothing."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.answers: dict[Any, dict] = {}
        self.null_id_errors: list[dict] = []  # answers to messages whose id was unreadable
        self.notifications: list[dict] = []
        self.server_requests: list[dict] = []
        self.reply_to: dict[str, Any] = {}
        self._arrived = asyncio.Condition()
        self._reader = asyncio.ensure_future(self._read())
        self._next_id = 0

    @classmethod
    async def start(cls, *args: str) -> RawServer:
        proc = await asyncio.create_subprocess_exec(
            *SERVER.server_command, *args, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        return cls(proc)

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = await out.readline()
                if not line:
                    return
                if not line.strip():
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            assert length is not None
            message = json.loads(await out.readexactly(length))
            if "method" in message and "id" in message:  # a request from the server
                self.server_requests.append(message)
                if message["method"] in self.reply_to:
                    reply = self.reply_to[message["method"]](message)
                    if reply is not None:
                        self.send(reply)
                    continue
                result = [None] * len(message["params"]["items"]) \
                    if message["method"] == types.WORKSPACE_CONFIGURATION else None
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
                continue
            async with self._arrived:
                if "method" in message:
                    self.notifications.append(message)
                elif message.get("id") is None:
                    self.null_id_errors.append(message)
                else:
                    self.answers[message["id"]] = message
                self._arrived.notify_all()

    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    def send_body(self, body: bytes) -> None:
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, message: object) -> None:
        self.send_body(json.dumps(message).encode())

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    async def answer(self, msg_id: Any, timeout: float = READY_TIMEOUT_S) -> dict:
        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(lambda: msg_id in self.answers), timeout)
            return self.answers.pop(msg_id)

    async def null_id_error(self, timeout: float = READY_TIMEOUT_S) -> dict:
        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(lambda: self.null_id_errors), timeout)
            return self.null_id_errors.pop(0)

    async def request(self, method: str, params: Any = None) -> dict:
        msg_id = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return await self.answer(msg_id)

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def initialize(self, root: Path, options: dict | None = None,
                         capabilities: dict | None = None) -> dict:
        answer = await self.request(types.INITIALIZE, {
            "processId": None, "capabilities": capabilities or {}, "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": options})
        self.notify(types.INITIALIZED, {})
        return answer

    async def close(self) -> int:
        """`shutdown`, `exit`; the exit status (the process is killed if it hangs)."""
        try:
            if self.proc.returncode is None:
                await asyncio.wait_for(self.request(types.SHUTDOWN), 30)
                self.notify(types.EXIT)
                await asyncio.wait_for(self.proc.wait(), 30)
        finally:
            if self.proc.returncode is None:
                self.proc.kill()
                await self.proc.wait()
            self._reader.cancel()
        return self.proc.returncode


async def command_raw(server: RawServer, name: str, *arguments: Any) -> Any:
    """A ``codeloupe.server.*`` command's result through a ``RawServer``."""
    answer = await server.request("workspace/executeCommand", {"command": name, "arguments": list(arguments)})
    assert "result" in answer, answer
    return answer["result"]
