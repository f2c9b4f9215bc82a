"""Ask about the codebase: retrieval for a question, context under a token budget,
an answer from an OpenAI-compatible model, and verification of its citations.

The modules, in the order a question goes through them:

- ``retrieval``: identifiers the question names, hybrid search, one hop over the
  call graph → ranked ``Candidate``s;
- ``reranker``: an optional CrossEncoder re-orders them;
- ``context``: snippets under the budget (``tokens`` counts), rendered for the
  model and as structured data; ``files`` reads the lines;
- ``prompt``: the messages sent to the model; ``llm``: the client of the endpoint;
- ``citations``: the citations of an answer, verified against the context (the
  only place that parses them; clients get them from the result);
- ``toolbox``: the tools a model may call (search_code, symbol, callers, callees:
  the MCP server's) and what they showed; ``agent``: the answer of a model offered
  them, rounds and token budget bounded;
- ``result``: the ``AskResult``; ``pipeline``: ``build_context`` and ``ask``, the
  whole run.

Imports run one way inside: errors, tokens, files ← retrieval ← reranker, context ←
citations, prompt, toolbox ← agent, result ← pipeline; ``llm`` stands alone.
"""

from .citations import CITATION, Citation, Verification, find_citations, verify
from .context import (
    DEFAULT_CONTEXT_TOKENS,
    Context,
    RecentContexts,
    Remembered,
    Snippet,
    assemble,
)
from .errors import AskError
from .files import ReadLines, disk_reader
from .pipeline import ask, build_context, llm_config
from .prompt import SYSTEM_PROMPT, messages_for
from .reranker import Scorer, load_reranker, rerank
from .result import NO_MODEL_NOTE, AskResult, answer_result, cut_off_note, result_for
from .retrieval import Candidate, named_identifiers, retrieve
from .tokens import CHARS_PER_TOKEN, TokenCounter, estimate_tokens, token_counter

__all__ = [
    "CHARS_PER_TOKEN",
    "CITATION",
    "DEFAULT_CONTEXT_TOKENS",
    "NO_MODEL_NOTE",
    "SYSTEM_PROMPT",
    "AskError",
    "AskResult",
    "Candidate",
    "Citation",
    "Context",
    "ReadLines",
    "RecentContexts",
    "Remembered",
    "Scorer",
    "Snippet",
    "TokenCounter",
    "Verification",
    "answer_result",
    "ask",
    "assemble",
    "build_context",
    "cut_off_note",
    "disk_reader",
    "estimate_tokens",
    "find_citations",
    "llm_config",
    "load_reranker",
    "messages_for",
    "named_identifiers",
    "rerank",
    "result_for",
    "retrieve",
    "token_counter",
    "verify",
]
