"""Where a model is and what it is made of, read from its files without importing
a model library: the local folder of a model setting, its sentence-transformers
modules (transformer, pooling, what else), the export cache's folder and the
exporter's versions."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .base import EmbeddingError, default_model_path, is_default_model


def cache_root() -> Path:
    """Where exported ONNX models are kept: ``codeloupe/onnx`` in ``$XDG_CACHE_HOME``,
    else in ``~/.cache``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "codeloupe" / "onnx"


def resolve_location(model: str) -> Path:
    """The local folder of a model: the bundled default, a path, or a hub name
    already in the Hugging Face cache (nothing is downloaded)."""
    if is_default_model(model):
        return Path(default_model_path())
    path = Path(model).expanduser()
    if path.exists():
        return path.resolve()
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model, local_files_only=True))
    except Exception as exc:
        raise EmbeddingError(
            f"cannot load embedding model {model!r}: not a folder and not in the Hugging "
            "Face cache (nothing is downloaded)"
        ) from exc


def read_json(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def read_layout(location: Path) -> tuple[Path, str, int | None]:
    """(transformer folder, pooling mode, max_seq_length) of a sentence-transformers
    model folder. A plain Hugging Face model (no modules.json) is mean-pooled, as
    sentence-transformers does. Modules this backend cannot run (Dense, ...) raise."""
    modules = read_json(location / "modules.json")
    transformer_dir, pooling_dir = location, None
    if isinstance(modules, list):
        for module in modules:
            kind = str(module.get("type", "")).rsplit(".", 1)[-1]
            sub = location / module.get("path", "")
            if kind == "Transformer":
                transformer_dir = sub
            elif kind == "Pooling":
                pooling_dir = sub
            elif kind != "Normalize":
                raise EmbeddingError(
                    f"the onnx backend cannot run the {kind} module of {location}: "
                    "use the torch backend"
                )
    mode = "mean"
    if pooling_dir is not None:
        cfg = read_json(pooling_dir / "config.json") or {}
        on = [k for k, v in cfg.items() if k.startswith("pooling_mode_") and v is True]
        if len(on) != 1:
            raise EmbeddingError(f"the onnx backend supports one pooling mode, {location} has {on}")
        mode = on[0].removeprefix("pooling_mode_")
        mode = {"mean_tokens": "mean", "cls_token": "cls", "max_tokens": "max",
                "lasttoken": "last"}.get(mode, mode)
        if mode not in ("mean", "cls", "max", "last"):
            raise EmbeddingError(f"the onnx backend does not support {mode} pooling: use torch")
    sbert = read_json(transformer_dir / "sentence_bert_config.json") or read_json(
        location / "sentence_bert_config.json") or {}
    max_seq = sbert.get("max_seq_length") if isinstance(sbert, dict) else None
    return transformer_dir, mode, (int(max_seq) if max_seq else None)


def exporter_versions() -> str:
    """The versions of what exports a model (onnxruntime, torch, transformers, onnx),
    read from the installed packages' metadata without importing them."""
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for name in ("onnxruntime", "torch", "transformers", "onnx"):
        try:
            parts.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name}=?")
    return ";".join(parts)
