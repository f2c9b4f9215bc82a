"""A client for OpenAI-compatible chat-completions endpoints (Ollama, llama.cpp
server, vLLM, LM Studio, OpenAI): streaming (server-sent events) and not, with an
idle timeout, an overall deadline, ``max_tokens``, retries with backoff on 429
and 5xx, cancellation from another thread, and errors that say what to do.

Standard library only (``http.client``); the default limits are the settings'
(``config``). The base URL is the part before ``/chat/completions``
(``http://127.0.0.1:11434/v1``); a URL that already ends with ``/chat/completions``
is used as it is.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import math
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..config import DEFAULT_DEADLINE_S, DEFAULT_MAX_TOKENS
from ..errors import CodeloupeError

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 30.0
REACH_TIMEOUT_S = 5.0  # the connection test before any work: a reachable endpoint takes ms
_CHECK_URL = "check CODELOUPE_LLM_URL / --llm-url / the llmEndpoint setting"
_RAISE_DEADLINE = "allow more with --llm-deadline, CODELOUPE_LLM_DEADLINE_S or the " \
    "llmDeadlineSeconds setting"


class LLMError(CodeloupeError, RuntimeError):
    """The endpoint could not give an answer; the message says why and what to check."""


class LLMCancelled(LLMError):
    """``ChatClient.cancel`` stopped the request."""


class ToolsUnsupported(LLMError):
    """The endpoint or its model does not take the OpenAI ``tools`` of a request."""


def _refuses_tools(message: str) -> bool:
    """An endpoint's refusal of a request with tools (Ollama: "does not support tools";
    llama.cpp without --jinja: "tools param requires --jinja flag"; vLLM without
    --enable-auto-tool-choice: "auto" tool choice requires ...)."""
    lowered = message.lower()
    return "tool" in lowered and any(
        w in lowered for w in ("support", "requires", "not allowed", "unsupported", "unknown",
                               "invalid", "unrecognized", "not enabled", "extra"))


class LLMDeadline(LLMError):
    """The overall deadline (``LLMConfig.deadline_s``) passed before the answer was complete."""

    partial: str = ""  # what streamed before it passed (stream_message)


class _UseMaxCompletionTokens(LLMError):
    """The endpoint refused ``max_tokens`` and asked for ``max_completion_tokens``."""


@dataclass
class LLMConfig:
    """One endpoint, its model and limits (``pipeline.llm_config`` builds it from the settings)."""

    url: str  # base URL: http://127.0.0.1:11434/v1
    model: str | None = None  # None: the first model the endpoint lists (GET /models)
    api_key: str | None = None
    timeout_s: float = 60.0  # longest wait to connect, or for the next bytes of an answer
    # longest one answer may take in all, retries included (an endpoint may stream forever)
    deadline_s: float = DEFAULT_DEADLINE_S
    retries: int = 3  # further attempts after a 429 / 5xx / reset connection
    backoff_s: float = 1.0  # first wait; doubles each retry (a Retry-After header wins)
    temperature: float | None = 0.0
    max_tokens: int = DEFAULT_MAX_TOKENS  # of the answer; always sent


@dataclass
class ChatAnswer:
    """An answer and the model that gave it. ``cut_off`` says why it is incomplete:
    ``"deadline"`` (the deadline passed while it streamed: ``text`` is what came until
    then) or ``"max_tokens"`` (the endpoint stopped at the limit); None: complete."""

    text: str
    model: str
    cut_off: str | None = None


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
        self._lock = threading.Lock()
        self._conn: http.client.HTTPConnection | None = None
        self._cancelled = threading.Event()
        self._expired = threading.Event()  # the deadline of the answer in flight passed
        self._stopped = threading.Event()  # either: wakes a backoff wait at once
        self._sleep: Callable[[float], object] = self._stopped.wait  # tests may replace it
        self._ends_at: float | None = None  # monotonic deadline of the answer in flight
        self._reached = False
        self._token_field = "max_tokens"  # "max_completion_tokens" once the endpoint asks
        self.finish_reason: str | None = None  # of the last answer ("stop", "length")

    # --- connection ----------------------------------------------------------------

    def _connect(self) -> http.client.HTTPConnection:
        """A connection, not yet open (``_open`` opens it)."""
        t = self.target
        cls = http.client.HTTPSConnection if t.scheme == "https" else http.client.HTTPConnection
        conn = cls(t.host, t.port, timeout=min(self.config.timeout_s, max(0.01, self._remaining())))
        with self._lock:
            self._conn = conn
        return conn

    def _open(self, conn: http.client.HTTPConnection) -> None:
        """Connect (within the idle timeout and what is left of the deadline); a cancel
        or the deadline that came while connecting shuts the new socket at once."""
        conn.connect()
        assert conn.sock is not None
        conn.sock.settimeout(self.config.timeout_s)
        if self._cancelled.is_set() or self._expired.is_set():
            self._interrupt()

    def check_reachable(self) -> None:
        """Fail fast, before any work that needs the answer: connect to the endpoint
        (``REACH_TIMEOUT_S``), then resolve the model when none is set. LLMError
        says what is wrong (refused, unknown host, no answer) and what to check."""
        if self._reached:
            return
        t = self.target
        port = t.port or (443 if t.scheme == "https" else 80)
        wait = min(REACH_TIMEOUT_S, self.config.timeout_s)
        try:
            socket.create_connection((t.host, port), timeout=wait).close()
        except ConnectionRefusedError:
            raise LLMError(f"cannot reach the LLM endpoint {self._where()}: connection "
                           f"refused (is the server running? {_CHECK_URL})") from None
        except socket.gaierror as exc:
            raise LLMError(f"cannot resolve the LLM endpoint host {t.host!r}: "
                           f"{exc.strerror or exc} ({_CHECK_URL})") from None
        except TimeoutError:
            raise LLMError(f"cannot reach the LLM endpoint {self._where()}: no connection "
                           f"within {wait:g}s (is the host up and the port open? "
                           f"{_CHECK_URL})") from None
        except OSError as exc:
            raise LLMError(f"cannot reach the LLM endpoint {self._where()}: "
                           f"{exc.strerror or exc} ({_CHECK_URL})") from None
        self.resolve_model()
        self._reached = True

    def cancel(self) -> None:
        """Stop a request in flight from another thread: the blocking read returns
        and the request raises LLMCancelled; the endpoint sees the connection close."""
        self._cancelled.set()
        self._interrupt()

    def _expire(self) -> None:
        """The deadline passed (a timer thread): like ``cancel``, but the answer so far counts."""
        self._expired.set()
        self._interrupt()

    def _interrupt(self) -> None:
        self._stopped.set()
        with self._lock:
            conn = self._conn
        if conn is not None and conn.sock is not None:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)

    def _remaining(self) -> float:
        """Seconds left before the deadline of the answer in flight (inf: none running)."""
        return math.inf if self._ends_at is None else self._ends_at - time.monotonic()

    @contextlib.contextmanager
    def _deadline(self) -> Iterator[None]:
        """One answer's deadline: a timer that shuts the connection when it passes."""
        self._expired.clear()
        if not self._cancelled.is_set():
            self._stopped.clear()
        limit = max(0.0, self.config.deadline_s)
        self._ends_at = time.monotonic() + limit
        timer = threading.Timer(limit, self._expire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()
            self._ends_at = None
            self._expired.clear()
            if not self._cancelled.is_set():
                self._stopped.clear()

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.config.api_key:
            h["Authorization"] = f"Bearer {self.config.api_key}"
        return h

    def _where(self) -> str:
        t = self.target
        port = f":{t.port}" if t.port else ""
        return f"{t.scheme}://{t.host}{port}{t.base_path}"

    def _past_deadline(self) -> LLMDeadline:
        return LLMDeadline(f"the LLM endpoint {self._where()} did not finish its answer within "
                           f"the deadline of {self.config.deadline_s:g}s ({_RAISE_DEADLINE})")

    def _stop_if_cancelled(self) -> None:
        """Raise LLMCancelled once ``cancel`` was called, LLMDeadline once the deadline
        passed (whatever else went wrong)."""
        if self._cancelled.is_set():
            raise LLMCancelled("cancelled") from None
        if self._expired.is_set() or self._remaining() <= 0:
            raise self._past_deadline() from None

    def _broke_off(self, exc: BaseException) -> LLMError:
        """The error for a connection lost in the middle of an answer."""
        if self._cancelled.is_set():
            return LLMCancelled("cancelled")
        if self._expired.is_set():
            return self._past_deadline()
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
                self._open(conn)
                conn.request(method, path, body=payload, headers=self._headers())
                resp = conn.getresponse()
            except ConnectionRefusedError:
                conn.close()
                raise LLMError(f"cannot reach the LLM endpoint {self._where()}: connection "
                               f"refused (is the server running? {_CHECK_URL})") from None
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
                    self._sleep(min(delay, max(0.0, self._remaining())))
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
            if (resp.status == 400 and body is not None and "max_tokens" in body
                    and "max_completion_tokens" in detail):
                raise _UseMaxCompletionTokens(detail)  # OpenAI's reasoning models
            if resp.status in RETRY_STATUSES and attempt < attempts:
                header = resp.getheader("Retry-After")
                with contextlib.suppress(TypeError, ValueError):
                    retry_after = min(MAX_RETRY_AFTER_S, max(0.0, float(header)))  # type: ignore[arg-type]
                wait = retry_after if retry_after is not None else delay
                log.info("codeloupe: LLM endpoint answered %s; retry %d/%d in %.1fs",
                         resp.status, attempt, attempts - 1, wait)
                self._sleep(min(wait, max(0.0, self._remaining())))
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
        body[self._token_field] = self.config.max_tokens
        return body

    def _post(self, body: dict) -> http.client.HTTPResponse:
        """POST the question. An endpoint that refuses ``max_tokens`` in favour of
        ``max_completion_tokens`` (OpenAI's reasoning models) is asked again with that."""
        try:
            return self._request("POST", self.target.chat_path, body)
        except _UseMaxCompletionTokens:
            log.info("codeloupe: LLM endpoint %s wants max_completion_tokens", self._where())
            self._token_field = "max_completion_tokens"
            body = {k: v for k, v in body.items() if k != "max_tokens"}
            body["max_completion_tokens"] = self.config.max_tokens
            return self._request("POST", self.target.chat_path, body)  # no max_tokens now

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
        """The whole answer at once (``"stream": false``). LLMDeadline when the deadline
        passes first (a JSON answer cut short holds nothing to keep)."""
        self.finish_reason = None
        resp = None
        with self._deadline():
            body = self._body(messages, stream=False)
            try:
                resp = self._post(body)
                try:
                    raw = resp.read()
                except TimeoutError:
                    self._stop_if_cancelled()
                    raise LLMError(f"the LLM endpoint {self._where()} did not finish its answer "
                                   f"within {self.config.timeout_s:g}s") from None
                except (OSError, http.client.HTTPException) as exc:
                    raise self._broke_off(exc) from None
            finally:
                self._close(resp)
            if self._cancelled.is_set():
                raise LLMCancelled("cancelled")
            try:
                data = json.loads(raw)
                choice = data["choices"][0]
                self.finish_reason = choice.get("finish_reason")
                return choice["message"].get("content") or ""
            except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                if self._expired.is_set():  # the deadline closed it in the middle
                    raise self._past_deadline() from None
                raise LLMError(f"the LLM endpoint {self._where()} sent an answer that is not a "
                               f"chat completion: {raw[:200]!r}") from None

    def stream_message(self, messages: list[dict], tools: list[dict], tool_choice: str = "auto",
                       on_delta: Callable[[str], None] | None = None) -> dict:
        """One assistant message from a request that offers ``tools`` (the OpenAI tools
        API), streamed: its text goes to ``on_delta`` as it comes, its ``tool_calls`` are
        put together from their pieces. An endpoint or model that refuses tools raises
        ``ToolsUnsupported`` (before anything streamed); without ``on_delta`` it is asked
        for in one piece (``"stream": false``). When the deadline passes after
        some text, LLMDeadline carries it in ``partial``."""
        self.finish_reason = None
        text: list[str] = []
        calls: dict[int, dict] = {}
        with self._deadline():
            body = self._body(messages, stream=on_delta is not None)  # no listener: one piece
            body["tools"] = tools
            body["tool_choice"] = tool_choice
            try:
                resp = self._post(body)
            except LLMError as exc:
                if _refuses_tools(str(exc)):
                    raise ToolsUnsupported(str(exc)) from None
                raise
            with self._reading(resp):
                ctype = (resp.getheader("Content-Type") or "").lower()
                if "text/event-stream" not in ctype:  # a server that ignores "stream"
                    message = self._whole_message(resp, ctype, need_content=False)
                    if message.get("content") and on_delta is not None:
                        on_delta(message["content"])
                    return message
                for delta in self._deltas(resp, text):
                    if delta.get("content"):
                        text.append(delta["content"])
                        if on_delta is not None:
                            on_delta(delta["content"])
                    for piece in delta.get("tool_calls") or []:
                        _add_tool_call_piece(calls, piece)
        message = {"role": "assistant", "content": "".join(text) or None}
        if calls:
            message["tool_calls"] = [calls[i] for i in sorted(calls)]
        return message

    def stream(self, messages: list[dict]) -> Iterator[str]:
        """The answer as it is generated (``"stream": true``, server-sent events).
        A retry happens only before the first piece; closing the iterator (or
        ``cancel``) closes the connection, which stops the generation. When the
        deadline passes the connection is closed too and LLMDeadline raised: the
        pieces yielded until then are the answer so far (``chat`` keeps them)."""
        self.finish_reason = None
        with self._deadline():
            body = self._body(messages, stream=True)
            resp = self._post(body)
            with self._reading(resp):
                ctype = (resp.getheader("Content-Type") or "").lower()
                if "text/event-stream" not in ctype:
                    # a server that ignores "stream": one JSON answer
                    content = self._whole_message(resp, ctype, need_content=True)["content"]
                    if content:
                        yield content
                    return
                for delta in self._events(resp):
                    if delta.get("content"):
                        yield delta["content"]

    def _whole_message(self, resp: http.client.HTTPResponse, ctype: str,
                       need_content: bool) -> dict:
        """The message of one JSON answer sent where a stream was asked for (its finish
        reason kept); LLMError when it is not a chat completion, or (``need_content``)
        holds no text."""
        data = json.loads(resp.read() or b"{}")
        choice = (data.get("choices") or [{}])[0]
        message = choice.get("message")
        if not isinstance(message, dict) or (need_content and message.get("content") is None):
            self._stop_if_cancelled()
            raise LLMError(f"the LLM endpoint {self._where()} sent neither a stream "
                           f"nor a chat completion ({ctype or 'no content type'})")
        self.finish_reason = choice.get("finish_reason")
        return message

    @contextlib.contextmanager
    def _reading(self, resp: http.client.HTTPResponse) -> Iterator[None]:
        """Reading a streamed answer: a stall, a broken connection or invalid JSON said as
        what it means; the connection closed after, whatever happened."""
        try:
            yield
        except TimeoutError:
            self._stop_if_cancelled()
            raise LLMError(f"the LLM endpoint {self._where()} stopped sending for "
                           f"{self.config.timeout_s:g}s in the middle of its answer") from None
        except (OSError, http.client.HTTPException) as exc:
            raise self._broke_off(exc) from None
        except ValueError as exc:
            self._stop_if_cancelled()
            raise LLMError(f"the LLM endpoint {self._where()} sent invalid JSON: {exc}") from None
        finally:
            self._close(resp)

    def _deltas(self, resp: http.client.HTTPResponse, text: list[str]) -> Iterator[dict]:
        """``_events``; a deadline that passes carries the ``text`` streamed until then."""
        try:
            yield from self._events(resp)
        except LLMDeadline as exc:
            exc.partial = "".join(text)
            raise

    def _events(self, resp: http.client.HTTPResponse) -> Iterator[dict]:
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
                self.finish_reason = choice.get("finish_reason") or self.finish_reason
                delta = choice.get("delta")
                if isinstance(delta, dict) and delta:
                    yield delta


def _add_tool_call_piece(calls: dict[int, dict], piece: dict) -> None:
    """A streamed piece of a tool call put into its call (by ``index``): the id and name
    come once, the arguments in pieces."""
    call = calls.setdefault(int(piece.get("index", len(calls))), {
        "id": "", "type": "function", "function": {"name": "", "arguments": ""}})
    call["id"] = piece.get("id") or call["id"]
    fn = piece.get("function") or {}
    call["function"]["name"] += fn.get("name") or ""
    call["function"]["arguments"] += fn.get("arguments") or ""


def chat(config: LLMConfig, messages: list[dict], on_delta: Callable[[str], None] | None = None,
         client: ChatClient | None = None) -> ChatAnswer:
    """The answer and the model that gave it: streamed into ``on_delta`` when given,
    else in one piece. When the deadline passes mid-stream the answer so far comes
    back with ``cut_off="deadline"``; with nothing streamed yet, LLMDeadline."""
    client = client or ChatClient(config)
    if on_delta is None:
        text = client.complete(messages)
        return ChatAnswer(text, client.model or "", _cut_off(client))
    pieces: list[str] = []
    try:
        with contextlib.closing(client.stream(messages)) as stream:  # closed on any exit
            for piece in stream:
                pieces.append(piece)
                on_delta(piece)
    except LLMDeadline:
        if not "".join(pieces).strip():
            raise
        return ChatAnswer("".join(pieces), client.model or "", "deadline")
    return ChatAnswer("".join(pieces), client.model or "", _cut_off(client))


def _cut_off(client: ChatClient) -> str | None:
    return "max_tokens" if client.finish_reason == "length" else None
