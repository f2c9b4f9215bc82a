"""What the commands share: their errors, notes and progress on stderr, the settings
from the flags, and opening an index for a command (and bringing it up to date)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..config import Settings
from ..errors import CodeloupeError
from ..index import Index
from ..store import IndexMismatch

SEARCH_EMBED_LIMIT = 2000  # a search embeds this many pending symbols itself; more: `index`


class CliError(CodeloupeError):
    """A bad argument or a missing folder: one line, exit 2."""


def err(message: str) -> None:
    """An error line on stderr (``codeloupe: error: ...``)."""
    sys.stderr.write(f"codeloupe: error: {message}\n")


def note(message: str) -> None:
    """A note line on stderr: what the user should hear beside the result."""
    sys.stderr.write(f"codeloupe: {message}\n")


def out(text: str) -> None:
    """A result line on stdout, flushed: a reader of JSON lines sees each at once."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


# --- progress on stderr ---------------------------------------------------------------

STAGES = {"scan": "scanning", "parse": "parsing", "embed": "embedding"}


@contextmanager
def progress_reporter(enabled: bool = True) -> Iterator[object]:
    """A rich progress bar on a terminal; a line per 10% otherwise (CI logs)."""
    if not enabled:
        yield None
        return
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        bars: dict[str, int] = {}
        with Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True),
            transient=False,
        ) as prog:
            def update(stage: str, done: int, total: int) -> None:
                if stage not in bars:
                    bars[stage] = prog.add_task(STAGES.get(stage, stage), total=total)
                prog.update(bars[stage], completed=done, total=total)

            yield update
        return
    last: dict[str, int] = {}
    started = time.monotonic()

    def plain(stage: str, done: int, total: int) -> None:
        if total <= 0:
            return
        tenth = done * 10 // total
        if last.get(stage, -1) == tenth:
            return
        last[stage] = tenth
        if stage != "scan" and (done == total or total >= 200):
            sys.stderr.write(
                f"codeloupe: {STAGES.get(stage, stage)} {done}/{total} "
                f"({time.monotonic() - started:.1f}s)\n"
            )

    yield plain


# --- opening an index -----------------------------------------------------------------


def settings_of(args: argparse.Namespace) -> Settings:
    """The engine settings of these flags, over the environment's (``Settings.from_env``)."""
    return Settings.from_env(model=args.model, embedding_backend=args.backend,
                             index_uri=args.index_uri,
                             index_generated=True if args.include_generated else None)


def open_index(root: str, args: argparse.Namespace, *, writable: bool = True,
          check_model: bool = True, rebuild: bool = True):
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
                   before_update: Callable[[], object] | None = None):
    """The index a query reads, brought up to date first unless ``--no-update``
    (``before_update`` runs just before that, with or without an update).
    A query never rebuilds: an index built with another model or schema is an
    error saying what to run, or (``needs_model`` False: the call graph, which
    needs symbols and references only) answered from as it is, with a note."""
    def opened(index, update: bool):
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


def bring_up_to_date(index, args: argparse.Namespace, embed: bool = True) -> None:
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
