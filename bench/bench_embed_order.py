"""The order an index run embeds in, and the time left it shows, on whole real projects.

Each project is a pinned sdist indexed whole (library, tests, docs, examples: what a
user clones), cold, twice in the same run with one loaded model, the order alternating:

* ``before``: the order of a2f6d43 and earlier, replayed here: pages of 4,096 symbols in
  the table's order, each page's texts sorted by length across the page;
* ``now``: ``Index.embed_pending`` (``pending.embed_order``: source, then tests, then docs
  and examples; groups in file order, sorted by length inside each).

Reported per project and order: seconds until every source symbol has its vectors, until
every file holding a gold symbol of ``bench/eval/queries.json`` does (the first search
a user runs can answer semantically from there), and until the end; their ratios
(before / now: above 1, now is sooner). For ``now``, the honesty of the time left it
showed: at each tenth of the run (by symbols), the estimate against the time the run
then took, as the relative error (median and worst over 20-90%).

    python bench/bench_embed_order.py                      # click and requests
    python bench/bench_embed_order.py --projects click --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "server"))

from codeloupe.config import Settings  # noqa: E402
from codeloupe.embed import load_embedder  # noqa: E402
from codeloupe.index import Index  # noqa: E402
from codeloupe.pending import SOURCE, PendingPage, path_class  # noqa: E402
from eval_search import CACHE, QUERIES, _download, _extract  # noqa: E402

RESULTS = HERE / "results" / "bench_embed_order.json"


def whole_project(project: dict) -> Path:
    """The project's sdist unpacked whole (cached under bench/.cache/src/)."""
    fetch = project["fetch"]
    archive = _download(fetch, CACHE / "downloads")
    unpacked = CACHE / "src" / archive.name.removesuffix(".tar.gz").removesuffix(".tgz")
    if not (unpacked / fetch["top_dir"]).is_dir():
        _extract(archive, unpacked)
    return unpacked / fetch["top_dir"]


def embed_as_before(index: Index, on_commit) -> None:
    """The embedding loop of a2f6d43: table order, a page's texts sorted by length."""
    store, embedder = index.store, index.embedder
    while True:
        rows = store.pending(4096)
        if rows.num_rows == 0:
            break
        page = PendingPage(rows)
        known = store.cached_vectors(list(page.text_of))
        page.commit(store, known)
        new = [k for k in page.text_of if k not in known]
        lengths = embedder.count_tokens([page.text_of[k] or "" for k in new])
        new = [k for _, k in sorted(zip(lengths, new, strict=True), key=lambda t: t[0])]
        for start in range(0, len(new), 512):
            group = new[start : start + 512]
            vectors = embedder.embed([page.text_of[k] or "" for k in group])
            store.cache_vectors(group, vectors)
            known.update(zip(group, vectors, strict=True))
            page.commit(store, known)
            on_commit()


def one_run(root: Path, order: str, embedder, gold_files: set[str]) -> dict:
    work = Path(tempfile.mkdtemp(prefix="order-"))
    try:
        index = Index(root, Settings(index_uri=str(work / "idx")), embedder=embedder)
        index.sync_files()
        counts = index.store.pending_paths()
        total = sum(counts.values())
        kinds = {c: sum(n for p, n in counts.items() if path_class(p) == c) for c in range(3)}
        marks: dict[str, float] = {}
        shown: list[tuple[float, int, float | None]] = []  # (elapsed, done, eta)
        t0 = time.perf_counter()

        def look() -> None:
            left = index.store.pending_paths()
            now = time.perf_counter() - t0
            if "source" not in marks and not any(path_class(p) == SOURCE for p in left):
                marks["source"] = now
            if "gold" not in marks and not gold_files & set(left):
                marks["gold"] = now

        def progress(stage: str, done: int, total_: int, eta: float | None = None, /) -> None:
            shown.append((time.perf_counter() - t0, done, eta))
            look()

        if order == "before":
            embed_as_before(index, look)
        else:
            index.embed_pending(progress)
        end = time.perf_counter() - t0
        look()
        out = {"symbols": total, "source": kinds[0], "tests": kinds[1], "aside": kinds[2],
               "source_s": round(marks["source"], 2), "gold_s": round(marks["gold"], 2),
               "total_s": round(end, 2)}
        if order == "now":
            out["eta"] = eta_honesty(shown, end, total)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def eta_honesty(shown: list[tuple[float, int, float | None]], end: float, total: int) -> dict:
    """The estimate shown at each tenth of the symbols against the time the run then took."""
    errors: dict[int, float] = {}
    for elapsed, done, eta in shown:
        tenth = done * 10 // max(total, 1)
        if eta is None or tenth in errors or not 2 <= tenth <= 9:
            continue
        actual = end - elapsed
        errors[tenth] = (eta - actual) / actual if actual > 0 else 0.0
    values = [abs(e) for e in errors.values()]
    return {"by_tenth": {f"{k * 10}%": round(v, 3) for k, v in sorted(errors.items())},
            "median_abs": round(statistics.median(values), 3) if values else None,
            "worst_abs": round(max(values), 3) if values else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--projects", nargs="*", default=["click", "requests"])
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    projects = {p["name"]: p for p in json.loads(QUERIES.read_text())["projects"]}
    embedder = load_embedder()
    print(f"model {embedder.model_id}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    report: dict[str, list[dict]] = {}
    for name in args.projects:
        project = projects[name]
        root = whole_project(project)
        sub = project["source_subdir"].rstrip("/")
        gold_files = {f"{Path(sub).parent.as_posix()}/{g['path']}".lstrip("./")
                      for q in project["queries"] for g in q["gold"]}
        rows = []
        for r in range(args.rounds):
            orders = ("before", "now") if r % 2 == 0 else ("now", "before")
            got = {o: one_run(root, o, embedder, gold_files) for o in orders}
            b, n = got["before"], got["now"]
            row = {"round": r + 1, "before": b, "now": n,
                   "source_ratio": round(b["source_s"] / n["source_s"], 2),
                   "gold_ratio": round(b["gold_s"] / n["gold_s"], 2),
                   "total_ratio": round(b["total_s"] / n["total_s"], 2),
                   "load": round(os.getloadavg()[0], 2)}
            rows.append(row)
            print(f"{name} round {row['round']}: {n['symbols']} symbols ({n['source']} source, "
                  f"{n['tests']} tests, {n['aside']} docs/examples)")
            for label, key in (("source embedded", "source_s"), ("gold files embedded", "gold_s"),
                               ("all embedded", "total_s")):
                print(f"  {label:<20} before {b[key]:7.1f}s  now {n[key]:7.1f}s  "
                      f"before/now {b[key] / n[key]:5.2f}x")
            eta = n["eta"]
            print(f"  time left shown, relative error by tenth: {eta['by_tenth']} "
                  f"(median {eta['median_abs']}, worst {eta['worst_abs']}); load {row['load']}")
        report[name] = rows
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2))
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
