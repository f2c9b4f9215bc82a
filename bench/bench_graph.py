"""Speed of the reference map on the Python standard library.

    python bench/bench_graph.py              # the whole stdlib (Lib/, tests left out)
    python bench/bench_graph.py --limit 300  # the first 300 files

Measures, in one run:
- extraction of every file (tree-sitter + tags queries; the input of the map);
- building the map from those symbols and references (what a warm start costs when
  it resolves from the stored references), saving it (``Graph.save``: the plain-data
  format of ``graph.persist``) and loading it back (``Graph.load``; the loaded graph
  must answer every symbol's callers and callees as the built one does), and the same build with the first version of the resolver (``git show 14f0b2c:server/codeloupe/graph.py``: receivers,
  same file, imports, name) as the baseline;
- updating the map after an edit to a file of about 3,000 lines (``tarfile.py``),
  alternating between the edited and the original text: a method inserted in the
  middle (the calls below it move) and a change inside one line; wall and CPU time
  of ``Graph.replace_file`` (p50/p95), and wall p95 with the extraction of the file;
  then the same after ``gc.freeze()`` (a long-lived server freezes the map after a
  full build, so the cyclic GC stops walking it: without it, a full collection
  lands in some edits and is most of the p95).
Results go to stdout and bench/results/bench_graph.json.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_index import CACHE, copy_stdlib, pct  # noqa: E402
from codeloupe.extract import extract  # noqa: E402
from codeloupe.graph import Graph, SymbolInfo  # noqa: E402
from codeloupe.languages import language_for_path  # noqa: E402

BASELINE_COMMIT = "14f0b2c"
EDITED = "tarfile.py"  # 2,896 lines in 3.11


def rows(rel: str, data: bytes) -> tuple[list[SymbolInfo], list[dict]]:
    ex = extract(rel, data, "python")
    return ([SymbolInfo(s.id, s.path, s.name, s.qualified_name, s.kind, s.parent, s.start_line,
                        s.end_line, s.language) for s in ex.symbols],
            [{f: getattr(r, f) for f in r.__slots__} for r in ex.references])


def baseline_graph_class():  # the v1 Graph class
    src = subprocess.run(["git", "show", f"{BASELINE_COMMIT}:server/codeloupe/graph.py"],
                         capture_output=True, text=True, cwd=HERE.parent, check=True).stdout
    path = CACHE / "graph_v1.py"
    path.write_text(src.replace("from .model import", "from codeloupe.model import"))
    spec = importlib.util.spec_from_file_location("graph_v1", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["graph_v1"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.Graph


def same_answers(built: Graph, loaded: Graph) -> bool:
    """Do the two graphs give every symbol the same callers and callees (every edge,
    name matches included), and the same unresolved and external sites?"""
    def edges(es) -> list[tuple]:
        return sorted((e.site, e.target, e.reason, e.confidence, e.ambiguous) for e in es)
    return (built.symbols.keys() == loaded.symbols.keys()
            and all(edges(built.callers(s)) == edges(loaded.callers(s))
                    and edges(built.callees(s)) == edges(loaded.callees(s)) for s in built.symbols)
            and set(built.unresolved) == set(loaded.unresolved) and set(built.external) == set(loaded.external)
            and built.stats() == loaded.stats())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int)
    parser.add_argument("--edits", type=int, default=40)
    args = parser.parse_args()
    corpus = copy_stdlib(CACHE / "stdlib-graph", args.limit)  # its own: bench_index keeps its index
    files = [p for p in sorted(corpus.rglob("*.py")) if language_for_path(p) == "python"]
    t0 = time.perf_counter()
    symbols: list[SymbolInfo] = []
    refs: list[dict] = []
    for p in files:
        s, r = rows(p.relative_to(corpus).as_posix(), p.read_bytes())
        symbols += s
        refs += r
    t_extract = time.perf_counter() - t0
    calls = sum(1 for r in refs if r["kind"] == "call")
    print(f"corpus: {len(files)} files, {len(symbols)} symbols, {len(refs)} references ({calls} calls); "
          f"extraction {t_extract:.1f}s")

    t0 = time.perf_counter()
    g = Graph(symbols, refs)
    t_build = time.perf_counter() - t0
    V1 = baseline_graph_class()
    t0 = time.perf_counter()
    V1(symbols, [r for r in refs if r["kind"] in ("call", "import", "class")])
    t_v1 = time.perf_counter() - t0
    stats = g.stats()
    print(f"build: {t_build:.2f}s ({calls / t_build:,.0f} call sites/s); v1 baseline {t_v1:.2f}s "
          f"(ratio {t_build / t_v1:.2f}x)")
    print(f"  edges {stats['edges']}, by reason {stats['reasons']}, external {stats['external']}, "
          f"unresolved {stats['unresolved']}")

    saved = CACHE / "graph_bench.bin"
    t0 = time.perf_counter()
    g.save(saved, "bench")
    t_save = time.perf_counter() - t0
    t0 = time.perf_counter()
    loaded = Graph.load(saved, "bench")
    t_load = time.perf_counter() - t0
    assert loaded is not None
    size_mb = saved.stat().st_size / 1e6
    saved.unlink()
    same = same_answers(g, loaded)
    del loaded
    print(f"persisted: save {t_save:.2f}s, load {t_load:.2f}s ({size_mb:.1f} MB): a warm start loads "
          f"{t_build / t_load:.1f}x faster than it resolves; the loaded graph answers the same: {same}")

    edited = corpus / EDITED
    if not edited.exists():  # a --limit run: the largest file instead
        edited = max(files, key=lambda p: p.stat().st_size)
    name = edited.relative_to(corpus).as_posix()
    text = edited.read_text()
    n_lines = text.count("\n")
    lines = text.split("\n")
    mid = len(lines) // 2
    while mid < len(lines) - 1 and not lines[mid].startswith("    def "):
        mid += 1
    edits = {
        # a new method in the middle: every call below it moves down three lines
        "insert_method": "\n".join([*lines[:mid], "    def bench_added(self, tarinfo):",
                                    "        return self.addfile(tarinfo)", "", *lines[mid:]]),
        # typing inside one line: no call moves
        "edit_in_line": "\n".join([*lines[:mid], lines[mid] + "  # edited", *lines[mid + 1:]]),
    }
    original = rows(name, text.encode())

    def measure(edited_text: str) -> dict[str, float]:
        variant = rows(name, edited_text.encode())
        wall: list[float] = []
        cpu: list[float] = []
        with_extract: list[float] = []
        for i in range(args.edits):
            data = edited_text if i % 2 == 0 else text
            t0 = time.perf_counter()
            s, r = rows(name, data.encode()) if i % 4 < 2 else (variant if i % 2 == 0 else original)
            t1 = time.perf_counter()
            c1 = time.process_time()
            g.replace_file(name, s, r)
            wall.append((time.perf_counter() - t1) * 1000)
            cpu.append((time.process_time() - c1) * 1000)
            if i % 4 < 2:
                with_extract.append((time.perf_counter() - t0) * 1000)
        return {"wall_p50": round(pct(wall, 0.5), 2), "wall_p95": round(pct(wall, 0.95), 2),
                "cpu_p50": round(pct(cpu, 0.5), 2), "cpu_p95": round(pct(cpu, 0.95), 2),
                "with_extract_wall_p95": round(pct(with_extract, 0.95), 2)}

    t0 = time.perf_counter()
    g.ready_for_edits()  # as the language server does once the map is made, before any edit
    t_ready = time.perf_counter() - t0
    updates: dict[str, dict[str, float]] = {}
    for label, edited_text in edits.items():
        updates[label] = measure(edited_text)
    gc.freeze()  # what a long-lived server does after a full build: GC skips the map
    for label, edited_text in edits.items():
        updates[label + "+gc_freeze"] = measure(edited_text)
    result = {
        "files": len(files), "symbols": len(symbols), "references": len(refs), "call_sites": calls,
        "extract_s": round(t_extract, 2), "build_s": round(t_build, 3), "build_v1_s": round(t_v1, 3),
        "build_ratio_vs_v1": round(t_build / t_v1, 2),
        "save_s": round(t_save, 2), "ready_for_edits_s": round(t_ready, 3), "load_s": round(t_load, 2), "saved_mb": round(size_mb, 1),
        "loaded_answers_the_same": same,
        "build_over_load": round(t_build / t_load, 1),
        "edited_file": name, "edited_lines": n_lines, "edits": args.edits, "update_ms": updates,
        "stats": {k: v for k, v in stats.items() if k != "languages"},
        "load_average": os.getloadavg()[0], "cpus": os.cpu_count(),
    }
    print(f"update after an edit to {name} ({n_lines} lines), {args.edits} edits each, "
          f"Graph.replace_file in ms (load average {result['load_average']:.1f} on {os.cpu_count()} CPUs):")
    for label, row in updates.items():
        print(f"  {label:<26} wall p50 {row['wall_p50']:>6} p95 {row['wall_p95']:>6} | cpu p50 "
              f"{row['cpu_p50']:>6} p95 {row['cpu_p95']:>6} | with extraction, wall p95 "
              f"{row['with_extract_wall_p95']}")
    out = HERE / "results" / "bench_graph.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
