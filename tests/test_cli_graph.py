"""`codeloupe calls`, `path` and `graph` as a user runs them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codeloupe.graph_store import CALLS_FILE, GRAPH_FILE

from .test_cli import run

DATA = Path(__file__).parent / "data" / "graph" / "python"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cli_graph") / "repo"
    shutil.copytree(DATA, root)
    out = run("index", str(root), "--no-embed", "-q")
    assert out.returncode == 0, out.stderr
    return root


def test_callers_by_name_json(repo: Path) -> None:
    out = run("calls", "--root", str(repo), "--json", "-q", "Transport.write")
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    assert obj["target"] == "Transport.write"
    assert obj["symbol"] == {"path": "app/net/transport.py", "start_line": 8, "end_line": 9,
                             "name": "write", "qualified_name": "Transport.write", "kind": "method"}
    assert sorted((c["path"], c["line"], c["caller"]["qualified_name"]) for c in obj["callers"]) == [
        ("app/mail.py", 35, "Service.run.helper"), ("app/net/transport.py", 6, "Transport.send")]
    first = obj["callers"][0]
    assert set(first) == {"path", "line", "column", "caller", "confidence"}
    assert set(first["caller"]) == {"qualified_name", "path", "start_line"}
    assert "callees" not in obj


def test_callees_of_a_line_and_stdin_batch(repo: Path) -> None:
    out = run("calls", "--root", str(repo), "--callees", "-q", "-",
              stdin="app/mail.py:41\nno_such_thing\n")
    assert out.returncode == 2
    first, second = (json.loads(line) for line in out.stdout.splitlines())
    assert first["symbol"]["qualified_name"] == "build"
    assert {c["qualified_name"] for c in first["callees"]} == {"RetryingTransport", "Transport.__init__"}
    callee = first["callees"][0]
    assert set(callee) == {"qualified_name", "path", "start_line", "call_sites", "confidence"}
    assert callee["call_sites"] == [{"path": "app/mail.py", "line": 41, "column": 15}]
    assert second["target"] == "no_such_thing" and "error" in second
    assert out.stderr.strip().splitlines()[-1].startswith("codeloupe: error:")


def test_an_unknown_target_among_several_does_not_stop_the_others(repo: Path) -> None:
    out = run("calls", "--root", str(repo), "--json", "-q", "no_such_thing", "Transport.write")
    assert out.returncode == 2
    first, second = (json.loads(line) for line in out.stdout.splitlines())
    assert first == {"target": "no_such_thing", "error": "no symbol named 'no_such_thing'"}
    assert second["symbol"]["qualified_name"] == "Transport.write" and second["callers"]
    human = run("calls", "--root", str(repo), "-q", "no_such_thing", "Transport.write")
    assert human.returncode == 2 and "Transport.write (method)" in human.stdout
    assert "no symbol named 'no_such_thing'" in human.stderr


def test_transitive_callers(repo: Path) -> None:
    out = run("calls", "--root", str(repo), "--json", "-q", "--depth", "2", "Transport.write")
    callers = json.loads(out.stdout)["callers"]
    assert ("Service.run", 2) in {(c["caller"]["qualified_name"], c["depth"]) for c in callers}


def test_path_and_graph(repo: Path) -> None:
    out = run("path", "--root", str(repo), "--json", "-q", "Service.run", "Transport.write")
    assert out.returncode == 0, out.stderr
    chains = json.loads(out.stdout)["chains"]
    lengths = [len(c) for c in chains]
    # shortest first: via helper, via Transport.send, via the override RetryingTransport.send
    # (self.conn is a Transport: its subclass's send may run); by default no step is a name match
    assert lengths == sorted(lengths) == [2, 2, 3, 4]
    assert min(step["confidence"] for c in chains for step in c) >= 0.5
    steps = {tuple(step["callee"]["qualified_name"] for step in c) for c in chains if len(c) == 2}
    assert steps == {("Service.run.helper", "Transport.write"), ("Transport.send", "Transport.write")}
    assert [(s["callee"]["qualified_name"], s["reason"]) for s in chains[2]][0] == ("RetryingTransport.send", "subclass")
    # --min-confidence 0 follows the name-match candidates too: `shape.resize()` on an
    # unannotated parameter reaches Box.resize only by name
    out = run("path", "--root", str(repo), "--json", "-q", "fit", "Box.resize")
    assert json.loads(out.stdout)["chains"] == []
    out = run("path", "--root", str(repo), "--json", "-q", "--min-confidence", "0", "fit", "Box.resize")
    chains = json.loads(out.stdout)["chains"]
    assert [[(s["reason"], s["confidence"]) for s in c] for c in chains] == [[("name", 0.3)]]
    out = run("graph", "--root", str(repo), "--json", "-q")
    report = json.loads(out.stdout)
    assert report["languages"]["python"]["sites"] == report["sites"] > 0
    assert report["widest_callers"][0]["qualified_name"] == "Service.run"


def test_errors_are_one_line_and_exit_2(repo: Path) -> None:
    out = run("calls", "--root", str(repo), "-q", "nothing_named_so")
    assert out.returncode == 2
    assert out.stderr.strip() == "codeloupe: error: no symbol named 'nothing_named_so'"
    out = run("calls", "--root", str(repo / "missing"), "-q", "x")
    assert out.returncode == 2 and out.stderr.count("\n") == 1


def test_name_matches_are_counted_by_default_and_shown_with_min_confidence_0(repo: Path) -> None:
    # `unknown.send(data)` (app/mail.py:32): a value of unknown type, three methods named
    # send: name-match candidates (0.3 shared), left out of the default view but counted
    out = run("calls", "--root", str(repo), "--json", "-q", "Transport.send")
    obj = json.loads(out.stdout)
    assert ("app/mail.py", 32) not in {(c["path"], c["line"]) for c in obj["callers"]}
    assert all(c["confidence"] >= 0.5 for c in obj["callers"])
    assert obj["low_confidence_callers"] == 1 and obj["min_confidence"] == 0.5
    out = run("calls", "--root", str(repo), "--json", "-q", "--min-confidence", "0", "Transport.send")
    obj = json.loads(out.stdout)
    low = [c for c in obj["callers"] if (c["path"], c["line"]) == ("app/mail.py", 32)]
    assert [c["confidence"] for c in low] == [0.1]
    assert obj["low_confidence_callers"] == 0
    out = run("calls", "--root", str(repo), "-q", "Transport.send")
    assert "1 more call sites by name only" in out.stdout and "--min-confidence 0" in out.stdout


def test_the_map_is_saved_beside_the_index_and_never_used_stale(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(DATA, root)
    assert run("index", str(root), "--no-embed", "-q").returncode == 0
    saved = root / ".codeloupe" / GRAPH_FILE
    assert not saved.exists()  # made by the first command that needs the map
    first = run("calls", "--root", str(root), "--json", "-q", "Transport.write")
    assert first.returncode == 0, first.stderr
    assert saved.exists()
    stamp = saved.stat().st_mtime_ns
    again = run("calls", "--root", str(root), "--json", "-q", "Transport.write")
    assert again.stdout == first.stdout and saved.stat().st_mtime_ns == stamp  # loaded, not rebuilt
    assert (root / ".codeloupe" / CALLS_FILE).exists()  # its calls beside it
    # an edit: the index changes, so the saved map is not used (and is saved again)
    mail = root / "app" / "mail.py"
    mail.write_text(mail.read_text() + "\n\ndef late(t: tr.Transport) -> None:\n    t.write(1)\n")
    edited = json.loads(run("calls", "--root", str(root), "--json", "-q", "Transport.write").stdout)
    assert "late" in {c["caller"]["qualified_name"] for c in edited["callers"]}
    assert saved.stat().st_mtime_ns != stamp
    # a file not signed with this user's key (copied from elsewhere) is never parsed
    saved.write_bytes(b"codeloupe-graph/json " + b"0" * 64 + b"\n" + b"{}")
    out = run("calls", "--root", str(root), "--json", "-q", "Transport.write")
    assert json.loads(out.stdout) == edited


def test_name_matches_with_few_candidates_are_offered_with_their_evidence(repo: Path) -> None:
    # `view.scale(w, h)` (app/shapes/layout.py:11): Panel.scale and Image.scale both take
    # two arguments; below the view, but listed with their count
    out = run("calls", "--root", str(repo), "--json", "-q", "Image.scale")
    obj = json.loads(out.stdout)
    assert obj["callers"] == []
    assert [(c["path"], c["line"], c["caller"]["qualified_name"], c["evidence"]) for c in obj["offered_callers"]] == [
        ("app/shapes/layout.py", 11, "zoom", "by name, 2 candidates")]
    out = run("calls", "--root", str(repo), "-q", "Image.scale")
    assert "app/shapes/layout.py:11:10  in zoom  [0.15]  by name, 2 candidates" in out.stdout
    # each test file's own `Clock.advance`: narrowed, in the view, with why
    out = run("calls", "--root", str(repo), "-q", "app/checks/test_alpha.py:5")
    assert "in test_expiry  [0.6]  narrowed by caller's file has its own Clock.advance" in out.stdout


def test_calls_and_path_read_the_saved_calls_without_the_map(tmp_path: Path) -> None:
    """Beside the map, its calls alone (``graph.callfile``): ``calls`` and ``path`` read
    them in place and answer as from the map; one with another key is never used."""
    root = tmp_path / "repo"
    shutil.copytree(DATA, root)
    assert run("index", str(root), "--no-embed", "-q").returncode == 0
    asks = [("calls", "--root", str(root), "--json", "-q", "--both", "--depth", "2", "Transport.write"),
            ("calls", "--root", str(root), "--json", "-q", "--both", "--min-confidence", "0", "Transport.send"),
            ("path", "--root", str(root), "--json", "-q", "Service.run", "Transport.write")]
    from_map = [run(*a).stdout for a in asks]  # the first builds the map, saves it and its calls
    folder = root / ".codeloupe"
    assert json.loads(from_map[0])["callers"] and json.loads(from_map[2])["chains"]
    (folder / GRAPH_FILE).unlink()
    assert [run(*a).stdout for a in asks] == from_map  # the calls alone
    assert not (folder / GRAPH_FILE).exists()
    mail = root / "app" / "mail.py"  # a new state: neither is used, both are saved again
    mail.write_text(mail.read_text() + "\n\ndef late(t: tr.Transport) -> None:\n    t.write(1)\n")
    edited = json.loads(run(*asks[0]).stdout)
    assert "late" in {c["caller"]["qualified_name"] for c in edited["callers"]}
    assert (folder / GRAPH_FILE).exists()
