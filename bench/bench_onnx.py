"""The ONNX Runtime int8 backend against torch, in the same run (the machines are noisy).

On symbol texts of the Python standard library (each symbol's embedded text and,
for a long one, its summary, as the index embeds them):

* the one-off export + int8 quantization time (into a fresh cache folder), and the
  load time once cached;
* throughput of torch (sentence-transformers) and onnx int8, alternating rounds,
  and their ratio per round (onnx / torch; above 1: onnx is faster), with the load
  average around each round;
* cosine between the two backends' vectors of the same texts (mean, min, 1st
  percentile).

* with ``--index-files N``: a cold ``codeloupe index`` of the first N stdlib files
  (tests left out), whole commands as a user runs them, once with ``--backend torch``
  and once with the default (``auto``: onnx) per round, the order alternating; the
  ratio of their wall times per round, and then the time ``auto`` takes to open the
  index torch built (it compares 32 symbols' vectors and keeps it, embedding nothing).

Search quality is measured by bench/eval_search.py
(``--systems hybrid vector hybrid_torch vector_torch hybrid_kept``: both backends and
the kept index in the same run).

    python bench/bench_onnx.py                  # 1000 texts, 3 rounds
    python bench/bench_onnx.py --texts 300 --rounds 1
    python bench/bench_onnx.py --texts 0 --index-files 200 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
SKIP = {"test", "tests", "idle_test", "site-packages", "__pycache__"}


def stdlib_texts(n: int, seed: int = 7) -> list[str]:
    """``n`` distinct texts the index would embed, from random stdlib files."""
    from codeloupe.embed import embed_text, summary_text
    from codeloupe.extract import extract

    src = Path(sysconfig.get_paths()["stdlib"])
    files = [p for p in sorted(src.rglob("*.py"))
             if not any(x in SKIP or x.startswith("test_") for x in p.relative_to(src).parts)]
    random.Random(seed).shuffle(files)
    texts: dict[str, None] = {}
    for path in files:
        try:
            fx = extract(str(path.relative_to(src)), path.read_bytes(), "python")
        except Exception:  # a file the extractor refuses: skip it
            continue
        for sym in fx.symbols:
            body = embed_text(sym)
            texts[body] = None
            texts[summary_text(sym, body)] = None
        if len(texts) >= n:
            break
    return list(texts)[:n]


def copy_stdlib(dest: Path, n: int) -> int:
    """The first ``n`` stdlib files (no tests) copied under ``dest``; their lines."""
    src = Path(sysconfig.get_paths()["stdlib"])
    files = [p for p in sorted(src.rglob("*.py"))
             if not any(x in SKIP or x.startswith("test_") for x in p.relative_to(src).parts)]
    lines = 0
    for path in files[:n]:
        target = dest / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
        lines += path.read_bytes().count(b"\n")
    return lines


def _index(root: Path, backend: str | None) -> tuple[float, dict]:
    cmd = [sys.executable, "-m", "codeloupe", "index", "-q", "--json", str(root)]
    if backend:
        cmd[4:4] = ["--backend", backend]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    return wall, json.loads(proc.stdout)


def index_rounds(n_files: int, rounds: int) -> dict:
    """Cold CLI index of ``n_files`` stdlib files on torch and on auto, alternating."""
    work = Path(tempfile.mkdtemp(prefix="bench-onnx-index-"))
    try:
        lines = copy_stdlib(work / "lib", n_files)
        rows = []
        for r in range(rounds):
            row: dict[str, float] = {}
            order = ("torch", "auto") if r % 2 == 0 else ("auto", "torch")
            for backend in order:
                shutil.rmtree(work / "lib" / ".codeloupe", ignore_errors=True)
                load0 = os.getloadavg()[0]
                wall, rep = _index(work / "lib", backend)
                row[backend] = wall
                row[f"load_{backend}"] = round((load0 + os.getloadavg()[0]) / 2, 2)
                row["symbols"] = rep["symbols"]
                row[f"texts_{backend}"] = rep["embeddings_computed"]
            row["ratio"] = row["torch"] / row["auto"]
            rows.append(row)
            print(f"index round {r + 1} ({' then '.join(order)}): torch {row['torch']:.1f}s "
                  f"(load {row['load_torch']}), auto {row['auto']:.1f}s (load "
                  f"{row['load_auto']}) -> {row['ratio']:.2f}x; {row['symbols']} symbols, "
                  f"{row['texts_auto']} texts")
        # the index torch built, opened by auto: compared and kept
        shutil.rmtree(work / "lib" / ".codeloupe", ignore_errors=True)
        _index(work / "lib", "torch")
        kept_wall, kept = _index(work / "lib", None)
        print(f"auto on the index torch built: {kept_wall:.1f}s, "
              f"{kept['embeddings_computed']} texts embedded, rebuilt: {kept.get('rebuilt')}")
        return {"files": n_files, "lines": lines, "rounds": [
            {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}
            for row in rows],
            "ratio_median": round(statistics.median(r["ratio"] for r in rows), 3),
            "kept_open_s": round(kept_wall, 2),
            "kept_embedded": kept["embeddings_computed"], "kept_rebuilt": kept.get("rebuilt")}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--texts", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--index-files", type=int, default=0,
                    help="also cold-index this many stdlib files on both backends")
    ap.add_argument("--out", default=str(RESULTS / "bench_onnx.json"))
    args = ap.parse_args()
    if args.texts <= 0:
        report = {"cpu_count": os.cpu_count(), "python": sys.version.split()[0],
                  "index": index_rounds(args.index_files, args.rounds)}
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"report: {out}")
        return 0

    import numpy as np

    from codeloupe.embed import load_embedder

    texts = stdlib_texts(args.texts)
    chars = sum(map(len, texts))
    print(f"{len(texts)} stdlib symbol texts, {chars / len(texts):.0f} chars on average")

    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        onnx = load_embedder("default", backend="onnx", cache_dir=cache)
        first_load = time.perf_counter() - t
        meta = json.loads((onnx.path.parent / "meta.json").read_text())
        t = time.perf_counter()
        onnx = load_embedder("default", backend="onnx", cache_dir=cache)
        cached_load = time.perf_counter() - t
        size_mb = onnx.path.stat().st_size / 1e6
    print(f"export + int8 quantization (one-off): {meta['export_s']:.1f}s "
          f"(first load {first_load:.1f}s); load when cached {cached_load:.2f}s; "
          f"file {size_mb:.1f} MB")

    t = time.perf_counter()
    torch = load_embedder("default", backend="torch")
    torch_load = time.perf_counter() - t
    tokens = sum(torch.count_tokens(texts))
    print(f"torch load {torch_load:.1f}s; {tokens} tokens in all (cut at {torch.max_tokens})")

    torch.embed(texts[:32])  # warm up both (first-call allocations)
    onnx.embed(texts[:32])
    rounds = []
    vec_t = vec_o = None
    for r in range(args.rounds):
        row: dict[str, float] = {}
        pair = (("torch", torch), ("onnx", onnx)) if r % 2 == 0 else (("onnx", onnx), ("torch", torch))
        for name, emb in pair:
            load0 = os.getloadavg()[0]
            t = time.perf_counter()
            vecs = emb.embed(texts)
            row[name] = len(texts) / (time.perf_counter() - t)
            row[f"load_{name}"] = round((load0 + os.getloadavg()[0]) / 2, 2)
            if name == "torch":
                vec_t = vecs
            else:
                vec_o = vecs
        row["ratio"] = row["onnx"] / row["torch"]
        rounds.append(row)
        print(f"round {r + 1}: torch {row['torch']:.1f} texts/s (load {row['load_torch']}), "
              f"onnx int8 {row['onnx']:.1f} texts/s (load {row['load_onnx']}) "
              f"-> ratio {row['ratio']:.2f}")

    cos = (vec_t * vec_o).sum(axis=1)
    queries = ["parse a date string", "read a zip archive member", "retry after a socket timeout"]
    q_cos = [float(onnx.embed_query(q) @ torch.embed_query(q)) for q in queries]
    ratio = statistics.median(r["ratio"] for r in rounds)
    print(f"throughput ratio onnx/torch: median {ratio:.2f} over {len(rounds)} rounds")
    print(f"cosine onnx vs torch over {len(texts)} texts: mean {cos.mean():.4f}, "
          f"min {cos.min():.4f}, 1st percentile {np.quantile(cos, 0.01):.4f}; "
          f"queries {min(q_cos):.4f}-{max(q_cos):.4f}")
    # top-1 agreement: for each text's vector, is its nearest other text the same?
    sims_t, sims_o = vec_t @ vec_t.T, vec_o @ vec_o.T
    np.fill_diagonal(sims_t, -2)
    np.fill_diagonal(sims_o, -2)
    nn_agree = float((sims_t.argmax(1) == sims_o.argmax(1)).mean())
    print(f"nearest neighbour among the texts the same under both: {nn_agree:.3f}")

    report = {
        "texts": len(texts), "tokens": tokens, "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "export_s": meta["export_s"], "first_load_s": round(first_load, 2),
        "cached_load_s": round(cached_load, 2), "torch_load_s": round(torch_load, 2),
        "onnx_file_mb": round(size_mb, 1), "versions": meta["versions"],
        "rounds": [{k: round(v, 3) for k, v in r.items()} for r in rounds],
        "ratio_median": round(ratio, 3),
        "cosine": {"mean": round(float(cos.mean()), 4), "min": round(float(cos.min()), 4),
                   "p01": round(float(np.quantile(cos, 0.01)), 4),
                   "queries_min": round(min(q_cos), 4)},
        "nearest_neighbour_agreement": round(nn_agree, 3),
    }
    if args.index_files:
        report["index"] = index_rounds(args.index_files, args.rounds)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
