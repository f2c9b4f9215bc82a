"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions
protocol (``POST /v1/chat/completions``, streaming or not; ``GET /v1/models``), for
the ask tests. What it answers is scripted per request:

    with LLMServer() as srv:
        srv.script(Reply(status=500), Reply(status=429, headers={"Retry-After": "0"}))
        ...                   # then the default: an answer made by ``srv.answer(request)``

Every request it received is kept in ``srv.requests`` (method, path, headers,
JSON body); ``srv.disconnects`` counts streams the client closed early.
``srv.wait_for(lambda: ...)`` waits for a state of the server (a request came, a
stream started, the client went) without sleeping.

Run it by hand for the CLI: ``python tests/llm_server.py --port 8765``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: object | None = None  # JSON error body for a status >= 400; default OpenAI-style
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # before the status line
    chunk_delay_s: float = 0.0  # between stream chunks
    text: str | None = None  # the answer; default: srv.answer(request)
    ignore_stream: bool = False  # answer with one JSON object even when asked to stream
    stall_after: int | None = None  # stop sending (without closing) after this many chunks
    forever: bool = False  # after the answer, keep streaming " more" until the client goes
    finish_reason: str = "stop"  # "length": the answer stopped at max_tokens


def cite_first_snippet(request: dict) -> str:
    """An answer that cites the first excerpt of the prompt it was sent, and one
    line that was never sent (``nowhere/else.py:7``)."""
    user = next((m["content"] for m in request["messages"] if m["role"] == "user"), "")
    m = re.search(r"^## (\S+):(\d+)-(\d+) (\S+)", user, re.M)
    if not m:
        return "This is not in the provided code."
    path, start, _end, name = m.groups()
    return (f"{name} does the work (see {path}:{start}). It is also said to touch "
            f"nowhere/else.py:7.")


class LLMServer:
    def __init__(self, answer: Callable[[dict], str] = cite_first_snippet,
                 models: list[str] | None = None, port: int = 0,
                 respond: Callable[[dict], dict] | None = None) -> None:
        self.answer = answer
        # a model that calls tools: the whole assistant message of a request (``content``
        # and/or OpenAI ``tool_calls``), answered without streaming
        self.respond = respond
        self.models = models if models is not None else ["fake-coder"]
        self.requests: list[dict] = []
        self.disconnects = 0
        self.streams_started = 0  # streams whose first piece was sent
        self._script: list[Reply] = []
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._release = threading.Event()  # ends stalls when the server stops
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt: str, *args: object) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                server._record(self, None)
                if self.path.split("?")[0] == "/v1/models":
                    self._json(200, {"object": "list", "data": [
                        {"id": m, "object": "model"} for m in server.models]})
                else:
                    self._json(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._json(400, {"error": {"message": "invalid JSON"}})
                    return
                server._record(self, body)
                reply = server._next()
                if reply.delay_s and server._release.wait(reply.delay_s):
                    return
                if self.path.split("?")[0] != "/v1/chat/completions":
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                if reply.status >= 400:
                    err = reply.body if reply.body is not None else {
                        "error": {"message": f"scripted failure {reply.status}",
                                  "type": "server_error"}}
                    self._json(reply.status, err, reply.headers)
                    return
                model = body.get("model") or "fake-coder"
                if server.respond is not None and body.get("stream"):
                    self._stream_message(server.respond(body), model)
                    return
                if server.respond is not None:
                    message = {"role": "assistant", "content": None, **server.respond(body)}
                    finish = "tool_calls" if message.get("tool_calls") else "stop"
                    self._json(200, {"id": "chatcmpl-1", "object": "chat.completion",
                                     "model": model, "choices": [{
                                         "index": 0, "finish_reason": finish,
                                         "message": message}]})
                    return
                text = reply.text if reply.text is not None else server.answer(body)
                if body.get("stream") and not reply.ignore_stream:
                    self._stream(text, model, reply)
                else:
                    self._json(200, {
                        "id": "chatcmpl-1", "object": "chat.completion", "model": model,
                        "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                                     "message": {"role": "assistant", "content": text}}],
                    }, reply.headers)

            def _json(self, status: int, obj: object, headers: dict | None = None) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, text: str, model: str, reply: Reply) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                pieces = re.findall(r"\S+\s*|\s+", text) or [""]
                if reply.forever:
                    pieces = itertools.chain(pieces, itertools.repeat(" more"))
                try:
                    self.wfile.write(b": keep-alive\n\n")
                    for i, piece in enumerate(pieces):
                        if server._release.is_set():
                            return
                        if reply.stall_after is not None and i >= reply.stall_after:
                            self.wfile.flush()
                            self._wait_for_the_client_to_go()
                            return
                        self._event(model, {"content": piece}, None)
                        if i == 0:
                            server._count("streams_started")
                        if reply.chunk_delay_s:
                            time.sleep(reply.chunk_delay_s)
                    self._event(model, {}, reply.finish_reason)
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    server._count("disconnects")

            def _stream_message(self, message: dict, model: str) -> None:
                """A scripted message streamed as OpenAI streams one: its text in pieces,
                each tool call's name first and its arguments in two pieces."""
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                for piece in re.findall(r"\S+\s*|\s+", message.get("content") or ""):
                    self._event(model, {"content": piece}, None)
                for i, tc in enumerate(message.get("tool_calls") or []):
                    args = tc["function"]["arguments"]
                    half = len(args) // 2
                    self._event(model, {"tool_calls": [{"index": i, "id": tc["id"], "type": "function",
                                                        "function": {"name": tc["function"]["name"],
                                                                     "arguments": args[:half]}}]}, None)
                    self._event(model, {"tool_calls": [{"index": i, "function": {"arguments": args[half:]}}]},
                                None)
                self._event(model, {}, "tool_calls" if message.get("tool_calls") else "stop")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def _event(self, model: str, delta: dict, finish_reason: str | None) -> None:
                event = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model,
                         "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()

            def _wait_for_the_client_to_go(self) -> None:
                """A stalled stream: send nothing, but notice the client closing."""
                sock = self.connection
                while not server._release.is_set():
                    ready, _, _ = select.select([sock], [], [], 0.1)
                    if ready:
                        try:
                            data = sock.recv(1024)
                        except OSError:
                            data = b""
                        if not data:
                            server._count("disconnects")
                            return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._thread: threading.Thread | None = None

    def _record(self, handler: BaseHTTPRequestHandler, body: dict | None) -> None:
        with self._changed:
            self.requests.append({"method": handler.command, "path": handler.path,
                                  "headers": dict(handler.headers), "body": body})
            self._changed.notify_all()

    def _count(self, name: str) -> None:
        with self._changed:
            setattr(self, name, getattr(self, name) + 1)
            self._changed.notify_all()

    def wait_for(self, condition: Callable[[], bool], timeout: float = 60.0) -> bool:
        """Wait until ``condition()`` (read under the server's lock) holds; False when
        ``timeout`` passed first (a hang detector, not a measure)."""
        with self._changed:
            return self._changed.wait_for(condition, timeout)

    def _next(self) -> Reply:
        with self._lock:
            return self._script.pop(0) if self._script else Reply()

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._script = list(replies)

    @property
    def chat_requests(self) -> list[dict]:
        return [r for r in self.requests if r["method"] == "POST"]

    def start(self) -> LLMServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    srv = LLMServer(port=args.port)
    print(f"fake OpenAI-compatible endpoint at {srv.url}", flush=True)  # noqa: T201
    srv.httpd.serve_forever()


if __name__ == "__main__":
    main()
