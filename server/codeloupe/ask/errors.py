"""The error of a question that cannot be asked as configured."""

from __future__ import annotations

from ..errors import CodeloupeError


class AskError(CodeloupeError, RuntimeError):
    """The question is empty, or a tokenizer or re-ranker named by the settings cannot
    be loaded; the message is one line that says what to change."""
