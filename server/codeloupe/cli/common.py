"""What the commands share: their errors, notes and progress on stderr, and the
settings from the flags. Opening an index for a command is ``opening`` (it imports
the engine; ``calls``, ``path`` and ``graph`` often answer without it)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ..config import Settings
from ..errors import CodeloupeError


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
    """A rich progress bar on a terminal; a line per 10% otherwise (CI logs). Embedding
    shows the time left as the run measures it (``pending.EmbedClock``), not a rate of
    symbols (their texts are embedded shortest first)."""
    if not enabled:
        yield None
        return
    from ..pending import about

    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            Task,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text

        class TimeLeft(ProgressColumn):
            """The stage's own estimate where it has one, else rich's."""

            fallback = TimeRemainingColumn()

            def render(self, task: Task) -> Text:
                if "eta" not in task.fields:
                    return self.fallback.render(task)
                eta = task.fields["eta"]
                if task.finished:
                    return Text("")
                return Text("estimating" if eta is None else about(eta) + " left",
                            style="progress.remaining")

        bars: dict[str, int] = {}
        with Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), TimeLeft(), console=Console(stderr=True),
            transient=False,
        ) as prog:
            def update(stage: str, done: int, total: int, eta: float | None = None, /) -> None:
                fields = {"eta": eta} if stage == "embed" else {}
                if stage not in bars:
                    bars[stage] = prog.add_task(STAGES.get(stage, stage), total=total, **fields)
                prog.update(bars[stage], completed=done, total=total, **fields)

            yield update
        return
    last: dict[str, int] = {}
    started = time.monotonic()

    def plain(stage: str, done: int, total: int, eta: float | None = None, /) -> None:
        if total <= 0:
            return
        tenth = done * 10 // total
        if last.get(stage, -1) == tenth:
            return
        last[stage] = tenth
        if stage != "scan" and (done == total or total >= 200):
            left = f", {about(eta)} left" if eta is not None and done < total else ""
            sys.stderr.write(
                f"codeloupe: {STAGES.get(stage, stage)} {done}/{total} "
                f"({time.monotonic() - started:.1f}s{left})\n"
            )

    yield plain


# --- settings -------------------------------------------------------------------------


def device_of(args: argparse.Namespace) -> str | None:
    """``--device`` checked (``embed.device.resolve_device``); None when not given."""
    if args.device is None:
        return None
    from ..embed import EmbeddingError
    from ..embed.device import resolve_device

    try:
        return resolve_device(args.device)
    except EmbeddingError as exc:
        raise CliError(str(exc)) from exc


def settings_of(args: argparse.Namespace) -> Settings:
    """The engine settings of these flags, over the environment's (``Settings.from_env``)."""
    return Settings.from_env(model=args.model, embedding_backend=args.backend,
                             embedding_device=device_of(args),
                             index_uri=args.index_uri,
                             index_generated=True if args.include_generated else None)
