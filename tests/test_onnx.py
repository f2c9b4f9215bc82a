"""The ONNX Runtime embedding backend (int8 weights): agreement with torch, order,
identity, the export cache (reused, damaged, concurrent-safe), selection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from codeloupe.config import Settings
from codeloupe.embed import (
    DEFAULT_MODEL_ID,
    EmbeddingError,
    load_embedder,
    model_identity,
    onnx_backend,
    resolve_backend,
)
from codeloupe.embed.tokenizer import CHECK_FILE, FastTokenizer
from codeloupe.index import Index

from .conftest import SAMPLE_REPO, write_tree

pytest.importorskip(
    "onnxruntime", reason="the onnx backend needs onnxruntime: pip install 'codeloupe[onnx]'"
)

CODE = [
    "function retry failed upload\ndef retry_failed_upload(n: int)\nTry again.\n"
    "def retry_failed_upload(n: int):\n    for _ in range(n):\n        upload()\n",
    "class http client\nclass Client\nTalks to the payment server.",
    "function parse header\ndef parse_header(line: str) -> tuple[str, str]\n"
    "Split an HTTP header line into name and value.\n"
    "    name, _, value = line.partition(':')\n    return name.strip().lower(), value.strip()",
    "method cart total\nfunction total(items) { return items.reduce((a, b) => a + b.price, 0); }",
    "x",
    "module shop http (src/shop/http.py)\nHTTP client used by the shop.\nimport time\n" * 40,
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def onnx_embedder(cache: Path):
    return load_embedder("default", backend="onnx", cache_dir=cache)


@pytest.fixture(scope="module")
def torch_embedder():
    return load_embedder("default", backend="torch")


def test_vectors_agree_with_torch(onnx_embedder, torch_embedder) -> None:
    a, b = onnx_embedder.embed(CODE), torch_embedder.embed(CODE)
    assert a.shape == b.shape == (len(CODE), 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    cos = (a * b).sum(axis=1)
    # measured on 1000 stdlib symbols: mean 0.995, min 0.987 (bench/bench_onnx.py)
    assert cos.min() >= 0.97, cos
    assert cos.mean() >= 0.98, cos
    q = onnx_embedder.embed_query("split an http header")
    assert int(np.argmax(a @ q)) == 2  # the right symbol ranks first


def test_order_is_kept_and_vectors_do_not_depend_on_the_batch(onnx_embedder) -> None:
    forward = onnx_embedder.embed(CODE)
    backward = onnx_embedder.embed(CODE[::-1])
    assert np.allclose(forward, backward[::-1], atol=1e-6)
    alone = np.stack([onnx_embedder.embed_query(t) for t in CODE])
    assert np.allclose(forward, alone, atol=1e-6)
    seen: list[int] = []
    onnx_embedder.embed(CODE, progress=seen.append)
    assert sum(seen) == len(CODE)
    assert onnx_embedder.embed([]).shape == (0, 384)


def test_tokens_are_cut_at_max_tokens(onnx_embedder, torch_embedder) -> None:
    assert onnx_embedder.max_tokens == torch_embedder.max_tokens == 256
    assert onnx_embedder.count_tokens(CODE) == torch_embedder.count_tokens(CODE)
    assert max(onnx_embedder.count_tokens(CODE)) == 256


def test_model_id_differs_from_torch_and_is_known_without_loading(
    onnx_embedder, torch_embedder
) -> None:
    assert onnx_embedder.model_id == DEFAULT_MODEL_ID + "+onnx-int8"
    assert torch_embedder.model_id == DEFAULT_MODEL_ID
    # the index takes the id of the default model from model_identity, unloaded
    assert model_identity("default", 256, "onnx") == (onnx_embedder.model_id, 384)
    assert model_identity("default", 128, "onnx")[0] == DEFAULT_MODEL_ID + "@128+onnx-int8"
    assert model_identity("default", 256, "torch") == (DEFAULT_MODEL_ID, 384)


def test_cached_export_is_reused(cache: Path, onnx_embedder, monkeypatch) -> None:
    def no_export(*args, **kwargs):
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_backend, "export_int8", no_export)
    again = load_embedder("default", backend="onnx", cache_dir=cache)
    assert again.path == onnx_embedder.path
    assert np.allclose(again.embed(CODE[:2]), onnx_embedder.embed(CODE[:2]), atol=1e-6)
    assert [p.name for p in cache.iterdir()] == [onnx_embedder.path.parent.name]  # no temp left


def test_the_tokenizer_is_read_directly_once_checked_the_same(cache: Path, onnx_embedder) -> None:
    """The first load checked tokenizers alone against AutoTokenizer and kept the outcome
    beside the export; later loads read tokenizer.json directly, with the same tokens and
    vectors and without transformers or torch; another cut-off, a recorded difference or
    another tokenizer.json go through AutoTokenizer (and are checked)."""
    folder = onnx_embedder.path.parent
    check = json.loads((folder / CHECK_FILE).read_text())
    assert check["same"] and check["max_lengths"] == [256]
    assert not isinstance(onnx_embedder._tokenizer, FastTokenizer)
    again = load_embedder("default", backend="onnx", cache_dir=cache)
    assert isinstance(again._tokenizer, FastTokenizer)
    assert again.count_tokens(CODE) == onnx_embedder.count_tokens(CODE)
    assert np.allclose(again.embed(CODE), onnx_embedder.embed(CODE), atol=1e-6)
    code = (f"import sys; from codeloupe.embed import load_embedder; "
            f"load_embedder('default', backend='onnx', cache_dir={str(cache)!r}).embed_query('x'); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'torch', 'transformers', 'sentence_transformers'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr
    short = load_embedder("default", backend="onnx", cache_dir=cache, max_tokens=128)
    assert not isinstance(short._tokenizer, FastTokenizer)
    assert json.loads((folder / CHECK_FILE).read_text())["max_lengths"] == [128, 256]
    for forged in ({**check, "same": False}, {**check, "tokenizer_sha256": "0" * 64}):
        (folder / CHECK_FILE).write_text(json.dumps(forged))
        assert not isinstance(load_embedder("default", backend="onnx", cache_dir=cache)._tokenizer,
                              FastTokenizer)
    assert json.loads((folder / CHECK_FILE).read_text())["same"]  # checked again


def test_damaged_cache_is_exported_again(cache: Path, onnx_embedder, monkeypatch) -> None:
    path = onnx_embedder.path
    data = bytearray(path.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64  # damaged in the middle
    path.write_bytes(bytes(data))
    calls = []
    real = onnx_backend.export_int8

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(onnx_backend, "export_int8", counting)
    fresh = load_embedder("default", backend="onnx", cache_dir=cache)
    assert calls == [1] and fresh.path == path
    assert np.allclose(fresh.embed(CODE), onnx_embedder.embed(CODE), atol=1e-6)


def test_cache_folder_honours_xdg(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert onnx_backend.cache_root() == tmp_path / "codeloupe" / "onnx"


def test_backend_selection(monkeypatch) -> None:
    monkeypatch.delenv("CODELOUPE_EMBEDDING_BACKEND", raising=False)
    assert resolve_backend() == "torch" and resolve_backend("ONNX") == "onnx"
    assert Settings.from_env().embedding_backend == "torch"
    monkeypatch.setenv("CODELOUPE_EMBEDDING_BACKEND", "onnx")
    assert Settings.from_env().embedding_backend == "onnx"
    assert Settings.from_env(embedding_backend="torch").embedding_backend == "torch"  # a flag wins
    assert model_identity("default")[0] == DEFAULT_MODEL_ID
    assert model_identity("default", 256, "onnx")[0] == DEFAULT_MODEL_ID + "+onnx-int8"
    with pytest.raises(EmbeddingError, match="unknown embedding backend"):
        resolve_backend("tensorflow")

    from codeloupe.cli.common import settings_of as _settings
    from codeloupe.cli.parser import build_parser

    args = build_parser().parse_args(["index", "--backend", "onnx", "."])
    assert _settings(args).embedding_backend == "onnx"
    from codeloupe.lsp.options import ServerOptions, read_lenient

    options, problems = read_lenient(ServerOptions, {"embeddingBackend": "onnx"})
    assert options.settings().embedding_backend == "onnx" and not problems
    _, problems = read_lenient(ServerOptions, {"embeddingBackend": "tpu"})
    assert problems and "embeddingBackend" in problems[0]


def test_missing_onnxruntime_is_one_clear_line(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails
    with pytest.raises(EmbeddingError) as info:
        load_embedder("default", backend="onnx")
    assert "pip install 'codeloupe[onnx]'" in str(info.value)
    assert "\n" not in str(info.value)


def test_index_built_with_one_backend_rebuilds_under_the_other(
    tmp_path: Path, onnx_embedder, torch_embedder
) -> None:
    write_tree(tmp_path, SAMPLE_REPO)
    Index(tmp_path, Settings(), embedder=torch_embedder).update()
    idx = Index(tmp_path, Settings(), embedder=onnx_embedder)
    assert idx.store.rebuilt_reason and "onnx-int8" in idx.store.rebuilt_reason
    report = idx.update()
    assert report.embeddings_reused == 0 and report.embeddings_computed > 0
