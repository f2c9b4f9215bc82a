"""A child process for the kill -9 tests: it indexes a folder and stops dead at one
named point (prints ``READY <point>``, then blocks until it is killed).

Run as ``python -m tests.kill_child ROOT POINT``. ``HashEmbedder`` is a cheap,
deterministic embedder that both this child and the test use, so the test's
resume run shares the child's model id and cache."""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Callable, Sequence

import numpy as np

POINTS = ("between-batches", "mid-file-write", "after-cache-before-store", "mid-embedding",
          "before-full-text")


class HashEmbedder:
    """Vectors from a hash of the text: the same text, the same unit vector."""

    model_id = "test/hash-embedder"
    dim = 32
    max_tokens = 256

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        out = np.stack([self.embed_query(t) for t in texts]) if texts else np.zeros((0, self.dim))
        if progress:
            progress(len(texts))
        return out.astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
        v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return v / np.linalg.norm(v)


def _stop_here(point: str) -> None:
    sys.stdout.write(f"READY {point}\n")
    sys.stdout.flush()
    threading.Event().wait()  # until SIGKILL


def main(root: str, point: str) -> None:
    import lancedb.table

    from codeloupe.config import Settings
    from codeloupe.index import Index
    from codeloupe.store import Store

    calls: dict[str, int] = {}

    def after(cls: type, name: str, nth: int) -> None:
        original = getattr(cls, name)

        def wrapper(*args, **kwargs):
            result = original(*args, **kwargs)
            calls[name] = calls.get(name, 0) + 1
            if calls[name] == nth:
                _stop_here(point)
            return result

        setattr(cls, name, wrapper)

    if point == "between-batches":
        after(Store, "replace_files", 1)  # the first 200 files are in, the rest are not
    elif point == "after-cache-before-store":
        after(Store, "cache_vectors", 1)
    elif point == "mid-embedding":
        after(Store, "store_vectors", 1)
    elif point == "mid-file-write":
        original_add = lancedb.table.LanceTable.add

        def add(self, *args, **kwargs):
            if self.name == "symbols":
                _stop_here(point)  # the files' old rows are deleted, the new ones not added
            return original_add(self, *args, **kwargs)

        lancedb.table.LanceTable.add = add
    elif point == "before-full-text":
        original_fts = lancedb.table.LanceTable.create_fts_index

        def create_fts_index(self, *args, **kwargs):
            _stop_here(point)
            return original_fts(self, *args, **kwargs)

        lancedb.table.LanceTable.create_fts_index = create_fts_index
    else:
        raise SystemExit(f"unknown point {point!r}")
    settings = Settings(workers=1)
    Index(root, settings, embedder=HashEmbedder()).update()
    sys.stdout.write("FINISHED\n")  # the point was never reached: the test fails on this


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
