"""``codeloupe serve``: the language server on stdio or TCP."""

from __future__ import annotations

import argparse
import os

from ..config import Settings
from ..lsp import serve
from .common import CliError, device_of


def run_serve(args: argparse.Namespace) -> int:
    """The language server. Stdout carries only the protocol; logs go to stderr and
    to the client (window/logMessage)."""
    if args.tcp and ":" not in args.tcp:
        raise CliError(f"--tcp wants HOST:PORT, got {args.tcp!r}")
    overrides = {"model": args.model or os.environ.get("CODELOUPE_MODEL"),
                 "embedding_backend": args.backend or os.environ.get("CODELOUPE_EMBEDDING_BACKEND"),
                 "embedding_device": device_of(args) or Settings.from_env().embedding_device,
                 "index_uri": args.index_uri or os.environ.get("CODELOUPE_INDEX_URI")}
    return serve(args.tcp, overrides)
