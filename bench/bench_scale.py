"""How codeloupe grows with a repository (issue 14, item 4): a ladder of real Python
corpora, each indexed cold and then used as a user would, every figure measured in the
same run, with how each grows from one rung to the next: the ratio, and its exponent
of the symbol count (n) and of the call-site count (s); 1.0 is linear.

    python bench/bench_scale.py                                   # stdlib, transformers, combined
    python bench/bench_scale.py --corpora stdlib transformers     # some rungs
    python bench/bench_scale.py --corpora transformers --calls 9  # more calls rounds

Rungs: ``stdlib`` (this interpreter's standard library, tests and site-packages left
out; about 20k symbols), ``transformers`` (the package pip installs beside
sentence-transformers: 1.2M lines, 37k symbols), ``combined`` (transformers, torch's
Python code and the stdlib side by side in one folder: about 3M lines). Copied fresh
from this venv (``robust_corpus.prepare``: the tree hashed, nothing committed).

Each rung, each step a fresh process (wall time and peak RSS from ``/usr/bin/time``):

1. ``codeloupe index --no-embed``: symbols, references and full text (the report's own
   ``seconds_to_symbols`` too);
2. the map in one process: the rows read, the graph built, saved, loaded back
   (``graph_store``'s own functions, timed one by one);
3. ``codeloupe calls`` on the most called symbols from the saved map (median of
   ``--calls`` rounds) and ``codeloupe graph``;
4. full-text search in one process: p50 / p95 of programmer queries after a warm-up
   (the vector half needs embeddings, which ``--no-embed`` leaves out: about 20 minutes
   of the model on two cores at 37k symbols);
5. ``codeloupe serve`` over stdio on the indexed folder (embeddings off): initialize to
   the state "ready" (the warm start), the server's RSS then, the largest file opened
   (documentSymbol), a keystroke in it at once (didChange, then the answer to the next
   hover: it waits for the map the server makes once ready), hover p50 over symbols of
   that file, a keystroke again (the map made), incoming calls of the most called
   symbol, and the server's peak RSS.

Results: printed as a table, and in ``bench/results/bench_scale.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "server"))

import robust_corpus as rc  # noqa: E402

CACHE = BENCH / ".cache" / "scale"
RESULTS = BENCH / "results" / "bench_scale.json"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_LEFT_OUT = ("test", "tests", "idle_test", "site-packages", "__pycache__", "*.pyc",
                   "lib2to3", "ensurepip", "turtledemo")
CORPORA = {"stdlib": ("stdlib",), "transformers": ("transformers",),
           "combined": ("transformers", "torch", "stdlib")}
QUERIES = [
    "load a pretrained model from a local folder", "rotary position embedding",
    "split text into tokens", "parse a url into its parts", "retry a failed download",
    "attention mask for padding", "read a json config file", "save a checkpoint to disk",
    "convert a tensor to half precision", "compress data with gzip",
    "beam search decoding", "thread pool that runs tasks", "format a date as a string",
    "learning rate schedule with warmup", "open a socket connection",
    "resize token embeddings", "csv reader", "quantize the weights to int8",
    "gradient clipping", "walk a directory tree",
]
BARS = {  # the bounds for the 1.2M-line rung (quiet machine)
    "index_symbols_s": 30.0, "graph_build_s": 15.0, "graph_load_s": 3.0,
    "index_rss_mb": 1536.0, "server_rss_mb": 1536.0, "search_p50_ms": 50.0, "calls_s": 0.5,
}

_GRAPH_PROBE = r"""
import json, sys, time
from pathlib import Path
from codeloupe.config import Settings
from codeloupe.graph import Graph, SymbolInfo
from codeloupe.graph_store import _SYMBOL_COLUMNS, save_graph, saved_graph_path, store_key
from codeloupe.index import Index

idx = Index(Path(sys.argv[1]), Settings(), writable=False, check_model=False)
t = time.perf_counter()
symbols = [SymbolInfo(**row) for row in idx.store.symbol_rows(_SYMBOL_COLUMNS)]
refs = idx.store.ref_rows()
read = time.perf_counter() - t
t = time.perf_counter()
graph = Graph(symbols, refs)
build = time.perf_counter() - t
key, target = store_key(idx.store), saved_graph_path(idx.store)
t = time.perf_counter()
save_graph(graph, target, key)
save = time.perf_counter() - t
del graph
t = time.perf_counter()
loaded = Graph.load(target, key)
load = time.perf_counter() - t
assert loaded is not None
most = [qn for qn, _ in loaded.most_called(5)]
names = {s.id: s.qualified_name for s in symbols}
stats = loaded.stats()
print(json.dumps({"read_s": read, "build_s": build, "save_s": save, "load_s": load,
                  "saved_mb": target.stat().st_size / 1e6, "references": len(refs),
                  "most_called": [names.get(i, i) for i in most], "stats": stats},
                 default=str))
"""

_SEARCH_PROBE = r"""
import json, statistics, sys, time
from pathlib import Path
from codeloupe.config import Settings
from codeloupe.index import Index
from codeloupe.search import Searcher

idx = Index(Path(sys.argv[1]), Settings(), writable=False, check_model=False)
searcher = Searcher(idx)
queries = json.loads(sys.argv[2])
hits = 0
for q in queries:  # warm-up: the full-text index's pages
    searcher.search(q, k=10, mode="fts")
times = []
for _ in range(3):
    for q in queries:
        t = time.perf_counter()
        found = searcher.search(q, k=10, mode="fts").results
        times.append(time.perf_counter() - t)
        hits += bool(found)
times.sort()
print(json.dumps({"p50_ms": 1000 * statistics.median(times),
                  "p95_ms": 1000 * times[int(0.95 * (len(times) - 1))],
                  "queries": len(times), "with_results": hits}))
"""


def _env() -> dict[str, str]:
    env = rc.cli_env()
    env["PYTHONPATH"] = str(BENCH.parent / "server")
    env["LANCE_LOG"] = "error"
    return env


def timed(argv: list[str], stdin: str | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, stdout) of a command; exits on a failure."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        proc = subprocess.run(["/usr/bin/time", "-o", out.name, "-f", "%M %e", *argv],
                              input=stdin, capture_output=True, text=True, env=_env())
        if proc.returncode != 0:
            sys.exit(f"{' '.join(argv)[:300]} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        rss_kb, wall = out.read().split()[-2:]
    return float(wall), int(rss_kb) / 1024, proc.stdout


def codeloupe(*args: str) -> list[str]:
    return [sys.executable, "-m", "codeloupe", *args]


def prepare(name: str) -> tuple[Path, int]:
    """A fresh copy of the rung's parts in one folder, and its lines."""
    root = CACHE / "roots" / name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for part in CORPORA[name]:
        if part == "stdlib":
            shutil.copytree(STDLIB, root / "stdlib", symlinks=True,
                            ignore=shutil.ignore_patterns(*STDLIB_LEFT_OUT))
        else:
            prepared = rc.prepare(rc.BY_NAME[part], roots=CACHE / "parts")
            for child in prepared.root.iterdir():
                shutil.copytree(child, root / child.name, symlinks=True)
    lines, _ = rc.count_lines(root)
    return root, lines


def busiest_python_file(root: Path) -> Path:
    """The file with the most functions and methods (not a data table that is one big
    literal)."""
    def defs(path: Path) -> int:
        try:
            return path.read_text(encoding="utf-8", errors="replace").count("def ")
        except OSError:
            return 0

    return max(root.rglob("*.py"), key=defs)


def _vm(pid: int, field: str) -> float:
    """VmRSS / VmHWM of a process in MB (/proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def lsp_session(root: Path, most_called: str) -> dict[str, float]:
    """The server's warm start on an indexed folder, a big file opened and typed in."""
    scratch = CACHE / "logs"
    scratch.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    client = rc.LspClient(root, scratch / f"{root.name}-serve.stderr")
    out: dict[str, float] = {}

    def ask(method: str, params: Any) -> Any:
        answer = client.request(method, params)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result")

    try:
        caps = {"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                                 "hover": {"contentFormat": ["markdown"]}, "callHierarchy": {}},
                "workspace": {"workspaceFolders": True}, "window": {"workDoneProgress": True}}
        ask("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": caps,
                           "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                           "initializationOptions": {"embeddings": False}})
        client.notify("initialized", {})
        while True:  # a bench polls the state the server reports (no test waits like this)
            st = ask("workspace/executeCommand", {"command": "codeloupe.server.status",
                                                  "arguments": [{}]})
            if st and st.get("state") in ("ready", "failed"):
                break
            time.sleep(0.05)
        if st.get("state") != "ready":
            raise RuntimeError(f"indexing failed: {json.dumps(st)[:500]}")
        out["server_ready_s"] = time.perf_counter() - t0
        out["server_rss_ready_mb"] = _vm(client.proc.pid, "VmRSS")
        path = busiest_python_file(root)
        text = path.read_text(encoding="utf-8", errors="replace")
        doc = {"textDocument": {"uri": path.as_uri()}}
        out["opened_file_lines"] = text.count("\n")
        t = time.perf_counter()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": "python", "version": 1, "text": text}})
        symbols = rc._flatten(ask("textDocument/documentSymbol", doc) or [])
        out["open_document_symbol_s"] = time.perf_counter() - t
        functions = [s for s in symbols if s.get("kind") in (6, 12)]  # method, function
        target = functions[len(functions) // 2]
        body_line = target["range"]["start"]["line"] + 1
        t = time.perf_counter()
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": path.as_uri(), "version": 2},
            "contentChanges": [{"range": {"start": {"line": body_line, "character": 0},
                                          "end": {"line": body_line, "character": 0}},
                                "text": "    x = 1\n"}]})
        pos = target.get("selectionRange", target["range"])["start"]
        ask("textDocument/hover", {**doc, "position": pos})
        out["keystroke_then_hover_s"] = time.perf_counter() - t
        times = []
        for s in functions[:: max(1, len(functions) // 20)][:20]:
            p = s.get("selectionRange", s["range"])["start"]
            t = time.perf_counter()
            ask("textDocument/hover", {**doc, "position": p})
            times.append(time.perf_counter() - t)
        out["hover_p50_ms"] = 1000 * statistics.median(times)
        # a keystroke once the map is made and ready for edits (what typing costs from then on)
        line = target["range"]["start"]["line"] + 2
        t = time.perf_counter()
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": path.as_uri(), "version": 3},
            "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                          "end": {"line": line, "character": 0}},
                                "text": "    y = 2\n"}]})
        ask("textDocument/hover", {**doc, "position": pos})
        out["keystroke_again_then_hover_s"] = time.perf_counter() - t
        # the most called symbol itself, by its qualified name (its name alone, `__init__`,
        # matches thousands: the first of them was measured before 2026-12-06)
        hits = ask("workspace/symbol", {"query": most_called}) or []
        owner, _, name = most_called.rpartition(".")
        item_pos = next((h for h in hits if h["name"] == name and (h.get("containerName") or "") == owner), None)
        if item_pos is not None:
            loc = item_pos["location"]
            t = time.perf_counter()
            items = ask("textDocument/prepareCallHierarchy", {
                "textDocument": {"uri": loc["uri"]}, "position": loc["range"]["start"]}) or []
            if items:
                calls = ask("callHierarchy/incomingCalls", {"item": items[0]}) or []
                out["incoming_calls_s"] = time.perf_counter() - t
                out["incoming_callers"] = len(calls)
        out["server_rss_peak_mb"] = _vm(client.proc.pid, "VmHWM")
    finally:
        client.close()
    return out


def run_rung(name: str, calls_rounds: int) -> dict[str, Any]:
    root, lines = prepare(name)
    print(f"{name}: {lines:,} lines in {root}", file=sys.stderr)
    r: dict[str, Any] = {"corpus": name, "lines": lines}
    wall, rss, stdout = timed(codeloupe("index", "--no-embed", "--json", "-q", str(root)))
    report = json.loads(stdout)
    r.update(files=report["files"], symbols=report["symbols"], index_wall_s=wall,
             index_symbols_s=report["seconds_to_symbols"], index_rss_mb=rss)
    print(f"  index {wall:.1f}s, {report['symbols']:,} symbols, {rss:.0f} MB", file=sys.stderr)
    wall, rss, stdout = timed([sys.executable, "-c", _GRAPH_PROBE, str(root)])
    probe = json.loads(stdout)
    r.update(graph_read_s=probe["read_s"], graph_build_s=probe["build_s"],
             graph_save_s=probe["save_s"], graph_load_s=probe["load_s"],
             graph_saved_mb=probe["saved_mb"], graph_rss_mb=rss,
             references=probe["references"], most_called=probe["most_called"])
    print(f"  graph build {probe['build_s']:.1f}s, load {probe['load_s']:.2f}s", file=sys.stderr)
    walls, rsses = [], []
    for i in range(calls_rounds):
        target = probe["most_called"][i % len(probe["most_called"])]
        wall, rss, stdout = timed(codeloupe("calls", "--root", str(root), "--json", "-q", target))
        walls.append(wall)
        rsses.append(rss)
    r.update(calls_s=statistics.median(walls), calls_rss_mb=max(rsses))
    wall, rss, _ = timed(codeloupe("graph", "--root", str(root), "--json", "-q"))
    r.update(graph_cmd_s=wall)
    _, _, stdout = timed([sys.executable, "-c", _SEARCH_PROBE, str(root), json.dumps(QUERIES)])
    search = json.loads(stdout)
    r.update(search_p50_ms=search["p50_ms"], search_p95_ms=search["p95_ms"])
    print(f"  calls {r['calls_s']:.2f}s, search p50 {search['p50_ms']:.1f} ms", file=sys.stderr)
    r.update(lsp_session(root, probe["most_called"][0]))
    print(f"  server ready {r['server_ready_s']:.1f}s, {r['server_rss_peak_mb']:.0f} MB",
          file=sys.stderr)
    shutil.rmtree(root, ignore_errors=True)
    return r


METRICS = [  # key, label, format
    ("lines", "lines", "{:,.0f}"), ("files", "files", "{:,.0f}"), ("symbols", "symbols", "{:,.0f}"),
    ("references", "call sites", "{:,.0f}"),
    ("index_symbols_s", "index: symbols and full text (s)", "{:.1f}"),
    ("index_wall_s", "index --no-embed, whole command (s)", "{:.1f}"),
    ("index_rss_mb", "index --no-embed peak RSS (MB)", "{:.0f}"),
    ("graph_read_s", "map: rows read (s)", "{:.2f}"),
    ("graph_build_s", "map: build (s)", "{:.2f}"), ("graph_save_s", "map: save (s)", "{:.2f}"),
    ("graph_load_s", "map: load (s)", "{:.2f}"), ("graph_saved_mb", "map on disk (MB)", "{:.0f}"),
    ("graph_rss_mb", "map build+save+load peak RSS (MB)", "{:.0f}"),
    ("calls_s", "`calls` on a most called symbol (s)", "{:.2f}"),
    ("calls_rss_mb", "`calls` peak RSS (MB)", "{:.0f}"),
    ("graph_cmd_s", "`graph` (s)", "{:.2f}"),
    ("search_p50_ms", "full-text search p50 (ms)", "{:.1f}"),
    ("search_p95_ms", "full-text search p95 (ms)", "{:.1f}"),
    ("server_ready_s", "server: initialize to ready, warm (s)", "{:.1f}"),
    ("server_rss_ready_mb", "server RSS when ready (MB)", "{:.0f}"),
    ("opened_file_lines", "file opened: the most functions (lines)", "{:,.0f}"),
    ("open_document_symbol_s", "didOpen + documentSymbol (s)", "{:.2f}"),
    ("keystroke_then_hover_s", "a keystroke at once, then hover answered (s)", "{:.3f}"),
    ("keystroke_again_then_hover_s", "a keystroke later, then hover answered (s)", "{:.3f}"),
    ("hover_p50_ms", "hover p50 (ms)", "{:.1f}"),
    ("incoming_calls_s", "prepare + incoming calls of the most called (s)", "{:.2f}"),
    ("server_rss_peak_mb", "server peak RSS (MB)", "{:.0f}"),
]


def table(results: list[dict[str, Any]]) -> str:
    names = [r["corpus"] for r in results]
    head = "| | " + " | ".join(names) + " | " + " | ".join(
        f"growth {a}→{b}" for a, b in zip(names, names[1:], strict=False)) + " |"
    rows = [head, "|" + "---|" * (1 + 2 * len(names) - 1)]
    for key, label, fmt in METRICS:
        cells = [fmt.format(r[key]) if isinstance(r.get(key), int | float) else "—" for r in results]
        growth = []
        for a, b in zip(results, results[1:], strict=False):
            if key in ("lines", "files", "symbols") or not all(
                    isinstance(x.get(key), int | float) and x[key] > 0 for x in (a, b)):
                growth.append(f"{b[key] / a[key]:.2f}×" if key in ("lines", "files", "symbols")
                              else "—")
                continue
            ratio = b[key] / a[key]
            by_symbols = math.log(ratio) / math.log(b["symbols"] / a["symbols"])
            by_sites = math.log(ratio) / math.log(b["references"] / a["references"])
            growth.append(f"{ratio:.2f}× (n^{by_symbols:.2f}, s^{by_sites:.2f})")
        bar = BARS.get(key)
        label += f" [bound {bar:g}]" if bar else ""
        rows.append(f"| {label} | " + " | ".join(cells) + " | " + " | ".join(growth) + " |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", nargs="*", default=list(CORPORA), choices=list(CORPORA))
    ap.add_argument("--calls", type=int, default=5, help="rounds of `calls`")
    args = ap.parse_args()
    results = [run_rung(name, args.calls) for name in args.corpora]
    print(table(results))
    checks = next((r for r in results if r["corpus"] == "transformers"), None)
    if checks is not None:
        missed = [f"{k} {checks[k]:.2f} > {v:g}" for k, v in BARS.items()
                  if isinstance(checks.get(k), int | float) and checks[k] > v]
        print("\ntransformers against the issue's bounds: "
              + ("all met" if not missed else "missed: " + ", ".join(missed)))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"when": time.strftime("%Y-%m-%d %H:%M"),
                                   "load": os.getloadavg(), "results": results}, indent=1))
    print(f"\nevery figure: {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
