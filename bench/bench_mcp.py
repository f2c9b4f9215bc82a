"""Latency of the MCP tools through the protocol against the same calls in process
(issue 15): ``search_code`` and ``callers`` on the standard library's index.

    python bench/bench_mcp.py                  # index the stdlib copy (once), then 3 rounds
    python bench/bench_mcp.py --rounds 5 --queries 10

The stdlib is copied as ``bench_scale.py`` copies it (tests and site-packages left out)
into ``bench/.cache/mcp/`` and indexed with embeddings by the CLI once (kept for the next
run while it is current). Then one ``codeloupe mcp`` process on stdio, driven by the
SDK's own client, and one ``mcp.engine.Engine`` in this process answer the same calls,
round by round, in turn (in process first in even rounds, the protocol first in odd
ones), each call warmed once. Reported: p50 and p95 per tool and side, and the ratio
protocol / in process of each. Both sides read the same index; neither writes."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "server"))

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

import bench_scale  # noqa: E402
from codeloupe.config import Settings  # noqa: E402
from codeloupe.mcp import Engine  # noqa: E402

CACHE = BENCH / ".cache" / "mcp"
RESULTS = BENCH / "results" / "bench_mcp.json"
QUERIES = [
    "parse a url into its parts", "compress data with gzip", "thread pool that runs tasks",
    "format a date as a string", "open a socket connection", "csv reader",
    "walk a directory tree", "read a json config file", "retry a failed download",
    "split text into tokens", "send an email over smtp", "decode base64",
    "spawn a subprocess and read its output", "parse command line arguments",
    "http server that handles requests", "unpack a zip archive", "compute a sha256 digest",
    "write log records to a file", "quote a string for the shell", "guess the type of a file",
]


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def prepare(reuse: bool) -> Path:
    """The stdlib copy, indexed with embeddings (by the CLI, once)."""
    root = CACHE / "roots" / "stdlib"
    if not (reuse and (root / ".codeloupe").is_dir()):
        bench_scale.CACHE = CACHE
        root, lines = bench_scale.prepare("stdlib")
        print(f"stdlib copied: {lines:,} lines; indexing with embeddings (minutes)", flush=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "codeloupe", "index", "-q", str(root)], check=True,
                   env=bench_scale._env())
    print(f"index up to date in {time.perf_counter() - started:.1f} s", flush=True)
    return root


async def run(root: Path, rounds: int, n_queries: int, n_targets: int) -> dict:
    engine = Engine(root, Settings.from_env(), watch=False)
    engine.start()
    engine.wait_synced(0, 600)
    snap = engine._snapshot()
    targets = [sid for sid, _ in snap.graph.most_called(n_targets)]
    queries = QUERIES[:n_queries]
    calls = [("search_code", {"query": q, "k": 10}) for q in queries]
    calls += [("callers", {"target": t}) for t in targets]
    local = {"search_code": engine.search_code, "callers": engine.callers}
    times: dict[str, dict[str, list[float]]] = {
        side: {"search_code": [], "callers": []} for side in ("in_process", "mcp")}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "codeloupe", "mcp", "--no-watch", str(root)],
                                   env=bench_scale._env())
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()

            async def through_mcp(name: str, args: dict) -> float:
                t0 = time.perf_counter()
                result = await session.call_tool(name, args)
                took = time.perf_counter() - t0
                if result.is_error:
                    raise SystemExit(f"{name} {args}: {result.content[0].text}")
                return took

            def in_process(name: str, args: dict) -> float:
                t0 = time.perf_counter()
                local[name](**args)
                return time.perf_counter() - t0

            for name, args in calls:  # warm both: the model, the graph, the page cache
                in_process(name, args)
                await through_mcp(name, args)
            for r in range(rounds):
                for name, args in calls:
                    order = ("in_process", "mcp") if r % 2 == 0 else ("mcp", "in_process")
                    for side in order:
                        took = (in_process(name, args) if side == "in_process"
                                else await through_mcp(name, args))
                        times[side][name].append(took * 1000)
            status = json.loads((await session.call_tool("index_status", {})).content[0].text)
    engine.close()
    out = {"symbols": status.get("symbols"), "files": status.get("files"), "rounds": rounds,
           "queries": len(queries), "targets": len(targets), "tools": {}}
    for tool in ("search_code", "callers"):
        row = {}
        for side in ("in_process", "mcp"):
            v = times[side][tool]
            row[side] = {"p50_ms": round(statistics.median(v), 2), "p95_ms": round(_pct(v, 0.95), 2),
                         "n": len(v)}
        row["ratio_p50"] = round(row["mcp"]["p50_ms"] / row["in_process"]["p50_ms"], 2)
        row["ratio_p95"] = round(row["mcp"]["p95_ms"] / row["in_process"]["p95_ms"], 2)
        out["tools"][tool] = row
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--queries", type=int, default=len(QUERIES))
    ap.add_argument("--targets", type=int, default=20, help="the most called symbols' callers")
    ap.add_argument("--fresh", action="store_true", help="copy and index the stdlib again")
    args = ap.parse_args()
    root = prepare(reuse=not args.fresh)
    result = asyncio.run(run(root, args.rounds, args.queries, args.targets))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2))
    print(f"stdlib: {result['files']} files, {result['symbols']} symbols; "
          f"{result['rounds']} rounds, load {os.getloadavg()[0]:.1f}")
    print("| tool | in process p50 / p95 (ms) | through MCP p50 / p95 (ms) | MCP / in process p50, p95 |")
    print("| --- | --- | --- | --- |")
    for tool, row in result["tools"].items():
        a, b = row["in_process"], row["mcp"]
        print(f"| `{tool}` | {a['p50_ms']} / {a['p95_ms']} | {b['p50_ms']} / {b['p95_ms']} | "
              f"{row['ratio_p50']}×, {row['ratio_p95']}× |")


if __name__ == "__main__":
    main()
