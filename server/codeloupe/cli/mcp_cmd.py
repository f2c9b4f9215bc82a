"""``codeloupe mcp``: the index over the Model Context Protocol (stdio, or streamable
HTTP on 127.0.0.1), for coding agents."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import CliError, settings_of


def run_mcp(args: argparse.Namespace) -> int:
    """The MCP server of a folder. Stdout carries only the protocol on stdio; logs go to
    stderr."""
    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise CliError(f"no such folder: {args.root}")
    if not 0 < args.port < 65536:
        raise CliError(f"--port must be between 1 and 65535, got {args.port}")
    from ..mcp import serve  # the SDK and the engine: only for this command

    return serve(root, settings_of(args), transport="streamable-http" if args.http else "stdio",
                 host=args.host, port=args.port, embed=not args.no_embed,
                 watch=not args.no_watch)
