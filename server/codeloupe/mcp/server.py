"""Running the MCP server: the engine started (the index brought up to date in the
background while the tools answer), then the SDK's stdio or streamable-HTTP
transport until the client leaves."""

from __future__ import annotations

import logging
from pathlib import Path

from ..config import Settings
from .engine import Engine
from .tools import build_server

log = logging.getLogger("codeloupe.mcp")

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve(root: str | Path, settings: Settings, *, transport: str = "stdio",
          host: str = "127.0.0.1", port: int = 8765, embed: bool = True,
          watch: bool = True) -> int:
    """Serve ``root``'s index over MCP until the client leaves (stdio) or the process is
    stopped (HTTP); the exit status."""
    engine = Engine(root, settings, embed=embed, watch=watch)
    server = build_server(engine)  # on stdio it starts the engine once it holds stdout
    try:
        if transport == "stdio":
            server.run("stdio")
        else:
            engine.start()  # bring the index up to date now, not at the first client
            if host not in LOOPBACK:
                log.warning("codeloupe: serving MCP on %s: anyone who reaches it reads this "
                            "repository's code", host)
            server.run("streamable-http", host=host, port=port)
    finally:
        engine.close()
    return 0
