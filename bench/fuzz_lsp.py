"""Hostile messages against a real `codeloupe serve` over stdio: does anything end
it, leave a request unanswered, or get an internal error?

A seeded stream of messages (bad JSON, wrong versions, missing and mistyped fields,
huge numbers and strings, unknown methods, documents never opened, positions out
of range, lone surrogates, deep nesting, notifications sent with an id, requests
sent as notifications, batches, responses to nothing, framing damage, odd but
valid edit sequences, commands with random arguments), in batches; after each
batch a valid request must be answered, and every request of the batch that has
a usable id must get an answer. The client answers the server's own requests
(configuration, progress, registrations), now and then with a wrong answer.

    python bench/fuzz_lsp.py                        # 2,000 messages, seed 1 (about 15 s)
    python bench/fuzz_lsp.py --messages 500 --seed 7 --no-embeddings
    python bench/fuzz_lsp.py --during-start           # while the index is still opening

Prints one row per kind of message: how many were sent, how many requests got a
result, the error codes they got, and how many got no answer; then crashes (the
process ended), hangs (a request with no answer within --hang-s, or a check
request that failed), internal errors (-32603) and the server's resident memory.
Last, every buffer is closed and a reindex runs: the index must hold what a server
that was never fuzzed holds for the same files. Exits 1 when there was a crash, a
hang, an internal error or a difference.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LANCE_LOG", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "lsp" / "repo"
FILES = ["src/shop/cart.py", "src/shop/http.py", "src/shop/text.py", "web/upload.js", "cmd/main.go"]
COMMANDS = ["codeloupe.server.search", "codeloupe.server.status", "codeloupe.server.reindex",
            "codeloupe.server.callChain", "codeloupe.server.ask"]
CODES = [-32600, -32601, -32602, -32800, -32803]  # answers by id (-32700 has id null)
CAPABILITIES = {
    "window": {"workDoneProgress": True},
    "workspace": {"configuration": True, "workspaceFolders": True,
                  "didChangeWatchedFiles": {"dynamicRegistration": True},
                  "codeLens": {"refreshSupport": True}},
    "textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True}},
}


class Server:
    """The server process and a raw JSON-RPC reader: answers matched by id."""

    def __init__(self, proc: asyncio.subprocess.Process, rng: random.Random) -> None:
        self.proc = proc
        self.rng = rng
        self.answers: dict[Any, dict] = {}
        self.null_id: Counter[object] = Counter()  # error codes of answers with id null
        self.server_requests = 0
        self.arrived = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, log: Path, rng: random.Random) -> Server:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "codeloupe", "serve", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=log.open("ab"), limit=2**24)
        return cls(proc, rng)

    @property
    def alive(self) -> bool:
        return self.proc.returncode is None

    def write(self, data: bytes) -> None:
        if self.alive and self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.write(data)

    def send_body(self, body: bytes) -> None:
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, message: object) -> None:
        self.send_body(json.dumps(message).encode())

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
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
                message = json.loads(await out.readexactly(length or 0))
                if isinstance(message, dict) and "method" in message and "id" in message:
                    self.server_requests += 1
                    self._answer_server(message)
                elif isinstance(message, dict) and "method" not in message:
                    msg_id = message.get("id")
                    if isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool):
                        self.answers[msg_id] = message
                    else:  # null (or, from a server that echoes a bad id, that id)
                        self.null_id[(message.get("error") or {}).get("code")] += 1
                    self.arrived.set()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            return

    def _answer_server(self, message: dict) -> None:
        """Answer a request from the server; one in five answers is wrong."""
        msg_id, method = message["id"], message["method"]
        if method == "workspace/configuration":
            n = len(message.get("params", {}).get("items", []))
            good: Any = [self.rng.choice([{}, None, {"embedDebounceMs": 200}])] * n
        else:
            good = None
        if self.rng.random() < 0.8:
            self.send({"jsonrpc": "2.0", "id": msg_id, "result": good})
            return
        self.send(self.rng.choice([
            {"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32603, "message": "client says no"}},
            {"jsonrpc": "2.0", "id": msg_id, "result": "not what was asked"},
            {"jsonrpc": "2.0", "id": msg_id, "result": [[{"exclude": 5, "model": []}]]},
            {"jsonrpc": "2.0", "id": msg_id, "error": "an error that is a string"},
            {"jsonrpc": "2.0", "id": msg_id},
            {"jsonrpc": "1.0", "id": msg_id, "result": None},
        ]))

    async def answer(self, msg_id: Any, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while msg_id not in self.answers:
            left = deadline - time.monotonic()
            if left <= 0 or not self.alive:
                return None
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), min(left, 1.0))
            except TimeoutError:
                pass
        return self.answers.pop(msg_id)

    async def rss_mb(self) -> float | None:
        try:
            with open(f"/proc/{self.proc.pid}/statm") as fh:
                return round(int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
        except (OSError, ValueError, IndexError):
            return None


# --- the messages ----------------------------------------------------------------------------


class Fuzz:
    """Makes the messages: each is (kind, bytes to send, id to expect an answer for)."""

    def __init__(self, rng: random.Random, root: Path) -> None:
        self.rng = rng
        self.root = root
        self.next_id = 1000
        self.versions: dict[str, int] = {}
        self.opened: set[str] = set()  # URIs a didOpen named (closed again at the end)
        self.texts = {rel: (root / rel).read_text(encoding="utf-8") for rel in FILES}

    def new_id(self) -> int | str:
        self.next_id += 1
        return self.next_id if self.rng.random() < 0.8 else f"fuzz-{self.next_id}"

    # random values ---------------------------------------------------------------------

    def uri(self) -> str:
        r = self.rng.random()
        if r < 0.5:
            return (self.root / self.rng.choice(FILES)).as_uri()
        return self.rng.choice([
            (self.root / "src/never_opened.py").as_uri(), (self.root / "no/such/dir.go").as_uri(),
            "file:///", "file:///etc/passwd", "http://example.com/a.py", "untitled:Untitled-1",
            "file:///%00%ff.py", "file://" + "/a" * 2000 + ".py", "", "not a uri", "\ud800.py",
            (self.root / "src/shop/../../../outside.py").as_uri(), (self.root / "src/é😀.py").as_uri(),
            (self.root / ".codeloupe/symbols.lance").as_uri(),
        ])

    def weird(self) -> Any:
        return self.rng.choice([
            None, True, -1, 0, 2**31, 2**63, -(2**63), 10**30, 1.5, float("nan"), "", "x" * 100_000,
            "\ud800", "\udfff\ud800", "\x00", [], [[[]]], {}, {"a": {"b": None}}, "😀" * 1000,
        ])

    def position(self) -> dict:
        if self.rng.random() < 0.5:
            return {"line": self.rng.randrange(40), "character": self.rng.randrange(80)}
        return {"line": self.rng.choice([0, 10**6, 2**31 - 1, 2**31, -1, 3]),
                "character": self.rng.choice([0, 10**6, 2**31 - 1, -5, 7])}

    def params(self, method: str) -> Any:
        doc = {"uri": self.uri()}
        if method in ("textDocument/hover", "textDocument/definition",
                      "textDocument/prepareCallHierarchy"):
            return {"textDocument": doc, "position": self.position()}
        if method == "textDocument/references":
            return {"textDocument": doc, "position": self.position(),
                    "context": {"includeDeclaration": self.rng.random() < 0.5}}
        if method in ("textDocument/documentSymbol", "textDocument/codeLens"):
            return {"textDocument": doc}
        if method in ("callHierarchy/incomingCalls", "callHierarchy/outgoingCalls"):
            pos = self.position()
            rng = {"start": pos, "end": pos}
            return {"item": {"name": self.rng.choice(["fetch", "send", "", "\ud800"]), "kind": 12,
                             "uri": doc["uri"], "range": rng, "selectionRange": rng,
                             "data": self.rng.choice([None, {"id": "src/shop/http.py::Client.fetch"},
                                                      {"id": 5}, "x", [1]])}}
        if method == "workspace/symbol":
            return {"query": self.rng.choice(["fetch", "", "a" * 10_000, "\ud800", "retry upload",
                                              "*", "%", "'; drop table", "😀"])}
        if method == "workspace/executeCommand":
            return {"command": self.rng.choice(COMMANDS + ["codeloupe.server.nope", ""]),
                    "arguments": self.command_args()}
        return {}

    def command_args(self) -> Any:
        r = self.rng.random()
        if r < 0.1:
            return self.rng.choice([[], None, [1, 2], ["x"], [None], "args"])
        base = self.rng.choice([
            {"query": "retry a failed upload", "k": 3},
            {"query": "fetch", "mode": "fts"},
            {"from": "checkout", "to": "Client.send"},
            {"question": "what does checkout do?"},
            {},
            {"wait": False},
        ])
        base = dict(base)
        for _ in range(self.rng.randrange(3)):
            key = self.rng.choice(["query", "k", "lang", "path", "kind", "mode", "snippets", "folder",
                                   "from", "to", "maxDepth", "limit", "minConfidence", "question",
                                   "contextTokens", "wait", "unknown", "\ud800"])
            base[key] = self.rng.choice([self.weird(), 10**15, 0, "python", "src/**/*.py", "**",
                                         "[", "fts", "vector", 1000, 64, 0.5, "Client.fetch"])
        return [base]

    # the kinds of message --------------------------------------------------------------

    def request(self, method: str, params: Any) -> tuple[bytes, Any]:
        msg_id = self.new_id()
        return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method,
                           "params": params}).encode(), msg_id

    def k_bad_json(self) -> tuple[bytes, Any]:
        return self.rng.choice([
            b"{", b"", b"null", b"[]", b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ",
            bytes(self.rng.randrange(256) for _ in range(64)), b"\xff\xfe{}", b"{'single': 1}",
            b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": ' + b"1" * 5000 + b"}",
            b'{"a": NaN}', b'"\\ud800"', b"{" * 3 + b"}" * 2,
        ]), None

    def k_wrong_version(self) -> tuple[bytes, Any]:
        msg_id = self.new_id()
        version = self.rng.choice([None, "1.0", 2.0, "2", ""])
        msg: dict[str, Any] = {"id": msg_id, "method": "workspace/symbol", "params": {"query": "x"}}
        if version is not None:
            msg["jsonrpc"] = version
        return json.dumps(msg).encode(), msg_id

    def k_missing_fields(self) -> tuple[bytes, Any]:
        msg_id = self.new_id()
        msg = self.rng.choice([
            {"jsonrpc": "2.0", "id": msg_id},
            {"jsonrpc": "2.0", "id": msg_id, "params": {}},
            {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover"},
            {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover", "params": {}},
            {"jsonrpc": "2.0", "id": msg_id, "method": "workspace/executeCommand", "params": {}},
            {"jsonrpc": "2.0", "id": msg_id, "method": "callHierarchy/incomingCalls", "params": {"item": {}}},
        ])
        return json.dumps(msg).encode(), msg_id

    def k_wrong_types(self) -> tuple[bytes, Any]:
        method = self.rng.choice(["textDocument/hover", "textDocument/references",
                                  "textDocument/documentSymbol", "workspace/symbol",
                                  "workspace/executeCommand", "callHierarchy/outgoingCalls"])
        params = self.params(method)
        self._mutate(params)
        return self.request(method, params)

    def _mutate(self, value: Any) -> None:
        if isinstance(value, dict) and value:
            key = self.rng.choice(list(value))
            if isinstance(value[key], (dict, list)) and value[key] and self.rng.random() < 0.6:
                self._mutate(value[key])
            else:
                value[key] = self.weird()

    def k_huge_values(self) -> tuple[bytes, Any]:
        choice = self.rng.randrange(4)
        if choice == 0:
            return self.request("workspace/executeCommand", {"command": "codeloupe.server.search",
                                "arguments": [{"query": "x", "k": self.rng.choice([10**15, 2**63, 10**400])}]})
        if choice == 1:
            return self.request("workspace/executeCommand", {"command": "codeloupe.server.callChain",
                                "arguments": [{"from": "checkout", "to": "send", "maxDepth": 10**9,
                                               "limit": 10**12}]})
        if choice == 2:
            return self.request("workspace/symbol", {"query": "q" * self.rng.choice([10**5, 10**6])})
        return self.request("textDocument/hover", {"textDocument": {"uri": self.uri()},
                            "position": {"line": 2**31 - 1, "character": 2**31 - 1}})

    def k_unknown_method(self) -> tuple[bytes, Any]:
        method = self.rng.choice(["foo/bar", "", "textDocument/completion", "$/unknown",
                                  "codeloupe/secret", "textDocument/formatting", "x" * 5000,
                                  "workspace/executeCommand/", "textdocument/hover"])
        if self.rng.random() < 0.3:
            return json.dumps({"jsonrpc": "2.0", "method": method, "params": {}}).encode(), None
        return self.request(method, self.rng.choice([{}, None, [1], {"a": 1}]))

    def k_never_opened(self) -> tuple[bytes, Any]:
        method = self.rng.choice(["textDocument/hover", "textDocument/definition",
                                  "textDocument/references", "textDocument/documentSymbol",
                                  "textDocument/codeLens", "textDocument/prepareCallHierarchy",
                                  "callHierarchy/incomingCalls"])
        return self.request(method, self.params(method))

    def k_out_of_range(self) -> tuple[bytes, Any]:
        method = self.rng.choice(["textDocument/hover", "textDocument/definition",
                                  "textDocument/prepareCallHierarchy", "textDocument/references"])
        params = self.params(method)
        params["position"] = {"line": self.rng.choice([500, 10**6, 2**31 - 1]),
                              "character": self.rng.choice([0, 900, 2**31 - 1])}
        if "context" not in params and method == "textDocument/references":
            params["context"] = {"includeDeclaration": True}
        return self.request(method, params)

    def k_surrogates(self) -> tuple[bytes, Any]:
        choice = self.rng.randrange(4)
        if choice == 0:
            return self.request("workspace/executeCommand", {"command": "codeloupe.server.search",
                                "arguments": [{"query": "\ud800 retry", "lang": "\udfff"}]})
        if choice == 1:
            return self.request("workspace/symbol", {"query": "\ud83d"})
        if choice == 2:
            return self.request("textDocument/hover", {"textDocument": {"uri": "file:///\ud800.py"},
                                                       "position": {"line": 0, "character": 0}})
        rel = self.rng.choice(FILES)
        return self._notify("textDocument/didOpen", {"textDocument": {
            "uri": (self.root / rel).as_uri(), "languageId": "python",
            "version": self._version(rel), "text": "def f\ud800():\n    pass\n"}})

    def k_deep_nesting(self) -> tuple[bytes, Any]:
        """Nesting past the decoder's recursion limit is a parse error (id null);
        within it, the request is answered by its id."""
        depth = self.rng.choice([200, 5000, 100_000])
        msg_id = self.new_id()
        nested = b"[" * depth + b"]" * depth
        head = b'{"jsonrpc": "2.0", "id": ' + json.dumps(msg_id).encode()
        if self.rng.random() < 0.5:
            body = head + b', "method": "workspace/symbol", "params": {"query": ' + nested + b"}}"
        else:
            body = (head + b', "method": "workspace/executeCommand", "params": {"command": '
                    b'"codeloupe.server.search", "arguments": [{"query": "x", "k": ' + nested + b"}]}}")
        return body, msg_id if depth < 1000 else None

    def k_notification_with_id(self) -> tuple[bytes, Any]:
        rel = self.rng.choice(FILES)
        method = self.rng.choice(["textDocument/didOpen", "textDocument/didClose",
                                  "textDocument/didSave", "initialized", "$/cancelRequest",
                                  "workspace/didChangeConfiguration"])
        params: Any = {"textDocument": {"uri": (self.root / rel).as_uri(), "languageId": "python",
                                        "version": 1, "text": self.texts[rel]}}
        return self.request(method, params)

    def k_request_as_notification(self) -> tuple[bytes, Any]:
        method = self.rng.choice(["textDocument/hover", "workspace/executeCommand", "shutdown",
                                  "initialize", "workspace/symbol"])
        return json.dumps({"jsonrpc": "2.0", "method": method, "params": self.params(method)}).encode(), None

    def k_bad_ids(self) -> tuple[bytes, Any]:
        msg_id = self.rng.choice([None, [1], {"a": 1}, 1.5, True, ""])
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "workspace/symbol",
                           "params": {"query": "x"}}).encode()
        return body, None  # ("" is a valid id, answered, but not unique: not waited for)

    def k_batch(self) -> tuple[bytes, Any]:
        return json.dumps(self.rng.choice([
            [], [1, 2], [{"jsonrpc": "2.0", "id": self.new_id(), "method": "workspace/symbol",
                          "params": {"query": "x"}}],
        ])).encode(), None

    def k_stray_response(self) -> tuple[bytes, Any]:
        return json.dumps(self.rng.choice([
            {"jsonrpc": "2.0", "id": 987654, "result": {"x": 1}},
            {"jsonrpc": "2.0", "id": "nobody", "error": {"code": 1, "message": "m"}},
            {"jsonrpc": "2.0", "id": 5, "error": {"code": "x"}},
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "client parse error"}},
        ])).encode(), None

    def k_cancel(self) -> tuple[bytes, Any]:
        method, params = self.rng.choice([
            ("$/cancelRequest", {"id": self.rng.choice([self.next_id, 1, "x", None, [1]])}),
            ("window/workDoneProgress/cancel", {"token": self.rng.choice(["nope", 5, None])}),
            ("$/setTrace", {"value": self.rng.choice(["off", "verbose", "loud", 3])}),
        ])
        return json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode(), None

    def _version(self, rel: str) -> int:
        self.versions[rel] = self.versions.get(rel, 0) + 1
        return self.versions[rel]

    def k_edits(self) -> tuple[bytes, Any]:
        rel = self.rng.choice(FILES + ["src/shop/scratch.py"])
        uri = (self.root / rel).as_uri()
        choice = self.rng.randrange(7)
        if choice == 0:
            text = self.texts.get(rel, "def scratch():\n    return 1\n")
            if self.rng.random() < 0.15:
                text = "def big(x):\n    return x\n" * 90_000  # 2.3 MB: over maxFileBytes
            return self._notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "python", "version": self._version(rel), "text": text}})
        if choice in (1, 2, 3):
            start, end = self.position(), self.position()
            if self.rng.random() < 0.7 and (start["line"], start["character"]) > (end["line"], end["character"]):
                start, end = end, start
            version = self._version(rel) if self.rng.random() < 0.8 else self.rng.choice([0, -1, 1])
            change: dict[str, Any] = {"range": {"start": start, "end": end},
                                      "text": self.rng.choice(["x", "\n", "", "def g():\n  pass\n",
                                                               "😀", "\r\n", "(" * 50, "\ud800"])}
            if self.rng.random() < 0.1:
                change = {"text": "def whole():\n    return 2\n"}
            return self._notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
        if choice == 4:
            return self._notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        if choice == 5:
            return self._notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        return self._notify("workspace/didChangeWatchedFiles", {"changes": [
            {"uri": self.rng.choice([uri, self.uri()]), "type": self.rng.choice([1, 2, 3, 9])}]})

    def k_workspace(self) -> tuple[bytes, Any]:
        choice = self.rng.randrange(3)
        if choice == 0:
            return self._notify("workspace/didChangeConfiguration",
                                {"settings": self.rng.choice([None, {}, {"codeloupe": {"k": 1}}, 5])})
        if choice == 1:
            other = self.rng.choice(["file:///nonexistent/folder", "http://x/", (self.root / "src").as_uri()])
            return self._notify("workspace/didChangeWorkspaceFolders", {"event": {
                "added": [{"uri": other, "name": "x"}] if self.rng.random() < 0.5 else [],
                "removed": [{"uri": other, "name": "x"}]}})
        return self.request("initialize", {"capabilities": {}})

    def k_header_damage(self) -> tuple[bytes, Any]:
        body = json.dumps({"jsonrpc": "2.0", "method": "$/noop"}).encode()
        return self.rng.choice([
            b"X-Junk: " + b"j" * 2_000_000 + b"\r\n\r\n",
            b"content-length: %d\r\nContent-Type: x\r\n\r\n" % len(body) + body,
            b"\r\n\r\n",
            b"Content-Length: 2\r\n\r\n{}",
            b"Content-Length: 0\r\n\r\n",
        ]), "raw"

    def _notify(self, method: str, params: Any) -> tuple[bytes, Any]:
        if method == "textDocument/didOpen":
            self.opened.add(params["textDocument"]["uri"])
        return json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode(), None

    def kinds(self) -> dict[str, Any]:
        return {name[2:]: getattr(self, name) for name in dir(self) if name.startswith("k_")}


# --- the run --------------------------------------------------------------------------------


async def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)  # the messages: the same for a seed, whatever the timing
    answers_rng = random.Random(-args.seed)  # the answers to the server's own requests
    tmp = Path(tempfile.mkdtemp(prefix="codeloupe-fuzz-"))
    root = tmp / "repo"
    shutil.copytree(DATA, root)
    log = tmp / "server.log"
    fuzz = Fuzz(rng, root)
    kinds = fuzz.kinds()
    names = sorted(kinds)
    sent: Counter[str] = Counter()
    results: Counter[str] = Counter()
    codes: dict[str, Counter[int]] = defaultdict(Counter)
    unanswered: Counter[str] = Counter()
    crashes = hangs = internal = checks_failed = 0

    async def new_server(root: Path = root, wait: bool = not args.during_start) -> Server:
        server = await Server.start(log, answers_rng)
        server.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "processId": os.getpid(), "capabilities": CAPABILITIES, "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": "repo"}],
            "initializationOptions": {"embeddings": args.embeddings}}})
        assert await server.answer("init", 120) is not None, "no answer to initialize"
        server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        deadline = time.monotonic() + 300
        while wait and time.monotonic() < deadline:  # fuzz a ready server
            server.send({"jsonrpc": "2.0", "id": "ready?", "method": "workspace/executeCommand",
                         "params": {"command": "codeloupe.server.status", "arguments": [{}]}})
            st = await server.answer("ready?", 60)
            if st is None or st.get("result", {}).get("state") in ("ready", "failed"):
                break
            await asyncio.sleep(0.2)
        return server

    async def index_counts(server: Server, root: Path = root) -> tuple[object, object] | None:
        """(files, symbols) of the root folder's index, once a reindex has waited."""
        server.send({"jsonrpc": "2.0", "id": "reindex", "method": "workspace/executeCommand",
                     "params": {"command": "codeloupe.server.reindex",
                                "arguments": [{"folder": root.as_uri(), "wait": True}]}})
        await server.answer("reindex", 300)
        server.send({"jsonrpc": "2.0", "id": "counts", "method": "workspace/executeCommand",
                     "params": {"command": "codeloupe.server.status",
                                "arguments": [{"folder": root.as_uri()}]}})
        answer = await server.answer("counts", 60)
        if answer is None or "result" not in answer:
            return None
        [folder] = answer["result"]["folders"]
        return folder.get("files"), folder.get("symbols")

    # what the index holds for these files: a server of its own on a copy, never fuzzed
    pristine = tmp / "pristine" / "repo"
    shutil.copytree(DATA, pristine)
    server = await new_server(pristine, wait=True)
    before = await index_counts(server, pristine)
    server.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
    await server.answer("bye", 60)
    server.send({"jsonrpc": "2.0", "method": "exit"})
    await asyncio.wait_for(server.proc.wait(), 30)
    server.reader.cancel()

    started = time.monotonic()
    server = await new_server()
    count = 0
    while count < args.messages:
        batch: list[tuple[str, Any]] = []
        for _ in range(min(args.batch, args.messages - count)):
            kind = rng.choice(names)
            body, expect = kinds[kind]()
            if expect == "raw":
                server.write(body)
                expect = None
            else:
                server.send_body(body)
            sent[kind] += 1
            count += 1
            batch.append((kind, expect))
        check = f"check-{count}"
        server.send({"jsonrpc": "2.0", "id": check, "method": "workspace/executeCommand",
                     "params": {"command": "codeloupe.server.status", "arguments": [{}]}})
        answer = await server.answer(check, args.hang_s)
        if answer is None or "result" not in answer:
            checks_failed += 1
        elif args.verbose:
            states = [(f["state"], f.get("error"), f.get("progress")) for f in answer["result"]["folders"]]
            print(f"  after {count}: {states}; last kinds {[k for k, _ in batch]}", file=sys.stderr)
        deadline = time.monotonic() + args.hang_s  # for the whole batch's answers
        for kind, msg_id in batch:
            if msg_id is None:
                continue
            got = await server.answer(msg_id, max(deadline - time.monotonic(), 0.0))
            if got is None:
                unanswered[kind] += 1
                if server.alive:
                    hangs += 1
            elif "error" in got:
                code = got["error"].get("code")
                codes[kind][code] += 1
                if code == -32603:
                    internal += 1
                    print(f"  -32603 for {kind}: {got['error'].get('message')}", file=sys.stderr)
            else:
                results[kind] += 1
        if not server.alive:
            crashes += 1
            print(f"  the server ended (status {server.proc.returncode}) after message {count}",
                  file=sys.stderr)
            server = await new_server()
        elif count % (args.batch * 10) == 0:
            print(f"  {count} messages, {time.monotonic() - started:.0f}s", file=sys.stderr)

    rss = await server.rss_mb()
    # the files on disk never changed: once every buffer is closed and a run has synced,
    # the index holds what it held before the fuzzing
    for uri in sorted(fuzz.opened):
        server.send({"jsonrpc": "2.0", "method": "textDocument/didClose",
                     "params": {"textDocument": {"uri": uri}}})
    after = await index_counts(server)
    server.send({"jsonrpc": "2.0", "id": "last", "method": "workspace/executeCommand",
                 "params": {"command": "codeloupe.server.status", "arguments": [{}]}})
    last = await server.answer("last", args.hang_s)
    folders = (last or {}).get("result", {}).get("folders", [])
    final = ", ".join(f"{Path(f['root']).name}: {f['state']}, {f.get('files')} files, "
                      f"{f.get('symbols')} symbols" for f in folders)
    server.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
    await server.answer("bye", 60)
    server.send({"jsonrpc": "2.0", "method": "exit"})
    try:
        rc: int | str | None = await asyncio.wait_for(server.proc.wait(), 30)
    except TimeoutError:
        server.proc.kill()
        rc = "killed"
    tracebacks = log.read_text(errors="replace").count("Traceback")

    header = ["kind", "sent", "result"] + [str(c) for c in CODES] + ["-32603", "no answer"]
    rows = [[k, sent[k], results[k], *(codes[k][c] for c in CODES), codes[k][-32603], unanswered[k]]
            for k in names]
    rows.append(["all", sum(sent.values()), sum(results.values()),
                 *(sum(codes[k][c] for k in names) for c in CODES),
                 sum(codes[k][-32603] for k in names), sum(unanswered.values())])
    print("| " + " | ".join(header) + " |")
    print("| " + " | ".join("---" for _ in header) + " |")
    for row in rows:
        print("| " + " | ".join(str(v) for v in row) + " |")
    print()
    print(f"messages {count}, seed {args.seed}, embeddings {args.embeddings}, "
          f"{'from the start' if args.during_start else 'once ready'}, "
          f"{time.monotonic() - started:.0f}s; at the end: {final or 'no folder'}")
    print(f"index (files, symbols) of a server never fuzzed {before}, of this one once every "
          f"buffer is closed and a reindex ran {after}: {'the same' if before == after else 'DIFFERENT'}")
    print(f"crashes {crashes}, hangs {hangs}, failed checks {checks_failed}, internal errors "
          f"{internal}; answers with id null {sum(server.null_id.values())} "
          f"({', '.join(f'{c}: {n}' for c, n in sorted(server.null_id.items(), key=str))}); "
          f"requests from the server "
          f"{server.server_requests}; exit status {rc}; rss {rss} MB; tracebacks in the "
          f"server's log {tracebacks} ({log})")
    return 1 if crashes or hangs or internal or checks_failed or before != after else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, default=2000)
    p.add_argument("--batch", type=int, default=20, help="messages between two checks")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-embeddings", dest="embeddings", action="store_false",
                   help="the option embeddings: false (no model is loaded; search runs full text)")
    p.add_argument("--hang-s", type=float, default=60.0, help="how long an answer may take")
    p.add_argument("--verbose", action="store_true", help="the folders' states after each batch")
    p.add_argument("--during-start", action="store_true",
                   help="start at once, while the first index run opens the index (default: "
                        "once it is ready)")
    return asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
