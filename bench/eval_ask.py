"""Multi-hop retrieval for `codeloupe ask`, measured on code we did not write.

The questions of ``bench/eval/ask_questions.json`` each need several functions
(a route, the helper it calls, the call that helper makes); their gold is the set
of symbols an answer needs, chosen by reading the code. For each question and
token budget this measures the share of needed symbols that reach the context
sent to the model, for:

* ``ask``          codeloupe ask's retrieval: named identifiers looked up exactly,
                   hybrid search, one-hop graph expansion, assembled under the budget
* ``ask_no_graph`` the same without the graph expansion (ablation)
* ``topk``         plain top-k hybrid search (``codeloupe search``), its hits in rank
                   order, assembled the same way under the same budget

A gold symbol has reached the context when at least half of its lines (or 40
lines of it) are in the snippets sent. Every system is rendered and counted by
the same code (``codeloupe.ask.assemble``, the estimate of ``ceil(chars / 3)``
tokens), so only what is retrieved differs. No model is called.

The code is the pinned releases of ``bench/eval/queries.json``, fetched and
unpacked by ``bench/eval_search.py``'s code; the index roots live under
``bench/.cache/ask_roots/`` (seeded with eval_search's index when it exists, so
embeddings are reused). Each question has a split: ``tune`` (requests, click,
httpx: the questions the retrieval and its weights were chosen on) or
``heldout`` (commander, query-core: written afterwards, never tuned on); the
figures are reported per split as well as overall.

    /work/venv/bin/python bench/eval_ask.py                    # budgets 3000 and 6000
    /work/venv/bin/python bench/eval_ask.py --budgets 6000 -v  # per question, what is missing
    /work/venv/bin/python bench/eval_ask.py --splits heldout   # only the held-out questions

The JSON report goes to bench/results/eval_ask.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("LANCE_LOG", "error")

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import eval_search as ES  # noqa: E402 - the fetch code of the search evaluation

QUESTIONS = BENCH / "eval" / "ask_questions.json"
# one project a file, beside it: {"name", "corpus" (a bench/robust_corpus.py project, fetched
# and unpacked by its code), "split", "questions"}
MORE_QUESTIONS = "ask_questions_*.json"
RESULTS = BENCH / "results" / "eval_ask.json"
SYSTEMS = ("ask", "ask_no_graph", "topk")
REACHED_SHARE = 0.5
REACHED_LINES = 40
DEFAULT_SPLIT = "tune"


def question_split(project: dict, q: dict) -> str:
    """A question's own split, else its project's, else tune."""
    return q.get("split") or project.get("split") or DEFAULT_SPLIT


def summarize(shares: dict, tokens: dict, lines: dict) -> dict:
    """{"system@budget": {...}} from per-question shares, context tokens and lines sent
    (sent, of tests/examples/docs, sent twice)."""
    out = {}
    for (s, b), v in shares.items():
        if not v:
            continue
        sent = sum(x[0] for x in lines[(s, b)]) or 1
        out[f"{s}@{b}"] = {
            "needed_symbols_reached": round(sum(v) / len(v), 3),
            "questions_complete": f"{sum(x == 1.0 for x in v)}/{len(v)}",
            "mean_context_tokens": round(sum(tokens[(s, b)]) / len(tokens[(s, b)])),
            "test_lines_share": round(sum(x[1] for x in lines[(s, b)]) / sent, 3),
            "duplicate_lines_share": round(sum(x[2] for x in lines[(s, b)]) / sent, 3)}
    return out


def lines_sent(ctx) -> tuple[int, int, int]:
    """(lines sent, lines of tests/examples/docs, lines sent twice) of a context."""
    from codeloupe.pending import SOURCE, path_class

    total = aside = 0
    seen: set[tuple[str, int]] = set()
    dups = 0
    for snip in ctx.snippets:
        nums = [n for n, _ in snip.lines if n]
        total += len(nums)
        if path_class(snip.path) != SOURCE:
            aside += len(nums)
        for n in nums:
            if (snip.path, n) in seen:
                dups += 1
            seen.add((snip.path, n))
    return total, aside, dups


def load_projects() -> list[dict]:
    """Every project with its questions: ask_questions.json, then one file a project."""
    projects = json.loads(QUESTIONS.read_text(encoding="utf-8"))["projects"]
    for extra in sorted(QUESTIONS.parent.glob(MORE_QUESTIONS)):
        projects.append(json.loads(extra.read_text(encoding="utf-8")))
    return projects


def prepare_corpus_root(name: str, cache: Path) -> Path:
    """A robust_corpus project's source under ask_roots/, made once and kept (its index
    with it)."""
    import robust_corpus as rc

    roots = cache / "ask_roots"
    root = roots / name
    if not root.is_dir() or not any(p.name != ".codeloupe" for p in root.iterdir()):
        root = rc.prepare(rc.BY_NAME[name], roots=roots).root
    return root


def prepare_root(project: dict, cache: Path) -> Path:
    """The project's library source under ask_roots/, made once and kept."""
    fetch = project["fetch"]
    root = cache / "ask_roots" / f"{project['name']}-{fetch['version']}"
    target = root / Path(project["source_subdir"]).name
    if target.is_dir():
        return root
    archive = ES._download(fetch, cache / "downloads")
    unpacked = cache / "src" / archive.name.removesuffix(".tar.gz").removesuffix(".tgz")
    if not (unpacked / fetch["top_dir"]).is_dir():
        ES._extract(archive, unpacked)
    source = unpacked / fetch["top_dir"] / project["source_subdir"]
    root.mkdir(parents=True, exist_ok=True)
    seed = cache / "roots" / f"{project['name']}-{fetch['version']}" / ".codeloupe"
    if seed.is_dir() and not (root / ".codeloupe").exists():
        shutil.copytree(seed, root / ".codeloupe")  # same files, same mtimes: reused
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(
        "__pycache__", "*.pyc", *project.get("exclude", [])))
    return root


def gold_ranges(index, gold: list[dict]) -> list[tuple[str, list[tuple[int, int]]]]:
    """(label, line ranges) per gold symbol; stops on a gold symbol not in the code."""
    from codeloupe.store import sql_in

    rows = index.store.symbols.search().where(
        sql_in("path", sorted({g["path"] for g in gold}))).select(
        ["path", "qualified_name", "start_line", "end_line"]).limit(None).to_list()
    out = []
    for g in gold:
        ranges = [(r["start_line"], r["end_line"]) for r in rows
                  if r["path"] == g["path"] and r["qualified_name"] == g["qualified_name"]]
        if not ranges:
            raise ES.EvalError(f"gold symbol not in the code: {g['path']}::{g['qualified_name']}")
        out.append((f"{g['path']}::{g['qualified_name']}", ranges))
    return out


def reached(shown: dict[str, set[int]], path: str, ranges: list[tuple[int, int]]) -> bool:
    lines = shown.get(path, set())
    for start, end in ranges:
        n = end - start + 1
        got = sum(1 for i in range(start, end + 1) if i in lines)
        if got >= min(REACHED_LINES, max(1, int(n * REACHED_SHARE + 0.999))):
            return True
    return False


def topk_candidates(question: str, index, graph, k: int = 60):
    from codeloupe import ask as A
    from codeloupe.search import Searcher

    out = []
    for h in Searcher(index).search(question, k).results:
        info = graph.symbols.get(h.id)
        c = A.Candidate.of(info) if info is not None else A.Candidate(
            h.id, h.path, h.qualified_name, h.kind, h.start_line, h.end_line, None)
        c.score = h.score
        c.why = ["search"]
        out.append(c)
    return out


def run(args: argparse.Namespace) -> dict:
    from codeloupe import ask as A
    from codeloupe.config import Settings
    from codeloupe.graph_store import graph_from_store
    from codeloupe.index import Index

    projects = load_projects()
    fetches = {p["name"]: p for p in json.loads(ES.QUERIES.read_text(encoding="utf-8"))["projects"]}
    report: dict = {"budgets": args.budgets, "systems": list(SYSTEMS), "projects": {},
                    "reached_rule": f">= {REACHED_SHARE:.0%} of a symbol's lines, or "
                                    f"{REACHED_LINES} of them", "questions": []}
    report["splits"] = {}
    report["split_projects"] = {}
    totals = {(s, b): [] for s in SYSTEMS for b in args.budgets}
    tokens = {(s, b): [] for s in SYSTEMS for b in args.budgets}
    sent = {(s, b): [] for s in SYSTEMS for b in args.budgets}
    by_split: dict[str, tuple[dict, dict, dict]] = {}
    seconds: list[float] = []
    for project in projects:
        if args.projects and project["name"] not in args.projects:
            continue
        questions = [q for q in project["questions"]
                     if not args.splits or question_split(project, q) in args.splits]
        if not questions:
            continue
        if project.get("corpus"):
            root = prepare_corpus_root(project["corpus"], ES.CACHE)
        else:
            root = prepare_root(fetches[project["name"]], ES.CACHE)
        index = Index(root, Settings())
        t0 = time.perf_counter()
        index.update()
        index_s = time.perf_counter() - t0
        graph = graph_from_store(index.store)
        read = A.disk_reader(root)
        per_project = {(s, b): [] for s in SYSTEMS for b in args.budgets}
        print(f"{project['name']}: {index.store.symbols.count_rows()} symbols "
              f"(index brought up to date in {index_s:.1f}s)", file=sys.stderr)
        per_project_split: dict[str, dict] = {}
        for q in questions:
            split = question_split(project, q)
            pp_shares = per_project_split.setdefault(
                split, {(s, b): [] for s in SYSTEMS for b in args.budgets})
            s_shares, s_tokens, s_lines = by_split.setdefault(split, (
                {(s, b): [] for s in SYSTEMS for b in args.budgets},
                {(s, b): [] for s in SYSTEMS for b in args.budgets},
                {(s, b): [] for s in SYSTEMS for b in args.budgets}))
            gold = gold_ranges(index, q["gold"])
            t0 = time.perf_counter()
            ranked = {"ask": A.retrieve(q["q"], index, graph)}
            seconds.append(time.perf_counter() - t0)
            ranked["ask_no_graph"] = A.retrieve(q["q"], index, graph, expand=False)
            ranked["topk"] = topk_candidates(q["q"], index, graph)
            entry: dict = {"project": project["name"], "split": split, "q": q["q"],
                           "gold": [g for g, _ in gold], "results": {}}
            for b in args.budgets:
                for s in SYSTEMS:
                    ctx = A.assemble(ranked[s], graph, read, b)
                    shown = ctx.shown()
                    hit = [label for label, ranges in gold
                           if reached(shown, label.split("::", 1)[0], ranges)]
                    share = len(hit) / len(gold)
                    totals[(s, b)].append(share)
                    per_project[(s, b)].append(share)
                    tokens[(s, b)].append(ctx.tokens)
                    s_shares[(s, b)].append(share)
                    pp_shares[(s, b)].append(share)
                    s_tokens[(s, b)].append(ctx.tokens)
                    counted = lines_sent(ctx)
                    sent[(s, b)].append(counted)
                    s_lines[(s, b)].append(counted)
                    entry["results"][f"{s}@{b}"] = {
                        "share": round(share, 3), "missing": [g for g, _ in gold if g not in hit],
                        "context_tokens": ctx.tokens, "snippets": len(ctx.snippets)}
            report["questions"].append(entry)
            if args.verbose:
                print(f"\n[{split}] {q['q']}", file=sys.stderr)
                for key, r in entry["results"].items():
                    miss = ", ".join(m.split("::", 1)[1] for m in r["missing"]) or "-"
                    print(f"  {key:<18} {r['share']:.2f}  missing: {miss}", file=sys.stderr)
        report["projects"][project["name"]] = {
            f"{s}@{b}": round(sum(v) / len(v), 3) for (s, b), v in per_project.items() if v}
        for split, shares in per_project_split.items():
            report["split_projects"].setdefault(split, {})[project["name"]] = {
                f"{s}@{b}": round(sum(v) / len(v), 3) for (s, b), v in shares.items() if v}
    report["overall"] = summarize(totals, tokens, sent)
    for split in sorted(by_split, key=lambda x: (x != DEFAULT_SPLIT, x)):
        report["splits"][split] = summarize(*by_split[split])
    report["split_projects"] = {k: report["split_projects"][k] for k in report["splits"]}
    report["ask_retrieval_seconds_mean"] = round(sum(seconds) / max(1, len(seconds)), 2)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[3000, 6000])
    parser.add_argument("--projects", nargs="*")
    parser.add_argument("--splits", nargs="*", help="only the questions of these splits "
                        "(tune, heldout); default all")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    report = run(args)
    if not report["questions"]:
        print("no questions selected", file=sys.stderr)
        return 2
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")

    def table(title: str, summary: dict, n: int) -> None:
        print(f"\n{title}, {n} questions (mean share per question; "
              "questions with every needed symbol)")
        print(f"{'system':<14}" + "".join(f"{'budget ' + str(b):>46}" for b in args.budgets))
        for s in SYSTEMS:
            cells = []
            for b in args.budgets:
                o = summary[f"{s}@{b}"]
                cells.append(f"{o['needed_symbols_reached']:.3f} ({o['questions_complete']:>5}, "
                             f"{o['mean_context_tokens']:>4} tok, tests {o['test_lines_share']:.2f}, "
                             f"dup {o['duplicate_lines_share']:.2f})")
            print(f"{s:<14}" + "".join(f"{c:>46}" for c in cells))

    table("needed symbols in the context", report["overall"], len(report["questions"]))
    for name, row in report["projects"].items():
        print(f"  {name:<10} " + "  ".join(f"{k} {v:.3f}" for k, v in row.items()))
    if len(report["splits"]) > 1 or set(report["splits"]) != {DEFAULT_SPLIT}:
        for split, summary in report["splits"].items():
            n = sum(q["split"] == split for q in report["questions"])
            table(f"split {split}: needed symbols in the context", summary, n)
            for name, row in report["split_projects"][split].items():
                print(f"  {name:<10} " + "  ".join(f"{k} {v:.3f}" for k, v in row.items()))
    print(f"ask retrieval: {report['ask_retrieval_seconds_mean']}s per question (mean)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
