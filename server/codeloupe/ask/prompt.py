"""The messages sent to a model for a question: the system prompt (cite as
``path:line``, say "not in the provided code" rather than guess) and the user
message holding the context. Clients that ask a model of their own get the same
messages in the ask result."""

from __future__ import annotations

from .context import Context

SYSTEM_PROMPT = """\
You answer questions about a codebase using only the code excerpts provided.
Each excerpt starts with a header `## path:start-end qualified_name (kind)` and each
line of code is prefixed with its line number.
- Cite the code you rely on as `path:line` or `path:start-end`, with the paths and
  line numbers shown in the excerpts, for example `src/app/client.py:42`.
- When the excerpts do not contain the answer, say "not in the provided code"
  instead of guessing, and say what is missing.
- Be concise: explain how the pieces connect, step by step."""


def messages_for(question: str, context: Context) -> list[dict[str, str]]:
    """The chat messages (system, then user) for a question and its context."""
    user = (f"Code excerpts:\n\n{context.text}\n\nQuestion: {question.strip()}"
            if context.snippets else
            f"(No code excerpts matched the question.)\n\nQuestion: {question.strip()}")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
