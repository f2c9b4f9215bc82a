"""kill -9 at five points of an index run: the next run completes the index, and it
is the same as an index built in one go (issue 11: "keep those tests"). The child
stops dead at each point (``tests/kill_child.py``), so no test depends on timing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from codeloupe.config import Settings
from codeloupe.index import Index
from codeloupe.search import Searcher

from .conftest import write_tree
from .kill_child import POINTS, HashEmbedder

FILES = 250  # more than one write batch (200 files)
ROOT_OF_TESTS = Path(__file__).resolve().parent.parent


def _tree(root: Path, version: int) -> None:
    write_tree(root, {
        f"pkg/mod_{i}.py": (f"def handler_{i}_a(request):\n    '''Handle request a of module {i}, "
                            f"version {version}.'''\n    return request.get('{i}')\n\n\n"
                            f"def handler_{i}_b(request):\n    return handler_{i}_a(request) or "
                            f"{version}\n")
        for i in range(FILES)
    })


def _index(root: Path) -> Index:
    return Index(root, Settings(workers=1), embedder=HashEmbedder())


def _snapshot(idx: Index) -> dict[str, tuple]:
    rows = idx.store.symbol_rows(["id", "content_hash", "embed_key", "summary_key", "vector"])
    return {r["id"]: (r["content_hash"], r["embed_key"], r["summary_key"], tuple(r["vector"]))
            for r in rows}


def _kill_at(root: Path, point: str) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "tests.kill_child", str(root), point],
                            cwd=ROOT_OF_TESTS, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env={**os.environ, "LANCE_LOG": "error"})
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()))
    reader.start()
    reader.join(600)  # a hang detector only: the child reaches its point or finishes
    try:
        assert line and line[0].strip() == f"READY {point}", line
        assert proc.poll() is None  # stopped at the point, not finished
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


@pytest.mark.parametrize("point", POINTS)
def test_kill_9_then_the_next_run_completes_the_index(tmp_path: Path, point: str) -> None:
    reference_root = tmp_path / "reference"
    _tree(reference_root, 2)
    reference = _index(reference_root)
    reference.update()
    expected = _snapshot(reference)

    root = tmp_path / "repo"
    if point == "mid-file-write":  # an index of the old version, then every file edited
        _tree(root, 1)
        _index(root).update()
    _tree(root, 2)
    _kill_at(root, point)

    idx = _index(root)
    report = idx.update()
    assert report.files == FILES and report.pending_embeddings == 0
    assert idx.store.verify() == {}
    assert _snapshot(idx) == expected  # the same rows and vectors as one clean run
    assert set(idx.store.load_files()) == {f"pkg/mod_{i}.py" for i in range(FILES)}
    hits = Searcher(idx).search("handler_7_b", k=1, mode="fts").results
    assert [h.id for h in hits] == ["pkg/mod_7.py::handler_7_b"]
