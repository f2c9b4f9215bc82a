"""Loading a folder's embedding model off the writer (a shutdown need not wait for
it), and warming it once an index run says "ready"."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ..index import Index
from ..workspace import Folder
from .heap import freeze_heap

if TYPE_CHECKING:
    from .server import CodeloupeServer

log = logging.getLogger("codeloupe.lsp")


async def load_model(ls: CodeloupeServer, index: Index) -> None:
    """Load an index's embedding model in the loader thread: seconds of work that
    holds no lock on the index, so a shutdown does not wait for it."""
    await ls.load(lambda: index.embedder)


def warm_model(ls: CodeloupeServer, folder: Folder, index: Index) -> None:
    """Load the model in the background (the index run has said "ready" already),
    then freeze the heap again with the model in it."""

    def done(fut: asyncio.Future) -> None:
        if fut.cancelled():
            return
        if fut.exception() is not None:
            log.warning("codeloupe: loading the embedding model failed: %s", fut.exception())
        elif not ls.stopping.is_set():
            freeze_heap()

    folder.warming = asyncio.ensure_future(load_model(ls, index))
    folder.warming.add_done_callback(done)
