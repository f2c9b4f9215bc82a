"""The CLI as a user runs it: a real process, stdout and stderr, exit codes."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import SAMPLE_REPO, write_tree

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "LANCE_LOG": "error"}


def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codeloupe", *args],
        input=stdin, capture_output=True, text=True, env=ENV, cwd=cwd, timeout=600,
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cli") / "repo"
    write_tree(root, SAMPLE_REPO)
    return root


def test_index_reports_counts_and_is_idempotent(repo: Path) -> None:
    first = run("index", str(repo), "--json", "-q")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["files"] == 4 and report["files_parsed"] == 4
    assert report["symbols"] >= 14 and report["pending_embeddings"] == 0
    assert report["embeddings_computed"] > 0
    human = run("index", str(repo))
    assert human.returncode == 0
    assert "0 parsed, 4 unchanged" in human.stdout
    assert "0 computed" in human.stdout


def test_search_one_query_json(repo: Path) -> None:
    out = run("search", "--root", str(repo), "-k", "3", "--json", "Client.fetch")
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    assert obj["query"] == "Client.fetch"
    first = obj["results"][0]
    assert {k: first[k] for k in ("path", "start_line", "end_line", "name", "qualified_name",
                                   "kind", "language")} == {
        "path": "src/shop/http.py", "start_line": 8, "end_line": 15, "name": "fetch",
        "qualified_name": "Client.fetch", "kind": "method", "language": "python",
    }
    assert isinstance(first["score"], float)


def test_search_reads_queries_from_stdin_one_json_per_line(repo: Path) -> None:
    out = run("search", "--root", str(repo), "-k", "2", "--json", "-",
              stdin="parse_header\n\nCart.add_item\n")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [o["query"] for o in lines] == ["parse_header", "Cart.add_item"]
    assert lines[0]["results"][0]["qualified_name"] == "parse_header"
    assert lines[1]["results"][0]["qualified_name"] == "Cart.add_item"


def test_search_text_output_and_filters(repo: Path) -> None:
    out = run("search", "--root", str(repo), "--lang", "go", "--mode", "fts", "greet")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].startswith("cmd/main.go:")
    assert "src/" not in out.stdout


def test_search_brings_the_index_up_to_date_first(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    write_tree(root, {"a.py": "def compute_invoice_total(lines):\n    return sum(lines)\n"})
    out = run("search", "--root", str(root), "--json", "compute_invoice_total")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["results"][0]["qualified_name"] == "compute_invoice_total"
    (root / "a.py").write_text("def refund_order(order):\n    return -order\n")
    out = run("search", "--root", str(root), "--json", "--mode", "fts", "refund_order")
    results = json.loads(out.stdout)["results"]
    assert results[0]["qualified_name"] == "refund_order"
    assert all(r["qualified_name"] != "compute_invoice_total" for r in results)


def test_status(repo: Path) -> None:
    out = run("status", str(repo), "--json")
    assert out.returncode == 0, out.stderr
    st = json.loads(out.stdout)
    assert st["files"] == 4 and st["symbols"] >= 14
    assert st["languages"] == {"python": 2, "javascript": 1, "go": 1}
    # the bundled model on the default backend (auto: onnx, int8 weights)
    assert st["model"] == "sentence-transformers/all-MiniLM-L6-v2+onnx-int8"
    assert st["index_bytes"] > 0 and st["updated_at"]
    human = run("status", str(repo))
    assert "symbols:" in human.stdout and "model:" in human.stdout


@pytest.mark.parametrize("args,message", [
    (["search", "--root", "/no/such/dir", "x"], "no such folder: /no/such/dir"),
    (["index", "/no/such/dir"], "no such folder: /no/such/dir"),
    (["status", "/etc/hostname"], "not a folder: /etc/hostname"),
    (["search", "--lang", "cobol", "x"], "unknown language 'cobol'"),
    (["serve", "--tcp", "8080"], "--tcp wants HOST:PORT, got '8080'"),
])
def test_errors_are_one_line_and_nonzero(args: list[str], message: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert out.stderr.startswith("codeloupe: error: ") and message in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_unreadable_index_is_rebuilt_with_a_message(tmp_path: Path) -> None:
    root = tmp_path / "r"
    write_tree(root, {"a.py": "def alpha():\n    pass\n"})
    assert run("index", str(root), "--no-embed", "-q").returncode == 0
    (root / ".codeloupe" / "meta.lance").rename(root / ".codeloupe" / "junk")
    out = run("index", str(root), "--no-embed", "-q")
    assert out.returncode == 0, out.stderr
    assert "rebuilding the index" in out.stderr


_ = SAMPLE_REPO


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _connect(port: int, proc: subprocess.Popen) -> socket.socket:
    """A connection to the server once it listens (or the test fails if it died)."""
    while proc.poll() is None:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=60)
        except ConnectionRefusedError:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.05)  # not listening yet: wait on the process meanwhile
    raise AssertionError(f"the server exited with {proc.returncode} before listening")


def test_a_tcp_server_ends_when_its_client_disconnects(repo: Path) -> None:
    """`serve --tcp`: one client; when it goes away the server stops listening and exits
    (pygls's shutdown runs: a stub of it once hid it and the server stayed forever)."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "codeloupe", "serve", "--tcp", f"127.0.0.1:{port}"],
                            env=ENV, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        conn = _connect(port, proc)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"processId": None, "rootUri": None, "capabilities": {}}}).encode()
        conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        reply = b""
        while b'"id":1' not in reply.replace(b" ", b""):
            chunk = conn.recv(65536)
            assert chunk, "the connection closed before the initialize answer"
            reply += chunk
        assert b'"codeloupe"' in reply
        conn.close()  # no shutdown, no exit: the client is gone
        assert proc.wait(timeout=120) == 0, proc.stderr.read().decode() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
