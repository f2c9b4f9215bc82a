"""Symbols waiting for their vectors, as an index run embeds them: the order of their
files (what the user looks at, then source, then tests, then docs and examples), a page
of them (each needs the vectors of two texts, the same one twice for a short symbol),
the progress shown meanwhile, which never goes back, and an estimate of the time left."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pyarrow as pa

if TYPE_CHECKING:
    from .store import Store


class Progress(Protocol):
    """progress(stage, done, total, eta): stage is "scan", "parse", "embed"; ``eta`` the
    seconds the stage has left where it can tell (embedding), else None."""

    def __call__(self, stage: str, done: int, total: int, eta: float | None = None, /) -> None: ...


def forward_only(progress: Progress | None) -> Progress | None:
    """Progress that never goes back: the estimate shown while a group of texts is
    embedded can run ahead of the symbols committed after it (a symbol counts once
    both its texts have vectors, and texts are embedded in order of length)."""
    if progress is None:
        return None
    shown: dict[str, int] = {}

    def forward(stage: str, done: int, total: int, eta: float | None = None, /) -> None:
        done = max(done, shown.get(stage, 0))
        shown[stage] = done
        progress(stage, done, total, eta)

    return forward


# --- the order of files -------------------------------------------------------------

SOURCE, TESTS, ASIDE = 0, 1, 2  # what a file is, in the order its symbols are embedded
_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "testdata",
                        "test_data", "fixtures", "__fixtures__", "__mocks__", "e2e"})
_ASIDE_DIRS = frozenset({"example", "examples", "doc", "docs", "documentation", "sample",
                         "samples", "demo", "demos", "bench", "benches", "benchmark",
                         "benchmarks", "tutorial", "tutorials"})
_TEST_FILE = re.compile(
    r"^(test_.*\.py|.*_test\.(py|go|rb|rs|exs?)|conftest\.py|.*\.(test|spec)\.[cm]?[jt]sx?"
    r"|.*Tests?\.(java|cs|php|kt)|.*_spec\.rb)$")


def path_class(rel: str) -> int:
    """SOURCE, TESTS (a test folder or a test file by its language's convention) or
    ASIDE (docs, examples, samples, benchmarks) for a repository-relative path."""
    p = PurePosixPath(rel)
    folders = {part.lower() for part in p.parts[:-1]}
    if folders & _TEST_DIRS or _TEST_FILE.match(p.name):
        return TESTS
    if folders & _ASIDE_DIRS:
        return ASIDE
    return SOURCE


def embed_order(counts: Mapping[str, int], first: Sequence[str] = ()) -> list[str]:
    """The files with pending symbols (``counts``: path → how many), in the order they are
    embedded: ``first`` as given (the files open in the editor, then their call-graph
    neighbours), then source, tests, docs and examples, each in path order (a package's
    files together)."""
    rank = {path: i for i, path in enumerate(dict.fromkeys(first)) if path in counts}
    head = sorted(rank, key=rank.__getitem__)
    rest = sorted((p for p in counts if p not in rank), key=lambda p: (path_class(p), p))
    return head + rest


def next_page(order: Sequence[str], counts: Mapping[str, int], size: int) -> list[str]:
    """The first files of ``order`` whose pending symbols make about ``size`` (at least one
    file, whole files: a page never splits one)."""
    page: list[str] = []
    total = 0
    for path in order:
        if page and total + counts[path] > size:
            break
        page.append(path)
        total += counts[path]
    return page


# --- the time left --------------------------------------------------------------------


class EmbedClock:
    """How long an embedding run has left, from what it measured: a group of texts costs
    ``a`` per text plus ``b`` per token (fitted by least squares over the groups done, so
    short and long texts both count), and the work left is the current page's texts, known
    exactly, plus the symbols not read yet at the texts and tokens per symbol seen so far
    (texts found in the cache cost nothing and count as none). ``clock`` is injectable."""

    def __init__(self, total_symbols: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total_symbols
        self.clock = clock
        self.paged = 0  # symbols read in pages so far
        self.paged_texts = 0  # texts of theirs that need the model
        self.paged_tokens = 0
        self.left_texts = 0  # of those, still to embed
        self.left_tokens = 0
        self.groups: list[tuple[int, int, float]] = []  # (texts, tokens, seconds)
        self._estimate: tuple[float, float] | None = None  # (seconds left, when)

    def page(self, symbols: int, tokens: Sequence[int]) -> None:
        """A page of ``symbols`` was read; ``tokens``: the counts of its texts to embed."""
        self.paged += symbols
        self.paged_texts += len(tokens)
        self.paged_tokens += int(sum(tokens))
        self.left_texts += len(tokens)
        self.left_tokens += int(sum(tokens))

    def group(self, texts: int, tokens: int, seconds: float) -> None:
        """A group of ``texts`` (``tokens`` in all) was embedded and committed in ``seconds``."""
        self.groups.append((texts, tokens, seconds))
        self.left_texts = max(0, self.left_texts - texts)
        self.left_tokens = max(0, self.left_tokens - tokens)
        self._estimate = (self._seconds_left(), self.clock())

    def cost(self) -> tuple[float, float]:
        """(seconds per text, seconds per token) fitted over the groups done."""
        g = np.array(self.groups, dtype=float)
        texts, tokens, seconds = g[:, 0], g[:, 1], g[:, 2]
        if len(g) >= 3 and np.ptp(tokens / np.maximum(texts, 1)) > 0:
            (a, b), *_ = np.linalg.lstsq(np.stack([texts, tokens], axis=1), seconds, rcond=None)
            if a >= 0 and b >= 0:
                return float(a), float(b)
        return 0.0, float(seconds.sum() / max(tokens.sum(), 1))

    def _seconds_left(self) -> float:
        a, b = self.cost()
        unread = max(0, self.total - self.paged)
        per = max(self.paged, 1)
        texts = self.left_texts + unread * self.paged_texts / per
        tokens = self.left_tokens + unread * self.paged_tokens / per
        return a * texts + b * tokens

    def eta(self) -> float | None:
        """Seconds left, counting down from the last estimate; None before the first group."""
        if self._estimate is None:
            return None
        left, at = self._estimate
        return max(0.0, left - (self.clock() - at))


def about(seconds: float) -> str:
    """A time left as a person says it: "about 40 s", "about 3 min", "about 1 h 5 min"."""
    if seconds < 60:
        return f"about {max(1, round(seconds / 5) * 5 if seconds >= 10 else round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min"
    return f"about {minutes // 60} h {minutes % 60} min"


class PendingPage:
    """Symbols waiting for their vectors: each needs the vectors of two keys (the
    same key twice for a short symbol)."""

    def __init__(self, rows: pa.Table) -> None:
        self.ids = rows.column("id").to_pylist()
        self.keys = rows.column("embed_key").to_pylist()
        self.summary_keys = rows.column("summary_key").to_pylist()
        # in row order, each symbol's two texts together: a group of texts completes symbols
        self.text_of: dict[str, str | None] = {}
        texts = rows.column("embed_text").to_pylist()
        summaries = rows.column("summary_text").to_pylist()
        for key, text, summary_key, summary in zip(self.keys, texts, self.summary_keys,
                                                   summaries, strict=True):
            self.text_of.setdefault(key, text)
            self.text_of.setdefault(summary_key, summary)
        self.waiting = list(range(len(self.ids)))

    def commit(self, store: Store, known: dict[str, np.ndarray]) -> int:
        """Store the symbols whose vectors are both known; how many there were."""
        ready = [i for i in self.waiting if self.keys[i] in known and self.summary_keys[i] in known]
        if ready:
            store.store_vectors([self.ids[i] for i in ready],
                                np.stack([known[self.keys[i]] for i in ready]),
                                np.stack([known[self.summary_keys[i]] for i in ready]))
            ready_set = set(ready)
            self.waiting = [i for i in self.waiting if i not in ready_set]
        return len(ready)
