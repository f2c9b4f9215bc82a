"""Counting the tokens of the context sent to a model.

A local tokenizer file when ``ask_tokenizer`` names one (a ``tokenizer.json`` or a
folder holding it, loaded with ``tokenizers``; nothing is downloaded); otherwise the
estimate ``ceil(characters / 3)``, which over-counts BPE tokenizers (cl100k and
Llama 3 average about 3.5 to 4 characters per token on source code), so the budget
is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .errors import AskError

CHARS_PER_TOKEN = 3  # the estimate: over-counts BPE tokenizers on code

TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """``ceil(len(text) / CHARS_PER_TOKEN)``: at least what a BPE tokenizer counts on code."""
    return -(-len(text) // CHARS_PER_TOKEN)


def token_counter(tokenizer: str | None = None) -> TokenCounter:
    """The estimate, or a local tokenizer file (``tokenizer.json`` or its folder)."""
    if not tokenizer:
        return estimate_tokens
    path = Path(tokenizer).expanduser()
    if path.is_dir():
        path = path / "tokenizer.json"
    if not path.is_file():
        raise AskError(f"ask tokenizer {tokenizer!r}: no tokenizer.json there (give a local "
                       "file; nothing is downloaded)")
    from tokenizers import Tokenizer  # third party, loaded only when a file is named

    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as exc:
        raise AskError(f"cannot load the tokenizer {path}: {exc}") from exc
    tok.no_truncation()

    def count(text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False).ids)

    return count
