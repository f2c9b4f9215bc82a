"""One question from start to end: the endpoint from the settings, checked first;
retrieval, re-ranking and the context under the budget; the answer (streamed);
the result with its citations verified."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..graph import Graph
from ..workspace import graph_for
from .agent import answer_with_tools
from .context import Context, assemble
from .errors import AskError
from .files import ReadLines, disk_reader
from .llm import ChatClient, LLMConfig, ToolsUnsupported, chat
from .prompt import messages_for
from .reranker import Scorer, load_reranker, rerank
from .result import AskResult, answer_result, result_for
from .retrieval import retrieve
from .tokens import token_counter
from .toolbox import Toolbox

if TYPE_CHECKING:
    from ..config import Settings
    from ..index import Index

log = logging.getLogger(__name__)


def llm_config(settings: Settings) -> LLMConfig | None:
    """The endpoint from the settings (None: no model configured)."""
    if not settings.llm_url:
        return None
    key = os.environ.get(settings.llm_api_key_env) if settings.llm_api_key_env else None
    return LLMConfig(url=settings.llm_url, model=settings.llm_model or None, api_key=key or None,
                     timeout_s=settings.llm_timeout_s, deadline_s=settings.llm_deadline_s,
                     max_tokens=settings.llm_max_tokens)


def build_context(
    question: str,
    index: Index,
    settings: Settings,
    *,
    graph: Graph | None = None,
    read_lines: ReadLines | None = None,
    mode: str = "hybrid",
    reranker: Scorer | None = None,
) -> Context:
    """Retrieve, re-rank (``reranker``, else the one the settings name) and assemble
    the context of a question within ``settings.ask_context_tokens``. ``read_lines``:
    the files' lines (default: as on disk); ``graph``: default the store's."""
    if not question.strip():
        raise AskError("the question is empty")
    graph = graph if graph is not None else graph_for(index)
    read = read_lines or disk_reader(index.root, index.settings.max_file_bytes)
    if reranker is None and settings.reranker:
        reranker = load_reranker(settings.reranker)
    ranked = retrieve(question, index, graph, mode=mode)
    if reranker is not None and ranked:
        ranked = rerank(question, ranked, reranker, index.root, read_lines=read)
    count = token_counter(settings.ask_tokenizer)
    return assemble(ranked, graph, read, settings.ask_context_tokens, count)


def ask(
    question: str,
    index: Index,
    settings: Settings,
    *,
    graph: Graph | None = None,
    read_lines: ReadLines | None = None,
    on_delta: Callable[[str], None] | None = None,
    client: ChatClient | None = None,
    mode: str = "hybrid",
) -> AskResult:
    """Check the endpoint is reachable, then retrieve, assemble, generate (streamed
    into ``on_delta`` when given), verify. Without a configured endpoint: the context
    and a note, never an answer. Raises ``llm.LLMError`` when the endpoint fails
    (an unreachable one before any retrieval); an answer cut off at the deadline
    comes back with what streamed and a note."""
    if client is None:
        config = llm_config(settings)
        client = ChatClient(config) if config is not None else None
    if client is not None:
        client.check_reachable()  # seconds, not the minute a big repository's context takes
    graph = graph if graph is not None else graph_for(index)
    read = read_lines or disk_reader(index.root, index.settings.max_file_bytes)
    context = build_context(question, index, settings, graph=graph, read_lines=read, mode=mode)
    if client is None:
        return result_for(question, context, None, None)
    if settings.ask_tools:
        toolbox = Toolbox(index, graph, read)
        try:
            return with_tools(question, context, toolbox, client, settings, on_delta, index.root)
        except ToolsUnsupported as exc:
            log.info("codeloupe: %s; answering from the context alone", exc)
    answer = chat(client.config, messages_for(question, context), on_delta, client)
    return answer_result(question, context, answer, client.config, index.root)


def with_tools(question: str, context: Context, toolbox: Toolbox, client: ChatClient,
               settings: Settings, on_delta: Callable[[str], None] | None,
               root: Path | None = None) -> AskResult:
    """The answer of a model offered the tools (``agent.answer_with_tools``), its
    citations verified against the context and what the tools showed; the calls it
    made in ``tool_calls``. ToolsUnsupported when the endpoint refuses tools."""
    done = answer_with_tools(question, context, toolbox, client,
                             token_counter(settings.ask_tokenizer), on_delta)
    result = answer_result(question, done.context, done.answer, client.config, root)
    result.tool_calls = [c.as_dict() for c in done.calls] or None  # listed when it called any
    return result
