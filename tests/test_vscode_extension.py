"""The VS Code extension (vscode-extension/): its settings mirror the server's options;
with Node present, its mocha unit tests pass, `vsce package` builds a small .vsix
offline, and the end-to-end test drives it in real VS Code (code-server + headless
Chromium). Without Node or Chromium those tests are skipped with the reason printed.
Set CODELOUPE_SKIP_VSCODE_E2E=1 to leave the end-to-end test out."""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import typing
import zipfile
from pathlib import Path

import pytest

from codeloupe.embed import BACKENDS
from codeloupe.lsp.options import LOG_LEVELS, ServerOptions, camel, read_lenient

ROOT = Path(__file__).resolve().parents[1]
EXT = ROOT / "vscode-extension"
PACKAGE = json.loads((EXT / "package.json").read_text(encoding="utf-8"))
PROPERTIES: dict[str, dict] = PACKAGE["contributes"]["configuration"]["properties"]
CLIENT_SETTINGS = {"python", "trace.server", "ask.useChatModel"}
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def say(config: pytest.Config, text: str) -> None:
    """A line on the terminal even while output is captured."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line(text)


def skip_saying(config: pytest.Config, reason: str) -> typing.NoReturn:
    say(config, f"[vscode-extension] skipped: {reason}")
    pytest.skip(reason)


# --- settings <-> the server's options (no Node needed) ---------------------------------------


def _json_type(hint: object) -> object:
    if hint is str:
        return "string"
    if hint is int:
        return "integer"
    if hint is float:
        return "number"
    if hint is bool:
        return "boolean"
    if hint == list[str]:
        return "array"
    args = typing.get_args(hint)
    if type(None) in args:
        (inner,) = [a for a in args if a is not type(None)]
        return [_json_type(inner), "null"]
    raise AssertionError(f"no JSON type for {hint!r}")


def test_settings_are_the_server_options_plus_the_clients_own() -> None:
    server = {camel(f.name) for f in dataclasses.fields(ServerOptions)}
    settings = {k.removeprefix("codeloupe.") for k in PROPERTIES}
    assert all(k.startswith("codeloupe.") for k in PROPERTIES)
    assert settings - CLIENT_SETTINGS == server, "package.json settings differ from ServerOptions"
    assert CLIENT_SETTINGS <= settings


@pytest.mark.parametrize("field", dataclasses.fields(ServerOptions), ids=lambda f: camel(f.name))
def test_setting_mirrors_the_option(field: dataclasses.Field) -> None:
    key = camel(field.name)
    prop = PROPERTIES[f"codeloupe.{key}"]
    default = ServerOptions()
    assert prop["default"] == getattr(default, field.name), f"default of codeloupe.{key}"
    hint = typing.get_type_hints(ServerOptions)[field.name]
    assert prop["type"] == _json_type(hint), f"type of codeloupe.{key}"
    if prop["type"] == "array":
        assert prop["items"] == {"type": "string"}
    assert prop.get("description") or prop.get("markdownDescription")
    # A maximum in package.json is the server's: one above is refused, the maximum accepted.
    if "maximum" in prop:
        high = prop["maximum"]
        _, problems = read_lenient(ServerOptions, {key: high + 1})
        assert problems and key in problems[0], f"the server accepts codeloupe.{key} = {high + 1}"
        assert read_lenient(ServerOptions, {key: high}) == (ServerOptions(**{field.name: high}), [])
    # A minimum in package.json is the server's: one below is refused, the minimum accepted.
    if "minimum" in prop:
        low = prop["minimum"]
        _, problems = read_lenient(ServerOptions, {key: low - 1})
        assert problems and key in problems[0], f"the server accepts codeloupe.{key} = {low - 1}"
        assert read_lenient(ServerOptions, {key: low}) == (ServerOptions(**{field.name: low}), [])
    elif hint in (int, float):
        _, problems = read_lenient(ServerOptions, {key: -1})
        assert not problems, f"the server refuses codeloupe.{key} = -1 but package.json has no minimum"


def test_enums_are_the_servers() -> None:
    assert PROPERTIES["codeloupe.logLevel"]["enum"] == list(LOG_LEVELS)
    assert PROPERTIES["codeloupe.embeddingBackend"]["enum"] == list(BACKENDS)
    # the device's pattern accepts what the server does, and refuses what it refuses
    pattern = re.compile(PROPERTIES["codeloupe.embeddingDevice"]["pattern"])
    for value in ("auto", "cpu", "cuda", "cuda:1", "gpu", "cuda:", "tpu", "cuda:x"):
        _, problems = read_lenient(ServerOptions, {"embeddingDevice": value})
        assert bool(pattern.match(value)) == (not problems), value


def test_the_python_setting_is_restricted_in_untrusted_workspaces() -> None:
    trust = PACKAGE["capabilities"]["untrustedWorkspaces"]
    # settings a cloned repository's .vscode/settings.json could use to run code (an
    # interpreter, a pickled model), send the code or a secret to its own endpoint (the
    # endpoint, the variable whose value is sent as the API key) or point at its own index
    for key in ("codeloupe.python", "codeloupe.model", "codeloupe.indexUri",
                "codeloupe.llmEndpoint", "codeloupe.llmApiKeyEnv"):
        assert key in trust["restrictedConfigurations"], key


def test_palette_commands_differ_from_server_commands() -> None:
    ids = {c["command"] for c in PACKAGE["contributes"]["commands"]}
    assert {"codeloupe.search", "codeloupe.ask", "codeloupe.callChain", "codeloupe.reindex",
            "codeloupe.status"} <= ids
    assert not any(i.startswith("codeloupe.server.") for i in ids)


def test_engines_and_types_agree() -> None:
    engine = PACKAGE["engines"]["vscode"].lstrip("^~>=")
    types = PACKAGE["devDependencies"]["@types/vscode"].lstrip("^~>=")
    assert types.split(".")[:2] == engine.split(".")[:2]
    assert tuple(int(p) for p in engine.split(".")[:2]) >= (1, 82)  # vscode-languageclient 9
    assert PACKAGE["dependencies"]["vscode-languageclient"].lstrip("^~").startswith("9.")


# --- with Node: unit tests, packaging, end to end -------------------------------------------


def _node_problem() -> str | None:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        return "node and npm are not on PATH"
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    major = int(re.match(r"v(\d+)", version).group(1)) if re.match(r"v(\d+)", version) else 0
    if major < 20:
        return f"Node {version} is older than 20 (@vscode/vsce needs 20+)"
    return None


def _npm(*args: str, timeout: int = 600, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(["npm", *args], cwd=EXT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})
    assert proc.returncode == 0, f"npm {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout


@pytest.fixture(scope="module")
def built(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """node_modules (npm ci when the lock file is newer) and the .vsix, packaged into a
    folder of this run's own (test runs in one checkout may overlap)."""
    problem = _node_problem()
    if problem:
        skip_saying(pytestconfig, problem)
    stamp = EXT / "node_modules" / ".package-lock.json"
    lock = EXT / "package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
        _npm("ci", "--no-audit", "--no-fund")
    vsix = tmp_path_factory.mktemp("vsix") / "codeloupe.vsix"
    _npm("exec", "--", "vsce", "package", "--out", str(vsix))
    return vsix


def test_unit_tests_pass(built: Path) -> None:
    out = _npm("run", "test:unit", env={"CODELOUPE_TEST_PYTHON": sys.executable})
    passing = re.search(r"(\d+) passing", out)
    assert passing and int(passing.group(1)) >= 30, out[-2000:]
    assert "failing" not in out


def test_vsix_is_small_and_holds_only_the_bundle(built: Path) -> None:
    with zipfile.ZipFile(built) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
    shipped = {n for n in names if n.startswith("extension/")}
    assert shipped == {
        "extension/package.json", "extension/readme.md", "extension/changelog.md",
        "extension/LICENSE.txt", "extension/dist/extension.js", "extension/dist/terminateProcess.sh",
    }
    assert built.stat().st_size < 1_000_000
    assert manifest["main"] == "./dist/extension.js"
    assert manifest["repository"]["url"]


def _e2e_problem() -> str | None:
    if os.environ.get("CODELOUPE_SKIP_VSCODE_E2E"):
        return "CODELOUPE_SKIP_VSCODE_E2E is set"
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"code-server is installed with Node 24 for linux-x64 only, not {sys.platform}/{platform.machine()}"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    cache = Path(os.environ.get("CODELOUPE_E2E_CACHE", Path.home() / ".cache" / "codeloupe-e2e"))
    installed = any(cache.glob("code-server-*/.complete"))
    if not installed and not Path("/usr/include/gssapi/gssapi.h").exists():
        return "code-server is not cached and its native modules need libkrb5-dev (apt-get install libkrb5-dev)"
    return None


def _server_offers_related_functions() -> bool:
    from codeloupe.lsp.features import hover

    return hasattr(hover, "RELATED_HEADING")


def test_end_to_end_in_code_server(built: Path, pytestconfig: pytest.Config) -> None:
    problem = _e2e_problem()
    if problem:
        skip_saying(pytestconfig, problem)
    env = {
        **os.environ,
        "CODELOUPE_PYTHON": sys.executable,
        "CODELOUPE_E2E_VSIX": str(built),
        "CODELOUPE_E2E_ARTIFACTS": str(EXT / ".e2e" / "artifacts"),
        "CODELOUPE_E2E_EXPECT_RELATED": "1" if _server_offers_related_functions() else "0",
        "CHROMIUM": CHROMIUM,
    }
    proc = subprocess.run(["node", "test/e2e/run.mjs"], cwd=EXT, capture_output=True, text=True,
                          timeout=1500, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("[e2e") and "screenshot" not in line:
            say(pytestconfig, line)
    assert proc.returncode == 0, f"{proc.stdout[-6000:]}\n{proc.stderr[-4000:]}"
    for step in ("search codebase and open a result", "call hierarchy shows the callers",
                 "hover shows callers and related functions"):
        assert f"ok   {step}" in proc.stdout
    shots = sorted(p.name for p in (EXT / ".e2e" / "artifacts").glob("*.png"))
    assert any("search-results" in s for s in shots) and any("hover" in s for s in shots), shots
