from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest

from codeloupe import index as index_module
from codeloupe.config import Settings
from codeloupe.index import Index
from codeloupe.scan import ScannedFile, ScanResult
from codeloupe.store import IndexMismatch

from .conftest import SAMPLE_REPO, write_tree


def rows(index: Index) -> dict[str, dict]:
    table = index.store.symbols.to_arrow().to_pylist()
    return {r["id"]: r for r in table}


def text_keys(symbol_rows: Iterable[dict]) -> set[str]:
    """The distinct embedded texts of these symbols: each has a text and a summary
    (the same key when the symbol is short)."""
    return {key for r in symbol_rows for key in (r["embed_key"], r["summary_key"])}


def open_index(root: Path, embedder) -> Index:
    return Index(root, Settings(), embedder=embedder)


def test_cold_then_warm_start_with_nothing_changed(sample_repo: Path, embedder) -> None:
    idx = open_index(sample_repo, embedder)
    report = idx.update()
    assert report.files == 4 and report.files_parsed == 4
    assert report.pending_embeddings == 0
    before = rows(idx)
    assert "src/shop/http.py::Client.fetch" in before
    assert "src/shop/http.py::<module>" in before
    assert all(r["vector"] is not None for r in before.values())
    assert all(r["summary_vector"] is not None for r in before.values())
    assert report.embeddings_computed == len(text_keys(before.values()))

    again = open_index(sample_repo, embedder).update()
    assert (again.files_parsed, again.embeddings_computed, again.files_unchanged) == (0, 0, 4)

    os.utime(sample_repo / "src/shop/cart.py", None)  # new mtime, same content
    touched = open_index(sample_repo, embedder).update()
    assert touched.files_parsed == 0 and touched.files_unchanged == 4
    assert rows(idx) == before


def test_edit_add_delete_rename_touch_only_affected_rows(sample_repo: Path, embedder) -> None:
    idx = open_index(sample_repo, embedder)
    idx.update()
    before = rows(idx)

    cart = sample_repo / "src/shop/cart.py"
    cart.write_text(cart.read_text().replace("self.items.append((sku, quantity))",
                                             "self.items.insert(0, (sku, quantity))"))
    report = open_index(sample_repo, embedder).update()
    after = rows(idx)
    assert report.files_parsed == 1
    changed = {i for i in after if after[i]["embed_key"] != before.get(i, {}).get("embed_key")}
    assert changed == {"src/shop/cart.py::Cart", "src/shop/cart.py::Cart.add_item"}
    assert report.embeddings_computed == len(text_keys(after.values()) - text_keys(before.values()))
    assert 2 <= report.embeddings_computed <= 4  # each changed symbol: its text, maybe its summary
    for sym_id, row in after.items():
        if sym_id not in changed:
            assert row["content_hash"] == before[sym_id]["content_hash"]
            assert np.allclose(row["vector"], before[sym_id]["vector"])

    write_tree(sample_repo, {"src/shop/tax.py": "def vat(amount):\n    return amount * 0.2\n"})
    report = open_index(sample_repo, embedder).update()
    assert report.files_parsed == 1 and "src/shop/tax.py::vat" in rows(idx)

    (sample_repo / "web/upload.js").unlink()
    report = open_index(sample_repo, embedder).update()
    assert report.files_deleted == 1
    assert not [i for i in rows(idx) if i.startswith("web/upload.js::")]
    refs = idx.store.refs.to_arrow().to_pylist()
    assert not [r for r in refs if r["path"] == "web/upload.js"]

    n_http = len([i for i in rows(idx) if i.startswith("src/shop/http.py::")])
    shutil.move(sample_repo / "src/shop/http.py", sample_repo / "src/shop/transport.py")
    report = open_index(sample_repo, embedder).update()
    moved = [i for i in rows(idx) if i.startswith("src/shop/transport.py::")]
    assert len(moved) == n_http and not [i for i in rows(idx) if i.startswith("src/shop/http.py")]
    # Only the module unit, whose name is the path, is new text; every symbol is reused.
    module = rows(idx)["src/shop/transport.py::<module>"]
    assert report.embeddings_computed == len(text_keys([module]))
    assert report.embeddings_reused == len(text_keys(
        r for i, r in rows(idx).items() if i in moved and r is not module and not i.endswith("<module>")))


def test_symbols_and_full_text_come_before_embeddings_and_a_later_run_finishes(
    sample_repo: Path, embedder
) -> None:
    idx = open_index(sample_repo, embedder)
    report = idx.sync_files()
    assert report.symbols > 0 and report.pending_embeddings == report.symbols
    from codeloupe.search import Searcher

    resp = Searcher(idx).search("parse_header", k=3, mode="fts")
    assert resp.results[0].qualified_name == "parse_header"
    assert resp.pending_embeddings == report.symbols
    # a new process (a new Index) completes what the first one left
    report2 = open_index(sample_repo, embedder).update()
    assert report2.files_parsed == 0
    assert report.embeddings_reused == 0  # a new index, an empty cache
    assert report2.embeddings_computed == len(text_keys(rows(idx).values()))
    assert idx.store.count_pending() == 0


def test_bad_inputs_do_not_stop_the_run(tmp_path: Path, embedder) -> None:
    root = tmp_path / "bad"
    write_tree(
        root,
        {
            "good.py": "def fine():\n    return 1\n",
            "binary.py": b"\x00\x01\x02\x03" * 100,
            "latin1.py": b"# caf\xe9\ndef caf():\n    return '\xe9'\n",
            "broken.py": "def ok_before():\n    pass\n\ndef broken(:\n    x = (\n\ndef ok_after():\n    return 2\n",
            "empty.py": "",
        },
    )
    with open(root / "sparse.py", "wb") as fh:
        fh.truncate(1 << 30)
    os.symlink("loop.py", root / "loop.py")
    os.symlink(root, root / "again")
    report = open_index(root, embedder).update()
    ids = set(rows(open_index(root, embedder)))
    assert {"good.py::fine", "latin1.py::caf", "broken.py::ok_before", "broken.py::ok_after"} <= ids
    assert "empty.py::<module>" in ids
    assert report.skipped == {"binary": 1, "oversized": 1, "unreadable": 1}
    assert report.files_with_syntax_errors == 1
    assert any("loop.py" in e for e in report.errors)


def test_file_deleted_mid_scan(sample_repo: Path, embedder, monkeypatch) -> None:
    real_scan = index_module.scan

    def scan_then_vanish(root, **kw) -> ScanResult:
        result = real_scan(root, **kw)
        ghost = root / "src/ghost.py"
        result.files.append(ScannedFile("src/ghost.py", ghost, 10, 1, "python"))
        return result

    monkeypatch.setattr(index_module, "scan", scan_then_vanish)
    report = open_index(sample_repo, embedder).update()
    assert report.files_parsed == 4
    assert any("src/ghost.py" in e for e in report.errors)


def _in_thread(fn, timeout: float = 600.0):
    """``fn()`` in a thread; the test fails (instead of hanging) if it never returns."""
    out: list = []
    worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    worker.start()
    worker.join(timeout)
    assert out, "it hung"
    return out[0]


@pytest.mark.parametrize("files", [3, 60])  # in-process, and through the parse workers
def test_a_file_that_becomes_a_fifo_after_the_scan_does_not_hang(
        tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch, files: int) -> None:
    root = tmp_path / "repo"
    write_tree(root, {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(files)})
    real_scan = index_module.scan

    def scan_then_swap(r, **kw):
        result = real_scan(r, **kw)
        (r / "m1.py").unlink()
        os.mkfifo(r / "m1.py")  # no writer will ever open it
        return result

    monkeypatch.setattr(index_module, "scan", scan_then_swap)
    idx = Index(root, Settings(workers=2), embedder=embedder)
    report = _in_thread(lambda: idx.update(embed=False))
    assert report.skipped == {"not a regular file": 1}
    assert report.files == files - 1


def test_a_held_lock_names_its_holder_and_dies_with_it(tmp_path: Path, embedder) -> None:
    root = tmp_path / "repo"
    write_tree(root, {"a.py": "def a():\n    pass\n"})
    Index(root, Settings(), embedder=embedder).sync_files()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, threading\n"
         "from codeloupe.index import Index\nfrom codeloupe.config import Settings\n"
         "idx = Index(sys.argv[1], Settings(), writable=False, check_model=False)\n"
         "with idx.write_lock():\n    print('LOCKED', flush=True)\n    threading.Event().wait()\n",
         str(root)], cwd=Path(__file__).resolve().parent.parent, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "LOCKED"
        idx = Index(root, Settings(), embedder=embedder)
        with idx.write_lock(wait=False) as locked:
            assert locked is False
        heard: list[str] = []
        waited = threading.Event()

        def on_wait(who: str) -> None:
            heard.append(who)
            waited.set()

        runner = threading.Thread(target=lambda: heard.append(idx.update(embed=False, on_wait=on_wait)))
        runner.start()
        assert waited.wait(600)
        assert f"process {holder.pid}" in heard[0]
    finally:
        holder.send_signal(signal.SIGKILL)  # the lock is the kernel's: it goes with its holder
        holder.wait()
    runner.join(600)
    assert isinstance(heard[-1], index_module.IndexReport) and heard[-1].files == 1


def _double_or_hang(batch: list[int]) -> list[int]:
    if -1 in batch:
        threading.Event().wait()  # a stalled mount, a pathological file
    return [2 * x for x in batch]


def test_a_stalled_worker_is_killed_and_only_its_item_is_lost() -> None:
    from codeloupe.workers import TimedOut, run_batches

    batches = [[1, 2], [3, -1, 4], [5, 6]]
    results = {}
    for batch, out in _in_thread(lambda: list(run_batches(_double_or_hang, batches, 2, 5.0))):
        for item, value in zip(batch, out, strict=True):
            results[item] = value
    assert results.pop(-1) == TimedOut(-1)
    assert results == {1: 2, 2: 4, 3: 6, 4: 8, 5: 10, 6: 12}


def test_model_change_rebuilds_with_a_message(sample_repo: Path, embedder) -> None:
    open_index(sample_repo, embedder).update()

    class Renamed:
        model_id = "other/model"
        dim = embedder.dim
        max_tokens = embedder.max_tokens

        def count_tokens(self, texts):
            return embedder.count_tokens(texts)

        def embed(self, texts, progress=None):
            return embedder.embed(texts, progress)

        def embed_query(self, text):
            return embedder.embed_query(text)

    idx = Index(sample_repo, Settings(), embedder=Renamed())
    assert idx.store.rebuilt_reason and "other/model" in idx.store.rebuilt_reason
    assert idx.store.symbols.count_rows() == 0
    report = idx.update()
    assert report.files_parsed == 4 and report.embeddings_reused == 0


def test_an_index_of_an_older_extraction_is_rebuilt_reusing_vectors(sample_repo: Path, embedder,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Unchanged files are not parsed again, so when extraction changes (EXTRACT_VERSION)
    an index made by the old one would keep its symbols for good: it is rebuilt, the
    vectors already computed reused; a read-only open says so and changes nothing."""
    monkeypatch.setattr(index_module, "EXTRACT_VERSION", index_module.EXTRACT_VERSION - 1)
    open_index(sample_repo, embedder).update()
    monkeypatch.undo()
    with pytest.raises(IndexMismatch, match="extract_version"):
        Index(sample_repo, Settings(), embedder=embedder, writable=False)
    idx = open_index(sample_repo, embedder)
    assert idx.store.rebuilt_reason and "extract_version" in idx.store.rebuilt_reason
    report = idx.update()
    assert report.files_parsed == 4 and report.embeddings_computed == 0
    assert open_index(sample_repo, embedder).store.rebuilt_reason is None


def test_corrupt_table_rebuilds(sample_repo: Path, embedder) -> None:
    open_index(sample_repo, embedder).update()
    shutil.rmtree(sample_repo / ".codeloupe" / "symbols.lance" / "_versions")
    idx = open_index(sample_repo, embedder)
    assert idx.store.rebuilt_reason is not None
    report = idx.update()
    assert report.files_parsed == 4
    # the embedding cache survived: nothing recomputed
    assert report.embeddings_computed == 0


def test_index_folder_ignores_itself(sample_repo: Path, embedder) -> None:
    open_index(sample_repo, embedder).sync_files()
    assert (sample_repo / ".codeloupe" / ".gitignore").read_text().strip().endswith("*")


@pytest.mark.parametrize("name", ["it's here/naïve file.py", 'q"uote/a b.py', "日本/コード.py"])
def test_odd_paths_update_and_delete_cleanly(tmp_path: Path, embedder, name: str) -> None:
    root = tmp_path / "odd"
    write_tree(root, {name: "def first():\n    return 1\n", "other.py": "def keep():\n    pass\n"})
    idx = open_index(root, embedder)
    idx.update()
    assert f"{name}::first" in rows(idx)
    (root / name).write_text("def second():\n    return 2\n")
    idx.update()
    ids = set(rows(idx))
    assert f"{name}::second" in ids and f"{name}::first" not in ids and "other.py::keep" in ids
    from codeloupe.search import Searcher

    resp = Searcher(idx).search("second", k=5, path=name)
    assert [h.qualified_name for h in resp.results if h.kind != "module"] == ["second"]
    (root / name).unlink()
    idx.update()
    assert not [i for i in rows(idx) if i.startswith(name)]


_ = SAMPLE_REPO


def test_buffer_update_then_disk_resync(sample_repo: Path, embedder) -> None:
    from codeloupe.index import BUFFER_MTIME

    idx = open_index(sample_repo, embedder)
    idx.update()
    before = rows(idx)
    cart = sample_repo / "src/shop/cart.py"
    on_disk = cart.read_text()
    buffer = on_disk + "\n\ndef apply_discount(cart):\n    return cart.total_price({}) * 0.9\n"

    report = idx.update_buffer("src/shop/cart.py", buffer)
    after = rows(idx)
    assert "src/shop/cart.py::apply_discount" in after
    # unchanged symbols keep their vectors (from the cache); the new one and the
    # module unit (its text changed) wait for an embedding
    pending = {i for i, r in after.items() if r["vector"] is None}
    assert pending == {"src/shop/cart.py::apply_discount", "src/shop/cart.py::<module>"}
    in_cart = [i for i in after if i.startswith("src/shop/cart.py::")]
    assert report.embeddings_reused == len(text_keys(
        r for i, r in after.items() if i in in_cart and i not in pending))
    assert len(after) == len(before) + 1
    files = idx.store.load_files()
    assert files["src/shop/cart.py"].mtime_ns == BUFFER_MTIME
    refs = [r for r in idx.store.refs.to_arrow().to_pylist()
            if r["enclosing"].endswith("apply_discount") and r["kind"] == "call"]
    assert [r["name"] for r in refs] == ["total_price"]

    # the next disk scan re-checks the file (its mtime matches nothing) and restores it
    sync = idx.sync_files()
    assert sync.files_parsed == 1
    assert "src/shop/cart.py::apply_discount" not in rows(idx)
    assert idx.store.load_files()["src/shop/cart.py"].mtime_ns == cart.stat().st_mtime_ns

    # a saved buffer: refresh_file finds the same content and only updates the stats
    idx.update_buffer("src/shop/cart.py", buffer)
    cart.write_text(buffer)
    refreshed = idx.refresh_file("src/shop/cart.py")
    assert refreshed.files_unchanged == 1 and refreshed.files_parsed == 0
    assert idx.store.load_files()["src/shop/cart.py"].mtime_ns == cart.stat().st_mtime_ns
    assert "src/shop/cart.py::apply_discount" in rows(idx)

    # a file gone from disk loses its rows
    cart.unlink()
    assert idx.refresh_file("src/shop/cart.py").files_deleted == 1
    assert not [i for i in rows(idx) if i.startswith("src/shop/cart.py::")]
    symbols, refs = idx.load_rows(["src/shop/http.py"])
    assert {s["path"] for s in symbols} == {"src/shop/http.py"} and list(refs) == ["src/shop/http.py"]
    got = refs["src/shop/http.py"].rows()
    assert got and len(got) == len(refs["src/shop/http.py"]) and {r["path"] for r in got} == {"src/shop/http.py"}
    assert got == idx.store.ref_rows(["src/shop/http.py"])  # the same rows, in the same order


def test_embedding_progress_never_goes_back(tmp_path: Path, embedder) -> None:
    """Texts are embedded shortest first and a symbol counts once both its texts have
    vectors: the estimate shown during a group must not be taken back after it (a
    user saw `embedding 314/3068`, then `242/3068`)."""
    root = tmp_path / "repo"
    # bodies over SUMMARY_MIN_CHARS: each symbol has a second, shorter (summary) text
    body = "".join(f"    total_{k} = value * {k} + offset_{k % 3}\n" for k in range(24))
    write_tree(root, {f"m{i}.py": "".join(
        f"def f{i}_{j}(value, offset_0=0, offset_1=1, offset_2=2):\n    '''Sum {j}.'''\n{body}"
        f"    return total_{j}\n\n" for j in range(6)) for i in range(4)})
    idx = open_index(root, embedder)
    idx.sync_files()
    pending = idx.store.count_pending()
    seen: list[int] = []
    etas: list[float | None] = []

    def progress(stage: str, done: int, total: int, eta: float | None = None, /) -> None:
        seen.append(done)
        etas.append(eta)

    idx.embed_pending(progress, commit_every=3)
    assert seen == sorted(seen), seen
    assert seen[-1] == pending > 6 and idx.store.count_pending() == 0
    # the time left is unknown until a group is done, then known, and nothing at the end
    assert etas[0] is None and all(e is not None and e >= 0 for e in etas[-3:]), etas
    assert etas[-1] == 0.0
