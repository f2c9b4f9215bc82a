"""The command line: the same engine as the language server, from a terminal.

Progress goes to stderr; results go to stdout (JSON with ``--json``). One module a
command group (``index_cmd``: index and status; ``search_cmd``; ``ask_cmd``;
``graph_cmd``: calls, path, graph; ``serve_cmd``), the arguments of all of them in
``parser``, what they share in ``common``, opening an index in ``opening``. Only the
module of the command that runs is imported (``COMMANDS``): ``status`` never loads
the language server, ``--help`` loads no engine at all, and ``calls``, ``path`` and
``graph`` load neither LanceDB nor an embedding library when the saved graph answers.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from collections.abc import Sequence

from ..errors import CodeloupeError
from .parser import build_parser

log = logging.getLogger("codeloupe")

# command → (module of this package, function that runs it)
COMMANDS: dict[str, tuple[str, str]] = {
    "index": ("index_cmd", "run_index"),
    "status": ("index_cmd", "run_status"),
    "search": ("search_cmd", "run_search"),
    "ask": ("ask_cmd", "run_ask"),
    "calls": ("graph_cmd", "run_calls"),
    "path": ("graph_cmd", "run_path"),
    "graph": ("graph_cmd", "run_graph"),
    "serve": ("serve_cmd", "run_serve"),
    "mcp": ("mcp_cmd", "run_mcp"),
}


def _err(message: str) -> None:
    sys.stderr.write(f"codeloupe: error: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line: the exit status (2 for a one-line error, 130 when interrupted);
    the module of the command alone is imported."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=getattr(logging, str(args.log_level).upper(), logging.WARNING),
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("LANCE_LOG", "error")
    os.environ.setdefault("LANCEDB_LOG", "error")
    module, function = COMMANDS[args.command]
    try:
        run = getattr(importlib.import_module(f"{__name__}.{module}"), function)
        return int(run(args) or 0)
    except CodeloupeError as exc:
        _err(str(exc))
        return 2
    except KeyboardInterrupt:
        _err("interrupted; the index keeps everything written so far, the next run completes it")
        return 130
    except BrokenPipeError:
        return 0
