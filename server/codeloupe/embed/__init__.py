"""Embeddings: the ``Embedder`` protocol and its backends (``torch``, ``onnx``), the
bundled default model, the text a symbol is embedded as and its cache key.

One module a part: ``base`` (protocol, errors, model identity), ``text`` (embedded
and full-text forms), ``memory``, ``torch_backend``, ``onnx_backend``; a backend
imports its heavy libraries (torch, onnxruntime) only when a model is loaded, and the
backends themselves (numpy with them) are imported on first use (``__getattr__``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..lazy import lazy_names
from .base import (
    BACKENDS,
    DEFAULT_MODEL,
    DEFAULT_MODEL_ID,
    ONNX_SUFFIX,
    Embedder,
    EmbeddingError,
    base_model_id,
    default_model_path,
    is_default_model,
    resolve_backend,
)
from .choice import BackendChoice, choose_backend, model_identity, record_export_failure
from .layout import resolve_location
from .text import (
    SUMMARY_MIN_CHARS,
    TEXT_VERSION,
    embed_text,
    embedding_key,
    search_text,
    split_identifier,
    split_words,
    summary_of,
    summary_text,
)

if TYPE_CHECKING:
    from .onnx_backend import ExportFailed, OnnxEmbedder, require_onnxruntime
    from .torch_backend import SentenceTransformerEmbedder

_BACKENDS = {"ExportFailed": "onnx_backend", "OnnxEmbedder": "onnx_backend",
             "require_onnxruntime": "onnx_backend", "SentenceTransformerEmbedder": "torch_backend"}
__getattr__ = lazy_names(__name__, _BACKENDS)

__all__ = [
    "BACKENDS", "DEFAULT_MODEL", "DEFAULT_MODEL_ID", "ONNX_SUFFIX", "SUMMARY_MIN_CHARS",
    "TEXT_VERSION", "BackendChoice", "Embedder", "EmbeddingError", "ExportFailed",
    "OnnxEmbedder", "SentenceTransformerEmbedder", "base_model_id", "choose_backend",
    "default_model_path", "embed_text", "embedding_key", "is_default_model", "load_embedder",
    "model_identity", "require_onnxruntime", "resolve_backend", "search_text", "split_identifier", "split_words",
    "summary_of", "summary_text",
]


log = logging.getLogger(__name__)


def load_embedder(
    model: str = DEFAULT_MODEL, *, backend: str = "auto", device: str = "auto",
    **kwargs: object,
) -> Embedder:
    """The embedder of a model on a backend: ``auto`` (torch on a CUDA GPU where one is
    there for it, else onnx where it can run the model, else torch, saying why in one
    line), ``torch`` (sentence-transformers) or ``onnx`` (onnxruntime, int8 weights, on
    the CPU). ``device``: ``auto``, ``cpu``, ``cuda`` or ``cuda:N`` (``embed.device``).
    Under ``auto`` a model whose ONNX export fails is embedded with torch, and the failure
    is remembered."""
    from .device import resolve_device, torch_device
    from .onnx_backend import ExportFailed, OnnxEmbedder, require_onnxruntime
    from .torch_backend import SentenceTransformerEmbedder

    trust = bool(kwargs.get("trust_remote_code", False))
    device = resolve_device(device)
    choice = choose_backend(model, backend, trust, device)
    if choice.name == "onnx":
        require_onnxruntime()
        try:
            return OnnxEmbedder(model, device=device if device != "auto" else "cpu",
                                **kwargs)  # type: ignore[arg-type]
        except ExportFailed as exc:
            if resolve_backend(backend) != "auto":
                raise
            record_export_failure(resolve_location(model), trust, str(exc))
            choice = BackendChoice("torch", str(exc))
    if choice.reason:
        log.warning("codeloupe: embedding with torch: %s", choice.reason)
    torch_kwargs = {k: v for k, v in kwargs.items() if k != "cache_dir"}
    return SentenceTransformerEmbedder(model, device=torch_device(device),
                                       **torch_kwargs)  # type: ignore[arg-type]
