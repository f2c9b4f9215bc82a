"""The language server (pygls): lifecycle, document sync, features, commands."""

from .server import CodeloupeServer, create_server, serve

__all__ = ["CodeloupeServer", "create_server", "serve"]
