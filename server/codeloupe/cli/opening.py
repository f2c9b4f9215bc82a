"""Opening an index for a command, and bringing it up to date first."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from ..index import Index
from ..store import IndexMismatch
from .common import CliError, note, progress_reporter, settings_of

SEARCH_EMBED_LIMIT = 2000  # a search embeds this many pending symbols itself; more: `index`


def open_index(root: str, args: argparse.Namespace, *, writable: bool = True,
               check_model: bool = True, rebuild: bool = True) -> Index:
    """The index of ``root`` (see ``Index`` for the flags); its notes go to stderr."""
    path = Path(root).expanduser()
    if not path.exists():
        raise CliError(f"no such folder: {root}")
    if not path.is_dir():
        raise CliError(f"not a folder: {root}")
    index = Index(path, settings_of(args), writable=writable, check_model=check_model,
                  rebuild=rebuild)
    for message in index.notes:
        note(message)
    return index


def open_for_query(root: str, args: argparse.Namespace, *, needs_model: bool = True,
                   before_update: Callable[[], object] | None = None) -> Index:
    """The index a query reads, brought up to date first unless ``--no-update``
    (``before_update`` runs just before that, with or without an update).
    A query never rebuilds: an index built with another model or schema is an
    error saying what to run, or (``needs_model`` False: the call graph, which
    needs symbols and references only) answered from as it is, with a note."""
    def opened(index: Index, update: bool) -> Index:
        if before_update is not None:
            before_update()
        if update:
            bring_up_to_date(index, args, embed=needs_model)
        return index

    if args.no_update:
        return opened(open_index(root, args, writable=False, check_model=needs_model), False)
    try:
        index = open_index(root, args, rebuild=False)
    except IndexMismatch as exc:
        if needs_model:
            raise
        note(f"{exc} (answering from the index as it is, without updating it)")
        return opened(open_index(root, args, writable=False, check_model=False), False)
    return opened(index, True)


def bring_up_to_date(index: Index, args: argparse.Namespace, embed: bool = True) -> None:
    """Queries first update the index (cheap when nothing changed); a search also
    embeds a few pending symbols itself (``SEARCH_EMBED_LIMIT``)."""
    with index.write_lock(wait=False) as locked:
        if not locked:
            note("another codeloupe process is indexing this folder; answering from the index as it is")
            return
        with progress_reporter(not args.quiet) as progress:
            index.sync_files(progress)  # type: ignore[arg-type]
            if embed and 0 < index.store.count_pending() <= SEARCH_EMBED_LIMIT:
                index.embed_pending(progress)  # type: ignore[arg-type]
