"""The embedding device: ``auto`` takes a CUDA GPU where the driver shows one and torch
was built for CUDA (told without importing torch), else the CPU; a GPU run where a GPU
is here, skipped with the reason where not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codeloupe.config import Settings
from codeloupe.embed import EmbeddingError, choice, choose_backend, load_embedder, model_identity
from codeloupe.embed.device import (
    GpuSeen,
    gpu_for_torch,
    nvidia_gpus,
    resolve_device,
    torch_cuda_build,
    torch_device,
)

from .test_cli import run

CPU_BUILD = "__version__ = '2.13.0+cpu'\ndebug = False\ncuda: Optional[str] = None\nhip = None\n"
CUDA_BUILD = "__version__ = '2.13.0'\ncuda: Optional[str] = '12.8'\ngit_version = 'abc'\n"


@pytest.mark.parametrize("given,resolved", [
    (None, "auto"), ("", "auto"), ("auto", "auto"), ("CPU", "cpu"), (" cuda ", "cuda"),
    ("cuda:1", "cuda:1"),
])
def test_devices_accepted(given: str | None, resolved: str) -> None:
    assert resolve_device(given) == resolved


@pytest.mark.parametrize("given", ["gpu", "cuda:", "cuda:x", "mps", "tpu0"])
def test_devices_refused_say_what_is_accepted(given: str) -> None:
    with pytest.raises(EmbeddingError, match="use auto, cpu, cuda or cuda:N"):
        resolve_device(given)


def test_gpus_are_counted_from_the_driver_then_the_device_nodes(tmp_path: Path) -> None:
    proc, dev = tmp_path / "gpus", tmp_path / "dev"
    assert nvidia_gpus(proc, dev) == 0  # no driver at all
    dev.mkdir()
    for name in ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "null"):
        (dev / name).touch()
    assert nvidia_gpus(proc, dev) == 2
    proc.mkdir()
    (proc / "0000:17:00.0").mkdir()
    assert nvidia_gpus(proc, dev) == 1  # the driver's list, when it has one


def test_the_cuda_build_is_read_from_torch_without_importing_it(tmp_path: Path) -> None:
    cpu, cuda = tmp_path / "cpu.py", tmp_path / "cuda.py"
    cpu.write_text(CPU_BUILD)
    cuda.write_text(CUDA_BUILD)
    assert torch_cuda_build(cpu) is None
    assert torch_cuda_build(cuda) == "12.8"
    assert torch_cuda_build(tmp_path / "missing.py") is None
    import torch  # the installed torch: what its own import says

    assert torch_cuda_build() == torch.version.cuda


def test_a_gpu_for_torch_needs_both_a_gpu_and_a_cuda_build(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("CODELOUPE_NO_GPU", raising=False)
    proc, dev = tmp_path / "gpus", tmp_path / "dev"
    (proc / "0000:17:00.0").mkdir(parents=True)
    cpu, cuda = tmp_path / "cpu.py", tmp_path / "cuda.py"
    cpu.write_text(CPU_BUILD)
    cuda.write_text(CUDA_BUILD)
    assert gpu_for_torch(proc, dev, cuda) == GpuSeen(1, "12.8")
    assert str(gpu_for_torch(proc, dev, cuda)) == "a CUDA GPU (torch built for CUDA 12.8)"
    assert gpu_for_torch(proc, dev, cpu) is None
    assert gpu_for_torch(tmp_path / "none", tmp_path / "none", cuda) is None
    monkeypatch.setenv("CODELOUPE_NO_GPU", "1")
    assert gpu_for_torch(proc, dev, cuda) is None


def test_auto_embeds_with_torch_on_a_gpu_and_onnx_on_the_cpu(monkeypatch) -> None:
    monkeypatch.setattr(choice, "gpu_for_torch", lambda: GpuSeen(2, "12.8"))
    on_gpu = choose_backend("default", "auto")
    assert on_gpu.name == "torch" and "2 CUDA GPUs (torch built for CUDA 12.8)" in on_gpu.reason
    assert choose_backend("default", "auto", device="cpu").name == "onnx"
    assert choose_backend("default", "onnx").name == "onnx"  # a backend named is what runs
    # the index records torch's id there: the same id on the CPU with --backend torch
    assert model_identity("default")[0] == model_identity("default", backend="torch")[0]
    monkeypatch.setattr(choice, "gpu_for_torch", lambda: None)
    assert choose_backend("default", "auto").name == "onnx"
    named = choose_backend("default", "auto", device="cuda:1")
    assert named.name == "torch" and "cuda:1" in named.reason


def test_a_device_setting_reaches_the_engine(monkeypatch) -> None:
    monkeypatch.setenv("CODELOUPE_EMBEDDING_DEVICE", "CPU")
    assert Settings.from_env().embedding_device == "cpu"
    monkeypatch.setenv("CODELOUPE_EMBEDDING_DEVICE", "gpu")  # refused with a warning
    assert Settings.from_env().embedding_device == "auto"
    assert Settings.from_env(embedding_device="cuda").embedding_device == "cuda"


def test_a_bad_device_flag_is_one_line(tmp_path: Path) -> None:
    out = run("index", str(tmp_path), "--device", "gpu")
    assert out.returncode == 2
    assert out.stderr.strip() == ("codeloupe: error: unknown embedding device 'gpu': use auto, "
                                  "cpu, cuda or cuda:N")
    assert not (tmp_path / ".codeloupe").exists()


def _no_gpu_reason() -> str | None:
    import torch

    if torch.cuda.is_available():
        return None
    seen = nvidia_gpus()
    build = torch_cuda_build()
    return (f"no CUDA GPU for torch here: the driver shows {seen} NVIDIA GPU(s), torch "
            f"{torch.__version__} is {'built for CUDA ' + build if build else 'a CPU build'}")


def test_a_named_cuda_device_torch_cannot_use_says_why() -> None:
    if _no_gpu_reason() is None:
        pytest.skip("a CUDA GPU is here: the device is usable")
    with pytest.raises(EmbeddingError, match="torch sees no CUDA GPU"):
        torch_device("cuda")
    assert torch_device("auto") == "cpu"


def test_on_a_gpu_auto_embeds_there_with_the_cpus_vectors(monkeypatch) -> None:
    monkeypatch.delenv("CODELOUPE_NO_GPU", raising=False)  # conftest's, for the other tests
    reason = _no_gpu_reason()
    if reason is not None:
        pytest.skip(reason)
    if gpu_for_torch() is None:
        pytest.skip("torch sees a GPU that /proc/driver/nvidia and /dev do not show")
    texts = ["def retry_upload(path, attempts=3):", "class ConnectionPool:", "parse a header"]
    gpu = load_embedder("default")  # auto
    assert type(gpu).__name__ == "SentenceTransformerEmbedder"
    assert str(gpu._model.device).startswith("cuda")
    cpu = load_embedder("default", backend="torch", device="cpu")
    assert gpu.model_id == cpu.model_id
    a, b = gpu.embed(texts), cpu.embed(texts)
    assert float(np.min((a * b).sum(axis=1))) > 0.999
