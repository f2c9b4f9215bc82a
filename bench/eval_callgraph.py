"""Call hierarchy at scale: callers and callees of sampled functions on real projects the
graph was never tuned on, against a type-aware reference and name matching (issue 13).

    python bench/eval_callgraph.py --list                   # the projects and their split
    python bench/eval_callgraph.py --pin NAME ...           # fetch, compute sha256 and lines
    python bench/eval_callgraph.py --projects toolz qs      # run; candidates, truth, scores
    python bench/eval_callgraph.py --split dev              # every dev project
    python bench/eval_callgraph.py --report                 # scores from the files, no run

Projects are bench/eval/callgraph_projects.json, fetched at run time by robust_corpus's
code (``prepare``: npm pack, the PyPI sdist, apt-get download + dpkg-deb -x, apt-get source
--download-only; sha256-checked) into bench/.cache/callgraph/. Each is extracted and
resolved with the engine as eval_graph.py does; a seeded sample of functions and methods,
stratified by file, is taken; for each sampled symbol S the systems give pairs
``(path, line, target)`` (1-based line of the call):

- callers of S: pairs whose target is S;
- callees of S: pairs whose call line lies in S's body (S is the innermost symbol there).

Systems: ``codeloupe_default`` (edges with confidence >= DEFAULT_MIN_CONFIDENCE, what the
call hierarchy shows unmarked), ``codeloupe_view`` (those and the name matches the view
offers beside them, marked "by name, N candidates": every item the call hierarchy lists),
``codeloupe_all_edges`` (every edge), ``name_matching`` (every call
site whose called name is S's name: the candidate set) and the reference language server
of the language over stdio (prepareCallHierarchy, incomingCalls, outgoingCalls):
pyright, typescript-language-server (tsserver), gopls, clangd, intelephense. A reference
that is not installed is skipped with its reason (``--tools`` installs the npm ones under
bench/.cache/tools).

Outputs, for the dev split: bench/eval/callgraph_candidates/<project>.json (every system's
pairs) and bench/eval/callgraph_truth/<project>.json: the union of the pairs, each with the
code line and the systems that report it; ``status`` is "agreed" where every system that
ran reports it, "to adjudicate" where they disagree, and "true"/"false" once read by hand
(with ``reason``). A rerun keeps every decision. Scores: against the truth where a project
has nothing left to adjudicate; else against the decided pairs only (labelled
"partial truth") and, labelled apart, against the reference alone. Held-out projects (splits
``heldout``, ``heldout2``) write their candidates under bench/.cache/callgraph/<split>/ and
their truth gzipped under bench/eval/callgraph_<split>/ (committed, so a new checkout keeps
the reading), and print counts only: nobody tuning the graph looks at them
(``--score-heldout`` is for the final measurement, never while tuning; its scores go to
bench/results/eval_callgraph_<split>.json). ``heldout`` and ``heldout2`` were scored on
2026-12-06 and are tuned on since (dev splits now); ``heldout3`` is the split nobody has
tuned on.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "server"))

from codeloupe.extract import extract  # noqa: E402
from codeloupe.graph import DEFAULT_MIN_CONFIDENCE, Graph, SymbolInfo  # noqa: E402
from codeloupe.graph.model import CLASS_KINDS  # noqa: E402
from codeloupe.languages import rules  # noqa: E402
from eval_graph import codeloupe_pairs, name_pairs, score  # noqa: E402
from eval_search import list_files  # noqa: E402
from robust_corpus import FetchError, _download, _sha256, count_lines, prepare  # noqa: E402

SPEC = HERE / "eval" / "callgraph_projects.json"
CACHE = HERE / ".cache" / "callgraph"
TOOLS = HERE / ".cache" / "tools"
CANDIDATES = HERE / "eval" / "callgraph_candidates"
TRUTH = HERE / "eval" / "callgraph_truth"
# Held-out splits: ``heldout`` (the first, read 2026-12-01/02, scored once on 2026-12-06 and
# since then tuned on like dev: spent), ``heldout2`` (made and scored once on 2026-12-06,
# then its misses examined: spent too) and ``heldout3`` (made 2026-12-06, never tuned on).
# A split's candidates: under CACHE / <split>, rebuilt by a run, never committed.
HELDOUT_SPLITS = ("heldout", "heldout2", "heldout3")
# Held-out truth: committed (a new checkout must not lose hours of reading), gzipped so that
# nobody tuning the graph meets a held-out pair in a grep; read only by --decide, --open and
# --score-heldout. bench/eval/callgraph_<split>/<project>.json.gz
HELDOUT_TRUTH = HERE / "eval" / "callgraph_heldout"
RESULTS = HERE / "results" / "eval_callgraph.json"  # dev; a held-out split's: eval_callgraph_<split>.json
NODE_BIN = TOOLS / "node" / "node_modules" / ".bin"
NPM_TOOLS = ("pyright@1.1.389", "typescript@5.6.3", "typescript-language-server@4.3.3", "intelephense@1.12.6")
SAMPLE = 40  # symbols per project
REQUEST_LIMIT_S = 90.0
MAX_TIMEOUTS = 3  # a reference past this many timeouts is broken: its other requests are not sent

Pair = tuple[str, int, str]  # (site path, 1-based site line, target symbol id)
# codeloupe_view: the default view and the name matches it offers beside, marked (what the
# call hierarchy lists); not a system of the truth (its pairs are every edge's already)
SYSTEMS = ("codeloupe_default", "codeloupe_view", "codeloupe_all_edges", "name_matching", "reference")
TRUTH_SYSTEMS = ("codeloupe_default", "codeloupe_all_edges", "name_matching", "reference")


def load_spec() -> dict[str, Any]:
    """The project list (bench/eval/callgraph_projects.json)."""
    return json.loads(SPEC.read_text())


# --- fetching and building ----------------------------------------------------------------


def pin(project: dict[str, Any]) -> None:
    """Fetch a project without checking its pin, then record its sha256 and its lines."""
    archive = _download(project["fetch"], CACHE / "downloads", CACHE, check=False)
    project["fetch"]["sha256"] = _sha256(archive)
    root = project_root(project)
    lines, by_lang = count_lines(root)
    project["lines"] = lines
    project["lines_by_language"] = by_lang


def project_root(project: dict[str, Any]) -> Path:
    """A fresh copy of the project (robust_corpus.prepare); the folder analysed."""
    prepared = prepare(project, CACHE, CACHE / "roots")
    kids = [p for p in prepared.root.iterdir() if p.is_dir()]
    return kids[0] if len(kids) == 1 else prepared.root


def build_graph(root: Path) -> Graph:
    """The engine's symbols and references of every file, resolved (as the index does)."""
    symbols: list[SymbolInfo] = []
    refs: list[dict] = []
    for rel, language in list_files(root):
        ex = extract(rel, (root / rel).read_bytes(), language)
        symbols += [SymbolInfo(s.id, s.path, s.name, s.qualified_name, s.kind, s.parent, s.start_line,
                               s.end_line, s.language) for s in ex.symbols]
        refs += [{f: getattr(r, f) for f in r.__slots__} for r in ex.references]
    return Graph(symbols, refs)


def _key(seed: str, text: str) -> str:
    return hashlib.blake2b(f"{seed}:{text}".encode(), digest_size=8).hexdigest()


def sample(graph: Graph, project: str, size: int, seed: int = 13) -> list[str]:
    """Functions and methods whose name is called somewhere (name matching's reach),
    stratified by file: files in a seeded hash order, one symbol of each file a round
    (the file's symbols in hash order too) until ``size``. Picked by no system's output."""
    called = {site.name for sites in graph.sites.values() for site in sites}
    by_file: dict[str, list[SymbolInfo]] = {}
    for s in graph.symbols.values():
        if s.kind in ("function", "method") and s.name in called and s.name != "constructor" \
                and not (s.name.startswith("__") and s.name.endswith("__")):
            by_file.setdefault(s.path, []).append(s)
    tag = f"{seed}:{project}"
    queues = [sorted(v, key=lambda s: _key(tag, s.id)) for _, v in sorted(by_file.items(),
                                                                          key=lambda kv: _key(tag, kv[0]))]
    out: list[str] = []
    while len(out) < size and any(queues):
        for q in queues:
            if q and len(out) < size:
                out.append(q.pop(0).id)
    return sorted(out)


class Innermost:
    """The innermost non-module symbol around a line (remembered per file)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.memo: dict[tuple[str, int], str] = {}

    def __call__(self, path: str, line: int) -> str:
        key = (path, line)
        if key not in self.memo:
            best: SymbolInfo | None = None
            for i in self.graph.file_symbols.get(path, ()):
                s = self.graph.symbols[i]
                if s.kind != "module" and s.start_line <= line <= s.end_line and (
                        best is None or s.start_line >= best.start_line):
                    best = s
            self.memo[key] = best.id if best else ""
        return self.memo[key]


def split_pairs(pairs: set[Pair], symbols: list[str], inner: Innermost) -> tuple[set[Pair], set[Pair]]:
    """(calls of the sampled symbols, calls made in their bodies)."""
    targets = set(symbols)
    return ({p for p in pairs if p[2] in targets}, {p for p in pairs if inner(p[0], p[1]) in targets})


# --- reference language servers over stdio ---------------------------------------------------


class ToolMissing(RuntimeError):
    """A reference server that is not installed here (the reason in words)."""


def reference_for(language: str) -> str | None:
    """The name of the reference server of a language, or None where none exists here."""
    return {"python": "pyright", "javascript": "tsserver", "typescript": "tsserver", "tsx": "tsserver",
            "go": "gopls", "c": "clangd", "cpp": "clangd", "php": "intelephense"}.get(language)


NO_REFERENCE = {
    "java": "no Java language server installs here (jdtls is not packaged in Debian bookworm and "
            "its downloads are outside the registries)",
    "csharp": "no C# language server installs here (csharp-ls and OmniSharp come from NuGet or "
              "GitHub releases, not reachable; not in Debian)",
    "ruby": "no Ruby language server installs here (solargraph and ruby-lsp are gems from "
            "rubygems.org, not reachable; not in Debian bookworm)",
    "rust": "rust-analyzer is not in Debian bookworm and cannot be fetched",
}


def _go_module(root: Path, project: dict[str, Any]) -> None:
    if not (root / "go.mod").exists():
        sub = project.get("subdir", "")
        module = sub.split("gocode/src/", 1)[1] if "gocode/src/" in sub else root.name
        (root / "go.mod").write_text(f"module {module}\n\ngo 1.19\n")


def _clang_db(root: Path, language: str) -> None:
    """compile_commands.json: every C/C++ file with every folder holding headers on -I."""
    exts = (".c",) if language == "c" else (".cc", ".cpp", ".cxx", ".c")
    incs = sorted({p.parent for p in root.rglob("*") if p.suffix in (".h", ".hpp", ".hh", ".hxx")})
    flags = [f"-I{d}" for d in incs]
    std = "-std=c11" if language == "c" else "-std=c++17"
    cc = "clang" if language == "c" else "clang++"
    db = [{"directory": str(root), "file": str(p), "arguments": [cc, std, *flags, "-c", str(p)]}
          for p in sorted(root.rglob("*")) if p.suffix in exts and p.is_file()]
    (root / "compile_commands.json").write_text(json.dumps(db))


def server_command(tool: str, root: Path, project: dict[str, Any]) -> tuple[list[str], dict[str, str], dict]:
    """(argv, environment, initializationOptions) of a reference; writes the config it
    needs into the copy of the project (never into the cache of sources)."""
    env = dict(os.environ)
    opts: dict = {}
    language = project["language"]
    if tool == "pyright":
        exe = NODE_BIN / "pyright-langserver"
        # a src layout: tests import the package from src/ (as an installed package would be)
        extra = sorted(str(d.relative_to(root)) for d in [*root.glob("src"), *root.glob("*/src")] if d.is_dir())
        (root / "pyrightconfig.json").write_text(json.dumps(
            {"include": ["."], "extraPaths": extra, "typeCheckingMode": "off"}))
        argv = [str(exe), "--stdio"]
    elif tool == "tsserver":
        exe = NODE_BIN / "typescript-language-server"
        name = "jsconfig.json" if language == "javascript" else "tsconfig.json"
        if not (root / "tsconfig.json").exists() and not (root / "jsconfig.json").exists():
            (root / name).write_text(json.dumps({"compilerOptions": {
                "allowJs": True, "checkJs": False, "noEmit": True, "target": "es2022", "module": "commonjs",
                "moduleResolution": "node", "jsx": "react-jsx", "skipLibCheck": True, "maxNodeModuleJsDepth": 0},
                "include": ["**/*"]}))
        argv = [str(exe), "--stdio"]
        opts = {"tsserver": {"path": str(TOOLS / "node" / "node_modules" / "typescript" / "lib")}}
    elif tool == "gopls":
        exe = Path(shutil.which("gopls") or "/nonexistent/gopls")
        _go_module(root, project)
        env.update({"GOPROXY": "off", "GOFLAGS": "-mod=mod", "GO111MODULE": "on", "GOTOOLCHAIN": "local",
                    "GOPATH": str(CACHE / "gopath"), "GOCACHE": str(CACHE / "gocache")})
        argv = [str(exe)]
    elif tool == "clangd":
        exe = Path(shutil.which("clangd") or "/nonexistent/clangd")
        _clang_db(root, language)
        argv = [str(exe), "--background-index", "--log=error", f"--compile-commands-dir={root}", "-j=1"]
    elif tool == "intelephense":
        exe = NODE_BIN / "intelephense"
        argv = [str(exe), "--stdio"]
        opts = {"storagePath": str(CACHE / "intelephense"), "globalStoragePath": str(CACHE / "intelephense")}
    else:
        raise ToolMissing(f"unknown reference {tool}")
    if not exe.exists():
        hint = "apt-get install -y gopls golang-go" if tool == "gopls" else \
            "apt-get install -y clangd" if tool == "clangd" else "python bench/eval_callgraph.py --tools"
        raise ToolMissing(f"{tool} is not installed ({exe}); {hint}")
    return ["nice", "-n", "19", *argv], env, opts


UNSUPPORTED = object()  # what Lsp.request answers for a method the server does not have
LANGUAGE_IDS = {"python": "python", "javascript": "javascript", "typescript": "typescript",
                "tsx": "typescriptreact", "go": "go", "c": "c", "cpp": "cpp", "php": "php"}


class Lsp:
    """A small JSON-RPC client of a language server over stdio: requests wait on their
    answer; the server's own requests get the answer an editor without settings gives."""

    def __init__(self, argv: list[str], root: Path, env: dict[str, str], init_options: dict) -> None:
        self.root = root.resolve()
        self._err = (self.root.parent / "reference.stderr").open("wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
                                     cwd=self.root, env=env)
        self._id = 0
        self._lock = threading.Lock()
        self._waiting: dict[int, queue.Queue] = {}
        self.opened: set[str] = set()
        threading.Thread(target=self._read, daemon=True).start()
        uri = self.root.as_uri()
        # no workspace/window capabilities: pyright 1.1.389 given workspace.configuration and
        # window.workDoneProgress answers nothing after initialize
        caps = {"textDocument": {"callHierarchy": {"dynamicRegistration": False}}}
        self.request("initialize", {"processId": os.getpid(), "rootUri": uri, "rootPath": str(self.root),
                                    "workspaceFolders": [{"uri": uri, "name": self.root.name}],
                                    "capabilities": caps, "initializationOptions": init_options})
        self.notify("initialized", {})

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
            length = 0
            while True:
                line = out.readline()
                if not line:
                    for q in list(self._waiting.values()):
                        q.put({"error": {"message": "the server closed its output"}})
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            msg = json.loads(out.read(length))
            if "method" in msg and "id" in msg:
                result: Any = None
                if msg["method"] == "workspace/configuration":
                    result = [None] * len(msg.get("params", {}).get("items", []))
                try:
                    self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                except OSError:
                    return
            elif "id" in msg and msg["id"] in self._waiting:
                self._waiting[msg["id"]].put(msg)

    def request(self, method: str, params: Any, limit: float = REQUEST_LIMIT_S, unsupported: bool = False) -> Any:
        """The result; RuntimeError on an error answer (``UNSUPPORTED`` instead, with
        ``unsupported``, when the server has no such method), TimeoutError past ``limit``."""
        with self._lock:
            self._id += 1
            rid = self._id
        q: queue.Queue = queue.Queue()
        self._waiting[rid] = q
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            msg = q.get(timeout=limit)
        except queue.Empty:
            raise TimeoutError(f"{method}: no answer after {limit:.0f}s") from None
        finally:
            self._waiting.pop(rid, None)
        if "error" in msg:
            if unsupported and (msg["error"].get("code") == -32601 or re.search(
                    r"method not found|unhandled method", str(msg["error"].get("message")), re.I)):
                return UNSUPPORTED
            raise RuntimeError(f"{method}: {msg['error'].get('message')}")
        return msg.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def open(self, rel: str, language: str) -> None:
        """didOpen a file once (tsserver and clangd answer only on open files)."""
        if rel not in self.opened:
            self.opened.add(rel)
            path = self.root / rel
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": path.as_uri(), "languageId": LANGUAGE_IDS.get(language, language), "version": 1,
                "text": path.read_text(encoding="utf-8", errors="replace")}})

    def rel(self, uri: str) -> str | None:
        prefix = self.root.as_uri() + "/"
        return uri[len(prefix):] if uri.startswith(prefix) else None

    def close(self) -> None:
        try:
            self.request("shutdown", None, limit=15)
            self.notify("exit", None)
            self.proc.wait(15)
        except (TimeoutError, RuntimeError, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            self._err.close()


def name_position(root: Path, sym: SymbolInfo) -> tuple[int, int] | None:
    """0-based (line, column) of the symbol's name in its first lines (after decorators)."""
    lines = (root / sym.path).read_text(encoding="utf-8", errors="replace").splitlines()
    for n in range(sym.start_line - 1, min(sym.start_line + 5, len(lines))):
        m = re.search(rf"(?<![\w$]){re.escape(sym.name)}(?![\w$])", lines[n])
        if m:
            return n, m.start()
    return None


def _to_symbol(graph: Graph, path: str, item: dict) -> str | None:
    """The graph's symbol an LSP call hierarchy item names (by file, name and lines)."""
    line = item["selectionRange"]["start"]["line"] + 1
    words = re.findall(r"[\w$]+", item["name"])  # "(*Router).ServeHTTP", "Foo.bar", "baz"
    if not words:
        return None
    inside = [graph.symbols[i] for i in graph.file_symbols.get(path, ())]
    named = [s for s in inside if s.kind != "module" and s.start_line <= line <= s.end_line and s.name == words[-1]]
    return max(named, key=lambda s: s.start_line).id if named else None  # never the symbol around it


def _covers(rng: dict, pos: tuple[int, int]) -> bool:
    s, e = rng["start"], rng["end"]
    return (s["line"], s["character"]) <= pos <= (e["line"], e["character"])


def _locations(answer: Any) -> list[tuple[str, int]]:
    """(uri, 0-based line) of a definition/references answer (Location or LocationLink)."""
    out = []
    for loc in answer if isinstance(answer, list) else [answer] if answer else []:
        uri = loc.get("uri") or loc.get("targetUri")
        rng = loc.get("range") or loc.get("targetSelectionRange") or loc.get("targetRange")
        if uri and rng:
            out.append((uri, rng["start"]["line"]))
    return out


def _defined_symbol(graph: Graph, path: str, line: int, name: str) -> str | None:
    """The symbol declared at a definition's line (1-based), preferring the called name."""
    here = [graph.symbols[i] for i in graph.file_symbols.get(path, ())]
    here = [s for s in here if s.kind != "module" and s.start_line <= line <= s.start_line + 3]
    named = [s for s in here if s.name == name]  # not the function around a parameter
    return min(named, key=lambda s: abs(s.start_line - line)).id if named else None


def _by_references(ls: Lsp, graph: Graph, sym: SymbolInfo, pos: tuple[int, int], inner: Innermost) -> set[Pair]:
    """Where a server has no call hierarchy item for a symbol (tsserver on ``var f =
    function``, ``obj.m = function``): callers are its references followed by ``(`` (or
    after ``new``), callees are the server's definition of each call site's name in the
    body (the sites are syntax: the call expressions of the file)."""
    return _callers_by_references(ls, sym, pos) | _callees_by_definitions(ls, graph, sym, inner)


def _callers_by_references(ls: Lsp, sym: SymbolInfo, pos: tuple[int, int]) -> set[Pair]:
    """The symbol's references that are called (followed by ``(``, or after ``new``)."""
    doc = {"uri": (ls.root / sym.path).as_uri()}
    out: set[Pair] = set()
    lines: dict[str, list[str]] = {}
    refs = ls.request("textDocument/references", {"textDocument": doc, "position": {
        "line": pos[0], "character": pos[1]}, "context": {"includeDeclaration": False}}) or []
    for ref in refs:
        path = ls.rel(ref["uri"])
        if path is None:
            continue
        text = _code_lines(ls.root, path, lines)
        n, c = ref["range"]["start"]["line"], ref["range"]["end"]["character"]
        row = text[n] if n < len(text) else ""
        if re.match(r"\s*(\?\.)?\s*(<[^>]*>)?\s*\(", row[c:]) or row[:ref["range"]["start"]["character"]].rstrip(
                ).endswith("new"):
            out.add((path, n + 1, sym.id))
    return out


def _callees_by_definitions(ls: Lsp, graph: Graph, sym: SymbolInfo, inner: Innermost) -> set[Pair]:
    """The server's definition of the called name at each call site of the body."""
    doc = {"uri": (ls.root / sym.path).as_uri()}
    out: set[Pair] = set()
    for site in graph.sites.get(sym.path, ()):
        if inner(site.path, site.line) != sym.id:
            continue
        answer = ls.request("textDocument/definition", {"textDocument": doc, "position": {
            "line": site.line - 1, "character": site.col}})
        for uri, line in _locations(answer):
            path = ls.rel(uri)
            target = _defined_symbol(graph, path, line + 1, site.name) if path is not None else None
            if target is not None and target != "":
                out.add((site.path, site.line, target))
    return out


def _code_lines(root: Path, path: str, cache: dict[str, list[str]]) -> list[str]:
    if path not in cache:
        try:
            cache[path] = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[path] = []
    return cache[path]


def reference_pairs(ls: Lsp, graph: Graph, language: str, symbols: list[str]) -> tuple[set[Pair], dict]:
    """The reference's callers and callees of each sampled symbol, as pairs; and what it
    could not answer. Its call hierarchy where it gives an item for the symbol's name, else
    references and definitions (``by_references`` counts those symbols)."""
    pairs: set[Pair] = set()
    info: dict[str, Any] = {"no_item": [], "errors": [], "by_references": 0}
    inner = Innermost(graph)
    for sid in symbols:
        sym = graph.symbols[sid]
        pos = name_position(ls.root, sym)
        if pos is None:
            info["no_item"].append(sid)
            continue
        ls.open(sym.path, language)
        doc = {"uri": (ls.root / sym.path).as_uri()}
        try:
            items = [] if "prepare" in info.get("unsupported", ()) else ls.request(
                "textDocument/prepareCallHierarchy",
                {"textDocument": doc, "position": {"line": pos[0], "character": pos[1]}}, unsupported=True) or []
            if items is UNSUPPORTED:  # intelephense (free edition): no call hierarchy at all
                info.setdefault("unsupported", []).append("prepare")
                items = []
            items = [i for i in items if _covers(i["selectionRange"], pos)]
            if not items:
                info["by_references"] += 1
                pairs |= _by_references(ls, graph, sym, pos, inner)
            for item in items[:1]:
                for call in ls.request("callHierarchy/incomingCalls", {"item": item}) or []:
                    path = ls.rel(call["from"]["uri"])
                    if path is not None:
                        pairs |= {(path, r["start"]["line"] + 1, sid) for r in call["fromRanges"]}
                out = ls.request("callHierarchy/outgoingCalls", {"item": item}, unsupported=True)
                if out is UNSUPPORTED:  # clangd 14 has incoming calls only
                    if "outgoing" not in info.setdefault("unsupported", []):
                        info["unsupported"].append("outgoing")
                    pairs |= _callees_by_definitions(ls, graph, sym, inner)
                    continue
                for call in out or []:
                    path = ls.rel(call["to"]["uri"])
                    target = _to_symbol(graph, path, call["to"]) if path is not None else None
                    if target is not None:
                        pairs |= {(sym.path, r["start"]["line"] + 1, target) for r in call["fromRanges"]}
        except (RuntimeError, TimeoutError) as exc:
            info["errors"].append(f"{sid}: {exc}")
            if sum("no answer after" in e for e in info["errors"]) >= MAX_TIMEOUTS:
                raise TimeoutError(f"{MAX_TIMEOUTS} requests unanswered: {info['errors'][-1]}") from exc
    return pairs, info


# --- candidates, truth, scores ---------------------------------------------------------------


def _code(root: Path, path: str, line: int, cache: dict[str, list[str]]) -> str:
    if path not in cache:
        try:
            cache[path] = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[path] = []
    lines = cache[path]
    return lines[line - 1].strip()[:200] if 0 < line <= len(lines) else ""


def _hint(graph: Graph, code: str, target: str) -> str:
    """A reader's first clue on a disagreement (never a decision)."""
    s = graph.symbols.get(target)
    if s is None:
        return ""
    if not re.search(rf"(?<![\w$]){re.escape(s.name)}(?![\w$])", code):
        return "the name is not on this line (a multi-line call, or an alias)"
    if not re.search(rf"(?<![\w$]){re.escape(s.name)}\s*[(<`]", code) and s.kind not in ("class", "struct"):
        return "the name is not called on this line (a property read, a reference, or a call on the next line)"
    return ""


NO_REFERENCE_HINT = "no reference ran: every system reports it, but they are codeloupe and name matching"


def build_truth(name: str, project: dict, root: Path, graph: Graph, symbols: list[str],
                systems: dict[str, set[Pair]], inner: Innermost, old: dict | None) -> dict:
    """The truth file: the union of every system's pairs, each agreed or to adjudicate;
    the decisions of ``old`` kept."""
    decided = {(e["path"], e["line"], e["target"]): e for e in (old or {}).get("sites", [])
               if e["status"] in ("true", "false")}
    ran = [s for s in TRUTH_SYSTEMS if s in systems]
    union: set[Pair] = set().union(*systems.values())
    callers, callees = split_pairs(union, symbols, inner)
    lines: dict[str, list[str]] = {}
    sites = []
    for p in sorted(callers | callees):
        roles = [r for r, group in (("caller", callers), ("callee", callees)) if p in group]
        by = [s for s in ran if p in systems[s]]
        code = _code(root, p[0], p[1], lines)
        entry = {"path": p[0], "line": p[1], "target": p[2], "roles": roles, "code": code, "systems": by}
        if p in decided:
            entry["status"], entry["reason"] = decided[p]["status"], decided[p].get("reason", "")
        elif len(by) == len(ran) and "reference" in ran:
            entry["status"] = "agreed"
        elif len(by) == len(ran):  # codeloupe agreeing with name matching is no evidence
            entry["status"] = "to adjudicate"
            entry["hint"] = NO_REFERENCE_HINT
        else:
            entry["status"] = "to adjudicate"
            if hint := _hint(graph, code, p[2]):
                entry["hint"] = hint
        sites.append(entry)
    # a pair read once stays in the truth when no system reports it any more (a reference
    # answering differently, a change of codeloupe): what is true does not depend on who ran
    # (a pair of a file no longer analysed, or of a symbol gone, goes: its code is not indexed)
    left = sorted(k for k in decided if k not in callers | callees and k[0] in graph.file_symbols
                  and k[2] in graph.symbols)
    kept_callers, kept_callees = split_pairs(set(left), symbols, inner)
    for k in left:
        entry = {"path": k[0], "line": k[1], "target": k[2],
                 "roles": [r for r, group in (("caller", kept_callers), ("callee", kept_callees)) if k in group],
                 "code": decided[k]["code"], "systems": [], "status": decided[k]["status"],
                 "reason": decided[k].get("reason", "")}
        if entry["roles"]:
            sites.append(entry)
    _mark_beside_constructors(sites, graph)
    return {"project": name, "language": project["language"], "split": project["split"],
            "version": project["fetch"].get("version"), "systems": ran,
            "symbols": [{"id": s, "path": graph.symbols[s].path, "line": graph.symbols[s].start_line}
                        for s in symbols],
            "counts": {k: sum(1 for e in sites if e["status"] == k)
                       for k in ("agreed", "to adjudicate", "true", "false")},
            "decisions_no_longer_candidates": [list(k) for k in left], "sites": sites}


BESIDE_CONSTRUCTOR = "class beside its constructor"


def _mark_beside_constructors(sites: list[dict], graph: Graph) -> None:
    """Mark ``neutral`` a pair naming a class where the same line's pairs name one of its
    constructors: the call is scored once, by its constructor (which runs). Whether a
    system also names the class (tsserver and codeloupe do, for a call hierarchy on the
    class) is a convention, neither right nor wrong; it is left out of every score."""
    by_line: dict[tuple[str, int], set[str]] = {}
    for e in sites:
        by_line.setdefault((e["path"], e["line"]), set()).add(e["target"])
    for e in sites:
        cls = graph.symbols.get(e["target"])
        if cls is None or cls.kind not in CLASS_KINDS:
            continue
        for other in by_line[(e["path"], e["line"])]:
            c = graph.symbols.get(other)
            names = rules(cls.language).constructor_names or (cls.name,)  # None: named like its class
            if c is not None and c.parent == cls.id and (c.kind == "constructor" or c.name in names):
                e["neutral"] = BESIDE_CONSTRUCTOR
                break


def scores(truth: dict, systems: dict[str, set[Pair]]) -> dict[str, Any]:
    """Per system, callers and callees P/R: against the truth (or its decided part) and,
    apart, against the reference alone. Pairs marked ``neutral`` are left out."""
    sites = [e for e in truth["sites"] if not e.get("neutral")]
    out: dict[str, Any] = {"open": truth["counts"]["to adjudicate"]}
    for role in ("caller", "callee"):
        true = {(e["path"], e["line"], e["target"]) for e in sites
                if role in e["roles"] and e["status"] in ("agreed", "true")}
        decided = {(e["path"], e["line"], e["target"]) for e in sites
                   if role in e["roles"] and e["status"] != "to adjudicate"}
        every = {(e["path"], e["line"], e["target"]) for e in sites if role in e["roles"]}
        ref = {p for p in systems.get("reference", set()) if p in every}
        for sys_name, pairs in systems.items():
            mine = pairs & every
            row = out.setdefault(sys_name, {})
            row[f"{role}s_truth"] = score(mine & decided, true)
            if "reference" in systems and sys_name != "reference":
                row[f"{role}s_vs_reference"] = score(mine, ref)
    return out


def _reused_reference(name: str, split: str, seed: int, symbols: list[str]) -> tuple[set[Pair], dict] | None:
    """The reference's pairs of the last run (its candidates file), where that run had this
    seed and sample: a reference's answers do not depend on codeloupe, so a run that tunes
    the graph need not start the servers again. None where they cannot be reused."""
    path = candidates_path(name, split)
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        old = {}
    if old.get("seed") == seed and old.get("symbols") == symbols and "reference" in old.get("systems", {}):
        return {tuple(p) for p in old["systems"]["reference"]}, {**old.get("reference", {}), "reused": True}
    # no such file (a held-out project's candidates live outside git): the truth's pairs
    # name the systems that reported each, the reference among them, for its sample
    truth = read_truth(name, split)
    if truth is None or "reference" not in truth.get("systems", []) or "skipped" in truth.get("reference", {}) \
            or [s["id"] for s in truth.get("symbols", [])] != symbols:
        return None
    pairs = {(e["path"], e["line"], e["target"]) for e in truth["sites"] if "reference" in e["systems"]}
    return pairs, {**truth.get("reference", {}), "reused": True}


def run_project(project: dict[str, Any], size: int, seed: int, write: bool,
                reuse_reference: bool = False) -> dict[str, Any]:
    """Fetch, build, sample, ask every system; write the candidates and the truth. With
    ``reuse_reference``, the reference's pairs of the last run with this sample are
    reused (``_reused_reference``); the server runs where there are none."""
    name = project["name"]
    t0 = time.perf_counter()
    root = project_root(project)
    graph = build_graph(root)
    inner = Innermost(graph)
    symbols = sample(graph, name, size, seed)
    systems: dict[str, set[Pair]] = {
        "codeloupe_default": codeloupe_pairs(graph, DEFAULT_MIN_CONFIDENCE),
        "codeloupe_view": codeloupe_pairs(graph, DEFAULT_MIN_CONFIDENCE, offered=True),
        "codeloupe_all_edges": codeloupe_pairs(graph), "name_matching": name_pairs(graph)}
    systems = {k: set().union(*split_pairs(v, symbols, inner)) for k, v in systems.items()}
    tool = reference_for(project["language"])
    ref_info: dict[str, Any] = {"tool": tool}
    reused = _reused_reference(name, project["split"], seed, symbols) if reuse_reference and tool else None
    if reused is not None:
        systems["reference"], ref_info = reused[0], reused[1]
    elif tool is None:
        ref_info["skipped"] = NO_REFERENCE.get(project["language"], "no reference")
    else:
        try:
            argv, env, opts = server_command(tool, root, project)
            t1 = time.perf_counter()
            ls = Lsp(argv, root, env, opts)
            try:
                got, info = reference_pairs(ls, graph, project["language"], symbols)
            finally:
                ls.close()
            systems["reference"] = set().union(*split_pairs(got, symbols, inner))
            ref_info.update({"seconds": round(time.perf_counter() - t1, 1), "no_item": len(info["no_item"]),
                             "by_references": info["by_references"],
                             "unsupported": info.get("unsupported", []),
                             "errors": info["errors"][:20]})
        except (ToolMissing, OSError, TimeoutError, RuntimeError) as exc:
            ref_info["skipped"] = str(exc)
    cand_path = candidates_path(name, project["split"])
    old = read_truth(name, project["split"])
    truth = build_truth(name, project, root, graph, symbols, systems, inner, old)
    truth["reference"] = ref_info
    if write:
        cand_path.parent.mkdir(parents=True, exist_ok=True)
        cand_path.write_text(json.dumps({"project": name, "seed": seed, "symbols": symbols,
                                         "reference": ref_info,
                                         "systems": {k: sorted(v) for k, v in systems.items()}}, indent=0) + "\n")
        write_truth(name, project["split"], truth)
    return {"name": name, "language": project["language"], "split": project["split"],
            "seconds": round(time.perf_counter() - t0, 1), "symbols": len(symbols),
            "sites": len(truth["sites"]), "counts": truth["counts"], "reference": ref_info,
            "graph": {k: v for k, v in graph.stats().items() if k in ("sites", "edges")},
            "scores": scores(truth, systems)}  # main drops a held-out project's unless --score-heldout


def truth_path(name: str, split: str) -> Path:
    """Where a project's truth lives: dev plain JSON, held out gzipped (see HELDOUT_TRUTH)."""
    if split in HELDOUT_SPLITS:
        folder = HELDOUT_TRUTH.with_name(HELDOUT_TRUTH.name + split.removeprefix("heldout"))  # callgraph_heldout2
        return folder / f"{name}.json.gz"
    return TRUTH / f"{name}.json"


def candidates_path(name: str, split: str) -> Path:
    """Where a run writes a project's candidates: dev committed, held out under the cache."""
    return (CACHE / split / "candidates" if split in HELDOUT_SPLITS else CANDIDATES) / f"{name}.json"


def read_truth(name: str, split: str) -> dict | None:
    """A project's truth, or None before its first run."""
    p = truth_path(name, split)
    if not p.exists():
        return None
    return json.loads(gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_text())


def write_truth(name: str, split: str, truth: dict) -> None:
    """Write a project's truth (gzip without a timestamp: the same truth, the same bytes)."""
    p = truth_path(name, split)
    p.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(truth, indent=1) + "\n"
    if p.suffix == ".gz":
        p.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        p.write_text(text)


def systems_from_files(name: str) -> tuple[dict, dict[str, set[Pair]]] | None:
    """(truth, systems) of a dev project from its committed files, or None."""
    c, t = CANDIDATES / f"{name}.json", TRUTH / f"{name}.json"
    if not (c.exists() and t.exists()):
        return None
    cand = json.loads(c.read_text())
    return json.loads(t.read_text()), {k: {tuple(p) for p in v} for k, v in cand["systems"].items()}


def _fmt(s: dict) -> str:
    return f"{s['precision']:.3f} / {s['recall']:.3f}" if s["gold"] or s["reported"] else "  —  "


def print_table(rows: list[dict[str, Any]]) -> None:
    """Per project (dev only), per system: callers and callees P / R."""
    print(f"\ndefault view: edges with confidence >= {DEFAULT_MIN_CONFIDENCE}")
    print("truth = agreed + adjudicated true; while pairs are open, P counts the decided pairs only")
    head = f"{'project':<22} {'lang':<10} {'system':<20} {'callers P / R':>15} {'callees P / R':>15}"
    for label, key in (("against the truth", "truth"), ("against the reference alone (not adjudicated)",
                                                          "vs_reference")):
        print(f"\n== {label}\n{head}")
        for r in rows:
            if r.get("scores") is None:
                continue
            open_ = r["scores"]["open"]
            for sys_name in SYSTEMS:
                row = r["scores"].get(sys_name)
                if not row or f"callers_{key}" not in row:
                    continue
                tag = f"{r['name']}{' (partial)' if key == 'truth' and open_ else ''}"
                print(f"{tag:<22} {r['language']:<10} {sys_name:<20} {_fmt(row[f'callers_{key}']):>15} "
                      f"{_fmt(row[f'callees_{key}']):>15}")


def pooled(rows: list[dict[str, Any]], by: str) -> dict[str, dict[str, Any]]:
    """Scores pooled over the dev projects per language (or split): counts added up."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r.get("scores") is None:
            continue
        group = out.setdefault(r[by], {})
        for sys_name in SYSTEMS:
            for k, v in (r["scores"].get(sys_name) or {}).items():
                acc = group.setdefault(sys_name, {}).setdefault(k, {"reported": 0, "gold": 0, "correct": 0})
                for f in ("reported", "gold", "correct"):
                    acc[f] += v[f]
    for group in out.values():
        for row in group.values():
            for v in row.values():
                v["precision"] = round(v["correct"] / v["reported"], 3) if v["reported"] else 1.0
                v["recall"] = round(v["correct"] / v["gold"], 3) if v["gold"] else 1.0
    return out


def decide(project: str, status: str, reason: str, target: str = "", code: str = "", path: str = "",
           line: int = 0, systems: str = "", revise: bool = False) -> int:
    """Record a decision on the open pairs of a project's truth that match every filter
    given (target id contains, code line regex, path contains, line, systems exactly, as
    comma-separated names; a target that is a whole id, with ``::``, matches only that id:
    ``Foo.bar`` would also match ``Foo.bar#2``): status "true"/"false" and the reason, read by hand. With
    ``revise``, one pair already agreed or decided, read again and found otherwise (path,
    line and target given). The number decided."""
    if status not in ("true", "false"):
        raise SystemExit("status is true or false")
    if revise and not (target and path and line):
        raise SystemExit("--revise needs --path, --line and --target: one pair at a time")
    split = {p["name"]: p["split"] for p in load_spec()["projects"]}.get(project)
    truth = read_truth(project, split or "dev")
    if truth is None:
        raise SystemExit(f"{project}: no truth yet (run it first)")
    n = 0
    for e in truth["sites"]:
        if (e["status"] == "to adjudicate") == revise or (target and (
                target != e["target"] if "::" in target else target not in e["target"])) or (
                code and not re.search(code, e["code"])) or (path and path not in e["path"]) or (
                line and e["line"] != line) or (systems and ",".join(e["systems"]) != systems):
            continue
        e["status"], e["reason"] = status, reason
        e.pop("hint", None)
        n += 1
    truth["counts"] = {k: sum(1 for e in truth["sites"] if e["status"] == k)
                       for k in ("agreed", "to adjudicate", "true", "false")}
    write_truth(project, split or "dev", truth)
    return n


def install_tools() -> None:
    """The npm references under bench/.cache/tools (gopls and clangd come from apt)."""
    TOOLS.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "install", "--silent", "--prefix", str(TOOLS / "node"), *NPM_TOOLS], check=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--projects", nargs="*", default=[])
    ap.add_argument("--split", choices=("dev", *HELDOUT_SPLITS))
    ap.add_argument("--languages", nargs="*")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--pin", nargs="*", help="fetch these (all when empty) and record sha256 and lines")
    ap.add_argument("--tools", action="store_true", help="npm install the reference servers")
    ap.add_argument("--report", action="store_true", help="score the committed dev files, no run")
    ap.add_argument("--sample", type=int, default=SAMPLE)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--decide", nargs=3, metavar=("PROJECT", "STATUS", "REASON"),
                    help="record a decision on the open pairs matching --target/--code/--path/--line/--systems")
    ap.add_argument("--target", default="")
    ap.add_argument("--code", default="")
    ap.add_argument("--path", default="")
    ap.add_argument("--line", type=int, default=0)
    ap.add_argument("--systems", default="")
    ap.add_argument("--revise", action="store_true",
                    help="with --decide: change an agreed or decided pair (read again and found otherwise)")
    ap.add_argument("--open", metavar="PROJECT",
                    help="print a project's pairs still to adjudicate, one a line (what a reader reads)")
    ap.add_argument("--reuse-reference", action="store_true",
                    help="the reference's pairs of the last run with the same sample (no server started)")
    ap.add_argument("--score-heldout", action="store_true",
                    help="the final measurement only: never while tuning the graph")
    args = ap.parse_args(argv)
    spec = load_spec()
    by_name = {p["name"]: p for p in spec["projects"]}
    if args.tools:
        install_tools()
    if args.decide:
        n = decide(*args.decide, target=args.target, code=args.code, path=args.path, line=args.line,
                   systems=args.systems, revise=args.revise)
        print(f"{n} pairs decided")
        return 0
    if args.open:
        split = by_name[args.open]["split"]
        for e in (read_truth(args.open, split) or {"sites": []})["sites"]:
            if e["status"] == "to adjudicate":
                print(f"{e['path']}:{e['line']}\t{e['target']}\t{','.join(e['systems'])}\t"
                      f"{e.get('hint', '')}\t{e['code'].strip()}")
        return 0
    if args.list:
        for p in spec["projects"]:
            f = p["fetch"]
            print(f"{p['name']:22s} {p['language']:11s} {p['split']:8s} {f['type']:7s} {f['package']} "
                  f"{f.get('version', '')} lines={p.get('lines', '?')}")
        return 0
    if args.pin is not None:
        for n in args.pin or list(by_name):
            try:
                pin(by_name[n])
                print(f"{n}: {by_name[n]['fetch']['sha256']} {by_name[n]['lines']} lines", flush=True)
            except FetchError as exc:
                print(f"{n}: fetch failed: {exc}", flush=True)
            SPEC.write_text(json.dumps(spec, indent=1) + "\n")
        return 0
    chosen = [by_name[n] for n in args.projects] if args.projects else [
        p for p in spec["projects"] if args.split and p["split"] == args.split]
    if args.languages:
        chosen = [p for p in chosen if p["language"] in args.languages]
    rows: list[dict[str, Any]] = []
    if args.report:
        for p in chosen or [p for p in spec["projects"] if p["split"] == "dev"]:
            got = systems_from_files(p["name"]) if p["split"] == "dev" else None
            if got:
                rows.append({"name": p["name"], "language": p["language"], "split": "dev",
                             "scores": scores(*got)})
    for p in chosen if not args.report else []:
        try:
            r = run_project(p, args.sample, args.seed, write=True, reuse_reference=args.reuse_reference)
        except FetchError as exc:
            print(f"{p['name']}: skipped ({exc})", file=sys.stderr)
            continue
        if r["split"] in HELDOUT_SPLITS and not args.score_heldout:
            r["scores"] = None
        rows.append(r)
        ref = r["reference"]
        state = "its pairs of the last run, reused" if ref.get("reused") else \
            f"skipped: {ref['skipped']}" if "skipped" in ref else \
            f"{ref['seconds']}s, no name for {ref['no_item']}, by references {ref['by_references']}, " \
            f"{len(ref['errors'])} errors"
        print(f"{r['name']} ({r['split']}): {r['symbols']} symbols, {r['sites']} candidate pairs "
              f"{r['counts']}; reference {ref['tool']}: {state}; {r['seconds']}s", file=sys.stderr, flush=True)
    print_table(rows)
    if any(r.get("scores") for r in rows):
        splits = {r["split"] for r in rows if r.get("scores")}
        out = RESULTS if splits == {"dev"} else RESULTS.with_name(f"eval_callgraph_{'_'.join(sorted(splits))}.json")
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps({"projects": [r for r in rows if r.get("scores")],
                                       "by_language": pooled(rows, "language"),
                                       "by_split": pooled(rows, "split")}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
