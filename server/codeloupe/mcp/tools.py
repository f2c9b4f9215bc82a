"""The MCP tools: a small set, each described for the model that reads the list, each
a thin adapter onto ``engine.Engine``. A bad argument is a tool error that names it
(``is_error`` with the message), never a crash of the server."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from .. import __version__
from ..ask.toolbox import MAX_DEPTH, MAX_K
from ..graph import DEFAULT_MIN_CONFIDENCE
from .engine import MAX_BUDGET, MAX_CHAIN_DEPTH, MAX_CHAINS, MIN_BUDGET, Engine, ToolInputError

log = logging.getLogger("codeloupe.mcp")

INSTRUCTIONS = """codeloupe indexes this repository: every function, method and class (12
languages), a resolved call graph, and embeddings for semantic search. It stays up to
date as files change. Prefer it to grep when you look for code by what it does
(search_code), need who calls what across files (callers, callees, call_path), or want
the definition of a symbol with its class and file at once (symbol). For a question
about how something works, context_for gives the relevant code, cited path:line, within
a token budget. Each answer has an `index` object: when `complete` is false, the note
says what is still being indexed or embedded."""

Target = Annotated[str, Field(description="a symbol: a name (`send`), a qualified name "
                              "(`Session.send`, `app.handle`), a symbol id, or `path:line` "
                              "(the innermost symbol around that line, 1-based)")]
Confidence = Annotated[float, Field(ge=0.0, le=1.0, description=(
    f"leave out calls resolved with less confidence (default {DEFAULT_MIN_CONFIDENCE}: "
    "resolved by scope, imports, self/this, types; calls matched by name only are "
    "below it and are listed apart as `by_name_only` candidates; 0 includes them)"))]


def _call(fn: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Run one tool's work: an argument it cannot take, or a failure, is a tool error
    with the reason (the server goes on)."""
    try:
        return fn(*args, **kwargs)
    except ToolInputError as exc:
        raise ToolError(str(exc)) from None
    except Exception as exc:
        log.exception("codeloupe: tool %s failed", getattr(fn, "__name__", fn))
        raise ToolError(f"{type(exc).__name__}: {exc}") from None


def _code_tools(server: MCPServer, engine: Engine) -> None:
    """Finding and reading code: search_code, symbol, context_for, index_status."""

    @server.tool()
    def search_code(
        query: Annotated[str, Field(description="what the code does, in words (`where are "
                                    "failed uploads retried`) or a name (`parse_header`)")],
        k: Annotated[int, Field(ge=1, le=MAX_K, description="how many results")] = 10,
        lang: Annotated[str | None, Field(description="only these languages, comma-separated "
                                          "(`python,go`)")] = None,
        path: Annotated[str | None, Field(description="only paths matching this glob "
                                          "(`src/**/*.py`)")] = None,
        kind: Annotated[str | None, Field(description="only these kinds, comma-separated "
                                          "(`function,method,class`)")] = None,
    ) -> dict[str, Any]:
        """Find code by meaning: semantic and full-text search over every function, method
        and class of the repository, best first. Use it instead of grep when you know what
        the code does but not what it is called. Each result: path, start/end lines,
        qualified name, kind, signature, the first lines and a score."""
        return _call(engine.search_code, query, k, lang=lang, path=path, kind=kind)

    @server.tool()
    def symbol(target: Target) -> dict[str, Any]:
        """The definition of a symbol: signature, docstring, its source with line numbers,
        the class it belongs to and the other symbols of its file. Use it to read a
        function found by search_code or callers without opening the whole file."""
        return _call(engine.symbol, target)

    @server.tool()
    def context_for(
        question: Annotated[str, Field(description="the question about the code, as you "
                                       "would ask a colleague")],
        budget_tokens: Annotated[int, Field(ge=MIN_BUDGET, le=MAX_BUDGET, description=(
            "most tokens of code to return"))] = 6000,
    ) -> dict[str, Any]:
        """The code a question needs, ready to read: symbols named in it, semantic search
        and one hop of the call graph, packed within a token budget, each snippet headed
        `path:start-end name (kind)` with numbered lines, so an answer can cite path:line."""
        return _call(engine.context_for, question, budget_tokens)

    @server.tool()
    def index_status() -> dict[str, Any]:
        """The state of the index: files, symbols, languages, embeddings still pending, the
        last update, and whether it is complete. Call it when results look incomplete."""
        return _call(engine.index_status)


def _call_tools(server: MCPServer, engine: Engine) -> None:
    """The call graph: callers, callees, call_path."""

    @server.tool()
    def callers(
        target: Target,
        depth: Annotated[int, Field(ge=1, le=MAX_DEPTH, description="1: direct callers; "
                                    "more: their callers too, each row with its depth")] = 1,
        min_confidence: Confidence = DEFAULT_MIN_CONFIDENCE,
    ) -> dict[str, Any]:
        """Who calls this symbol: every resolved call site (path, line, column, the calling
        function, confidence and the evidence), across files and languages. Unlike grep
        for the name, calls are resolved through imports, classes and types, so a method
        shared by name with another class is not mixed in. Calls matched by name only are
        listed apart (`by_name_only`) with their reason."""
        return _call(engine.callers, target, depth, min_confidence)

    @server.tool()
    def callees(
        target: Target,
        depth: Annotated[int, Field(ge=1, le=MAX_DEPTH, description="1: direct callees; "
                                    "more: their callees too")] = 1,
        min_confidence: Confidence = DEFAULT_MIN_CONFIDENCE,
    ) -> dict[str, Any]:
        """What this symbol calls: each callee defined in the repository with where it is
        defined and the lines of the calls. Use it to follow how something works, one
        level (or a few) down."""
        return _call(engine.callees, target, depth, min_confidence)

    @server.tool()
    def call_path(
        source: Annotated[str, Field(description="where the chain starts (a name, qualified "
                                     "name or path:line)")],
        target: Annotated[str, Field(description="where it ends")],
        max_depth: Annotated[int, Field(ge=1, le=MAX_CHAIN_DEPTH, description="at most this many calls")] = 6,
        limit: Annotated[int, Field(ge=1, le=MAX_CHAINS, description="at most this many chains")] = 5,
        min_confidence: Confidence = DEFAULT_MIN_CONFIDENCE,
    ) -> dict[str, Any]:
        """The shortest call chains from one symbol to another, each step with its call site:
        how does a request get from the entry point to this function?"""
        return _call(engine.call_path, source, target, max_depth, limit, min_confidence)


def build_server(engine: Engine) -> MCPServer:
    """The MCP server of one engine, its tools registered."""

    @asynccontextmanager
    async def started(_: MCPServer) -> AsyncIterator[None]:
        # on stdio, once the SDK holds fd 1 (whatever a library writes there goes to
        # stderr, not into the protocol); on HTTP, already started (``start`` is idempotent)
        engine.start()
        yield None

    server: MCPServer = MCPServer(name="codeloupe", version=__version__,
                                  instructions=INSTRUCTIONS, log_level="WARNING",
                                  lifespan=started)

    _code_tools(server, engine)
    _call_tools(server, engine)
    return server
