"""Precision and recall of callers and callees on real code, against name matching
and pyright, in one run.

    python bench/eval_graph.py                 # score every system against the gold
    python bench/eval_graph.py --candidates    # print the sites the systems disagree on
                                               # (what the gold was adjudicated from)

Projects are the pinned releases of bench/eval/queries.json (requests, httpx,
commander), fetched and sha256-checked by eval_search.py's code into bench/.cache/.
Each is extracted and resolved with the engine (the same symbols and references the
index stores). The gold (bench/eval/graph_gold.json) names, per project, a sample of
functions and methods and every true call of them (callers) and from them (callees),
as (path, line, target) with 1-based lines: built from pyright's call hierarchy on
the Python projects, then every site where pyright, codeloupe and name matching
disagree adjudicated by reading the code (the "adjudicated" notes say which and
why); on commander (JavaScript, no pyright) from reading every candidate site.

A call of a class counts as a call of the class (codeloupe's companion edge to its
``__init__`` / ``constructor`` is not counted twice). Only targets inside the project
count; reading a property is not a call (pyright lists those; the gold does not).
pyright: ``npm install --prefix bench/.cache/pyright pyright@1.1.389``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from codeloupe.extract import extract  # noqa: E402
from codeloupe.graph import CLASS_KINDS, DEFAULT_MIN_CONFIDENCE, Graph, SymbolInfo  # noqa: E402
from codeloupe.graph.model import Reason  # noqa: E402
from codeloupe.graph.queries import OFFER_MAX  # noqa: E402
from eval_search import list_files, prepare_project  # noqa: E402

CACHE = HERE / ".cache"
PROJECTS = ("requests", "httpx", "commander")
GOLD = HERE / "eval" / "graph_gold.json"
PYRIGHT = CACHE / "pyright" / "node_modules" / ".bin" / "pyright-langserver"
SAMPLE = {"python": 32, "javascript": 16}  # symbols per project (JS gold is all by hand)

Pair = tuple[str, int, str]  # (site path, site line, target id)


def load_project(name: str) -> tuple[Path, str, Graph]:
    spec = json.loads((HERE / "eval" / "queries.json").read_text())
    project = next(p for p in spec["projects"] if p["name"] == name)
    root = prepare_project(project, CACHE, roots="graph_roots")
    symbols: list[SymbolInfo] = []
    refs: list[dict] = []
    for rel, language in list_files(root):
        ex = extract(rel, (root / rel).read_bytes(), language)
        symbols += [SymbolInfo(s.id, s.path, s.name, s.qualified_name, s.kind, s.parent, s.start_line,
                               s.end_line, s.language) for s in ex.symbols]
        refs += [{f: getattr(r, f) for f in r.__slots__} for r in ex.references]
    return root, project["language"], Graph(symbols, refs)


def codeloupe_pairs(graph: Graph, min_confidence: float = 0.0, offered: bool = False) -> set[Pair]:
    """Its edges; the constructor edge that comes with a class edge (``Foo()`` → ``Foo``
    and ``Foo.__init__``) counts once, as the class (how pyright reports it too). With
    ``offered``, also the name matches a view offers beside the edges it shows, marked
    "by name, N candidates" (``graph.queries.offered``: at most ``OFFER_MAX`` candidates)."""
    out: set[Pair] = set()
    for site, edges in graph.site_edges.items():
        classes = any(graph.symbols[e.target].kind in CLASS_KINDS for e in edges if e.target in graph.symbols)
        few = offered and len({e.target for e in edges}) <= OFFER_MAX
        for e in edges:
            if e.confidence < min_confidence and not (few and e.reason is Reason.NAME):
                continue
            if classes and graph.symbols.get(e.target) and graph.symbols[e.target].kind in (
                    "method", "constructor") and graph.symbols[e.target].name in ("__init__", "constructor"):
                continue
            out.add((site.path, site.line, e.target))
    return out


def is_call(root: Path, graph: Graph, pair: Pair) -> bool:
    """pyright counts reading a property as a call; the gold keeps call expressions."""
    target = graph.symbols[pair[2]]
    if target.kind in CLASS_KINDS:
        return True
    line = (root / pair[0]).read_text().splitlines()[pair[1] - 1]
    return re.search(rf"\b{re.escape(target.name)}\s*\(", line) is not None


def name_pairs(graph: Graph) -> set[Pair]:
    """The baseline: every call to every callable of the called name."""
    out: set[Pair] = set()
    for sites in graph.sites.values():
        for site in sites:
            for s in graph.by_name.get(site.name, ()):
                if site.receiver and s.kind in CLASS_KINDS:
                    continue
                out.add((site.path, site.line, s.id))
    return out


def sample(graph: Graph, project: str, size: int) -> list[str]:
    """Functions and methods whose name is called somewhere (whatever resolves it),
    half of them with a name another symbol shares (the traps), chosen by a hash of
    the id: stable, not picked by hand, not by what any system reports."""
    def key(s: SymbolInfo) -> str:
        return hashlib.blake2b(f"{project}:{s.id}".encode(), digest_size=8).hexdigest()

    names: dict[str, int] = {}
    for s in graph.symbols.values():
        names[s.name] = names.get(s.name, 0) + 1
    called = {site.name for sites in graph.sites.values() for site in sites}  # name matching's reach
    pool = sorted((s for s in graph.symbols.values() if s.kind in ("function", "method")
                   and not (s.name.startswith("__") and s.name.endswith("__")) and s.name != "constructor"
                   and s.name in called), key=key)
    shared = [s.id for s in pool if names[s.name] > 1][: size // 2]
    rest = [s.id for s in pool if s.id not in shared][: size - len(shared)]
    return sorted(shared + rest)


# --- pyright over LSP ------------------------------------------------------------------


class Pyright:
    def __init__(self, root: Path) -> None:
        (root / "pyrightconfig.json").write_text(json.dumps(
            {"include": [p.name for p in root.iterdir() if p.is_dir()], "typeCheckingMode": "off"}))
        self.root = root
        self.proc = subprocess.Popen([str(PYRIGHT), "--stdio"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.pending: dict[int, dict] = {}
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        uri = root.resolve().as_uri()
        self.request("initialize", {"processId": os.getpid(), "rootUri": uri,
                                    "workspaceFolders": [{"uri": uri, "name": root.name}],
                                    "capabilities": {"textDocument": {"callHierarchy": {}}}})
        self.notify("initialized", {})

    def _send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
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
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            msg = json.loads(out.read(length))
            if "method" in msg and "id" in msg:  # a request from the server
                result = [None] * len(msg["params"]["items"]) if msg["method"] == "workspace/configuration" else None
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            elif "id" in msg:
                with self.cond:
                    self.pending[msg["id"]] = msg
                    self.cond.notify_all()

    def notify(self, method: str, params: dict) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict, timeout: float = 120) -> object:
        self.next_id += 1
        rid = self.next_id
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        with self.cond:
            while rid not in self.pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(method)
                self.cond.wait(left)
            msg = self.pending.pop(rid)
        return msg.get("result")

    def close(self) -> None:
        try:
            self.request("shutdown", {}, timeout=10)
            self.notify("exit", {})
        except Exception:  # it is going away anyway
            pass
        self.proc.kill()

    def _rel(self, uri: str) -> str | None:
        prefix = self.root.resolve().as_uri() + "/"
        return uri[len(prefix):] if uri.startswith(prefix) else None

    def calls(self, graph: Graph, sym: SymbolInfo) -> tuple[set[Pair], set[Pair]]:
        """(callers, callees) of one symbol, as pairs."""
        text = (self.root / sym.path).read_text().splitlines()[sym.start_line - 1]
        col = text.find(sym.name, text.find("def ") + 4 if "def " in text else 0)
        uri = (self.root / sym.path).resolve().as_uri()
        items = self.request("textDocument/prepareCallHierarchy",
                             {"textDocument": {"uri": uri}, "position": {"line": sym.start_line - 1,
                                                                         "character": max(col, 0)}})
        callers: set[Pair] = set()
        callees: set[Pair] = set()
        for item in items or []:
            for call in self.request("callHierarchy/incomingCalls", {"item": item}) or []:
                path = self._rel(call["from"]["uri"])
                if path is None:
                    continue
                for r in call["fromRanges"]:
                    callers.add((path, r["start"]["line"] + 1, sym.id))
            for call in self.request("callHierarchy/outgoingCalls", {"item": item}) or []:
                path = self._rel(call["to"]["uri"])
                if path is None:
                    continue
                line = call["to"]["selectionRange"]["start"]["line"] + 1
                found = [s for s in (graph.symbols[i] for i in graph.file_symbols.get(path, ()))
                         if s.start_line == line and s.name == call["to"]["name"]]
                for s in found[:1]:
                    for r in call["fromRanges"]:
                        callees.add((sym.path, r["start"]["line"] + 1, s.id))
        return callers, callees


# --- scoring ----------------------------------------------------------------------------


def restrict(pairs: set[Pair], graph: Graph, symbols: list[str]) -> tuple[set[Pair], set[Pair]]:
    """(calls of the sampled symbols, calls made by them)."""
    targets = set(symbols)
    callers = {p for p in pairs if p[2] in targets}
    ranges = {s: graph.symbols[s] for s in symbols}
    callees = set()
    for p in pairs:
        for s in ranges.values():
            if p[0] == s.path and s.start_line <= p[1] <= s.end_line and _innermost(graph, p[0], p[1]) == s.id:
                callees.add(p)
    return callers, callees


def _innermost(graph: Graph, path: str, line: int) -> str:
    best = None
    for i in graph.file_symbols.get(path, ()):
        s = graph.symbols[i]
        if s.kind == "module" or not (s.start_line <= line <= s.end_line):
            continue
        if best is None or s.start_line >= best.start_line:
            best = s
    return best.id if best else ""


def score(got: set[Pair], gold: set[Pair]) -> dict[str, float | int]:
    hit = len(got & gold)
    return {"precision": round(hit / len(got), 3) if got else 1.0,
            "recall": round(hit / len(gold), 3) if gold else 1.0,
            "reported": len(got), "gold": len(gold), "correct": hit}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--candidates", action="store_true", help="print where the systems disagree")
    parser.add_argument("--projects", default=",".join(PROJECTS))
    parser.add_argument("--init-gold", action="store_true",
                        help="start the gold of projects it lacks from pyright (Python), to adjudicate")
    args = parser.parse_args(argv)
    gold_doc = json.loads(GOLD.read_text()) if GOLD.exists() else {"projects": {}}
    report: dict[str, dict] = {}
    totals: dict[str, dict[str, set]] = {}
    for name in args.projects.split(","):
        t0 = time.perf_counter()
        root, language, graph = load_project(name)
        build = time.perf_counter() - t0
        gold_p = gold_doc["projects"].get(name, {})
        symbols = gold_p.get("symbols") or sample(graph, name, SAMPLE[language])
        # codeloupe_default: what users see by default (call hierarchy, lenses, hover,
        # `codeloupe calls`/`path`: edges with confidence >= DEFAULT_MIN_CONFIDENCE);
        # codeloupe_all_edges: name-match candidates too (--min-confidence 0)
        systems = {"codeloupe_default": codeloupe_pairs(graph, DEFAULT_MIN_CONFIDENCE),
                   "codeloupe_all_edges": codeloupe_pairs(graph), "name_matching": name_pairs(graph)}
        if language == "python" and PYRIGHT.exists():
            ls = Pyright(root)
            try:
                got_callers: set[Pair] = set()
                got_callees: set[Pair] = set()
                for sid in symbols:
                    c_in, c_out = ls.calls(graph, graph.symbols[sid])
                    got_callers |= c_in
                    got_callees |= c_out
            finally:
                ls.close()
            systems["pyright"] = got_callers | got_callees
        if args.init_gold and not gold_p:
            start = {p for p in systems.get("pyright", set()) if is_call(root, graph, p)}
            c, e = restrict(start, graph, symbols)
            gold_p = gold_doc["projects"][name] = {
                "symbols": symbols, "callers": sorted(c), "callees": sorted(e), "adjudicated": []}
            GOLD.write_text(json.dumps(gold_doc, indent=1) + "\n")
        gold_pairs = {tuple(p) for p in gold_p.get("callers", []) + gold_p.get("callees", [])}
        gold_callers, gold_callees = restrict(gold_pairs, graph, symbols)  # type: ignore[arg-type]
        report[name] = {"language": language, "symbols": len(symbols), "build_s": round(build, 2),
                        "stats": {k: v for k, v in graph.stats().items() if k in ("sites", "edges", "external")}}
        for sys_name, pairs in systems.items():
            callers, callees = restrict(pairs, graph, symbols)
            report[name][sys_name] = {"callers": score(callers, gold_callers),
                                      "callees": score(callees, gold_callees)}
            tot = totals.setdefault(sys_name, {"c": set(), "gc": set(), "e": set(), "ge": set()})
            tot["c"] |= {(name, *p) for p in callers}
            tot["e"] |= {(name, *p) for p in callees}
            if args.candidates:
                for kind, mine, gold in (("caller", callers, gold_callers), ("callee", callees, gold_callees)):
                    for p in sorted(mine - gold):
                        print(f"{name} {sys_name:<20} extra   {kind} {p[0]}:{p[1]} -> {p[2]}")
                    for p in sorted(gold - mine):
                        print(f"{name} {sys_name:<20} missing {kind} {p[0]}:{p[1]} -> {p[2]}")
        if args.candidates and not gold_p:
            union = set().union(*systems.values())
            c, e = restrict(union, graph, symbols)
            print(json.dumps({"project": name, "symbols": symbols,
                              "callers": sorted(c), "callees": sorted(e)}))
    print()
    print(f"default view: edges with confidence >= {DEFAULT_MIN_CONFIDENCE} (codeloupe_default)")
    print(f"{'project':<11} {'system':<20} {'callers P':>9} {'R':>6} {'callees P':>10} {'R':>6}")
    for name, row in report.items():
        for sys_name in ("codeloupe_default", "codeloupe_all_edges", "name_matching", "pyright"):
            if sys_name in row:
                c, e = row[sys_name]["callers"], row[sys_name]["callees"]
                print(f"{name:<11} {sys_name:<20} {c['precision']:>9} {c['recall']:>6} "
                      f"{e['precision']:>10} {e['recall']:>6}")
    out = HERE / "results" / "eval_graph.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
