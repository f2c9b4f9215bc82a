"""Reading the wire: the base protocol's framing on the event loop (stdin as a pipe,
or a TCP connection), in place of pygls 2.1.1's thread-pool reader and
``run_async``.

pygls reads stdin in its thread pool: each header line and each body is a hand-off
to a thread and back (nine a keystroke's three messages), every one waiting for
the GIL while the parser or a reader thread runs. When stdin is a pipe (as an
editor starts a server) it is read on the event loop instead; anything else (a
file, a terminal, Windows) through pygls's thread-pool reader. Either way the
messages go through ``read_messages``, which answers bad ones (``protocol``)."""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import threading
from typing import TYPE_CHECKING, Any, BinaryIO

from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcInternalError
from pygls.io_ import StdinAsyncReader, StdoutWriter

from .protocol import (
    CONTENT_LENGTH,
    DISCARD_CHUNK,
    INVALID_REQUEST,
    MAX_MESSAGE_BYTES,
    CodeloupeProtocol,
    describe,
)

log = logging.getLogger("codeloupe.lsp")

_STREAM_LIMIT = 2**20  # buffered stdin: a 20 MB didOpen in 1 MiB reads, not 64 KiB ones


class PipeReader:
    """pygls's reader interface over an asyncio stream: b"" at the end of input, and
    a header line longer than the stream's limit is returned as a line of its own
    (asyncio raises, which would end the read loop)."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream

    async def readline(self) -> bytes:
        """The next line, b"" at the end of input; a line over the stream's limit comes back
        as a placeholder header line."""
        try:
            return await self.stream.readline()
        except ValueError:  # LimitOverrunError: asyncio dropped the line (or its start)
            return b"<a header line too long>\r\n"

    async def readexactly(self, n: int) -> bytes:
        """``n`` bytes, or b"" when the input ends first."""
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""


async def read_messages(stop_event: threading.Event, reader: Any, protocol: CodeloupeProtocol) -> None:
    """The base protocol's framing (``Content-Length`` headers, then the body) until
    the end of input, in place of pygls 2.1.1's ``run_async``: every body goes to
    ``protocol.receive``, which answers what is wrong with it. Header lines that are
    not ``Content-Length`` are skipped; a body over ``MAX_MESSAGE_BYTES`` is read
    past in chunks and refused."""
    while not stop_event.is_set():
        length: int | None = None
        while True:
            line = await reader.readline()
            if not line:
                return  # the end of input
            stripped = line.strip()
            if not stripped:
                if length is not None:
                    break
                continue  # a blank line before any header
            match = CONTENT_LENGTH.fullmatch(stripped)
            if match and length is None:
                length = int(match.group(1))
        if length > MAX_MESSAGE_BYTES:
            left = length
            while left:
                chunk = await reader.readexactly(min(left, DISCARD_CHUNK))
                if not chunk:
                    return
                left -= len(chunk)
            protocol.reply_error(None, INVALID_REQUEST,
                                 f"a message of {length:,} bytes is over the limit of "
                                 f"{MAX_MESSAGE_BYTES:,}; it was read past and ignored")
            continue
        body = await reader.readexactly(length) if length else b""
        if len(body) < length:
            return  # the input ended inside the body
        protocol.receive(body)


class WireIO:
    """The reading half of pygls 2.1.1's ``LanguageServer`` (``start_io`` /
    ``start_tcp``), replaced: mixed into the server class before pygls's."""

    protocol: CodeloupeProtocol
    thread_pool: Any
    _stop_event: threading.Event
    _server: Any

    if TYPE_CHECKING:
        def shutdown(self) -> None:
            """pygls's: set the stop event, shut its thread pool, close the TCP server.
            Declared for the type checker only: a definition here would come first in
            the MRO and hide it (a TCP server would then outlive its client)."""

    def _start_io_async(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        stdin = stdin or sys.stdin.buffer
        try:
            mode = os.fstat(stdin.fileno()).st_mode
        except (AttributeError, OSError, ValueError):
            mode = 0
        # POSIX only: asyncio reads Windows pipes through the proactor, untested here
        pipe = os.name == "posix" and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode))
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            if pipe:
                asyncio.run(self._read_pipe(stdin))
            else:
                asyncio.run(read_messages(self._stop_event, StdinAsyncReader(stdin, self.thread_pool),
                                          self.protocol))
        except BrokenPipeError:
            log.error("codeloupe: the connection to the client is lost")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    async def _read_pipe(self, stdin: BinaryIO) -> None:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=_STREAM_LIMIT, loop=loop)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream, loop=loop), stdin)
        try:
            await read_messages(self._stop_event, PipeReader(stream), self.protocol)
        finally:
            transport.close()

    def start_tcp(self, host: str, port: int) -> None:
        """pygls 2.1.1's TCP server, reading through ``read_messages``."""
        self._stop_event = stop_event = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await read_messages(stop_event, PipeReader(reader), self.protocol)
            self.shutdown()

        async def tcp_server() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(tcp_server())
        except asyncio.CancelledError:
            pass

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A notification's handler failed: one line to the log (and
        ``window/logMessage``). pygls 2.1.1 shows every such error in a
        ``window/showMessage`` popup, which is for what the user can act on. A
        request's error is in its answer already; a message that could not be sent
        (``JsonRpcInternalError``: the connection is closing) is in pygls's log, and
        telling the client about it would be one more message that cannot be sent."""
        if source is FeatureRequestError or source is JsonRpcInternalError:
            return
        text = error.message if isinstance(error, JsonRpcException) else describe(error)
        log.warning("codeloupe: a notification could not be handled: %s", text)
