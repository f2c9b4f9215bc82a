"""bench/eval_callgraph.py's truth files: what a rerun keeps, which pairs are left out
of the scores, and the held-out truth written gzipped (the evaluation's bookkeeping; the
projects themselves are fetched only by the bench)."""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from .test_graph_languages import _scratch

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _bench():
    spec = importlib.util.spec_from_file_location("eval_callgraph", BENCH / "eval_callgraph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ec = _bench()

FILES = {
    "app/net.py": "class Transport:\n    def __init__(self, host):\n        self.host = host\n\n"
                  "    def send(self, data):\n        return data\n",
    "app/run.py": "from app.net import Transport\n\n\ndef run(data):\n    t = Transport('h')\n"
                  "    return t.send(data)\n",
}
PROJECT = {"name": "tiny", "language": "python", "split": "dev", "fetch": {"version": "1"}}


def _truth(tmp_path: Path, systems: dict, old: dict | None = None) -> tuple[dict, object]:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    g = _scratch(FILES)
    symbols = ["app/run.py::run", "app/net.py::Transport.send"]
    return ec.build_truth("tiny", PROJECT, tmp_path, g, symbols, systems, ec.Innermost(g), old), g


CLASS, INIT, SEND = "app/net.py::Transport", "app/net.py::Transport.__init__", "app/net.py::Transport.send"


def test_a_class_beside_its_constructor_is_left_out_of_the_scores(tmp_path: Path) -> None:
    both = {("app/run.py", 5, CLASS), ("app/run.py", 5, INIT), ("app/run.py", 6, SEND)}
    truth, _ = _truth(tmp_path, {"codeloupe_default": set(both), "name_matching": set(both)})
    neutral = {(e["path"], e["line"], e["target"]) for e in truth["sites"] if e.get("neutral")}
    assert neutral == {("app/run.py", 5, CLASS)}
    for e in truth["sites"]:  # read: the class pair false, the others true
        e["status"] = "false" if e["target"] == CLASS else "true"
    row = ec.scores(truth, {"codeloupe_default": both})["codeloupe_default"]
    assert (row["callees_truth"]["reported"], row["callees_truth"]["correct"]) == (2, 2)


def test_a_pair_read_once_stays_when_no_system_reports_it(tmp_path: Path) -> None:
    first, _ = _truth(tmp_path, {"name_matching": {("app/run.py", 6, SEND)}, "codeloupe_default": set()})
    (entry,) = first["sites"]
    entry["status"], entry["reason"] = "true", "t is a Transport (run.py:5)"
    again, _ = _truth(tmp_path, {"name_matching": set(), "codeloupe_default": set()}, old=first)
    (kept,) = again["sites"]
    assert (kept["status"], kept["reason"], kept["systems"]) == ("true", "t is a Transport (run.py:5)", [])
    assert kept["roles"] == ["caller", "callee"] and again["counts"]["true"] == 1
    # it still counts: a system that misses it loses recall
    row = ec.scores(again, {"codeloupe_default": set()})["codeloupe_default"]
    assert row["callers_truth"]["gold"] == 1 and row["callers_truth"]["correct"] == 0


def test_held_out_truth_is_gzipped_the_same_bytes_for_the_same_truth(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ec, "HELDOUT_TRUTH", tmp_path / "heldout")
    monkeypatch.setattr(ec, "TRUTH", tmp_path / "dev")
    truth = {"project": "p", "sites": [{"path": "a.py", "line": 1, "target": "a.py::f"}]}
    ec.write_truth("p", "heldout", truth)
    path = tmp_path / "heldout" / "p.json.gz"
    first = path.read_bytes()
    assert json.loads(gzip.decompress(first)) == truth and ec.read_truth("p", "heldout") == truth
    ec.write_truth("p", "heldout", truth)
    assert path.read_bytes() == first  # no timestamp in the gzip header: a commit shows real changes only
    ec.write_truth("p", "dev", truth)
    assert json.loads((tmp_path / "dev" / "p.json").read_text()) == truth
    assert ec.read_truth("q", "heldout") is None


def test_the_evaluated_files_are_the_ones_the_indexer_reads(tmp_path: Path) -> None:
    """A minified bundle the scan lists but the indexer skips on reading it
    (``scan.check_content``) is not evaluated: its calls are not in the index."""
    (tmp_path / "lib.js").write_text("function f() {\n  return g();\n}\n")
    (tmp_path / "lib.min.js").write_text("function f(){return g()}" * 400)
    assert ec.list_files(tmp_path) == [("lib.js", "javascript")]
