"""``codeloupe ask``: an answer with cited, verified sources (streamed), or the
context alone when no model is configured."""

from __future__ import annotations

import argparse
import json
import sys

from ..ask import AskError, ask, llm_config
from ..ask.llm import ChatClient, LLMError
from ..config import Settings
from .common import CliError, device_of, err, note
from .opening import open_for_query


def _reachable_client(settings: Settings):  # llm.ChatClient | None
    """The endpoint's client, checked to answer (and its model resolved) before any
    index or retrieval work; None when no endpoint is configured."""
    config = llm_config(settings)
    if config is None:
        return None
    try:
        client = ChatClient(config)
        client.check_reachable()
    except LLMError as exc:
        raise CliError(str(exc)) from None
    return client


def run_ask(args: argparse.Namespace) -> int:
    """Retrieve, assemble, answer with cited sources (or the context alone when no
    model is configured); the answer streams to stdout, notes go to stderr."""
    question = " ".join(args.question).strip()
    if not question:
        raise CliError("the question is empty")
    settings = Settings.from_env(model=args.model, embedding_backend=args.backend,
                                 embedding_device=device_of(args),
                                 index_uri=args.index_uri, llm_url=args.llm_url,
                                 llm_model=args.llm_model, ask_context_tokens=args.context_tokens,
                                 llm_max_tokens=args.llm_max_tokens,
                                 llm_deadline_s=args.llm_deadline,
                                 ask_tools=False if args.no_tools else None)
    if settings.ask_context_tokens < 100:
        raise CliError("--context-tokens must be at least 100")
    if settings.llm_max_tokens < 1:
        raise CliError("--llm-max-tokens must be at least 1")
    if not 1 <= settings.llm_deadline_s < float("inf"):
        raise CliError("--llm-deadline must be at least 1 (seconds)")
    clients: list = []
    # an unreachable endpoint: said before the update and before any context is built
    index = open_for_query(args.root, args,
                           before_update=lambda: clients.append(_reachable_client(settings)))
    client = clients[0]
    streamed = False

    def on_delta(piece: str) -> None:
        nonlocal streamed
        streamed = True
        sys.stdout.write(piece)
        sys.stdout.flush()

    try:
        result = ask(question, index, settings, on_delta=None if args.json else on_delta,
                     client=client)
    except (AskError, LLMError) as exc:
        if streamed:
            sys.stdout.write("\n")
        raise CliError(str(exc)) from None
    except KeyboardInterrupt:  # the connection is closed: the endpoint stops generating
        if streamed:
            sys.stdout.write("\n")
            sys.stdout.flush()
        err("interrupted; the answer above is incomplete" if streamed else
             "interrupted before the answer")
        return 130
    if args.json:
        print(json.dumps(result.as_dict()))
        return 0
    if result.answer is None:
        note(result.note or "no language model is configured")
        print(result.context or "no code matched the question")
        return 0
    if not streamed:
        sys.stdout.write(result.answer)
    if result.tool_calls:
        note("the model fetched more code with: " + ", ".join(
            f"{c['tool']}({c['arguments']})" for c in result.tool_calls))
    print("\n\nsources:")
    for s in result.sources:
        mark = "*" if s.get("cited") else " "
        print(f" {mark} {s['path']}:{s['start_line']}-{s['end_line']}  {s['qualified_name']}")
    if result.unverified_citations:
        note("citations that point outside the code sent to the model (unverified): "
              + ", ".join(result.unverified_citations))
    if result.note:
        note(result.note)
    return 0
