"""Symbols waiting for their vectors, as an index run embeds them: a page of them
(each needs the vectors of two texts, the same one twice for a short symbol), and the
progress shown meanwhile, which never goes back."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

if TYPE_CHECKING:
    from .store import Store

# progress(stage, done, total): stage is "scan", "parse", "embed"
Progress = Callable[[str, int, int], None]


def forward_only(progress: Progress | None) -> Progress | None:
    """Progress that never goes back: the estimate shown while a group of texts is
    embedded can run ahead of the symbols committed after it (a symbol counts once
    both its texts have vectors, and texts are embedded in order of length)."""
    if progress is None:
        return None
    shown: dict[str, int] = {}

    def forward(stage: str, done: int, total: int) -> None:
        done = max(done, shown.get(stage, 0))
        shown[stage] = done
        progress(stage, done, total)

    return forward


class PendingPage:
    """Symbols waiting for their vectors: each needs the vectors of two keys (the
    same key twice for a short symbol)."""

    def __init__(self, rows: pa.Table) -> None:
        self.ids = rows.column("id").to_pylist()
        self.keys = rows.column("embed_key").to_pylist()
        self.summary_keys = rows.column("summary_key").to_pylist()
        self.text_of = dict(zip(self.keys, rows.column("embed_text").to_pylist(), strict=True))
        self.text_of.update(zip(self.summary_keys, rows.column("summary_text").to_pylist(), strict=True))
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
