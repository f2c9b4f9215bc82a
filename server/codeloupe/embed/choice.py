"""Which backend embeds a model: ``auto`` (the default) takes torch on a CUDA GPU where
one is there for it (``embed.device``), else onnx (int8 weights on onnxruntime, 2.1x
torch's throughput on the CPU at the same search quality) for every model it can run,
and torch for the others, with the reason in one line; ``torch`` or ``onnx``
asked for by name is what runs.

onnx cannot run a model whose sentence-transformers modules go beyond a Transformer,
one pooling and a normalisation (a ``Dense`` projection, a second pooling), a model
that runs its own code (``trust_remote_code``: the export traces transformers'
classes only), or one whose export failed before on this machine (recorded beside the
export cache with the exporter's versions, so an upgrade tries again). Deciding reads
the model's ``modules.json`` and one file's stat: nothing heavy is imported.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

from .base import EmbeddingError, backend_identity, is_default_model, resolve_backend
from .device import gpu_for_torch, resolve_device
from .layout import cache_root, exporter_versions, read_layout, resolve_location

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BackendChoice:
    """The backend that embeds a model, and why ``auto`` did not take onnx (None when
    it did, or when the backend was named)."""

    name: str  # "torch" or "onnx"
    reason: str | None = None


def _failure_file(location: Path, trust_remote_code: bool) -> Path:
    digest = hashlib.sha256(f"{location}\0remote={trust_remote_code}".encode()).hexdigest()[:24]
    return cache_root() / f"{digest}.failed"


def record_export_failure(location: Path, trust_remote_code: bool, error: str) -> None:
    """Remember that exporting this model failed with these exporter versions, so
    ``auto`` goes to torch at once next time (an upgrade of the exporter tries again)."""
    path = _failure_file(location, trust_remote_code)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"source": str(location), "versions": exporter_versions(),
                                   "error": error[:500]}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:  # a read-only cache: the export is tried again next time
        log.debug("cannot record the failed export of %s: %s", location, exc)


def _failed_before(location: Path, trust_remote_code: bool) -> str | None:
    path = _failure_file(location, trust_remote_code)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("versions") != exporter_versions():
        return None
    return (f"its ONNX export failed on this machine ({record.get('error', '?')}); "
            f"delete {path} to try again")


def choose_backend(model: str, backend: str | None = None,
                   trust_remote_code: bool = False, device: str | None = "auto") -> BackendChoice:
    """The backend that embeds ``model``: the one named, or for ``auto`` torch on a CUDA
    GPU where one is there for it (``device`` ``auto``, ``embed.device``) or named
    (``cuda``), else onnx where it can run the model and torch (with the reason) where
    not. A model that cannot be found is left to torch, whose error says what to do."""
    name = resolve_backend(backend)
    device = resolve_device(device)
    if name != "auto":
        return BackendChoice(name)
    if device.startswith("cuda"):
        return BackendChoice("torch", f"device {device}: the onnx backend runs on the CPU")
    if device == "auto":
        gpu = gpu_for_torch()
        if gpu is not None:
            return BackendChoice("torch", f"{gpu} is here: torch embeds on it (the onnx "
                                          "model is int8, a CPU format)")
    if find_spec("onnxruntime") is None:
        return BackendChoice("torch", "onnxruntime is not installed (pip install onnxruntime)")
    if trust_remote_code:
        return BackendChoice("torch", "the model runs its own code (trust_remote_code), "
                                      "which the ONNX export does not trace")
    try:
        location = resolve_location(model)
    except EmbeddingError:
        return BackendChoice("torch")
    if not is_default_model(model):
        try:
            read_layout(location)
        except EmbeddingError as exc:
            return BackendChoice("torch", str(exc).split(": use", 1)[0])
    failed = _failed_before(location, trust_remote_code)
    if failed:
        return BackendChoice("torch", failed)
    return BackendChoice("onnx")


def model_identity(
    model: str, max_tokens: int | None = 256, backend: str | None = "auto",
    trust_remote_code: bool = False, device: str | None = "auto",
) -> tuple[str, int | None]:
    """The id an index records for a model setting (``base.backend_identity`` of the
    backend that runs it: ``auto`` is the one ``choose_backend`` takes), and its
    dimension when known without loading it. The device is no part of it: torch's
    vectors on a GPU and on the CPU are the same to float error."""
    name = choose_backend(model, backend, trust_remote_code, device).name
    return backend_identity(model, max_tokens, name)
