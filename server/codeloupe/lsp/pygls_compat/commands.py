"""Command handlers that can read their own request's params (``workDoneToken``):
pygls 2.1.1 hands a command only its ``arguments``."""

from __future__ import annotations

import contextvars
from typing import Any

from lsprotocol import types

COMMAND_PARAMS: contextvars.ContextVar[types.ExecuteCommandParams | None] = contextvars.ContextVar(
    "codeloupe_command_params", default=None)


def keep_command_params(server: Any) -> None:
    """Wrap pygls's workspace/executeCommand handler so that a command can read its
    own params (``COMMAND_PARAMS``); the context variable is copied into the task."""
    features = server.protocol.fm.builtin_features
    original = features[types.WORKSPACE_EXECUTE_COMMAND]

    def execute_command(params: types.ExecuteCommandParams):  # a generator
        COMMAND_PARAMS.set(params)
        return (yield from original(params))

    features[types.WORKSPACE_EXECUTE_COMMAND] = execute_command
