"""The command line's arguments: every command and its flags (cheap to build, so
``--help`` and a typo cost no imports of the engine)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .. import __version__
from ..graph import DEFAULT_MIN_CONFIDENCE

DESCRIPTION = """The command line: the same engine as the language server, from a terminal.

Progress goes to stderr; results go to stdout (JSON with ``--json``)."""


def _common() -> argparse.ArgumentParser:
    """The flags every command takes: the model, the backend and device, where the index
    lives."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--model", help="embedding model: 'default' (bundled all-MiniLM-L6-v2), "
                        "a sentence-transformers name or a path (env CODELOUPE_MODEL)")
    common.add_argument("--backend", choices=("auto", "torch", "onnx"),
                        help="embedding backend: auto (default: onnx, int8 weights on "
                        "onnxruntime, for every model it can run, else torch), torch "
                        "(sentence-transformers) or onnx (env CODELOUPE_EMBEDDING_BACKEND)")
    common.add_argument("--device", help="embedding device: auto (default: a CUDA GPU where "
                        "one is there and torch was built for it, else the CPU), cpu, cuda or "
                        "cuda:N (env CODELOUPE_EMBEDDING_DEVICE)")
    common.add_argument("--index-uri", help="where the index lives (default ROOT/.codeloupe; "
                        "env CODELOUPE_INDEX_URI)")
    common.add_argument("--include-generated", action="store_true",
                        help="index files that say a program wrote them (protobuf stubs, "
                        "`Code generated ... DO NOT EDIT.`, @generated; env "
                        "CODELOUPE_INDEX_GENERATED=1)")
    common.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    common.add_argument("--log-level", default=os.environ.get("CODELOUPE_LOG", "warning"))

    return common


def _index_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """``index``."""
    p = sub.add_parser("index", parents=[common], help="build or update the index of a folder")
    p.add_argument("root", nargs="?", default=".")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-embed", action="store_true", help="symbols and full text only")



def _query_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """``search`` and ``ask``."""
    p = sub.add_parser("search", parents=[common], help="hybrid semantic + full-text search")
    p.add_argument("query", nargs="+", help="the query; '-' reads one query per line from stdin")
    p.add_argument("--root", default=".")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--lang", help="only these languages (comma-separated)")
    p.add_argument("--path", help="only paths matching this glob (src/**/*.py)")
    p.add_argument("--kind", help="only these kinds (function,method,class,...)")
    p.add_argument("--mode", default="hybrid", choices=["hybrid", "vector", "fts"])
    p.add_argument("--json", action="store_true", help="one JSON object per query")
    p.add_argument("--snippets", action="store_true", help="include code snippets")
    p.add_argument("--no-update", action="store_true", help="do not update the index first")

    p = sub.add_parser("ask", parents=[common], help="ask a question about the code: an answer "
                       "with cited, verified sources from an OpenAI-compatible model")
    p.add_argument("question", nargs="+")
    p.add_argument("--root", default=".")
    p.add_argument("--json", action="store_true", help="print the response object")
    p.add_argument("--llm-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 "
                   "(env CODELOUPE_LLM_URL; API key from env CODELOUPE_LLM_API_KEY)")
    p.add_argument("--llm-model", help="model name (env CODELOUPE_LLM_MODEL; default: the "
                   "endpoint's first model)")
    p.add_argument("--context-tokens", type=int, help="token budget of the code sent (default 6000)")
    p.add_argument("--llm-max-tokens", type=int, metavar="N", help="most tokens of the answer, "
                   "sent as max_tokens (env CODELOUPE_LLM_MAX_TOKENS; default 2048)")
    p.add_argument("--llm-deadline", type=float, metavar="SECONDS", help="longest the answer "
                   "may take in all; what streamed until then is kept, with a note (env "
                   "CODELOUPE_LLM_DEADLINE_S; default 300)")
    p.add_argument("--no-tools", action="store_true", help="send one context; do not offer the "
                   "model the tools (search_code, symbol, callers, callees) to fetch more "
                   "(env CODELOUPE_ASK_TOOLS=0; tools are offered only where the endpoint takes them)")
    p.add_argument("--no-update", action="store_true", help="do not update the index first")


def _graph_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """``calls``, ``path`` and ``graph``: the reference map."""
    p = sub.add_parser("calls", parents=[common], help="callers and callees of symbols")
    p.add_argument("target", nargs="+", help="path:line, a name or a qualified name; '-' reads "
                   "targets from stdin, one per line (JSON lines out)")
    p.add_argument("--root", default=".")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--callers", action="store_true", help="who calls it (the default)")
    which.add_argument("--callees", action="store_true", help="what it calls")
    which.add_argument("--both", action="store_true")
    p.add_argument("--depth", type=int, default=1, help="transitive, this many calls away")
    p.add_argument("--min-confidence", type=float, default=DEFAULT_MIN_CONFIDENCE,
                   help=f"leave out edges below this confidence (default {DEFAULT_MIN_CONFIDENCE}: calls "
                   "resolved by scope, imports, self/super, types or a unique method name; name matches "
                   "are 0.3 or less and only counted; 0 shows them)")
    p.add_argument("--json", action="store_true", help="one JSON object per symbol")
    p.add_argument("--no-update", action="store_true", help="do not update the index first")

    p = sub.add_parser("path", parents=[common], help="call chains from one symbol to another")
    p.add_argument("source", metavar="FROM")
    p.add_argument("dest", metavar="TO")
    p.add_argument("--root", default=".")
    p.add_argument("--depth", type=int, default=6, help="at most this many calls long")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--min-confidence", type=float, default=DEFAULT_MIN_CONFIDENCE,
                   help=f"follow only edges with at least this confidence (default {DEFAULT_MIN_CONFIDENCE}; "
                   "0 follows name matches too)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-update", action="store_true", help="do not update the index first")

    p = sub.add_parser("graph", parents=[common], help="the call graph in numbers")
    p.add_argument("--root", default=".")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-update", action="store_true", help="do not update the index first")


def _status_command(sub: Any, common: argparse.ArgumentParser) -> None:
    """``status``."""
    p = sub.add_parser("status", parents=[common], help="what the index holds")
    p.add_argument("root", nargs="?", default=".")
    p.add_argument("--json", action="store_true")


def _serve_command(sub: Any, common: argparse.ArgumentParser) -> None:
    """``serve``: the language server."""
    p = sub.add_parser("serve", parents=[common], help="run the language server (stdio)")
    transport = p.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk LSP on stdin/stdout (default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port instead")


def _mcp_command(sub: Any, common: argparse.ArgumentParser) -> None:
    """``mcp``: the index for coding agents."""
    p = sub.add_parser("mcp", parents=[common], help="serve the index to coding agents over "
                       "the Model Context Protocol (stdio by default)")
    p.add_argument("root", nargs="?", default=".")
    p.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio "
                   "(at http://HOST:PORT/mcp)")
    p.add_argument("--host", default="127.0.0.1", help="with --http (default 127.0.0.1: this "
                   "machine only)")
    p.add_argument("--port", type=int, default=8765, help="with --http (default 8765)")
    p.add_argument("--no-embed", action="store_true", help="symbols, full text and the call "
                   "graph only (search falls back to full text)")
    p.add_argument("--no-watch", action="store_true", help="do not follow file changes with a "
                   "watcher; sync when a tool is called instead")


def build_parser() -> argparse.ArgumentParser:
    """Every command and its flags."""
    common = _common()
    parser = argparse.ArgumentParser(prog="codeloupe", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"codeloupe {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _index_commands(sub, common)
    _query_commands(sub, common)
    _graph_commands(sub, common)
    _status_command(sub, common)
    _serve_command(sub, common)
    _mcp_command(sub, common)
    return parser
