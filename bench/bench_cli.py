"""Wall time of CLI commands from a cold process, against bare interpreter start and
``import lancedb`` in the same run, optionally against another checkout (before/after).

A corpus of a few standard-library modules (json, http, argparse, textwrap, shlex,
difflib, tokenize: 15 files, 600 symbols) is copied to ``bench/.cache/cli/<side>/`` and
indexed with embeddings (the onnx backend unless ``--backend torch``) by each side's own
code; then every command runs once to warm up (the saved call graph, the page cache,
the exported onnx model) and ``--rounds`` times measured. In each round the commands
run one after the other, each on both sides (A B, then B A in the next round), so a
drift of the machine weighs on both alike. Reported: the median wall time of each
command, its ratio to ``python -c pass`` and to ``python -c "import lancedb"`` (both
measured in the same rounds), and with ``--before`` the speed-up before/after.

    python bench/bench_cli.py                                # this checkout alone
    python bench/bench_cli.py --before /work/wt/i14-base     # and another, same run
    python bench/bench_cli.py --rounds 9 --backend torch     # search on torch (slow)

Each side runs ``python -m codeloupe`` with ``PYTHONPATH=<checkout>/server`` (checked:
``codeloupe`` must import from there). Results: printed, and with every run's times in
``bench/results/bench_cli.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache" / "cli"
RESULTS = HERE / "results"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
CORPUS = ["json", "http", "argparse.py", "textwrap.py", "shlex.py", "difflib.py", "tokenize.py"]
QUERY = "wrap a paragraph of text to a given width"
FTS_QUERY = "split a shell command line"

# name → arguments after ``codeloupe`` ({root}: the side's corpus)
COMMANDS: dict[str, list[str]] = {
    # the first after the last round's writes (a touched file's update) reads every table;
    # the next answers from that read while the tables are as it saw (statusfile)
    "status, tables written since": ["status", "{root}"],
    "status": ["status", "{root}"],
    "calls": ["calls", "--root", "{root}", "TextWrapper._wrap_chunks"],
    # the same after the mtime of a file changed: the index is opened and updated
    "calls, a file touched": ["calls", "--root", "{root}", "TextWrapper._wrap_chunks"],
    "path": ["path", "--root", "{root}", "wrap", "TextWrapper._wrap_chunks"],
    "graph": ["graph", "--root", "{root}"],
    "search": ["search", "--root", "{root}", QUERY],
    "search --mode fts": ["search", "--root", "{root}", "--mode", "fts", FTS_QUERY],
}
TARGETS = {"status": 0.5, "calls": 0.5, "search": 1.0}  # warm, quiet machine (the issue's)


def _env(checkout: Path | None, backend: str) -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "LANCE_LOG": "error", "CODELOUPE_EMBEDDING_BACKEND": backend}
    env.pop("PYTHONPATH", None)
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout / "server")
    return env


def _check_import(checkout: Path, env: dict[str, str]) -> None:
    out = subprocess.run([sys.executable, "-c", "import codeloupe; print(codeloupe.__file__)"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    if not Path(out).resolve().is_relative_to((checkout / "server").resolve()):
        sys.exit(f"codeloupe imports from {out}, not from {checkout}/server")


def _corpus(side: str) -> Path:
    root = CACHE / side / "corpus"
    shutil.rmtree(root.parent, ignore_errors=True)
    root.mkdir(parents=True)
    for name in CORPUS:
        src = STDLIB / name
        if src.is_dir():
            shutil.copytree(src, root / name, ignore=shutil.ignore_patterns("__pycache__", "test*"))
        else:
            shutil.copy2(src, root / name)
    return root


def _run(argv: list[str], env: dict[str, str], touch: Path | None = None) -> float:
    if touch is not None:
        os.utime(touch, ns=(time.time_ns(), time.time_ns()))
    t0 = time.perf_counter()
    out = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    took = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({out.returncode}): {out.stderr.decode()[-2000:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout, measured in the same run")
    parser.add_argument("--after", type=Path, default=HERE.parent, help="this checkout (default)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--backend", choices=["onnx", "torch"], default="onnx")
    args = parser.parse_args()

    sides = {"after": args.after.resolve()}
    if args.before:
        sides = {"before": args.before.resolve(), **sides}
    envs = {side: _env(path, args.backend) for side, path in sides.items()}
    for side, path in sides.items():
        _check_import(path, envs[side])
    roots: dict[str, Path] = {}
    for side in sides:
        roots[side] = _corpus(side)
        t0 = time.perf_counter()
        _run([sys.executable, "-m", "codeloupe", "index", "-q", str(roots[side])], envs[side])
        print(f"{side}: indexed {roots[side]} with embeddings ({args.backend}) in "
              f"{time.perf_counter() - t0:.1f}s", file=sys.stderr)

    bare_env = _env(None, args.backend)
    runs: dict[str, tuple[list[str], dict[str, str], Path | None]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], bare_env, None),
        "import lancedb": ([sys.executable, "-c", "import lancedb"], bare_env, None),
    }
    for name, argv in COMMANDS.items():
        for side in sides:
            full = [sys.executable, "-m", "codeloupe", *(a.format(root=roots[side]) for a in argv)]
            touch = roots[side] / "textwrap.py" if "touched" in name else None
            runs[f"{name} [{side}]"] = (full, envs[side], touch)

    for run in runs.values():  # warm up: saved graph, page cache, exported model
        _run(*run)
    times: dict[str, list[float]] = {key: [] for key in runs}
    order = list(sides)
    for r in range(args.rounds):
        for key in ("python -c pass", "import lancedb"):
            times[key].append(_run(*runs[key]))
        for name in COMMANDS:
            for side in (order if r % 2 == 0 else order[::-1]):
                key = f"{name} [{side}]"
                times[key].append(_run(*runs[key]))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    med = {key: statistics.median(v) for key, v in times.items()}
    bare, lance = med["python -c pass"], med["import lancedb"]
    print(f"\nmedian of {args.rounds} rounds; bare interpreter {bare:.3f}s, "
          f"import lancedb {lance:.3f}s; search backend {args.backend}\n")
    head = "| command | " + " | ".join(
        f"{side} s | {side} ×bare | {side} ×lancedb" for side in sides)
    head += " | speed-up |" if "before" in sides else " |"
    print(head)
    print("|" + "---|" * (1 + 3 * len(sides) + ("before" in sides)))
    for name in COMMANDS:
        cells = []
        for side in sides:
            t = med[f"{name} [{side}]"]
            cells.append(f"{t:.3f} | {t / bare:.1f} | {t / lance:.2f}")
        row = f"| {name} | " + " | ".join(cells)
        if "before" in sides:
            row += f" | {med[f'{name} [before]'] / med[f'{name} [after]']:.2f}×"
        target = TARGETS.get(name)
        if target is not None:
            row += f" (target ≤ {target} s: {'met' if med[f'{name} [after]'] <= target else 'missed'})"
        print(row + " |")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "bench_cli.json"
    out.write_text(json.dumps({"rounds": args.rounds, "backend": args.backend,
                               "sides": {s: str(p) for s, p in sides.items()},
                               "median_s": med, "times_s": times}, indent=1))
    print(f"\nevery run: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
