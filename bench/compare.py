"""One benchmark, two checkouts, same run: medians per metric and the ratio after/before.

    python bench/compare.py graph --before /tmp/base --rounds 3
    python bench/compare.py index --before /tmp/base --rounds 3 -- --limit 60
    python bench/compare.py lsp   --before /tmp/base --rounds 3 -- --limit 60 --keystrokes 40 --reads 30
    python bench/compare.py exit  --before /tmp/base --rounds 5 -- --no-embeddings
    python bench/compare.py onnx  --before /tmp/base --rounds 3 -- --texts 200 --rounds 1

``--before`` and ``--after`` are checkout roots (``--after`` defaults to the one this file is
in); whatever follows ``--`` goes to the bench script unchanged. Each round is one process
of the bench script with ``PYTHONPATH=<checkout>/server`` (checked before the first round:
``codeloupe`` must import from there), cwd the after checkout, ``HF_HUB_OFFLINE=1``.

Rounds alternate A B B A A B B A … (``--order abba``, the default): under a linear drift
of the machine's speed every pair of rounds (A B, then B A) puts the same drift on both
sides, where A B A B … gives the side that goes first a head start of half a round at
every pair. ``--order abab`` is there for drift that is not linear (another session's
job starting and ending). A = before, B = after.

The bench scripts are the *after* checkout's ``bench/`` files for both sides, except for
the benches marked ``own_copy`` below (their script reaches into modules the redesign
moved): then each side runs its own checkout's script, copied with its sibling bench
files into ``bench/.cache/compare/<side>/`` so that nothing is written into the other
checkout. Each round's JSON result (``--out`` where the script has it, else the fixed
results file, copied before the next round overwrites it) or its stdout is read by the
bench's ``extract`` function below: a flat ``{metric: number}``. ``checks`` are counts
that must be equal on both sides (files, symbols, edges): a difference is printed.

Output: a markdown table per bench (metric, before median, after median, ratio
after/before, rounds, and the min–max of each side), printed and written with every
round's figures to ``bench/results/compare_<bench>.json``.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
STAGE = HERE / ".cache" / "compare"
Metrics = dict[str, float]


def flatten(doc: object, prefix: str = "") -> Metrics:
    """Every number in a JSON document under its dotted path; a list of numbers as its median."""
    out: Metrics = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.update(flatten(v, f"{prefix}{k}."))
    elif isinstance(doc, list) and doc and all(isinstance(v, int | float) for v in doc):
        out[prefix.rstrip(".")] = statistics.median(doc)
    elif isinstance(doc, bool):
        pass
    elif isinstance(doc, int | float):
        out[prefix.rstrip(".")] = float(doc)
    return out


def pick(flat: Metrics, keep: Callable[[str], bool]) -> Metrics:
    return {k: v for k, v in flat.items() if keep(k)}


def graph_metrics(doc: dict, _stdout: str) -> Metrics:
    flat = flatten(doc)
    return pick(flat, lambda k: k in ("extract_s", "build_s", "build_v1_s", "save_s", "load_s",
                                      "saved_mb")
                or (k.startswith("update_ms.") and not k.endswith("cpu_p95")))


def graph_checks(doc: dict) -> Metrics:
    return pick(flatten(doc), lambda k: k in ("files", "symbols", "references", "call_sites",
                                              "stats.edges", "stats.unresolved", "stats.external"))


def index_metrics(doc: dict, _stdout: str) -> Metrics:
    return pick(flatten(doc), lambda k: k in (
        "seconds_to_symbols", "cold_seconds", "index_symbols_per_s", "bare_texts_per_s", "ratio",
        "warm_seconds", "one_file_seconds", "optimize_seconds", "peak_rss_mb", "index_mb")
        or k.startswith("search_ms"))


def index_checks(doc: dict) -> Metrics:
    return pick(flatten(doc), lambda k: k in ("files", "symbols", "embeddings_computed"))


def lsp_metrics(doc: dict, _stdout: str) -> Metrics:
    return pick(flatten(doc), lambda k: k.endswith((".p50_ms", ".p95_ms")) or ".ratio_p50." in k)


def exit_metrics(_doc: dict | None, stdout: str) -> Metrics:
    """bench_exit prints one dict (Python repr) per run and delay; median per delay."""
    runs: dict[str, list[float]] = {}
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        row = ast.literal_eval(line)
        tag = f"delay {row['delay']}" if row.get("state") == "ready" else f"early, state {row['state']}"
        for k in ("ready_s", "shutdown_s", "exit_s", "total_s"):
            runs.setdefault(f"{tag}: {k}", []).append(float(row[k]))
    return {k: statistics.median(v) for k, v in runs.items()}


def onnx_metrics(doc: dict, _stdout: str) -> Metrics:
    out = pick(flatten(doc), lambda k: k in ("cached_load_s", "torch_load_s", "ratio_median",
                                             "cosine.mean", "cosine.min"))
    for key in ("torch", "onnx"):
        out[f"{key} texts/s"] = statistics.median(r[key] for r in doc["rounds"])
    return out


@dataclass
class Bench:
    """How to run one bench script and read its figures."""

    script: str
    extract: Callable[[dict | None, str], Metrics]
    out_flag: bool = True  # the script takes --out FILE; else it writes `fixed`
    fixed: str | None = None
    own_copy: bool = False
    checks: Callable[[dict], Metrics] | None = None


BENCHES: dict[str, Bench] = {
    "graph": Bench("bench_graph.py", graph_metrics, out_flag=False, fixed="bench_graph.json",
                   checks=graph_checks),
    "index": Bench("bench_index.py", index_metrics, checks=index_checks),
    # bench_lsp's in-process part imports codeloupe.lsp.heap and codeloupe.workspace
    # (after) where the old package had codeloupe.lsp.lifecycle and codeloupe.lsp.state
    "lsp": Bench("bench_lsp.py", lsp_metrics, own_copy=True),
    "exit": Bench("bench_exit.py", exit_metrics, out_flag=False),
    "onnx": Bench("bench_onnx.py", onnx_metrics),
}


def script_for(bench: Bench, side: str, checkout: Path, after: Path) -> Path:
    """The script a side runs: the after checkout's, or (own_copy) the side's own, staged."""
    if not bench.own_copy:
        return after / "bench" / bench.script
    dest = STAGE / side
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for f in (checkout / "bench").glob("*.py"):
        shutil.copy2(f, dest / f.name)
    return dest / bench.script


def side_env(checkout: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(checkout / "server")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("LANCE_LOG", "error")
    return env


def check_import(checkout: Path) -> str:
    where = subprocess.run([sys.executable, "-c", "import codeloupe; print(codeloupe.__file__)"],
                           env=side_env(checkout), capture_output=True, text=True, check=True,
                           cwd="/").stdout.strip()
    if not Path(where).resolve().is_relative_to((checkout / "server").resolve()):
        raise SystemExit(f"compare: PYTHONPATH={checkout}/server imports codeloupe from {where}")
    return where


def order(rounds: int, kind: str) -> list[str]:
    """A/B sequence with `rounds` of each: ABBA ABBA … or ABAB …"""
    unit = ["A", "B", "B", "A"] if kind == "abba" else ["A", "B"]
    seq: list[str] = []
    while seq.count("A") < rounds or seq.count("B") < rounds:
        seq.append(unit[len(seq) % len(unit)])
    return seq


def load() -> float:
    return os.getloadavg()[0]


def run_round(bench: Bench, name: str, side: str, script: Path, checkout: Path, after: Path,
              extra: list[str], n: int, log_dir: Path) -> dict:
    out_file = log_dir / f"{name}_{side}_{n}.json"
    cmd = [sys.executable, str(script), *extra]
    if bench.out_flag:
        cmd += ["--out", str(out_file)]
    load0, t0 = load(), time.perf_counter()
    proc = subprocess.run(cmd, env=side_env(checkout), cwd=after, capture_output=True, text=True,
                          check=False)
    wall = time.perf_counter() - t0
    (log_dir / f"{name}_{side}_{n}.log").write_text(proc.stdout + "\n--- stderr\n" + proc.stderr)
    if proc.returncode != 0:
        raise SystemExit(f"compare: {side} round {n} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    if not bench.out_flag and bench.fixed:
        written = script.parent / "results" / bench.fixed
        shutil.copy2(written, out_file)
    doc = json.loads(out_file.read_text()) if out_file.exists() else None
    metrics = bench.extract(doc, proc.stdout)
    checks = bench.checks(doc) if bench.checks and doc is not None else {}
    return {"side": side, "round": n, "wall_s": round(wall, 2), "load_start": round(load0, 2),
            "load_end": round(load(), 2), "metrics": metrics, "checks": checks}


def fmt(v: float) -> str:
    return f"{v:.4g}" if abs(v) < 1000 else f"{v:,.0f}"


def table(name: str, runs: list[dict]) -> tuple[str, list[dict]]:
    sides = {s: [r for r in runs if r["side"] == s] for s in ("before", "after")}
    keys = list(dict.fromkeys(k for r in runs for k in r["metrics"]))
    rows = []
    lines = [f"### {name}", "",
             "| metric | before median | after median | ratio after/before | rounds | before min–max | after min–max |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for k in keys:
        vals = {s: [r["metrics"][k] for r in rs if k in r["metrics"]] for s, rs in sides.items()}
        if not vals["before"] or not vals["after"]:
            continue
        med = {s: statistics.median(v) for s, v in vals.items()}
        ratio = med["after"] / med["before"] if med["before"] else float("nan")
        rows.append({"metric": k, "before": med["before"], "after": med["after"],
                     "ratio": round(ratio, 3), "rounds": [len(vals["before"]), len(vals["after"])],
                     "before_min_max": [min(vals["before"]), max(vals["before"])],
                     "after_min_max": [min(vals["after"]), max(vals["after"])]})
        lines.append(f"| {k} | {fmt(med['before'])} | {fmt(med['after'])} | {ratio:.2f} | "
                     f"{len(vals['before'])}/{len(vals['after'])} | "
                     f"{fmt(min(vals['before']))}–{fmt(max(vals['before']))} | "
                     f"{fmt(min(vals['after']))}–{fmt(max(vals['after']))} |")
    return "\n".join(lines), rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("bench", choices=sorted(BENCHES))
    ap.add_argument("--before", type=Path, required=True, help="checkout root of the old code")
    ap.add_argument("--after", type=Path, default=HERE.parent, help="checkout root of the new code")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per side")
    ap.add_argument("--order", choices=["abba", "abab"], default="abba")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    extra = argv[cut + 1:]  # after --: the bench script's own arguments
    bench = BENCHES[args.bench]
    before, after = args.before.resolve(), args.after.resolve()
    checkouts = {"before": before, "after": after}
    imports = {side: check_import(c) for side, c in checkouts.items()}
    scripts = {side: script_for(bench, side, c, after) for side, c in checkouts.items()}
    log_dir = STAGE / "rounds"
    log_dir.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(exist_ok=True)
    seq = order(args.rounds, args.order)
    print(f"compare {args.bench}: {' '.join(seq)} (A = before {before}, B = after {after}); "
          f"load average {load():.2f}", file=sys.stderr)
    runs: list[dict] = []
    count = {"before": 0, "after": 0}
    for letter in seq:
        side = "before" if letter == "A" else "after"
        count[side] += 1
        r = run_round(bench, args.bench, side, scripts[side], checkouts[side], after, extra,
                      count[side], log_dir)
        runs.append(r)
        print(f"  {side} round {count[side]}: {r['wall_s']}s, load {r['load_start']} -> "
              f"{r['load_end']}", file=sys.stderr)
    text, rows = table(f"{args.bench} (`{bench.script} {' '.join(extra)}`)", runs)
    diffs = {}
    for k in dict.fromkeys(k for r in runs for k in r["checks"]):
        values = {s: sorted({r["checks"].get(k) for r in runs if r["side"] == s})
                  for s in ("before", "after")}
        if values["before"] != values["after"]:
            diffs[k] = values
    print(text)
    if diffs:
        print(f"\ncounts that differ between the sides: {diffs}")
    report = {
        "bench": args.bench, "script": bench.script, "args": extra,
        "scripts": {s: str(p) for s, p in scripts.items()}, "own_copy": bench.own_copy,
        "imports": imports, "order": " ".join(seq), "date": time.strftime("%Y-%m-%d %H:%M"),
        "cpus": os.cpu_count(), "load_first": runs[0]["load_start"], "load_last": runs[-1]["load_end"],
        "table": rows, "checks_differ": diffs, "rounds": runs,
    }
    out = RESULTS / f"compare_{args.bench}.json"
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\n(written to {out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
