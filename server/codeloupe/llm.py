"""A client for OpenAI-compatible chat-completions endpoints (Ollama, llama.cpp
server, vLLM, LM Studio, OpenAI): streaming (server-sent events) and not, with a
timeout, retries with backoff on 429 and 5xx, and errors that say what to do.

Standard library only (``http.client``). The base URL is the part before
``/chat/completions`` (``http://127.0.0.1:11434/v1``); a URL that already ends
with ``/chat/completions`` is used as it is.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 30.0


class LLMError(RuntimeError):
    """The endpoint could not give an answer; the message says why and what to check."""


class LLMCancelled(LLMError):
    pass


@dataclass
class LLMConfig:
    url: str  # base URL: http://127.0.0.1:11434/v1
    model: str | None = None  # None: the first model the endpoint lists (GET /models)
    api_key: str | None = None
    timeout_s: float = 60.0  # longest wait to connect, or for the next bytes of an answer
    retries: int = 3  # further attempts after a 429 / 5xx / reset connection
    backoff_s: float = 1.0  # first wait; doubles each retry (a Retry-After header wins)
    temperature: float | None = 0.0
    max_tokens: int | None = None  # of the answer; None: the endpoint's default


@dataclass
class _Target:
    scheme: str
    host: str
    port: int | None
    base_path: str  # without the trailing slash
    chat_path: str


def _target(url: str) -> _Target:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LLMError(f"the LLM endpoint must be an http(s) URL such as "
                       f"http://127.0.0.1:11434/v1, got {url!r}")
    path = parts.path.rstrip("/")
    if path.endswith("/chat/completions"):
        base, chat = path.removesuffix("/chat/completions"), path
    else:
        base, chat = path, path + "/chat/completions"
    if parts.query:
        chat += "?" + parts.query
    return _Target(parts.scheme, parts.hostname, parts.port, base, chat)


def _error_detail(body: bytes) -> str:
    """The server's own message from an error body (OpenAI: {"error": {"message"}})."""
    text = body.decode("utf-8", "replace").strip()
    try:
        obj = json.loads(text)
    except ValueError:
        return text[:300]
    if isinstance(obj, dict):
        err = obj.get("error", obj)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("detail") or err)[:300]
        return str(err)[:300]
    return text[:300]


class ChatClient:
    """One endpoint and model. ``complete`` returns the whole answer; ``stream``
    yields it piece by piece. Both are blocking: run them off an event loop."""

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self.target = _target(config.url)
        self.model = config.model
        self._sleep = time.sleep  # tests may replace it
        self._lock = threading.Lock()
        self._conn: http.client.HTTPConnection | None = None
        self._cancelled = threading.Event()

    # --- connection ----------------------------------------------------------------

    def _connect(self) -> http.client.HTTPConnection:
        t = self.target
        cls = http.client.HTTPSConnection if t.scheme == "https" else http.client.HTTPConnection
        conn = cls(t.host, t.port, timeout=self.config.timeout_s)
        with self._lock:
            self._conn = conn
        return conn

    def cancel(self) -> None:
        """Stop a request in flight from another thread: the blocking read returns
        and the request raises LLMCancelled; the endpoint sees the connection close."""
        self._cancelled.set()
        with self._lock:
            conn = self._conn
        if conn is not None and conn.sock is not None:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.config.api_key:
            h["Authorization"] = f"Bearer {self.config.api_key}"
        return h

    def _where(self) -> str:
        t = self.target
        port = f":{t.port}" if t.port else ""
        return f"{t.scheme}://{t.host}{port}{t.base_path}"

    def _stop_if_cancelled(self) -> None:
        """Raise LLMCancelled once ``cancel`` was called (whatever else went wrong)."""
        if self._cancelled.is_set():
            raise LLMCancelled("cancelled") from None

    def _broke_off(self, exc: BaseException) -> LLMError:
        """The error for a connection lost in the middle of an answer."""
        if self._cancelled.is_set():
            return LLMCancelled("cancelled")
        return LLMError(f"the LLM endpoint {self._where()} broke off its answer: {exc}")

    def _request(self, method: str, path: str, body: dict | None) -> http.client.HTTPResponse:
        """One request with retries; the response has a 2xx status (else LLMError)."""
        payload = json.dumps(body).encode("utf-8") if body is not None else None
        attempts = max(1, self.config.retries + 1)
        delay = self.config.backoff_s
        for attempt in range(1, attempts + 1):
            self._stop_if_cancelled()
            conn = self._connect()
            retry_after: float | None = None
            try:
                conn.request(method, path, body=payload, headers=self._headers())
                resp = conn.getresponse()
            except ConnectionRefusedError:
                conn.close()
                raise LLMError(f"cannot reach the LLM endpoint {self._where()}: connection "
                               "refused (is the server running? check CODELOUPE_LLM_URL / "
                               "--llm-url / the llmEndpoint setting)") from None
            except TimeoutError:
                conn.close()
                self._stop_if_cancelled()
                raise LLMError(f"the LLM endpoint {self._where()} did not answer within "
                               f"{self.config.timeout_s:g}s") from None
            except socket.gaierror as exc:
                conn.close()
                raise LLMError(f"cannot resolve the LLM endpoint host {self.target.host!r}: "
                               f"{exc.strerror or exc}") from None
            except (ConnectionError, http.client.HTTPException, OSError) as exc:
                conn.close()
                self._stop_if_cancelled()
                problem = f"connection failed ({exc.__class__.__name__}: {exc})"
                if attempt < attempts:
                    log.info("codeloupe: LLM endpoint %s: %s; retrying", self._where(), problem)
                    self._sleep(delay)
                    delay *= 2
                    continue
                raise LLMError(f"the LLM endpoint {self._where()} failed: {problem}") from None
            if 200 <= resp.status < 300:
                return resp
            try:
                detail = _error_detail(resp.read())
            except (OSError, http.client.HTTPException):
                detail = ""
            conn.close()
            if resp.status in RETRY_STATUSES and attempt < attempts:
                header = resp.getheader("Retry-After")
                with contextlib.suppress(TypeError, ValueError):
                    retry_after = min(MAX_RETRY_AFTER_S, max(0.0, float(header)))  # type: ignore[arg-type]
                wait = retry_after if retry_after is not None else delay
                log.info("codeloupe: LLM endpoint answered %s; retry %d/%d in %.1fs",
                         resp.status, attempt, attempts - 1, wait)
                self._sleep(wait)
                delay *= 2
                continue
            raise LLMError(self._status_message(resp.status, resp.reason, detail, attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def _status_message(self, status: int, reason: str, detail: str, attempts: int) -> str:
        where = self._where()
        tail = f": {detail}" if detail else ""
        if status in (401, 403):
            return (f"the LLM endpoint {where} refused the request ({status} {reason}){tail}; "
                    "check the API key (CODELOUPE_LLM_API_KEY, or the variable named by the "
                    "llmApiKeyEnv setting)")
        if status == 404:
            return (f"the LLM endpoint {where} answered 404 {reason}{tail}; check the URL "
                    "(it should end before /chat/completions, e.g. http://127.0.0.1:11434/v1) "
                    f"and the model name ({self.model!r})")
        if status == 429:
            return f"the LLM endpoint {where} is rate limiting (429) after {attempts} attempts{tail}"
        if status >= 500:
            return (f"the LLM endpoint {where} failed with {status} {reason} after "
                    f"{attempts} attempt{'s' if attempts > 1 else ''}{tail}")
        return f"the LLM endpoint {where} refused the request ({status} {reason}){tail}"

    # --- model ---------------------------------------------------------------------

    def resolve_model(self) -> str:
        """The configured model, else the first one ``GET /models`` lists."""
        if self.model:
            return self.model
        resp = self._request("GET", self.target.base_path + "/models", None)
        try:
            data = json.loads(resp.read())
            models = [m["id"] for m in data.get("data", []) if m.get("id")]
        except (ValueError, KeyError, TypeError, AttributeError):
            models = []
        finally:
            self._close(resp)
        if not models:
            raise LLMError(f"no model is set and the LLM endpoint {self._where()} lists none; "
                           "set CODELOUPE_LLM_MODEL / --llm-model / the llmModel setting")
        self.model = models[0]
        return self.model

    def _body(self, messages: list[dict], stream: bool) -> dict:
        body: dict = {"model": self.resolve_model(), "messages": messages, "stream": stream}
        if self.config.temperature is not None:
            body["temperature"] = self.config.temperature
        if self.config.max_tokens:
            body["max_tokens"] = self.config.max_tokens
        return body

    def _close(self, resp: http.client.HTTPResponse | None = None) -> None:
        """Close the connection. The response holds the socket too: close it as well,
        or the endpoint never sees the connection go (and keeps generating)."""
        if resp is not None:
            with contextlib.suppress(OSError, http.client.HTTPException):
                resp.close()
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    # --- answers -------------------------------------------------------------------

    def complete(self, messages: list[dict]) -> str:
        """The whole answer at once (``"stream": false``)."""
        body = self._body(messages, stream=False)
        resp = None
        try:
            resp = self._request("POST", self.target.chat_path, body)
            try:
                raw = resp.read()
            except TimeoutError:
                raise LLMError(f"the LLM endpoint {self._where()} did not finish its answer "
                               f"within {self.config.timeout_s:g}s") from None
            except (OSError, http.client.HTTPException) as exc:
                raise self._broke_off(exc) from None
        finally:
            self._close(resp)
        self._stop_if_cancelled()
        try:
            data = json.loads(raw)
            message = data["choices"][0]["message"]
            return message.get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError(f"the LLM endpoint {self._where()} sent an answer that is not a "
                           f"chat completion: {raw[:200]!r}") from None

    def stream(self, messages: list[dict]) -> Iterator[str]:
        """The answer as it is generated (``"stream": true``, server-sent events).
        A retry happens only before the first piece; closing the iterator (or
        ``cancel``) closes the connection, which stops the generation."""
        body = self._body(messages, stream=True)
        resp = self._request("POST", self.target.chat_path, body)
        try:
            ctype = (resp.getheader("Content-Type") or "").lower()
            if "text/event-stream" not in ctype:
                # a server that ignores "stream": one JSON answer
                data = json.loads(resp.read() or b"{}")
                content = data.get("choices", [{}])[0].get("message", {}).get("content")
                if content is None:
                    raise LLMError(f"the LLM endpoint {self._where()} sent neither a stream "
                                   f"nor a chat completion ({ctype or 'no content type'})")
                if content:
                    yield content
                return
            yield from self._events(resp)
        except TimeoutError:
            self._stop_if_cancelled()
            raise LLMError(f"the LLM endpoint {self._where()} stopped sending for "
                           f"{self.config.timeout_s:g}s in the middle of its answer") from None
        except (OSError, http.client.HTTPException) as exc:
            raise self._broke_off(exc) from None
        except ValueError as exc:
            raise LLMError(f"the LLM endpoint {self._where()} sent invalid JSON: {exc}") from None
        finally:
            self._close(resp)

    def _events(self, resp: http.client.HTTPResponse) -> Iterator[str]:
        data_lines: list[str] = []
        while True:
            self._stop_if_cancelled()
            raw = resp.readline()
            if not raw:
                self._stop_if_cancelled()
                return  # the server closed the stream (some omit [DONE])
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if line.startswith("data:"):
                data_lines.append(line[5:].lstrip(" "))
                continue
            if line or not data_lines:
                continue  # event:, id:, comments (": keep-alive"), blank keep-alives
            data, data_lines = "\n".join(data_lines), []
            if data.strip() == "[DONE]":
                return
            event = json.loads(data)
            if isinstance(event, dict) and event.get("error"):
                raise LLMError(f"the LLM endpoint {self._where()} reported an error in its "
                               f"stream: {_error_detail(data.encode())}")
            for choice in event.get("choices") or []:
                piece = (choice.get("delta") or {}).get("content")
                if piece:
                    yield piece


def chat(config: LLMConfig, messages: list[dict], on_delta: Callable[[str], None] | None = None,
         client: ChatClient | None = None) -> tuple[str, str]:
    """The answer and the model that gave it: streamed into ``on_delta`` when given,
    else in one piece."""
    client = client or ChatClient(config)
    if on_delta is None:
        text = client.complete(messages)
        return text, client.model or ""
    pieces: list[str] = []
    for piece in client.stream(messages):
        pieces.append(piece)
        on_delta(piece)
    return "".join(pieces), client.model or ""
