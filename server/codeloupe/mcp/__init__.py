"""``codeloupe mcp``: the index over the Model Context Protocol, for coding agents.

- ``engine``: one folder kept up to date in the background (the workspace's model and
  call graph, as the language server keeps them) and the tools' answers as plain data;
- ``watch``: following the files on disk;
- ``tools``: the MCP tools (the official SDK, ``mcp`` 2.x) onto the engine;
- ``server``: running it on stdio or streamable HTTP.

It knows nothing of LSP; the engine knows nothing of MCP types.
"""

from __future__ import annotations

from .engine import Engine, ToolInputError
from .server import serve

__all__ = ["Engine", "ToolInputError", "serve"]
