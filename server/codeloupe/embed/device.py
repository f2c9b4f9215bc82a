"""Which device embeds: ``auto`` (the default) takes a CUDA GPU where one is there and
torch was built for it, else the CPU; ``cpu`` or ``cuda`` / ``cuda:N`` by name.

Telling costs nothing on a machine without a GPU, and imports nothing: an NVIDIA GPU
shows as ``/proc/driver/nvidia/gpus/<bus id>`` (or ``/dev/nvidia<N>``), and whether the
installed torch is a CUDA build is written in its ``version.py``. Only where both say yes
is torch imported, to ask it (``torch.cuda.is_available``: the driver may still refuse).

The onnx backend stays on the CPU: its model is int8 with dynamic quantization, a CPU
format (onnxruntime's CUDA provider runs few of its operators), so on a GPU ``auto``
embeds with torch.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

from .base import EmbeddingError

_DEVICE = re.compile(r"^(auto|cpu|cuda(:\d+)?)$")
_CUDA_LINE = re.compile(r"""^cuda\s*(?::[^=\n]*)?=\s*['"]([^'"]+)['"]""", re.M)
NVIDIA_PROC = Path("/proc/driver/nvidia/gpus")
DEV = Path("/dev")


def resolve_device(device: str | None) -> str:
    """The device setting checked: ``auto`` (also for None or empty), ``cpu``, ``cuda``
    or ``cuda:N``; anything else is an ``EmbeddingError`` that says what is accepted."""
    value = (device or "auto").strip().lower()
    if not _DEVICE.match(value):
        raise EmbeddingError(f"unknown embedding device {device!r}: use auto, cpu, cuda or "
                             "cuda:N")
    return value


def nvidia_gpus(proc: Path = NVIDIA_PROC, dev: Path = DEV) -> int:
    """How many NVIDIA GPUs the driver shows (0 where there is no driver)."""
    try:
        return sum(1 for _ in proc.iterdir())
    except OSError:
        pass
    try:
        return sum(1 for p in dev.iterdir() if re.fullmatch(r"nvidia\d+", p.name))
    except OSError:
        return 0


def torch_cuda_build(version_file: Path | None = None) -> str | None:
    """The CUDA version the installed torch was built for (``"12.8"``), read from its
    ``version.py`` without importing it; None for a CPU build or no torch."""
    if version_file is None:
        try:
            spec = find_spec("torch")
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.origin:
            return None
        version_file = Path(spec.origin).parent / "version.py"
    try:
        text = version_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = _CUDA_LINE.search(text)
    return found.group(1) if found else None


@dataclass(frozen=True)
class GpuSeen:
    """A CUDA GPU torch could use, as told without importing torch."""

    count: int
    cuda: str

    def __str__(self) -> str:
        gpus = "a CUDA GPU" if self.count == 1 else f"{self.count} CUDA GPUs"
        return f"{gpus} (torch built for CUDA {self.cuda})"


def gpu_for_torch(proc: Path = NVIDIA_PROC, dev: Path = DEV,
                  version_file: Path | None = None) -> GpuSeen | None:
    """A GPU is there and the installed torch was built for CUDA; None otherwise.
    ``CODELOUPE_NO_GPU`` set to anything but ``0`` or empty says no (to keep a shared
    GPU free)."""
    if os.environ.get("CODELOUPE_NO_GPU", "") not in ("", "0"):
        return None
    count = nvidia_gpus(proc, dev)
    if not count:
        return None
    cuda = torch_cuda_build(version_file)
    return GpuSeen(count, cuda) if cuda else None


def torch_device(device: str) -> str:
    """The device torch runs a model on for a setting: ``auto`` is ``cuda`` where torch
    sees a GPU (asked only where ``gpu_for_torch`` says there is one), else ``cpu``; a
    named CUDA device torch cannot use is an ``EmbeddingError``."""
    device = resolve_device(device)
    if device == "cpu":
        return device
    if device == "auto" and gpu_for_torch() is None:
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda" if device == "auto" else device
    if device == "auto":
        return "cpu"
    raise EmbeddingError(f"embedding device {device!r} asked for, but torch sees no CUDA GPU "
                         f"(torch {torch.__version__}, built for CUDA {torch.version.cuda})")
