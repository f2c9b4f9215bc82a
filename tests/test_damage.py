"""A damaged or foreign-model index: read-only commands never delete and say what they
found; damage is detected, reported in one line and repaired reusing what is intact
(issue 11, points 4 and 5)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codeloupe.config import Settings
from codeloupe.graph_store import CALLS_FILE, GRAPH_FILE
from codeloupe.index import Index
from codeloupe.search import Searcher
from codeloupe.statusfile import STATUS_FILE
from codeloupe.store import IndexDamaged, IndexMismatch

from .conftest import SAMPLE_REPO, write_tree

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "LANCE_LOG": "error"}


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codeloupe", *args], capture_output=True,
                          text=True, env=ENV, timeout=600)


def data_files(index_folder: Path, table: str) -> list[Path]:
    files = sorted((index_folder / f"{table}.lance" / "data").glob("*.lance"))
    assert files, table
    return files


def one_line_error(out: subprocess.CompletedProcess, *words: str) -> None:
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("codeloupe: error:"), out.stderr
    assert "Traceback" not in out.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture()
def indexed(tmp_path: Path, embedder) -> Path:
    root = tmp_path / "repo"
    write_tree(root, SAMPLE_REPO)
    report = Index(root, Settings(), embedder=embedder).update()
    assert report.pending_embeddings == 0
    return root


class OtherModel:
    """The session's model under another model's name: an index built with it is an
    index of another model (no backend of the bundled one may take its vectors)."""

    model_id = "acme/code-embedder-v3"

    def __init__(self, inner) -> None:
        self.inner, self.dim, self.max_tokens = inner, inner.dim, inner.max_tokens

    def count_tokens(self, texts):
        return self.inner.count_tokens(texts)

    def embed(self, texts, progress=None):
        return self.inner.embed(texts, progress)

    def embed_query(self, text):
        return self.inner.embed_query(text)


@pytest.fixture()
def foreign(tmp_path: Path, embedder) -> Path:
    """A folder indexed with another model than this run's settings name."""
    root = tmp_path / "foreign"
    write_tree(root, SAMPLE_REPO)
    report = Index(root, Settings(), embedder=OtherModel(embedder)).update()
    assert report.pending_embeddings == 0
    return root


def test_read_only_commands_never_delete_on_a_model_mismatch(foreign: Path) -> None:
    indexed = foreign
    folder = indexed / ".codeloupe"
    before = sorted(p.name for p in folder.iterdir())
    symbols = len(list((folder / "symbols.lance" / "data").iterdir()))
    # the index was built with another model: a read-only command finds another model id
    out = cli("search", "--root", str(indexed), "--no-update", "fetch url")
    one_line_error(out, "acme/code-embedder-v3", "another model", "nothing was changed",
                   "codeloupe index")
    st = cli("status", str(indexed))
    assert st.returncode == 0, st.stderr
    assert "`codeloupe index` will rebuild it" in st.stdout and "symbols:     " in st.stdout
    # a search that updates first does not rebuild for a model it was not asked to index with
    upd = cli("search", "--root", str(indexed), "fetch url")
    one_line_error(upd, "acme/code-embedder-v3", "codeloupe index")
    calls = cli("calls", "--root", str(indexed), "--json", "Client.send")
    assert calls.returncode == 0, calls.stderr  # the call graph needs no model: it answers
    assert "fetch" in calls.stdout and "without updating it" in calls.stderr
    after = sorted(p.name for p in folder.iterdir())
    # what the next command reads instead of the index: the graph, the status it saw
    assert set(after) - set(before) <= {GRAPH_FILE, CALLS_FILE, STATUS_FILE}
    assert set(before) <= set(after)
    assert len(list((folder / "symbols.lance" / "data").iterdir())) == symbols
    idx = Index(indexed, Settings(), writable=False, check_model=False)
    assert idx.store.symbol_count() > 10 and idx.store.count_pending() == 0


def test_a_read_only_open_of_a_mismatched_index_raises_and_keeps_it(foreign: Path) -> None:
    with pytest.raises(IndexMismatch, match="model_id"):
        Index(foreign, Settings(), writable=False)
    assert Index(foreign, Settings(), writable=False, check_model=False).store.symbol_count() > 10


@pytest.mark.parametrize("damage", ["truncate symbols", "garbage files", "garbage refs"])
def test_damaged_tables_are_reported_then_repaired_reusing_vectors(indexed: Path, embedder,
                                                                   damage: str) -> None:
    how, table = damage.split()
    for path in data_files(indexed / ".codeloupe", table):
        with open(path, "r+b") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(0)
            fh.truncate(0) if how == "truncate" else fh.write(os.urandom(size))
    # read-only: one line that names the damage, exit 2, nothing changed
    out = cli("status", str(indexed))
    one_line_error(out, "damaged", table, "codeloupe index")
    # an index run finds it first, repairs it and takes every vector from the cache
    idx = Index(indexed, Settings(), embedder=embedder)
    with pytest.raises(IndexDamaged):
        idx.store.symbol_rows(["id"]) if table == "symbols" else (
            idx.store.load_files() if table == "files" else idx.store.ref_rows())
    report = idx.update()
    assert any(e.startswith("repaired") and table in e for e in report.errors), report.errors
    assert report.files_parsed == 4 and report.embeddings_computed == 0
    assert idx.store.verify() == {}
    hits = Searcher(idx).search("retry failed uploads with backoff", k=3).results
    assert hits and hits[0].name == "retryFailedUpload"


def test_a_garbage_embedding_cache_is_rebuilt_from_the_symbols(indexed: Path, embedder) -> None:
    folder = indexed / ".codeloupe"
    [cache] = [p for p in folder.iterdir() if p.name.startswith("embcache_")]
    for path in (cache / "data").glob("*.lance"):
        path.write_bytes(os.urandom(path.stat().st_size))
    idx = Index(indexed, Settings(), embedder=embedder)
    assert set(idx.store.verify()) == {cache.name.removesuffix(".lance")}
    report = idx.update()
    assert any("embedding cache" in e for e in report.errors)
    assert idx.store.verify() == {}
    # the next edit finds every unchanged symbol's vectors in the refilled cache
    cart = indexed / "src/shop/cart.py"
    cart.write_text(cart.read_text() + "\n\ndef empty_cart(cart):\n    cart.items.clear()\n")
    edit = idx.update()
    assert edit.files_parsed == 1 and edit.embeddings_reused > 0
    assert edit.embeddings_computed <= 3  # the new function, and the module unit's two texts


def test_a_deleted_full_text_index_is_said_and_rebuilt(indexed: Path, embedder) -> None:
    idx = Index(indexed, Settings(), embedder=embedder)
    [fts] = [ix for ix in idx.store.symbols.list_indices() if ix.index_type == "FTS"]
    shutil.rmtree(indexed / ".codeloupe" / "symbols.lance" / "_indices" / fts.index_uuid)
    resp = Searcher(Index(indexed, Settings(), embedder=embedder, writable=False)).search(
        "parse header", k=3)
    assert resp.warnings and "full-text index" in resp.warnings[0]
    assert resp.results  # the vectors still answer
    out = cli("search", "--root", str(indexed), "--no-update", "parse header")
    assert out.returncode == 0 and "full-text index" in out.stderr
    report = Index(indexed, Settings(), embedder=embedder).update()
    assert any("full-text index" in e for e in report.errors)
    again = Searcher(Index(indexed, Settings(), embedder=embedder)).search("parse header", k=3,
                                                                           mode="fts")
    assert not again.warnings and again.results[0].name == "parse_header"
