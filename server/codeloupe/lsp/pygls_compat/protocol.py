"""JSON-RPC 2.0 as its specification says, over pygls 2.1.1.

pygls 2.1.1 reads a message with ``json.loads(body, object_hook=structure_message)``
and hands it to ``handle_message``; what does not fit goes unanswered or worse:

- a body that is not JSON: logged, no reply (the spec: -32700 with id null);
- no ``jsonrpc``, ``"jsonrpc": "1.0"``, no ``method`` (and no result or error), an
  id that is neither a string nor an integer, a batch: no reply (-32600);
- a request whose params do not fit its method: no reply at all, so the client
  waits for ever (-32602, naming the field);
- a notification's method sent with an id (``textDocument/didOpen`` as a
  request): run as the notification, never answered (-32600);
- a request after ``shutdown``: dropped without a reply (LSP: InvalidRequest);
  before ``initialize``: run against a workspace that does not exist yet (LSP:
  -32002 ServerNotInitialized); a second ``initialize``: a new workspace;
- a client's response that does not fit the type asked for, or that is not
  JSON-RPC 2.0: the server's own request (``workspace/configuration``) never
  resolves, and the first index run never starts;
- an unexpected error in a handler: -32603 with the traceback in ``data``, sent
  to the client (here: one line to the client, the traceback to the log);
- the future of every async notification handler and every command stays in
  ``_request_futures`` for ever (a leak of one result a command), and a command
  whose request was cancelled logs "Task exception was never retrieved";
- a header line over 64 KiB on an asyncio stream: ``readline`` raises and the
  read loop, with the server, ends (``PipeReader``);
- ``$/cancelRequest`` with an id that is a list: a TypeError in its handler.

``CodeloupeProtocol`` checks each message before pygls sees it and answers what
is wrong with the error code the specification names; ``read_messages`` replaces
``pygls.io_.run_async`` (the Content-Length framing) so a parse error gets its
reply and no message can end the loop.
"""

from __future__ import annotations

import json
import logging
import re
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

import attrs
import cattrs
from cattrs.v import format_exception
from lsprotocol import types
from lsprotocol.types import ResponseError, ResponseErrorMessage
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    RPCRequest,
)

if TYPE_CHECKING:
    pass

log = logging.getLogger("codeloupe.lsp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002

MAX_MESSAGE_BYTES = 512 * 2**20  # a body larger than this is read past and refused
DISCARD_CHUNK = 2**20
CONTENT_LENGTH = re.compile(rb"content-length:[ \t]*(\d{1,12})[ \t]*", re.IGNORECASE)
_SHOWN = 80  # characters of a client's value quoted back in an error


def shown(value: object) -> str:
    """A client's value for an error message: its repr, cut to a line."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


def _camel_path(path: str) -> str:
    return re.sub(r"(?<=\.)([a-z]+(?:_[a-z0-9]+)+)",
                  lambda m: m.group(1).split("_")[0] + "".join(
                      p.title() for p in m.group(1).split("_")[1:]), path)


def _fmt(exc: BaseException, type_: Any) -> str:
    base = format_exception(exc, type_)
    return f"{base}: {exc}" if base == "invalid value" else base


def describe(exc: BaseException) -> str:
    """What is wrong with a message that cattrs could not structure, naming the
    fields (``$.params.position.line``), on one line."""
    if isinstance(exc, cattrs.BaseValidationError):
        try:
            problems = cattrs.transform_error(exc, path="$", format_exception=_fmt)
        except Exception:  # the message is a courtesy
            problems = [str(exc)]
        text = "; ".join(_camel_path(p) for p in problems[:3])
        if len(problems) > 3:
            text += f"; and {len(problems) - 3} more"
        return text
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if isinstance(exc, json.JSONDecodeError):
        return str(exc)
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1]}" if text else type(exc).__name__


def _is_notification_type(cls: type | None) -> bool:
    return cls is not None and attrs.has(cls) and "id" not in attrs.fields_dict(cls)


class CodeloupeProtocol(LanguageServerProtocol):
    """pygls 2.1.1's LSP protocol with every message checked first (see the module
    docstring); valid messages go to pygls unchanged."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_received = False

    # --- reading --------------------------------------------------------------------

    def receive(self, body: bytes) -> None:
        """One message body off the wire: parsed, checked, handled; never raises."""
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
            self.reply_error(None, PARSE_ERROR, f"the message is not JSON: {describe(exc)}")
            return
        try:
            self.receive_object(data)
        except Exception:  # a bug here must not end the connection
            log.exception("codeloupe: handling a message failed")
            msg_id = data.get("id") if isinstance(data, dict) else None
            if _valid_id(msg_id) and "method" in data:
                self.reply_error(msg_id, INTERNAL_ERROR, "the server could not handle this message")

    def receive_object(self, data: object) -> None:
        """A parsed message: answered with an error when it is not a valid JSON-RPC
        2.0 request, notification or response, else structured and handled."""
        if isinstance(data, list):
            self.reply_error(None, INVALID_REQUEST, "batches are not part of LSP: send one message at a time")
            return
        if not isinstance(data, dict):
            self.reply_error(None, INVALID_REQUEST, f"a message is a JSON object, got {shown(data)}")
            return
        has_id = "id" in data
        msg_id = data.get("id")
        method = data.get("method")
        is_response = "method" not in data and ("result" in data or "error" in data)
        if has_id and not _valid_id(msg_id):
            if is_response and msg_id is None:
                # the client could not read one of ours (its parse error): nothing to answer
                log.warning("codeloupe: the client answered a message it could not read: %s",
                            shown(data.get("error")))
                return
            self.reply_error(None, INVALID_REQUEST,
                             f"'id' must be a string or an integer, got {shown(msg_id)}")
            return
        reply_to = msg_id if has_id else None
        if data.get("jsonrpc") != "2.0":
            if is_response:
                self._unreadable_answer(msg_id, "it is not JSON-RPC 2.0")
                return
            self.reply_error(reply_to, INVALID_REQUEST,
                             f"'jsonrpc' must be \"2.0\", got {shown(data.get('jsonrpc'))}")
            return
        if "method" in data:
            if not isinstance(method, str):
                self.reply_error(reply_to, INVALID_REQUEST, f"'method' must be a string, got {shown(method)}")
                return
            if "params" in data and not isinstance(data["params"], (dict, list, type(None))):
                if has_id:
                    self.reply_error(msg_id, INVALID_PARAMS,
                                     f"{shown(method)}: 'params' must be an object or an array, "
                                     f"got {shown(data['params'])}")
                else:
                    log.warning("codeloupe: %s: a notification with params %s was ignored",
                                shown(method), shown(data["params"]))
                return
            if not self._handles(method):
                if has_id:  # (pygls would build its params first, and log the name whole)
                    self.reply_error(msg_id, METHOD_NOT_FOUND, f"unknown method {shown(method)}")
                else:
                    log.info("codeloupe: a notification of an unknown method %s was ignored",
                             shown(method))
                return
            known = types.METHOD_TO_TYPES.get(method, (None,))[0]
            if has_id and _is_notification_type(known):
                self.reply_error(msg_id, INVALID_REQUEST,
                                 f"{method} is a notification: send it without an 'id'")
                return
            if not has_id and known is not None and not _is_notification_type(known):
                log.warning("codeloupe: %s is a request: sent without an 'id' it was ignored",
                            method)
                return
            self._structured(data, msg_id if has_id else None, method)
            return
        if has_id and is_response:
            self._response(data, msg_id)
            return
        if has_id and msg_id in self._request_futures:
            # an answer to a request of ours with neither result nor error: a void result
            self._response({**data, "result": None}, msg_id)
            return
        self.reply_error(reply_to, INVALID_REQUEST,
                         "a message needs a 'method' (a request or a notification), or an 'id' "
                         "with a 'result' or an 'error' (a response)")

    def _handles(self, method: str) -> bool:
        return (method in self.fm.builtin_features or method in self.fm.features
                or method == types.CANCEL_REQUEST)

    def _structured(self, data: dict, msg_id: Any, method: str) -> None:
        try:
            message = self._structure(data, method, msg_id is not None)
        except Exception as exc:  # cattrs, a validator, recursion
            if msg_id is not None:
                self.reply_error(msg_id, INVALID_PARAMS, f"{method}: {describe(exc)}")
            else:
                log.warning("codeloupe: %s: a notification that does not fit its type was "
                            "ignored: %s", method, describe(exc))
            return
        if method == types.CANCEL_REQUEST and not _valid_id(getattr(message.params, "id", None)):
            # pygls 2.1.1 looks the id up in a dict: a list there raises
            log.warning("codeloupe: $/cancelRequest for the id %s was ignored",
                        shown(getattr(message.params, "id", None)))
            return
        self.handle_message(message)

    def _structure(self, data: dict, method: str, request: bool) -> Any:
        """pygls 2.1.1's ``structure_message`` for a request or a notification,
        without its logged traceback for each message that does not fit."""
        cls = self.get_message_type(method)
        if cls is None:  # a method LSP does not define: pygls's generic message, params optional
            cls = JsonRPCRequestMessage if request else JsonRPCNotification
            data = {"params": None, **data}
        return self._converter.structure(data, cls)

    def _response(self, data: dict, msg_id: Any) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.done():  # given up on (a timeout): too late
            del self._request_futures[msg_id]
            self._result_types.pop(msg_id, None)
            log.info("codeloupe: a late answer to %s was dropped", shown(msg_id))
            return
        result_type = self._result_types.get(msg_id)
        try:
            if "error" in data:
                message = self._converter.structure(data, ResponseErrorMessage)
            else:
                message = self._converter.structure(data, result_type or JsonRPCResponseMessage)
        except Exception as exc:
            self._unreadable_answer(msg_id, describe(exc))
            return
        self._result_types.pop(msg_id, None)
        self.handle_message(message)

    def _unreadable_answer(self, msg_id: Any, why: str) -> None:
        """A response that cannot be read: the request of ours it answers (if any)
        fails with that, rather than waiting for ever."""
        future = None
        if _valid_id(msg_id):
            future = self._request_futures.pop(msg_id, None)
            self._result_types.pop(msg_id, None)
        log.warning("codeloupe: the client's answer to %s could not be read: %s", shown(msg_id), why)
        if future is not None and not future.done():
            future.set_exception(JsonRpcException(f"the client's answer could not be read: {why}"))

    def handle_message(self, message: Any) -> None:
        """LSP's rules for the order of things, then pygls: no request before
        ``initialize`` (-32002), one ``initialize``, none after ``shutdown``
        (InvalidRequest)."""
        method = getattr(message, "method", None)
        request = isinstance(message, RPCRequest)
        if method == types.INITIALIZE and request:
            if self.initialize_received:
                self.reply_error(message.id, INVALID_REQUEST, "initialize was sent already")
                return
            self.initialize_received = True
        elif method is not None and method != types.EXIT:
            if self._shutdown:
                if request:
                    self.reply_error(message.id, INVALID_REQUEST,
                                     f"{method}: the server is shutting down (shutdown was sent)")
                return
            if not self.initialize_received:
                if request:
                    self.reply_error(message.id, SERVER_NOT_INITIALIZED,
                                     f"{method}: the server is not initialized: send initialize first")
                return
        super().handle_message(message)

    # --- answering ------------------------------------------------------------------

    def reply_error(self, msg_id: Any, code: int, message: str) -> None:
        """An error response (``msg_id`` None: the spec's null id, for a message whose
        id cannot be told)."""
        log.info("codeloupe: answered %s with %d: %s", shown(msg_id), code, message)
        if msg_id is None:  # lsprotocol leaves a None id out; the spec wants "id": null
            self._send_data({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})
        else:
            self._send_data(ResponseErrorMessage(id=msg_id, error=ResponseError(code=code, message=message)))

    def _send_handler_result(self, future: Future[Any], *, msg_id: Any) -> None:
        """pygls 2.1.1's, but an unexpected error goes to the client as one line
        (its traceback to the log), and expected ones (InvalidParams, cancelled)
        are not logged with a traceback each."""
        self._request_futures.pop(msg_id, None)
        if future.cancelled():
            error = JsonRpcRequestCancelled(f"request {shown(msg_id)} was cancelled")
            self._send_response(msg_id, error=error.to_response_error())
            return
        exc = future.exception()
        if exc is None:
            self._send_response(msg_id, result=future.result())
        elif isinstance(exc, JsonRpcException):
            log.info("codeloupe: request %s: %s", shown(msg_id), exc)
            self._send_response(msg_id, error=ResponseError(code=exc.code, message=exc.message))
        else:
            log.error("codeloupe: request %s failed", shown(msg_id),
                      exc_info=(type(exc), exc, exc.__traceback__))
            line = describe(exc)
            self._send_response(msg_id, error=ResponseError(
                code=INTERNAL_ERROR, message=f"codeloupe: the request failed: {line}"))

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any,
                         args: tuple[Any, ...] | None = None,
                         kwargs: dict[str, Any] | None = None) -> None:
        """pygls 2.1.1's; the future of a notification handler or of a handler a
        builtin feature yields to (a command) is forgotten once it is done (pygls
        keeps it in ``_request_futures`` for ever)."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            def forget(f: Any, msg_id: Any = msg_id) -> None:
                if self._request_futures.get(msg_id) is f:
                    del self._request_futures[msg_id]
                if not f.cancelled():
                    # retrieved: a command whose request was cancelled meanwhile is not
                    # logged as "Task exception was never retrieved"
                    f.exception()

            future.add_done_callback(forget)


def _valid_id(value: object) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)
