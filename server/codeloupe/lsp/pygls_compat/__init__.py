"""Every pygls internal codeloupe's server relies on or replaces, in one place;
written against pygls 2.1.1 (``pygls>=2.1,<3`` in pyproject.toml: check these
when moving to another pygls).

- ``protocol``: JSON-RPC 2.0 as the specification says (errors for what pygls
  leaves unanswered), a subclass of pygls's ``LanguageServerProtocol``;
- ``io``: the wire read on the event loop instead of pygls's thread pool, and
  notification errors logged instead of shown;
- ``documents``: open buffers whose incremental changes and lines cost the edit,
  not the document (pygls's ``TextDocument`` and ``Workspace._create_text_document``);
- ``commands``: a command handler that can read its own params (pygls's
  workspace/executeCommand builtin).
"""

from __future__ import annotations

from .commands import COMMAND_PARAMS, keep_command_params
from .documents import BufferDocument, use_buffer_documents
from .io import PipeReader, WireIO, read_messages
from .protocol import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    SERVER_NOT_INITIALIZED,
    CodeloupeProtocol,
    describe,
    shown,
)

__all__ = [
    "COMMAND_PARAMS", "INTERNAL_ERROR", "INVALID_PARAMS", "INVALID_REQUEST", "METHOD_NOT_FOUND",
    "PARSE_ERROR", "SERVER_NOT_INITIALIZED", "BufferDocument", "CodeloupeProtocol", "PipeReader",
    "WireIO", "describe", "keep_command_params", "read_messages", "shown", "use_buffer_documents",
]
