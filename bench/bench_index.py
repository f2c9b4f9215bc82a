"""Indexing and search speed on the Python standard library (Lib/ without tests).

Everything is measured in one run, and speeds are reported against a baseline
measured in the same run (the machines are noisy):

* cold index: time until symbols + full text are searchable, then the whole index,
  as symbols/second and as a ratio to the bare embedding throughput of the same
  texts with the same model (``--bare-sample`` of them, token-sorted batches);
* warm start with nothing changed; one-file change re-index;
* search latency p50/p95 once the model is loaded (hybrid, vector, full text);
* peak RSS.

    python bench/bench_index.py                 # the whole stdlib (about 10 minutes)
    python bench/bench_index.py --limit 150     # the first 150 files, for a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import sys
import sysconfig
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LANCE_LOG", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
RESULTS = HERE / "results"
SKIP = {"test", "tests", "idle_test", "site-packages", "__pycache__"}

QUERIES = [
    "parse a date string into a datetime", "read a zip archive member", "retry after a socket timeout",
    "quote a string for the shell", "compute a checksum of a file", "walk a directory tree",
    "encode bytes as base64", "send an email over smtp", "parse command line options",
    "format a traceback", "decompress gzip data", "start an http server", "Popen.communicate",
    "TextWrapper.wrap", "json decoder error position", "split a path into drive and tail",
    "thread pool executor shutdown", "lock acquire with timeout", "urlencode query parameters",
    "guess the mime type of a file", "read a config file with sections", "copy file metadata",
    "pretty print nested data", "random sample without replacement", "heap push and pop",
    "lru cache decorator", "tokenize python source", "abstract base class registration",
    "temporary directory cleanup", "csv reader dialect sniffing",
]


def copy_stdlib(dest: Path, limit: int | None) -> Path:
    src = Path(sysconfig.get_paths()["stdlib"])
    if dest.exists():
        shutil.rmtree(dest)
    files = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src)
        if any(part in SKIP or part.startswith("test_") for part in rel.parts):
            continue
        files.append((path, rel))
    if limit:
        files = files[:limit]
    for path, rel in files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    return dest


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, help="only the first N files")
    ap.add_argument("--bare-sample", type=int, default=0,
                    help="texts embedded bare for the baseline throughput (0 = all)")
    ap.add_argument("--out", default=str(RESULTS / "bench_index.json"))
    args = ap.parse_args()

    from codeloupe.config import Settings
    from codeloupe.embed import load_embedder
    from codeloupe.index import Index
    from codeloupe.search import Searcher

    corpus = copy_stdlib(CACHE / "stdlib", args.limit)
    n_files = sum(1 for _ in corpus.rglob("*.py"))
    size_mb = sum(p.stat().st_size for p in corpus.rglob("*.py")) / 1e6
    print(f"corpus: {n_files} files, {size_mb:.1f} MB (stdlib {sys.version.split()[0]})")

    t = time.perf_counter()
    embedder = load_embedder("default")
    model_load = time.perf_counter() - t

    # --- cold index: phase 1 (symbols + full text), then embeddings
    t0 = time.perf_counter()
    index = Index(corpus, Settings(), embedder=embedder)
    report = index.sync_files()
    to_symbols = time.perf_counter() - t0
    rss_symbols = peak_rss_mb()
    pending = index.store.pending(None).to_pydict()
    by_key = dict(zip(pending["embed_key"], pending["embed_text"], strict=True))
    by_key.update(zip(pending["summary_key"], pending["summary_text"], strict=True))
    texts = list(by_key.values())  # every distinct text the index embeds: bodies and summaries
    del pending, by_key
    index.embed_pending(report=report)
    cold = time.perf_counter() - t0
    n_symbols = report.symbols
    print(f"cold index: {n_symbols} symbols; symbols + full text usable after {to_symbols:.1f}s; "
          f"all embedded after {cold:.1f}s ({report.embeddings_computed} computed, "
          f"{report.embeddings_reused} reused); peak RSS after the symbol phase {rss_symbols:.0f} MB")

    # --- the baseline: bare embedding of the same texts, same model, same run
    sample = texts if not args.bare_sample or args.bare_sample >= len(texts) else \
        random.Random(7).sample(texts, args.bare_sample)
    t = time.perf_counter()
    embedder.embed(sample)
    bare = time.perf_counter() - t
    bare_rate = len(sample) / bare
    index_rate = report.embeddings_computed / cold
    ratio = index_rate / bare_rate
    print(f"throughput: index {index_rate:.1f} texts/s, bare embedding "
          f"{bare_rate:.1f} texts/s on {len(sample)} of the same texts -> ratio {ratio:.2f} (goal >= 0.85)")
    print(f"  (peak RSS so far {peak_rss_mb():.0f} MB)")

    # --- warm start, nothing changed
    warm = []
    for _ in range(3):
        t = time.perf_counter()
        Index(corpus, Settings(), embedder=embedder).update()
        warm.append(time.perf_counter() - t)
    print(f"warm start, nothing changed: median {statistics.median(warm):.2f}s (goal < 2s)")

    # --- one-file change
    target = sorted(corpus.rglob("*.py"), key=lambda p: p.stat().st_size)[n_files // 2]
    one = []
    for i in range(5):
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(f"\n\ndef bench_added_{i}(value):\n    return value * {i}\n")
        t = time.perf_counter()
        index.update()
        one.append(time.perf_counter() - t)
    print(f"one-file change ({target.relative_to(corpus)}): median {statistics.median(one):.3f}s, "
          f"max {max(one):.3f}s (goal < 0.5s)")

    # --- search latency
    searcher = Searcher(index)

    def latency(modes: tuple[str, ...], label: str) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for mode in modes:
            runs = []
            for q in QUERIES * 2:
                t = time.perf_counter()
                searcher.search(q, 10, mode=mode)
                runs.append((time.perf_counter() - t) * 1000)
            out[mode] = runs
            print(f"search {mode:<6}{label}: p50 {pct(runs, .5):.1f} ms, p95 {pct(runs, .95):.1f} ms")
        return out

    index.store.optimize()
    latencies = latency(("hybrid", "vector", "fts"), "")
    print(f"  (peak RSS so far {peak_rss_mb():.0f} MB)")

    # --- the live path: many one-file upserts leave unindexed rows until optimize()
    files = sorted(corpus.rglob("*.py"))[:40]
    for i, path in enumerate(files):
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"\n\ndef live_edit_{i}(x):\n    return x + {i}\n")
        index.sync_files()  # what an editor save does, without the full-text refresh policy
    unindexed = index.store.unindexed_rows()
    after_upserts = latency(("hybrid", "fts"), f" after 40 upserts ({unindexed} unindexed rows)")
    t = time.perf_counter()
    index.store.optimize()
    optimize_s = time.perf_counter() - t
    after_optimize = latency(("hybrid", "fts"), f" after optimize() ({optimize_s:.2f}s)")

    rss = peak_rss_mb()
    size = index.store.size_bytes() or 0
    print(f"peak RSS {rss:.0f} MB (goal < 1500); index on disk {size / 1e6:.0f} MB; model load {model_load:.1f}s")

    out = {
        "files": n_files, "mb": size_mb, "symbols": n_symbols,
        "seconds_to_symbols": to_symbols, "cold_seconds": cold,
        "embeddings_computed": report.embeddings_computed,
        "index_symbols_per_s": index_rate, "bare_texts_per_s": bare_rate, "ratio": ratio,
        "bare_sample": len(sample), "warm_seconds": warm, "one_file_seconds": one,
        "search_ms": {m: {"p50": pct(v, .5), "p95": pct(v, .95)} for m, v in latencies.items()},
        "search_ms_after_40_upserts": {m: {"p50": pct(v, .5), "p95": pct(v, .95)}
                                       for m, v in after_upserts.items()},
        "search_ms_after_optimize": {m: {"p50": pct(v, .5), "p95": pct(v, .95)}
                                     for m, v in after_optimize.items()},
        "optimize_seconds": optimize_s, "unindexed_rows_after_upserts": unindexed,
        "peak_rss_mb": rss, "index_mb": size / 1e6,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
