"""An answer the model may complete with tools: it gets the planned context first, and
the tools (``toolbox``: search_code, symbol, callers, callees) to fetch what the context
lacks, within a round limit and a token budget for the tools' results; then it answers.
An endpoint that refuses tools gets the one context alone (``ToolsUnsupported``: the
caller falls back to the streamed answer). Everything a tool showed joins the context
the citations are verified against."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .context import Context
from .llm import ChatAnswer, ChatClient, LLMDeadline
from .prompt import messages_for
from .tokens import TokenCounter
from .toolbox import TOOL_SPECS, ToolArgumentError, Toolbox

log = logging.getLogger(__name__)

MAX_ROUNDS = 4  # requests that may call tools; the next one must answer
TOOL_BUDGET_TOKENS = 6000  # the tools' results, all calls together
CALL_TOKENS = 2000  # one result at most (cut, with a note)

TOOLS_NOTE = """
You may also call the tools search_code, symbol, callers and callees to fetch code the
excerpts lack (for example the functions a shown function calls); their results show
code with line numbers you may cite the same way. Call them only when the excerpts are
not enough, then answer."""


@dataclass
class ToolCall:
    """One call the model made: the tool, its arguments, and what it got (or why not)."""

    name: str
    arguments: str
    tokens: int
    error: str | None = None

    def as_dict(self) -> dict[str, object]:
        """The call as the ask result lists it."""
        out: dict[str, object] = {"tool": self.name, "arguments": self.arguments,
                                  "tokens": self.tokens}
        if self.error:
            out["error"] = self.error
        return out


@dataclass
class AgentAnswer:
    """The answer, the calls the model made, and the context with what the tools showed."""

    answer: ChatAnswer
    context: Context
    calls: list[ToolCall] = field(default_factory=list)


def _cut(text: str, count: TokenCounter, most: int) -> str:
    """``text`` within ``most`` tokens, cut with a note saying so."""
    if count(text) <= most:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix within the budget
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= most - 20:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "\n[cut: the result was longer than its token budget; ask for less]"


def answer_with_tools(
    question: str,
    context: Context,
    toolbox: Toolbox,
    client: ChatClient,
    count: TokenCounter,
    on_delta: Callable[[str], None] | None = None,
    *,
    max_rounds: int = MAX_ROUNDS,
    budget_tokens: int = TOOL_BUDGET_TOKENS,
) -> AgentAnswer:
    """Ask with the tools offered: each round the model either calls tools (run here,
    their results sent back) or answers. After ``max_rounds`` rounds of calls, or once
    the budget is spent, it is asked to answer from what it has. Raises
    ``ToolsUnsupported`` when the first request is refused for its tools."""
    messages: list[dict[str, Any]] = messages_for(question, context)
    messages[0] = {**messages[0], "content": messages[0]["content"] + TOOLS_NOTE}
    calls: list[ToolCall] = []
    spent = 0
    said: list[str] = []  # the text of every round (streamed to on_delta as it comes)

    def heard(piece: str) -> None:
        said.append(piece)
        if on_delta is not None:
            on_delta(piece)

    for round_no in range(max_rounds + 1):
        last = round_no == max_rounds or spent >= budget_tokens
        try:
            message = client.stream_message(messages, TOOL_SPECS, "none" if last else "auto",
                                            heard if on_delta is not None else None)
        except LLMDeadline:
            if not "".join(said).strip():
                raise
            return AgentAnswer(ChatAnswer("".join(said), client.model or "", "deadline"),
                               _with_shown(context, toolbox), calls)
        if on_delta is None and message.get("content"):
            said.append(message["content"])  # asked for in one piece
        wanted = [] if last else (message.get("tool_calls") or [])
        if not wanted:
            cut_off = "max_tokens" if client.finish_reason == "length" else None
            return AgentAnswer(ChatAnswer("".join(said), client.model or "", cut_off),
                               _with_shown(context, toolbox), calls)
        messages.append({"role": "assistant", "content": message.get("content"),
                         "tool_calls": wanted})
        for tc in wanted:
            fn = tc.get("function") or {}
            name, arguments = str(fn.get("name", "")), fn.get("arguments") or "{}"
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments)
            error = None
            if spent >= budget_tokens:
                error = "the tools' token budget is spent: answer from what you have"
                text = json.dumps({"error": error})
            else:
                try:
                    text = json.dumps(toolbox.call(name, arguments))
                except ToolArgumentError as exc:
                    error = str(exc)
                    text = json.dumps({"error": error})
                text = _cut(text, count, min(CALL_TOKENS, max(budget_tokens - spent, 100)))
            tokens = count(text)
            spent += tokens
            calls.append(ToolCall(name, arguments, tokens, error))
            log.info("codeloupe: ask called %s(%s): %d tokens%s", name, arguments[:200], tokens,
                     f", {error}" if error else "")
            messages.append({"role": "tool", "tool_call_id": tc.get("id", ""), "content": text})
    raise AssertionError("unreachable")  # the last round answers


def _with_shown(context: Context, toolbox: Toolbox) -> Context:
    """The context and what the tools showed: what citations are verified against."""
    seen = {s.id for s in context.snippets}
    extra = []
    for snippet in toolbox.shown:
        if snippet.id not in seen:
            seen.add(snippet.id)
            extra.append(snippet)
    return Context(context.snippets + extra, context.tokens, context.budget)
