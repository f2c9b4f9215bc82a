"""Embeddings: the ``Embedder`` protocol and its backends (``torch``, ``onnx``), the
bundled default model, the text a symbol is embedded as and its cache key.

One module a part: ``base`` (protocol, errors, model identity), ``text`` (embedded
and full-text forms), ``memory``, ``torch_backend``, ``onnx_backend``; a backend
imports its heavy libraries (torch, onnxruntime) only when a model is loaded.
"""

from __future__ import annotations

from .base import (
    BACKENDS,
    DEFAULT_MODEL,
    DEFAULT_MODEL_ID,
    Embedder,
    EmbeddingError,
    default_model_path,
    is_default_model,
    model_identity,
    resolve_backend,
)
from .onnx_backend import OnnxEmbedder, require_onnxruntime
from .text import (
    SUMMARY_MIN_CHARS,
    TEXT_VERSION,
    embed_text,
    embedding_key,
    search_text,
    split_identifier,
    split_words,
    summary_text,
)
from .torch_backend import SentenceTransformerEmbedder

__all__ = [
    "BACKENDS", "DEFAULT_MODEL", "DEFAULT_MODEL_ID", "SUMMARY_MIN_CHARS", "TEXT_VERSION",
    "Embedder", "EmbeddingError", "OnnxEmbedder", "SentenceTransformerEmbedder",
    "default_model_path", "embed_text", "embedding_key", "is_default_model", "load_embedder",
    "model_identity", "resolve_backend", "search_text", "split_identifier", "split_words",
    "summary_text",
]


def load_embedder(
    model: str = DEFAULT_MODEL, *, backend: str = "torch", **kwargs: object
) -> Embedder:
    """The embedder of a model on a backend: ``torch`` (sentence-transformers) or
    ``onnx`` (onnxruntime, int8 weights; the ``codeloupe[onnx]`` extra)."""
    if resolve_backend(backend) == "onnx":
        require_onnxruntime()
        return OnnxEmbedder(model, **kwargs)  # type: ignore[arg-type]
    return SentenceTransformerEmbedder(model, **kwargs)  # type: ignore[arg-type]
