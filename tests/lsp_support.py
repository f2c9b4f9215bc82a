"""Helpers for the end-to-end language server tests (pytest-lsp over stdio)."""

from __future__ import annotations

import asyncio
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
