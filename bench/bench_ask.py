"""The time ``codeloupe ask`` takes to build a context, compared between two checkouts.

For each question about the indexed code, one process per version times
``build_context`` (retrieval, one graph hop, assembly under the budget; the
graph loaded beforehand, as the server holds it) and ``assemble`` alone on the
retrieved candidates, ``--repeat`` times after one warm-up. The versions run in
alternating processes (``--rounds`` of old, new) on the same index, so drift
of a shared machine falls on both; the figures are the medians per question,
summed. Each version also reports the snippets it chose, and the run fails if
the two versions built different contexts (unless ``--changed``: a retrieval change
that chooses other snippets on purpose, reported).

    .venv/bin/python bench/bench_ask.py --against /tmp/base/server            # this repository
    .venv/bin/python bench/bench_ask.py --against /tmp/base/server --root DIR --rounds 5

``--against`` is the other checkout's ``server/`` folder (``git worktree add`` or
``git archive`` of a commit). The root is indexed first (default: a copy of this
repository's files at HEAD under bench/.cache/bench_ask/). No model is called.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("LANCE_LOG", "error")

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DEFAULT_ROOT = BENCH / ".cache" / "bench_ask" / "codeloupe"

QUESTIONS = [
    "How does build_context choose the snippets that fit under the token budget?",
    "What does Index.update do with a file whose content hash did not change?",
    "How does the language server debounce document changes before re-embedding?",
    "How is a call through self.method resolved to the method of the class?",
    "How does the LLM client stop an answer when the deadline passes?",
    "How does the Searcher fuse vector and full text results?",
    "What happens when the index schema version does not match the code?",
    "How is a symbolic link out of the repository root refused when reading a file?",
    "How does the call hierarchy find the incoming calls of a function?",
    "Which citations of an answer count as verified?",
]


def child(args: argparse.Namespace) -> int:
    """Time one version (whichever ``codeloupe`` is importable) and print JSON."""
    import codeloupe
    from codeloupe import ask as A
    from codeloupe.config import Settings
    from codeloupe.graph import Graph
    from codeloupe.index import Index

    settings = Settings()
    index = Index(Path(args.root), settings)
    try:  # the graph package's store adapter; older checkouts had it on Graph
        from codeloupe.graph_store import graph_from_store
    except ImportError:
        graph_from_store = Graph.from_store
    graph = graph_from_store(index.store)
    reader = getattr(A, "disk_reader", None) or A._disk_reader  # the name before ask/ was a package
    out: dict = {"code": str(Path(codeloupe.__file__).parent), "questions": []}
    for q in QUESTIONS:
        build, assemble = [], []
        for i in range(args.repeat + 1):
            t0 = time.perf_counter()
            ctx = A.build_context(q, index, settings, graph=graph)
            t1 = time.perf_counter()
            ranked = A.retrieve(q, index, graph)
            t2 = time.perf_counter()
            A.assemble(ranked, graph, reader(index.root), settings.ask_context_tokens)
            t3 = time.perf_counter()
            if i:  # the first run warms caches (the embedder, LanceDB's files)
                build.append(t1 - t0)
                assemble.append(t3 - t2)
        out["questions"].append({
            "q": q, "build_s": build, "assemble_s": assemble, "tokens": ctx.tokens,
            "snippets": [[s.id, s.start_line, s.end_line, len(s.lines)] for s in ctx.snippets]})
    json.dump(out, sys.stdout)
    return 0


def _run_version(server: Path | None, root: Path, repeat: int) -> dict:
    env = dict(os.environ)
    if server is not None:
        env["PYTHONPATH"] = str(server) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, __file__, "--child", "--root", str(root),
                           "--repeat", str(repeat)], capture_output=True, text=True, env=env,
                          check=False)
    if proc.returncode != 0:
        raise SystemExit(f"bench_ask: the run of {server or 'this checkout'} failed:\n"
                         f"{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def _prepare_root(root: Path) -> None:
    """This repository's tracked files at HEAD, once, then the index brought up to date."""
    if root == DEFAULT_ROOT and not root.is_dir():
        root.mkdir(parents=True)
        with tempfile.TemporaryFile() as tar:
            subprocess.run(["git", "-C", str(REPO), "archive", "HEAD"], stdout=tar, check=True)
            tar.seek(0)
            subprocess.run(["tar", "-x", "-C", str(root)], stdin=tar, check=True)
    from codeloupe.config import Settings
    from codeloupe.index import Index

    t0 = time.perf_counter()
    report = Index(root, Settings()).update()
    print(f"index of {root} up to date in {time.perf_counter() - t0:.1f}s: {report}",
          file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="the other checkout's server/ folder")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--changed", action="store_true", help="the versions choose different "
                        "contexts on purpose (a change of retrieval): report, do not fail")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    if args.against is None:
        parser.error("--against is required (the other checkout's server/ folder)")
    _prepare_root(args.root)
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for r in range(args.rounds):
        for name, server in (("old", args.against.resolve()), ("new", None)):
            runs[name].append(_run_version(server, args.root, args.repeat))
            print(f"round {r + 1}/{args.rounds}: {name} ({runs[name][-1]['code']}) done",
                  file=sys.stderr)
    contexts = {name: [(q["tokens"], q["snippets"]) for q in rs[0]["questions"]]
                for name, rs in runs.items()}
    same = contexts["old"] == contexts["new"]
    report: dict = {"root": str(args.root), "rounds": args.rounds, "repeat": args.repeat,
                    "same_contexts": same}
    for key in ("build_s", "assemble_s"):
        sums = {}
        for name, rs in runs.items():
            per_q = [statistics.median([t for run in rs for t in run["questions"][i][key]])
                     for i in range(len(QUESTIONS))]
            sums[name] = sum(per_q)
        report[key] = {"old": round(sums["old"], 4), "new": round(sums["new"], 4),
                       "new/old": round(sums["new"] / sums["old"], 3)}
    print(json.dumps(report, indent=1))
    if not same:
        for i, q in enumerate(QUESTIONS):
            if contexts["old"][i] != contexts["new"][i]:
                print(f"different contexts for: {q}", file=sys.stderr)
        return 0 if args.changed else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
