"""The one base of every error a user can act on (a missing folder, an unknown
language, an index to rebuild): the CLI prints its message in one line and exits
2, the language server sends it as the error's message. Anything else is a bug."""

from __future__ import annotations


class CodeloupeError(Exception):
    """An error with a message for the user; each unit subclasses it."""
