"""Robustness over large real projects: the whole pipeline, every language, no exception.

For each pinned project (fetched at run time from the package registries, sha256
checked, cached under bench/.cache/robust/; packages already installed in this venv
are copied from site-packages) it runs what a user runs, through the CLI:
``codeloupe index --no-embed``, ``graph --json``, ``search --mode fts``, ``calls`` (the
most called symbols, the widest callers and search hits), ``path``, ``ask`` with no
model configured (it prints the context it would send); then the language server over
stdio (``codeloupe serve``, embeddings off): documentSymbol, hover, definition,
references, code lens, call hierarchy (prepare, incoming, outgoing) and
workspace/symbol on a sample of files. It counts, per project, the files and symbols,
the seconds of each stage, the exceptions (a traceback on stderr, a nonzero exit, a
JSON-RPC error answer, an error the index reports for a file) and the hangs (a stage
past a generous limit), prints a table and writes bench/results/robust_corpus.json.

    .venv/bin/python bench/robust_corpus.py                    # every project (about 25 min)
    .venv/bin/python bench/robust_corpus.py --projects syn lua # some
    .venv/bin/python bench/robust_corpus.py --list

tests/test_robust_corpus.py runs a pinned subset (``CI_SUBSET``) as a slow test.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
CACHE = BENCH / ".cache" / "robust"
RESULTS = BENCH / "results" / "robust_corpus.json"
SERVER_DIR = BENCH.parent / "server"

# generous limits: a stage past one is a hang, not a slow run
INDEX_LIMIT_S = 1800.0
STAGE_LIMIT_S = 900.0
REQUEST_LIMIT_S = 300.0

# fetch types: "venv" (a package installed in this interpreter: copied, its tree hashed),
# "pypi" (sdist), "npm" (tarball), "deb" (a Debian binary package: `apt-get download`,
# `dpkg-deb -x`), "debsrc" (the upstream tarball of a Debian source package: `apt-get
# source --download-only` with deb-src lists kept in the cache). "subdir": the folder of
# the download that is indexed; "exclude": names left out of the copy.
PROJECTS: list[dict[str, Any]] = [
    {"name": "transformers", "language": "python",
     "fetch": {"type": "venv", "package": "transformers", "module": "transformers"}},
    {"name": "torch", "language": "python",
     "fetch": {"type": "venv", "package": "torch", "module": "torch"},
     "exclude": ["include", "lib", "bin", "share", "*.so", "*.so.*"]},
    {"name": "three", "language": "javascript",
     "fetch": {"type": "npm", "package": "three", "version": "0.187.0",
               "sha256": "ff540832ded0cfe919764d24a3d88f3e2a05f23303f876423e4f893841e90728"},
     "subdir": "package"},
    {"name": "webpack", "language": "javascript",
     "fetch": {"type": "npm", "package": "webpack", "version": "5.113.0",
               "sha256": "095755cb8e271b3f38615ae794264f314b1e4dd3158c5677e8700aee9ea20bb7"},
     "subdir": "package"},
    {"name": "typescript", "language": "javascript",
     "fetch": {"type": "npm", "package": "typescript", "version": "5.9.3",
               "sha256": "10e108c9cf7d5f2879053dff18515fb405abf2ccef63eaaf017d9c571687a1d3"},
     "subdir": "package/lib", "notes": "the compiler as shipped: a few very large JS files and .d.ts"},
    {"name": "effect", "language": "typescript",
     "fetch": {"type": "npm", "package": "effect", "version": "3.19.0",
               "sha256": "e2835a391529928bfcad35c500bc66cba19ceb2733deeb0ea8711cfdb14b4db1"},
     "subdir": "package/src"},
    {"name": "rxjs", "language": "typescript",
     "fetch": {"type": "npm", "package": "rxjs", "version": "7.8.2",
               "sha256": "2312f8ffd9726ffd7bd53ea12c5f13663d09a3dc3326f448c70b88f5ef6fac82"},
     "subdir": "package/src"},
    {"name": "types-node", "language": "typescript",
     "fetch": {"type": "npm", "package": "@types/node", "version": "24.10.1",
               "sha256": "554c7b285be7d92f5c7ed325f51333ebee131c4b0dc2aba22d8ad71a01f4c3e6"},
     "subdir": "node"},
    {"name": "blueprint-core", "language": "tsx",
     "fetch": {"type": "npm", "package": "@blueprintjs/core", "version": "6.20.0",
               "sha256": "780c2f73b4ade1e0fa1c3f9012ee4c69aa10a5a70a577d4f314f3519d4606d5e"},
     "subdir": "package/src"},
    {"name": "spectrum-s2", "language": "tsx",
     "fetch": {"type": "npm", "package": "@react-spectrum/s2", "version": "1.7.1",
               "sha256": "5cf58158b31937e2d34f056c2881a8f4d3c8bded3bafb55ca3727a059810d69d"},
     "subdir": "package/src"},
    {"name": "guava", "language": "java",
     "fetch": {"type": "debsrc", "package": "guava-libraries", "file": "guava-libraries_31.1.orig.tar.xz",
               "version": "31.1",
               "sha256": "3dbb56b34e5ebd1b97184f72d31fbf9da24cc26c28f1ad3714aeeefdeedaed2a"}},
    {"name": "commons-lang3", "language": "java",
     "fetch": {"type": "debsrc", "package": "libcommons-lang3-java",
               "file": "libcommons-lang3-java_3.12.0.orig.tar.xz", "version": "3.12.0",
               "sha256": "f7c22574707611b63bae19ff17f59e24cdd32e2b0e61a50ec9b1b525fbc909d1"}},
    {"name": "go-std", "language": "go",
     "fetch": {"type": "deb", "package": "golang-1.19-src", "version": "1.19.8-2",
               "sha256": "2dfa82fe4f08f4e0193c532e561af4c91871f5235608f04f2bb8d57bb288df5a"},
     "subdir": "usr/share/go-1.19/src", "exclude": ["cmd", "testdata", "vendor"],
     "notes": "the standard library without the toolchain (cmd/) and test data"},
    {"name": "x-tools", "language": "go",
     "fetch": {"type": "deb", "package": "golang-golang-x-tools-dev", "version": "1:0.5.0+ds-1",
               "sha256": "d0cf4252c020c3ee79707619f925444779070dc1307cd8af1ed99bc8eaf7b3c5"},
     "subdir": "usr/share/gocode/src/golang.org/x/tools"},
    {"name": "prometheus-client", "language": "go",
     "fetch": {"type": "deb", "package": "golang-github-prometheus-client-golang-dev", "version": "1.14.0-3",
               "sha256": "b95081bf869abc26d70ba2a1dfd9d0ac6675b6ac95c9ffa6e25971ee862e7016"},
     "subdir": "usr/share/gocode/src/github.com/prometheus/client_golang"},
    {"name": "syn", "language": "rust",
     "fetch": {"type": "deb", "package": "librust-syn-dev", "version": "1.0.107-1",
               "sha256": "64bfca244ab8ec45a4da1f5d64411af34f2d6eac7ac094f4f1dce9bf0b8a3699"},
     "subdir": "usr/share/cargo/registry/syn-1.0.107"},
    {"name": "tokio", "language": "rust",
     "fetch": {"type": "deb", "package": "librust-tokio-dev", "version": "1.24.2-1",
               "sha256": "8b6d6c9cbfcf1980136c4a1472c31053c3282bcd905b73f5201292c62fb5f873"},
     "subdir": "usr/share/cargo/registry/tokio-1.24.2"},
    {"name": "regex-syntax", "language": "rust",
     "fetch": {"type": "deb", "package": "librust-regex-syntax-dev", "version": "0.6.27-1",
               "sha256": "16c9879e07d6f9c6b2618906126d17e51ec8b04bced0fe3bb0cf0f3062f8a353"},
     "subdir": "usr/share/cargo/registry/regex-syntax-0.6.27"},
    {"name": "redis", "language": "c",
     "fetch": {"type": "debsrc", "package": "redis", "file": "redis_7.0.15.orig.tar.gz", "version": "7.0.15",
               "sha256": "4b1dc4ee6d622a09fff9c6777191209750fb5e5a725ef78ea012d6eef4c22982"}},
    {"name": "lua", "language": "c",
     "fetch": {"type": "debsrc", "package": "lua5.4", "file": "lua5.4_5.4.4.orig.tar.gz", "version": "5.4.4",
               "sha256": "164c7849653b80ae67bec4b7473b884bf5cc8d2dca05653475ec2ed27b9ebf61"}},
    {"name": "protobuf", "language": "cpp",
     "fetch": {"type": "debsrc", "package": "protobuf", "file": "protobuf_3.21.12.orig.tar.gz",
               "version": "3.21.12",
               "sha256": "930c2c3b5ecc6c9c12615cf5ad93f1cd6e12d0aba862b572e076259970ac3a53"},
     "subdir": "protobuf-3.21.12/src", "notes": "the C++ library and compiler (src/)"},
    {"name": "leveldb", "language": "cpp",
     "fetch": {"type": "debsrc", "package": "leveldb", "file": "leveldb_1.23.orig.tar.gz", "version": "1.23",
               "sha256": "9a37f8a6174f09bd622bc723b55881dc541cd50747cbd08831c2a82d620f6d76"}},
    {"name": "nlohmann-json", "language": "cpp",
     "fetch": {"type": "deb", "package": "nlohmann-json3-dev", "version": "3.11.2-2",
               "sha256": "ec57940def6b6186c30be0e0ee81d1e58f86d11a54a145b28686a1e3e4aae801"},
     "subdir": "usr/include/nlohmann"},
    {"name": "newtonsoft-json", "language": "csharp",
     "fetch": {"type": "debsrc", "package": "newtonsoft-json", "file": "newtonsoft-json_6.0.8+dfsg.orig.tar.gz",
               "version": "6.0.8",
               "sha256": "3b7c77da971bbe1c6fdbb5cbb634d106a86aa30c82647abd9b23d2f31be0c630"}},
    {"name": "nunit", "language": "csharp",
     "fetch": {"type": "debsrc", "package": "nunit", "file": "nunit_2.6.4+dfsg.orig.tar.bz2", "version": "2.6.4",
               "sha256": "daebaa04b4a4ccd2ecf120e8d6f315ef51092d06a6aa42223a12fc2cee3dd361"}},
    {"name": "ruby-stdlib", "language": "ruby",
     "fetch": {"type": "deb", "package": "libruby3.1", "version": "3.1.2-7+deb12u1",
               "sha256": "5b14a1054f39de3945321637d0ded2b20bbbf1d31108e39d69bfbabe3622f274"},
     "subdir": "usr/lib/ruby/3.1.0", "exclude": ["x86_64-linux-gnu"]},
    {"name": "activerecord", "language": "ruby",
     "fetch": {"type": "deb", "package": "ruby-activerecord", "version": "2:6.1.7.10+dfsg-1~deb12u2",
               "sha256": "c703d1c0bb4d21d39801ac000ebec56c6205301c99263141181e57a5036c77fa"},
     "subdir": "usr/share/rubygems-integration/all/gems/activerecord-6.1.7.10"},
    {"name": "activesupport", "language": "ruby",
     "fetch": {"type": "deb", "package": "ruby-activesupport", "version": "2:6.1.7.10+dfsg-1~deb12u2",
               "sha256": "f6e2a418ee9d9c8a04874b869df9e20d02daa15e27271a62b3acb8359b82078f"},
     "subdir": "usr/share/rubygems-integration/all/gems/activesupport-6.1.7.10"},
    {"name": "symfony", "language": "php",
     "fetch": {"type": "debsrc", "package": "symfony", "file": "symfony_5.4.53+dfsg.orig.tar.xz",
               "version": "5.4.53",
               "sha256": "515820883adad6d72924de6414d2f51f8a4eea5d95d836075c89abd4ae6471f1"}},
    {"name": "composer", "language": "php",
     "fetch": {"type": "deb", "package": "composer", "version": "2.5.5-1+deb12u5",
               "sha256": "02540f1cb8a6ab8e829e5a56d2920497d98d9d482217854b84e01fdfb5e08b9f"},
     "subdir": "usr/share/php/Composer"},
    {"name": "phpunit", "language": "php",
     "fetch": {"type": "deb", "package": "phpunit", "version": "9.6.7-1+deb12u1",
               "sha256": "12e89b993efa7ba7fdc2be41511c859b79996b33c37a684354ef71c445a2b2f4"},
     "subdir": "usr/share/php/PHPUnit"},
]
BY_NAME = {p["name"]: p for p in PROJECTS}
# what tests/test_robust_corpus.py runs: transformers needs no download; one small
# download of each other fetch type (Debian source, Debian binary, npm)
CI_SUBSET = ("transformers", "lua", "syn", "rxjs")

LANGUAGE_IDS = {"python": "python", "javascript": "javascript", "typescript": "typescript",
                "tsx": "typescriptreact", "java": "java", "go": "go", "rust": "rust", "c": "c",
                "cpp": "cpp", "csharp": "csharp", "ruby": "ruby", "php": "php"}
QUERY_WORDS = ("parse", "error", "read file", "write", "connect", "encode", "iterator", "cache")


class FetchError(RuntimeError):
    """A project could not be fetched (no registry, a changed pin): skipped, not failed."""


# --- fetching ------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _run(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FetchError(f"{' '.join(cmd)}: {exc}") from exc
    if proc.returncode != 0:
        raise FetchError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[-800:]}")
    return proc.stdout


def _apt_src_options(cache: Path) -> list[str]:
    """apt options for deb-src lists of our own (the system's sources as deb-src, lists
    and downloads in the cache): the machine's apt configuration is left alone."""
    base = cache / "apt"
    etc, lists = base / "sources.list.d", base / "lists"
    if not (lists / "partial").is_dir():
        (lists / "partial").mkdir(parents=True)
        etc.mkdir(parents=True, exist_ok=True)
        found = False
        for src in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
            text = src.read_text()
            if re.search(r"^Types:.*\bdeb\b", text, re.M):
                (etc / src.name).write_text(re.sub(r"^Types:.*$", "Types: deb-src", text, flags=re.M))
                found = True
        legacy = Path("/etc/apt/sources.list")
        if legacy.is_file():
            lines = [ln.replace("deb ", "deb-src ", 1) for ln in legacy.read_text().splitlines()
                     if ln.startswith("deb ")]
            if lines:
                (etc / "legacy.list").write_text("\n".join(lines) + "\n")
                found = True
        if not found:
            shutil.rmtree(base)
            raise FetchError("no apt sources to derive deb-src lists from")
    opts = ["-o", "Dir::Etc::SourceList=/dev/null", "-o", f"Dir::Etc::SourceParts={etc}",
            "-o", f"Dir::State::Lists={lists}", "-o", f"Dir::Cache={base / 'cache'}"]
    stamp = base / "updated"
    if not stamp.exists():
        _run(["apt-get", "-q", *opts, "update"])
        stamp.write_text(time.strftime("%Y-%m-%d %H:%M:%S"))
    return opts


def _download(fetch: dict, downloads: Path, cache: Path, check: bool = True) -> Path:
    """The pinned archive, from the cache or its registry; its sha256 is checked (not with
    ``check=False``: to pin a new project, eval_callgraph.py --pin)."""
    downloads.mkdir(parents=True, exist_ok=True)
    kind, package, version = fetch["type"], fetch["package"], fetch.get("version", "")
    if kind == "pypi":
        archive = downloads / f"{package}-{version}.tar.gz"
        if not archive.exists():
            with tempfile.TemporaryDirectory(dir=downloads) as tmp:
                _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                      f"{package}=={version}", "-d", tmp])
                got = list(Path(tmp).glob("*.tar.gz"))
                if len(got) != 1:
                    raise FetchError(f"pip download of {package}=={version} gave {got}")
                shutil.move(str(got[0]), archive)
    elif kind == "npm":
        archive = downloads / f"{package.lstrip('@').replace('/', '-')}-{version}.tgz"
        if not archive.exists():
            npm = shutil.which("npm")
            if npm is None:
                raise FetchError("npm is needed to fetch npm packages")
            with tempfile.TemporaryDirectory(dir=downloads) as tmp:
                _run([npm, "pack", f"{package}@{version}", "--silent"], cwd=Path(tmp))
                got = list(Path(tmp).glob("*.tgz"))
                if len(got) != 1:
                    raise FetchError(f"npm pack {package}@{version} gave {got}")
                shutil.move(str(got[0]), archive)
    elif kind == "deb":
        archive = downloads / f"{package}_{version.replace(':', '%3a')}.deb"
        if not archive.exists():
            if shutil.which("apt-get") is None:
                raise FetchError("apt-get is needed to fetch Debian packages")
            with tempfile.TemporaryDirectory(dir=downloads) as tmp:
                os.chmod(tmp, 0o777)  # apt's download user writes there
                _run(["apt-get", "download", "-q", f"{package}={version}"], cwd=Path(tmp))
                got = list(Path(tmp).glob("*.deb"))
                if len(got) != 1:
                    raise FetchError(f"apt-get download {package}={version} gave {got}")
                shutil.move(str(got[0]), archive)
    elif kind == "debsrc":
        archive = downloads / fetch["file"]
        if not archive.exists():
            if shutil.which("apt-get") is None:
                raise FetchError("apt-get is needed to fetch Debian sources")
            opts = _apt_src_options(cache)
            with tempfile.TemporaryDirectory(dir=downloads) as tmp:
                os.chmod(tmp, 0o777)
                try:  # a Debian part of the source may be gone; the upstream tarball is enough
                    _run(["apt-get", "-q", *opts, "source", "--download-only", package], cwd=Path(tmp))
                except FetchError as exc:
                    if not (Path(tmp) / fetch["file"]).exists():
                        raise FetchError(f"{fetch['file']} not offered: {exc}") from exc
                got = Path(tmp) / fetch["file"]
                if not got.exists():
                    offered = sorted(p.name for p in Path(tmp).iterdir())
                    raise FetchError(f"{fetch['file']} is no longer offered (got {offered})")
                shutil.move(str(got), archive)
    else:
        raise FetchError(f"unknown fetch type {kind!r}")
    digest = _sha256(archive)
    if check and digest != fetch["sha256"]:
        raise FetchError(f"{archive.name}: sha256 {digest} is not the pinned {fetch['sha256']}")
    return archive


def _unpack(archive: Path, dest: Path) -> None:
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if archive.suffix == ".deb":
        _run(["dpkg-deb", "-x", str(archive), str(tmp)])
    else:
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + _sha256(p).encode() + b"\n")
    return h.hexdigest()


@dataclass
class Prepared:
    root: Path
    version: str
    sha256: str
    source: str  # where it came from, in words


def prepare(project: dict, cache: Path = CACHE, roots: Path | None = None) -> Prepared:
    """A fresh copy of the project to index, under ``roots`` (default ``cache/roots/``: a
    cold index each run)."""
    fetch = project["fetch"]
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".codeloupe", *project.get("exclude", []))
    root = (roots or cache / "roots") / project["name"]
    shutil.rmtree(root, ignore_errors=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    if fetch["type"] == "venv":
        spec = importlib.util.find_spec(fetch["module"])
        if spec is None or not spec.submodule_search_locations:
            raise FetchError(f"{fetch['module']} is not installed in {sys.prefix}")
        folder = Path(next(iter(spec.submodule_search_locations)))
        version = importlib.metadata.version(fetch["package"])
        shutil.copytree(folder, root / folder.name, ignore=ignore, symlinks=True)
        return Prepared(root, version, _tree_digest(root), f"site-packages of {sys.prefix}")
    archive = _download(fetch, cache / "downloads", cache)
    unpacked = cache / "src" / archive.name
    if not unpacked.is_dir():
        _unpack(archive, unpacked)
    source = unpacked / project.get("subdir", "")
    if not source.is_dir():
        raise FetchError(f"{project['name']}: no {project.get('subdir')} in {archive.name}")
    shutil.copytree(source, root / (source.name if project.get("subdir") else project["name"]),
                    ignore=ignore, symlinks=True)
    return Prepared(root, fetch.get("version", ""), fetch["sha256"], f"{fetch['type']} {fetch['package']}")


def count_lines(root: Path) -> tuple[int, dict[str, int]]:
    """Lines of the files in a language codeloupe reads, in all and by language."""
    sys.path.insert(0, str(SERVER_DIR))
    from codeloupe.languages import language_for_path

    by_lang: dict[str, int] = {}
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink() and ".codeloupe" not in p.parts:
            lang = language_for_path(p.name)
            if lang is not None:
                with p.open("rb") as fh:
                    by_lang[lang] = by_lang.get(lang, 0) + sum(b.count(b"\n") for b in iter(
                        lambda: fh.read(1 << 20), b""))
    return sum(by_lang.values()), by_lang


# --- running the pipeline --------------------------------------------------------------


@dataclass
class Problem:
    stage: str
    kind: str  # "exception", "hang", "error" (a file the index reports it could not read)
    detail: str


@dataclass
class Report:
    name: str
    language: str
    version: str = ""
    sha256: str = ""
    lines: int = 0
    files: int = 0
    symbols: int = 0
    sites: int = 0
    requests: int = 0  # answered by the language server
    seconds: dict[str, float] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    skipped: str = ""  # why the project did not run (a download that failed)

    @property
    def exceptions(self) -> int:
        return sum(1 for p in self.problems if p.kind == "exception")

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.kind == "error")

    @property
    def hangs(self) -> int:
        return sum(1 for p in self.problems if p.kind == "hang")

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "language": self.language, "version": self.version,
                "sha256": self.sha256, "lines": self.lines, "files": self.files,
                "symbols": self.symbols, "sites": self.sites, "requests": self.requests,
                "seconds": self.seconds,
                "exceptions": self.exceptions, "hangs": self.hangs, "index_errors": self.errors,
                "skipped": self.skipped,
                "problems": [vars(p) for p in self.problems]}


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               PYTHONFAULTHANDLER="1")
    for var in ("CODELOUPE_INDEX_URI", "CODELOUPE_LLM_URL", "CODELOUPE_LLM_MODEL", "CODELOUPE_MODEL",
                "CODELOUPE_EMBEDDING_BACKEND"):
        env.pop(var, None)  # the defaults, and no language model: ask prints its context
    return env


_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|Fatal Python error|Segmentation fault")


def _excerpt(text: str, n: int = 1500) -> str:
    m = _TRACEBACK.search(text)
    return (text[m.start():m.start() + n] if m else text[-n:]).strip()


class Runner:
    """Runs the CLI on one project's root, recording seconds and problems."""

    def __init__(self, report: Report, root: Path) -> None:
        self.report = report
        self.root = root

    def cli(self, stage: str, args: list[str], limit: float = STAGE_LIMIT_S, stdin: str | None = None,
            ok_codes: tuple[int, ...] = (0,)) -> str | None:
        """``codeloupe ARGS``; its stdout, or None when it failed (recorded)."""
        cmd = [sys.executable, "-m", "codeloupe", *args]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=limit,
                                  env=cli_env(), cwd=self.root)
        except subprocess.TimeoutExpired as exc:
            self.report.seconds[stage] = self.report.seconds.get(stage, 0.0) + time.perf_counter() - t0
            err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
            self.report.problems.append(Problem(stage, "hang", f"{' '.join(args)}: past {limit:.0f}s; "
                                                + _excerpt(err, 400)))
            return None
        self.report.seconds[stage] = self.report.seconds.get(stage, 0.0) + time.perf_counter() - t0
        if proc.returncode not in ok_codes or _TRACEBACK.search(proc.stderr):
            self.report.problems.append(Problem(stage, "exception", f"{' '.join(args)} (exit {proc.returncode}): "
                                                + _excerpt(proc.stderr)))
            return None
        return proc.stdout

    def problem(self, stage: str, kind: str, detail: str) -> None:
        self.report.problems.append(Problem(stage, kind, detail))


def _json_lines(text: str | None) -> list[dict]:
    out = []
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def _target(sym: dict) -> str:
    return f"{sym['path']}:{sym['start_line']}"


def run_cli(run: Runner, samples: int, rng: random.Random, queries: int = 6, paths: int = 5
            ) -> tuple[list[dict], list[dict]]:
    """The CLI stages; (symbols to look at in the server, their files' search hits)."""
    root = str(run.root)
    out = run.cli("index", ["index", "--no-embed", "--json", "-q", root], limit=INDEX_LIMIT_S)
    if out is not None:
        report = json.loads(out)
        run.report.files = report.get("files", 0)
        run.report.symbols = report.get("symbols", 0)
        failed = report.get("skipped", {}).get("extraction failed", 0)
        if failed:  # a grammar or query bug, caught per file by the index
            run.problem("index", "exception", f"{failed} files: extraction failed")
        for err in report.get("errors", []):  # unreadable files and the extraction failures
            run.problem("index", "error", f"the index reports: {err}")
    common = ["--root", root, "--no-update", "-q"]
    out = run.cli("graph", ["graph", "--json", "--top", "10", *common])
    graph = json.loads(out) if out else {}
    if out is not None and "edges" not in graph:
        run.problem("graph", "exception", f"graph --json printed no edge count: {out[:300]}")
    run.report.sites = graph.get("sites", 0)
    hubs = graph.get("most_called", [])[:5]
    wide = graph.get("widest_callers", [])[:5]
    hits: list[dict] = []
    words = [*(h["qualified_name"].rsplit(".", 1)[-1] for h in hubs[:3]), *rng.sample(QUERY_WORDS, 3)]
    for q in words[:queries]:
        out = run.cli("search", ["search", "--mode", "fts", "--json", "-k", "10", *common, q])
        if out:
            hits.extend(json.loads(out).get("results", []))
    sample = hubs + wide + rng.sample(hits, min(len(hits), samples))
    targets = list(dict.fromkeys(_target(s) for s in sample))
    if targets:
        run.cli("calls", ["calls", "--both", "--json", "--depth", "2", *common, "-"], stdin="\n".join(targets))
        run.cli("calls", ["calls", "--json", "--min-confidence", "0", *common, *targets[:3]])
    pairs = [(w, h) for w in wide[:2] for h in hubs[:2]]
    if hits:
        pairs.append((rng.choice(hits), hubs[0] if hubs else rng.choice(hits)))
    for a, b in pairs[-paths:]:
        run.cli("path", ["path", "--json", *common, _target(a), _target(b)])
    topic = hubs[0]["qualified_name"] if hubs else "the main entry point"
    out = run.cli("ask", ["ask", "--root", root, "--no-update", "-q", f"how does {topic} work and what calls it?"])
    if out is not None and not out.strip():
        run.problem("ask", "exception", "ask printed nothing")
    return sample, hits


# --- the language server ------------------------------------------------------------------


class LspClient:
    """A small JSON-RPC client of ``codeloupe serve`` over stdio."""

    def __init__(self, root: Path, stderr: Path) -> None:
        self._err = stderr.open("wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "codeloupe", "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._err, cwd=root, env=cli_env())
        self._id = 0
        self._lock = threading.Lock()
        self._waiting: dict[int, queue.Queue] = {}
        self.log: list[dict] = []  # window/logMessage and showMessage of type error or warning
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
        with self._lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    for q in self._waiting.values():
                        q.put({"error": {"code": None, "message": "the server closed its output"}})
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            msg = json.loads(out.read(length or 0))
            if "method" in msg and "id" in msg:  # a request of the server: answer as an editor would
                result: Any = None
                if msg["method"] == "workspace/configuration":
                    result = [None] * len(msg.get("params", {}).get("items", []))
                try:
                    self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                except OSError:
                    return
            elif "method" in msg:
                if msg["method"] in ("window/logMessage", "window/showMessage") and \
                        msg.get("params", {}).get("type") in (1, 2):
                    self.log.append(msg["params"])
            elif msg.get("id") in self._waiting:
                self._waiting[msg["id"]].put(msg)

    def request(self, method: str, params: Any, limit: float = REQUEST_LIMIT_S) -> dict:
        """The answer message (``result`` or ``error``); TimeoutError past ``limit``."""
        with self._lock:
            self._id += 1
            rid = self._id
        q: queue.Queue = queue.Queue()
        self._waiting[rid] = q
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            return q.get(timeout=limit)
        except queue.Empty:
            raise TimeoutError(f"{method}: no answer after {limit:.0f}s") from None
        finally:
            self._waiting.pop(rid, None)

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self, limit: float = 60.0) -> int | None:
        try:
            self.request("shutdown", None, limit)
            self.notify("exit", None)
            return self.proc.wait(limit)
        except (TimeoutError, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
            return None
        finally:
            self._err.close()


# a server that answers this many requests with an error is broken: the rest of its
# requests are not sent (each would rebuild what failed)
MAX_LSP_ERRORS = 10


class _Broken(Exception):
    pass


def _flatten(symbols: list[dict]) -> list[dict]:
    out = []
    for s in symbols or []:
        out.append(s)
        out.extend(_flatten(s.get("children") or []))
    return out


def run_lsp(run: Runner, files: list[str], per_file: int, rng: random.Random, scratch: Path) -> None:
    stage = "lsp"
    root = run.root.resolve()
    stderr = scratch / f"{run.report.name}-serve.stderr"
    t0 = time.perf_counter()
    client = LspClient(root, stderr)
    errors: list[str] = []

    def ask(method: str, params: Any, limit: float = REQUEST_LIMIT_S) -> Any:
        if len(errors) >= MAX_LSP_ERRORS:
            raise _Broken()
        answer = client.request(method, params, limit)
        run.report.requests += 1
        if "error" in answer:
            err = answer["error"]
            frames = (err.get("data") or {}).get("traceback") or [] if isinstance(err, dict) else []
            where = "".join(frames[-2:]).strip()  # pygls sends the traceback: its last frames
            errors.append(f"{method} {json.dumps(params)[:200]}: {err.get('code')} {err.get('message')}"
                          + (f"\n{where}" if where else ""))
            return None
        return answer.get("result")

    try:
        caps = {"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                                 "hover": {"contentFormat": ["markdown", "plaintext"]},
                                 "callHierarchy": {}, "codeLens": {}, "definition": {}, "references": {}},
                "workspace": {"workspaceFolders": True, "symbol": {}, "codeLens": {"refreshSupport": True}},
                "window": {"workDoneProgress": True}}
        ask("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": caps,
                           "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                           "initializationOptions": {"embeddings": False}}, INDEX_LIMIT_S)
        client.notify("initialized", {})
        deadline = time.monotonic() + INDEX_LIMIT_S
        while True:  # until the first index run is done (a state the server reports)
            st = ask("workspace/executeCommand", {"command": "codeloupe.server.status", "arguments": [{}]})
            if st is None or st.get("state") in ("ready", "failed"):
                if st is not None and st.get("state") == "failed":
                    errors.append(f"indexing failed: {json.dumps(st)[:500]}")
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"not ready after {INDEX_LIMIT_S:.0f}s")
            time.sleep(0.2)
        for rel in files:
            path = root / rel
            uri = path.as_uri()
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            sys.path.insert(0, str(SERVER_DIR))
            from codeloupe.languages import language_for_path
            lang = LANGUAGE_IDS.get(language_for_path(rel) or "", "plaintext")
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": lang,
                                                                     "version": 1, "text": text}})
            doc = {"textDocument": {"uri": uri}}
            symbols = _flatten(ask("textDocument/documentSymbol", doc) or [])
            ask("textDocument/codeLens", doc)
            picked = rng.sample(symbols, min(len(symbols), per_file))
            for s in picked:
                pos = {**doc, "position": s.get("selectionRange", s.get("range", {})).get("start")}
                ask("textDocument/hover", pos)
            for s in picked[: max(1, per_file // 2)]:
                pos = {**doc, "position": s.get("selectionRange", s.get("range", {})).get("start")}
                ask("textDocument/definition", pos)
                ask("textDocument/references", {**pos, "context": {"includeDeclaration": True}})
                items = ask("textDocument/prepareCallHierarchy", pos) or []
                for item in items[:1]:
                    ask("callHierarchy/incomingCalls", {"item": item})
                    ask("callHierarchy/outgoingCalls", {"item": item})
            if symbols:
                ask("workspace/symbol", {"query": rng.choice(symbols)["name"][:12]})
            client.notify("textDocument/didClose", doc)
    except TimeoutError as exc:
        run.problem(stage, "hang", str(exc))
    except _Broken:
        errors.append(f"stopped after {MAX_LSP_ERRORS} errors")
    finally:
        code = client.close()
        run.report.seconds[stage] = time.perf_counter() - t0
    for e in errors:
        run.problem(stage, "exception", f"JSON-RPC error: {e}")
    for m in client.log:
        if _TRACEBACK.search(m.get("message", "")) or m.get("type") == 1:
            run.problem(stage, "exception", f"server message: {m.get('message', '')[:1500]}")
    err = stderr.read_text(errors="replace") if stderr.exists() else ""
    if _TRACEBACK.search(err):
        run.problem(stage, "exception", "server stderr: " + _excerpt(err))
    if code not in (0, None):
        run.problem(stage, "exception", f"the server exited with {code}: {_excerpt(err, 500)}")
    elif code is None and not any(p.stage == stage and p.kind == "hang" for p in run.report.problems):
        run.problem(stage, "hang", "the server did not exit after shutdown and exit")


def run_project(project: dict, cache: Path = CACHE, samples: int = 12, lsp_files: int = 8,
                per_file: int = 6, seed: int = 11, queries: int = 6, paths: int = 5,
                roots: Path | None = None) -> Report:
    """The whole pipeline on one project; a download that fails gives ``skipped``."""
    report = Report(project["name"], project["language"])
    try:
        t0 = time.perf_counter()
        prepared = prepare(project, cache, roots)
        report.seconds["fetch"] = time.perf_counter() - t0
    except FetchError as exc:
        report.skipped = str(exc)
        return report
    report.version, report.sha256 = prepared.version, prepared.sha256
    report.lines, _ = count_lines(prepared.root)
    rng = random.Random(zlib.crc32(f"{seed}:{project['name']}".encode()))
    run = Runner(report, prepared.root)
    sample, hits = run_cli(run, samples, rng, queries, paths)
    files = list(dict.fromkeys(s["path"] for s in sample))
    rng.shuffle(files)
    scratch = prepared.root.parent / "logs"
    scratch.mkdir(parents=True, exist_ok=True)
    run_lsp(run, files[:lsp_files], per_file, rng, scratch)
    return report


# --- the table ----------------------------------------------------------------------------

STAGES = ("index", "graph", "search", "calls", "path", "ask", "lsp")


def table(reports: list[Report]) -> str:
    head = ["project", "language", "version", "lines", "files", "symbols", "call sites",
            *(f"{s} s" for s in STAGES), "LSP requests", "exceptions", "hangs",
            "index errors"]
    rows = [head, ["---"] * len(head)]
    for r in reports:
        if r.skipped:
            rows.append([r.name, r.language, "skipped: " + r.skipped[:80], *[""] * (len(head) - 3)])
            continue
        rows.append([r.name, r.language, r.version, f"{r.lines:,}", f"{r.files:,}", f"{r.symbols:,}",
                     f"{r.sites:,}", *(f"{r.seconds.get(s, 0):.1f}" for s in STAGES), str(r.requests),
                     str(r.exceptions), str(r.hangs), str(r.errors)])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--projects", nargs="*", help="names (default: all; --list shows them)")
    ap.add_argument("--languages", nargs="*", help="only projects of these languages")
    ap.add_argument("--list", action="store_true", help="list the projects and exit")
    ap.add_argument("--samples", type=int, default=12, help="search hits sampled for calls and the server")
    ap.add_argument("--lsp-files", type=int, default=8, help="files opened in the server")
    ap.add_argument("--per-file", type=int, default=6, help="symbols hovered per file")
    ap.add_argument("--cache-dir", default=str(CACHE))
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    if args.list:
        for p in PROJECTS:
            f = p["fetch"]
            print(f"{p['name']:18s} {p['language']:11s} {f['type']:7s} {f['package']} {f.get('version', '')}")
        return 0
    chosen = [BY_NAME[n] for n in args.projects] if args.projects else list(PROJECTS)
    if args.languages:
        chosen = [p for p in chosen if p["language"] in args.languages]
    reports = []
    for p in chosen:
        t0 = time.perf_counter()
        r = run_project(p, Path(args.cache_dir), args.samples, args.lsp_files, args.per_file)
        reports.append(r)
        state = f"skipped ({r.skipped})" if r.skipped else \
            f"{r.exceptions} exceptions, {r.hangs} hangs, {r.errors} index errors"
        print(f"{p['name']}: {state} ({time.perf_counter() - t0:.0f}s)", file=sys.stderr, flush=True)
        for prob in r.problems:
            print(f"  [{prob.stage}] {prob.kind}: {prob.detail[:3000]}", file=sys.stderr, flush=True)
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps([x.as_dict() for x in reports], indent=1))
    print(table(reports))
    return 1 if any(r.exceptions or r.hangs for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
