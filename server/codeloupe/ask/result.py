"""The result of a question: the answer, its citations verified against the
context, the sources marked cited, the context as structured snippets, and the
notes that tell the user what happened (no model; an answer cut off)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .citations import Citation, verify
from .context import Context, Snippet
from .llm import ChatAnswer, LLMConfig
from .prompt import messages_for

NO_MODEL_NOTE = ("no language model is configured, so this is the code most relevant to the "
                 "question, not an answer; set one with CODELOUPE_LLM_URL (e.g. "
                 "http://127.0.0.1:11434/v1) and CODELOUPE_LLM_MODEL, --llm-url/--llm-model, "
                 "or the server's llmEndpoint/llmModel settings")


@dataclass
class AskResult:
    """What ``ask`` returns (``as_dict`` is the wire form, docs/protocol.md). Without
    an answer it carries the context's text and the messages a model would get."""

    question: str
    answer: str | None
    sources: list[dict[str, object]]
    unverified_citations: list[str]
    model: str | None
    context_tokens: int
    note: str | None = None
    context: str | None = None  # the context sent; returned when there is no answer
    cut_off: str | None = None  # the answer is incomplete: "deadline" or "max_tokens"
    citations: list[Citation] = field(default_factory=list)
    snippets: list[Snippet] = field(default_factory=list)
    messages: list[dict[str, str]] | None = None  # the prompt; returned when there is no answer
    tool_calls: list[dict[str, object]] | None = None  # the tools the model called (ask.agent)

    def as_dict(self) -> dict[str, object]:
        """The result as JSON-ready data."""
        out: dict[str, object] = {
            "answer": self.answer, "sources": self.sources,
            "unverified_citations": self.unverified_citations, "model": self.model,
            "context_tokens": self.context_tokens,
            "citations": [c.as_dict() for c in self.citations],
            "snippets": [s.as_dict() for s in self.snippets],
        }
        if self.cut_off is not None:
            out["cut_off"] = self.cut_off
        if self.note is not None:
            out["note"] = self.note
        if self.context is not None:
            out["context"] = self.context
        if self.messages is not None:
            out["messages"] = self.messages
        if self.tool_calls is not None:
            out["tool_calls"] = self.tool_calls
        return out


def cut_off_note(cut_off: str | None, config: LLMConfig) -> str | None:
    """What to tell the user about an answer that is incomplete (None: it is not)."""
    if cut_off == "deadline":
        return (f"the answer was cut off at the deadline of {config.deadline_s:g}s: this is "
                "what the model sent until then (its citations are verified); allow more "
                "time with --llm-deadline, CODELOUPE_LLM_DEADLINE_S or the llmDeadlineSeconds "
                "setting")
    if cut_off == "max_tokens":
        return (f"the answer reached the limit of {config.max_tokens} tokens and is cut off; "
                "raise it with --llm-max-tokens, CODELOUPE_LLM_MAX_TOKENS or the llmMaxTokens "
                "setting")
    return None


def result_for(question: str, context: Context, answer: str | None, model: str | None,
               root: Path | None = None, *, cut_off: str | None = None,
               note: str | None = None) -> AskResult:
    """The result of a question: sources marked cited or not, citations verified
    (those of a cut-off answer too). ``answer`` None: the context, the messages a
    model would get, and a note."""
    if answer is None:
        return AskResult(question, None, [dict(s.source(), cited=False) for s in context.snippets],
                         [], None, context.tokens, NO_MODEL_NOTE, context.text,
                         snippets=context.snippets, messages=messages_for(question, context))
    checked = verify(answer, context, root)
    return AskResult(question, answer, checked.sources(context), checked.unverified, model,
                     context.tokens, note, cut_off=cut_off, citations=checked.citations,
                     snippets=context.snippets)


def answer_result(question: str, context: Context, answer: ChatAnswer, config: LLMConfig,
                  root: Path | None = None) -> AskResult:
    """``result_for`` an answer from the endpoint, with a note when it was cut off."""
    return result_for(question, context, answer.text, answer.model, root,
                      cut_off=answer.cut_off, note=cut_off_note(answer.cut_off, config))
