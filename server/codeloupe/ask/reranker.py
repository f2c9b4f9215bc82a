"""The optional re-ranker: a sentence-transformers CrossEncoder (the ``reranker``
setting, by local path or cached name) re-orders the first candidates of a
retrieval; symbols the question names stay first."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from .errors import AskError
from .files import ReadLines, disk_reader
from .retrieval import Candidate

RERANK_TOP = 30  # candidates re-ordered; the rest keep their place after them
TEXT_LINES = 60  # of each candidate's body, the lines the scorer reads


class Scorer(Protocol):
    """A re-ranker: one relevance score per (question, text) pair; higher is better."""

    def __call__(self, question: str, texts: Sequence[str]) -> Sequence[float]: ...


@functools.lru_cache(maxsize=2)
def load_reranker(name: str) -> Scorer:
    """A sentence-transformers CrossEncoder by local path or cached hub name (loaded
    once per process: the server asks many questions). Nothing is downloaded."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import CrossEncoder  # heavy: loaded only when configured

    path = Path(name).expanduser()
    location = str(path.resolve()) if path.exists() else name
    try:
        model = CrossEncoder(location, device="cpu")
    except Exception as exc:
        raise AskError(f"cannot load the re-ranker {name!r}: {exc} (give a local path or a "
                       "model already in the Hugging Face cache)") from exc

    def score(question: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        out = model.predict([(question, t) for t in texts], show_progress_bar=False)
        return [float(x) for x in out]

    return score


def rerank(question: str, ranked: list[Candidate], scorer: Scorer, root: Path,
           top: int = RERANK_TOP, read_lines: ReadLines | None = None) -> list[Candidate]:
    """Re-order the first ``top`` candidates by the scorer; named identifiers stay first."""
    read = read_lines or disk_reader(root)
    head, tail = ranked[:top], ranked[top:]
    named = [c for c in head if "named" in c.why]
    rest = [c for c in head if "named" not in c.why]
    texts = []
    for c in rest:
        lines = read(c.path) or []
        body = "\n".join(lines[c.start_line - 1 : min(c.end_line, c.start_line + TEXT_LINES)])
        texts.append(f"{c.qualified_name}\n{body}")
    scores = list(scorer(question, texts)) if rest else []
    order = sorted(range(len(rest)), key=lambda i: -scores[i])
    return named + [rest[i] for i in order] + tail
