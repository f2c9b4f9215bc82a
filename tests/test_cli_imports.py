"""What each CLI command imports (a command's start is mostly its imports): ``status``,
``calls``, ``path`` and ``graph`` never load an embedding library; ``calls``, ``path``
and ``graph`` answer an unchanged index from the saved graph without LanceDB, and
``status`` from what the last full read of the same tables saw, but never from a stale
one: an edit, other settings, a write to a table or a record not signed by this user
send them through the index again, with the same answer.

Each command runs in a fresh interpreter (``runpy``, as ``python -m codeloupe`` runs
it) that writes the names in ``sys.modules`` to a file when the command is done."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codeloupe.config import Settings
from codeloupe.graph_store import SYNC_FILE
from codeloupe.index import Index
from codeloupe.statusfile import STATUS_FILE

from .test_cli import ENV, run

DATA = Path(__file__).parent / "data" / "graph" / "python"
EMBEDDING = {"torch", "sentence_transformers", "onnxruntime", "transformers"}
STORAGE = {"lancedb", "lance", "lance_namespace"}

_RUN_AND_DUMP = """
import json, runpy, sys
dump, sys.argv = sys.argv[1], ["codeloupe", *sys.argv[2:]]
code = 0
try:
    runpy.run_module("codeloupe", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code
with open(dump, "w") as fh:
    json.dump(sorted({m.split(".")[0] for m in sys.modules}), fh)
sys.exit(code)
"""


def imported(tmp: Path, *args: str) -> tuple[set[str], subprocess.CompletedProcess]:
    """The top-level packages a command had imported when it ended, and its result."""
    dump = tmp / "modules.json"
    dump.unlink(missing_ok=True)
    out = subprocess.run([sys.executable, "-c", _RUN_AND_DUMP, str(dump), *args],
                         capture_output=True, text=True, env=ENV, timeout=600)
    assert out.returncode == 0, out.stderr
    return set(json.loads(dump.read_text())), out


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(DATA, root)
    out = run("index", str(root), "--no-embed", "-q")
    assert out.returncode == 0, out.stderr
    first = run("calls", "--root", str(root), "-q", "Transport.write")  # saves the graph
    assert first.returncode == 0, first.stderr
    return root


COMMANDS = {
    "status": ["status", "{root}"],
    "calls": ["calls", "--root", "{root}", "--json", "Transport.write"],
    "path": ["path", "--root", "{root}", "--json", "build", "Transport.write"],
    "graph": ["graph", "--root", "{root}", "--json"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_command_but_search_and_ask_loads_an_embedding_library(repo: Path, tmp_path: Path,
                                                                  command: str) -> None:
    args = [a.format(root=repo) for a in COMMANDS[command]]
    modules, out = imported(tmp_path, *args)
    assert out.stdout.strip()
    assert not modules & EMBEDDING, sorted(modules & EMBEDDING)
    # status: from what the index run saved (test_status_answers_from_...)
    assert not modules & STORAGE, sorted(modules & STORAGE)


def test_the_saved_graph_answers_only_what_the_index_would(repo: Path, tmp_path: Path) -> None:
    calls = ["calls", "--root", str(repo), "--json", "Transport.write"]
    modules, fast = imported(tmp_path, *calls)
    assert not modules & STORAGE
    # an edit: the index is opened and updated, and the new caller is there
    mail = repo / "app" / "mail.py"
    mail.write_text(mail.read_text() + "\n\ndef late(t: tr.Transport) -> None:\n    t.write(1)\n")
    modules, edited = imported(tmp_path, *calls)
    assert "lancedb" in modules
    assert "late" in {c["caller"]["qualified_name"] for c in json.loads(edited.stdout)["callers"]}
    assert edited.stdout != fast.stdout
    # that sync recorded what it saw: the next answer needs no index, and is the same
    modules, again = imported(tmp_path, *calls)
    assert not modules & STORAGE and again.stdout == edited.stdout
    # other settings that choose the files: through the index
    modules, _ = imported(tmp_path, *calls, "--include-generated")
    assert "lancedb" in modules
    # a file deleted: through the index, and its calls are gone
    (repo / "app" / "mail.py").unlink()
    modules, deleted = imported(tmp_path, *calls)
    assert "lancedb" in modules
    assert "late" not in deleted.stdout
    modules, _ = imported(tmp_path, *calls)
    assert not modules & STORAGE


def test_a_write_to_a_table_or_a_forged_record_goes_through_the_index(repo: Path,
                                                                      tmp_path: Path) -> None:
    calls = ["calls", "--root", str(repo), "--json", "Transport.write"]
    modules, first = imported(tmp_path, *calls)
    assert not modules & STORAGE
    # another writer (the language server, a second index run) wrote to a table
    Index(repo, Settings()).store.touch()
    modules, out = imported(tmp_path, *calls)
    assert "lancedb" in modules and out.stdout == first.stdout
    modules, _ = imported(tmp_path, *calls)
    assert not modules & STORAGE
    # a record this user's key did not sign is never believed
    record = repo / ".codeloupe" / SYNC_FILE
    doc = json.loads(record.read_text())
    record.write_text(json.dumps({**doc, "disk": "0" * 32}))
    modules, out = imported(tmp_path, *calls)
    assert "lancedb" in modules and out.stdout == first.stdout
    # with --no-update the files are not looked at, but the tables still are
    Index(repo, Settings()).store.touch()
    modules, out = imported(tmp_path, *calls, "--no-update")
    assert "lancedb" in modules and out.stdout == first.stdout


def test_status_answers_from_the_last_read_or_run_only_while_the_tables_are_as_it_saw(
        repo: Path, tmp_path: Path) -> None:
    status = ["status", str(repo), "--json"]
    modules, first = imported(tmp_path, *status)  # what the fixture's index run saved
    assert not modules & STORAGE
    (repo / ".codeloupe" / STATUS_FILE).unlink()  # gone: every table is read, and saved
    modules, read = imported(tmp_path, *status)
    assert "lancedb" in modules and read.stdout == first.stdout
    modules, again = imported(tmp_path, *status)
    assert not modules & STORAGE and again.stdout == first.stdout
    st = json.loads(first.stdout)
    assert st["state"] == f"embedding 0/{st['symbols']}" and st["files"] == 17  # --no-embed
    assert "built_model" not in st and "settings_model" not in st
    # a new file indexed: the index run saves what it left, and status counts it at once
    (repo / "app" / "extra.py").write_text("def extra():\n    return 1\n")
    out = run("index", str(repo), "--no-embed", "-q")
    assert out.returncode == 0, out.stderr
    modules, changed = imported(tmp_path, *status)
    assert not modules & STORAGE
    counted = json.loads(changed.stdout)
    assert counted["files"] == 18 and counted["symbols"] > st["symbols"]
    assert counted["state"] == f"embedding 0/{counted['symbols']}"
    # the same as a full read of the tables says
    (repo / ".codeloupe" / STATUS_FILE).unlink()
    modules, full = imported(tmp_path, *status)
    assert "lancedb" in modules and json.loads(full.stdout) == counted
    # another writer (the language server) wrote to a table: status reads them again
    Index(repo, Settings()).store.touch()
    modules, touched = imported(tmp_path, *status)
    assert "lancedb" in modules and json.loads(touched.stdout)["files"] == 18
    modules, _ = imported(tmp_path, *status)
    assert not modules & STORAGE
    # a saved answer this user's key did not sign is never believed
    saved = repo / ".codeloupe" / STATUS_FILE
    doc = json.loads(saved.read_text())
    stats = json.loads(doc["stats"])
    saved.write_text(json.dumps({**doc, "stats": json.dumps({**stats, "files": 999})}))
    modules, forged = imported(tmp_path, *status)
    assert "lancedb" in modules and json.loads(forged.stdout)["files"] == 18
    # other settings: the model they name is compared afresh, never taken from the file
    modules, other = imported(tmp_path, *status, "--backend", "torch")
    assert not modules & STORAGE and not modules & EMBEDDING
    assert json.loads(other.stdout)["state"] == "model mismatch"
