"""The language server (pygls): ``server`` (its state), ``wiring`` (methods to
handlers, running the process), ``features`` (one module a group of LSP methods,
each calling into the engine), the services the features share (``indexing``,
``buffers``, ``lenses``, ``embedding``, ``heap``, ``convert``, ``positions``,
``options``, ``trace``), and ``pygls_compat`` (every pygls internal it relies on)."""

from .server import CodeloupeServer
from .wiring import create_server, serve

__all__ = ["CodeloupeServer", "create_server", "serve"]
