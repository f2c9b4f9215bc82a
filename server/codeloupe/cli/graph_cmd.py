"""``codeloupe calls``, ``codeloupe path`` and ``codeloupe graph``: the reference map
from a terminal. The index is brought up to date first (symbols and references only:
these commands never wait for embeddings); when the record of the last sync shows
there is nothing to bring up to date, the saved graph answers without opening the
index (``graph_store.current_graph``: no LanceDB, no engine)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..calls import (
    TargetError,
    callees_of,
    callers_of,
    chain_rows,
    find_symbols,
    offered_rows,
    symbol_ref,
    symbol_row,
)
from ..graph_store import current_graph, graph_for_store
from .common import CliError, err, note, settings_of
from .common import out as _print

if TYPE_CHECKING:  # loaded where the whole map is: `calls` and `path` may read its calls alone
    from ..graph import Graph
    from ..graph.callfile import SavedCalls


def load_graph(args: argparse.Namespace, calls: bool = False) -> Graph | SavedCalls:
    """The call graph of the folder, the index brought up to date first (unless
    ``--no-update``). When the last sync's record proves that would change nothing,
    the graph saved beside the index, read without opening it (with ``calls``, for
    callers, callees and chains: its saved calls read in place, a few symbols' edges
    decoded, not the map); else the index is opened (importing LanceDB and the
    engine: most of the command's time), updated, and its graph loaded or built."""
    saved = current_graph(Path(args.root).expanduser(), settings_of(args),
                          rescan=not args.no_update, calls=calls)
    if saved is not None:
        graph, location = saved
        if location.note:
            note(location.note)
        return graph
    from .opening import open_for_query  # deferred: the engine and LanceDB, ~0.5-1 s

    index = open_for_query(args.root, args, needs_model=False)
    return graph_for_store(index.store)  # the saved graph when the index has not changed since


def _targets(args: argparse.Namespace) -> Iterable[str]:
    for t in args.target:
        if t == "-":
            for line in sys.stdin:
                if line.strip():
                    yield line.strip()
        else:
            yield t


def run_calls(args: argparse.Namespace) -> int:
    """``codeloupe calls``: callers and/or callees of each target; exit 2 when a target is
    not found (in a batch, after the others)."""
    if args.depth < 1:
        raise CliError("--depth must be at least 1")
    want_callers = args.callers or args.both or not args.callees
    want_callees = args.callees or args.both
    stdin = "-" in args.target
    batch = stdin or len(args.target) > 1  # one unknown target never stops the others
    as_json = args.json or stdin
    graph = load_graph(args, calls=True)
    failed = 0
    for target in _targets(args):
        try:
            found = find_symbols(graph, target)
        except TargetError as exc:
            if not batch:
                raise CliError(str(exc)) from None
            failed += 1
            if as_json:
                _print(json.dumps({"target": target, "error": str(exc)}))
            else:
                err(str(exc))
            continue
        for sym in found:
            obj: dict[str, object] = {"target": target, "symbol": symbol_row(sym)}
            if want_callers:
                obj["callers"] = callers_of(graph, sym, args.depth, args.min_confidence)
                # call sites into the symbol left out below --min-confidence (name matches)
                obj["low_confidence_callers"] = graph.below(sym.id, args.min_confidence)[0]
                obj["offered_callers"] = offered_rows(graph, sym, args.min_confidence, True)
            if want_callees:
                obj["callees"] = callees_of(graph, sym, args.depth, args.min_confidence)
                obj["low_confidence_callees"] = graph.below(sym.id, args.min_confidence, incoming=False)[0]
                obj["offered_callees"] = offered_rows(graph, sym, args.min_confidence, False)
            obj["min_confidence"] = args.min_confidence
            if as_json:
                _print(json.dumps(obj))
            else:
                _print_calls(obj)
    if failed:
        err(f"{failed} target(s) not found")
        return 2
    return 0


def _print_calls(obj: dict) -> None:
    s = obj["symbol"]
    _print(f"{s['qualified_name']} ({s['kind']}) {s['path']}:{s['start_line']}")
    hidden = f" below confidence {obj['min_confidence']}, shown with --min-confidence 0"
    if "callers" in obj:
        more = obj["low_confidence_callers"]
        _print(f"  callers ({len(obj['callers'])}" + (f"; {more} more call sites by name only{hidden}"
                                                      if more else "") + "):")
        for c in obj["callers"]:
            _print(f"    {c['path']}:{c['line']}:{c['column']}  in {c['caller']['qualified_name']}"
                  f"  [{c['confidence']}]" + (f"  {c['evidence']}" if "evidence" in c else ""))
        _print_offered(obj["offered_callers"], "caller")
    if "callees" in obj:
        more = obj["low_confidence_callees"]
        _print(f"  callees ({len(obj['callees'])}" + (f"; {more} more edges by name only{hidden}"
                                                      if more else "") + "):")
        for c in obj["callees"]:
            where = ", ".join(f"{x['line']}" for x in c["call_sites"])
            _print(f"    {c['qualified_name']}  {c['path']}:{c['start_line']}  (line {where})"
                  f"  [{c['confidence']}]" + (f"  {c['evidence']}" if "evidence" in c else ""))
        _print_offered(obj["offered_callees"], "callee")


def _print_offered(rows: list[dict], end: str) -> None:
    """The offered name matches of ``codeloupe calls``: the site, the other end, why."""
    if rows:
        _print(f"    of those by name, {len(rows)} with few candidates:")
    for c in rows:
        _print(f"      {c['path']}:{c['line']}:{c['column']}  {'in ' if end == 'caller' else ''}"
               f"{c[end]['qualified_name']}  [{c['confidence']}]  {c['evidence']}")


def run_path(args: argparse.Namespace) -> int:
    """``codeloupe path``: the call chains from one target to another, at most ``--depth``
    calls long."""
    graph = load_graph(args, calls=True)
    ends = {}
    for label, target in (("from", args.source), ("to", args.dest)):
        try:
            ends[label] = find_symbols(graph, target)
        except TargetError as exc:
            raise CliError(f"{label}: {exc}") from None
    chains = graph.all_chains([s.id for s in ends["from"]], [s.id for s in ends["to"]],
                              max_depth=args.depth, limit=args.limit, min_confidence=args.min_confidence)
    rows = chain_rows(graph, chains)
    if args.json:
        _print(json.dumps({"from": [symbol_row(s) for s in ends["from"]], "to": [symbol_row(s) for s in ends["to"]],
                          "chains": rows, "min_confidence": args.min_confidence}))
        return 0
    if not rows:
        note = (f" with confidence >= {args.min_confidence} (--min-confidence 0 follows name matches too)"
                if args.min_confidence > 0 else "")
        _print(f"no call chain of at most {args.depth} calls{note}")
        return 0
    for i, chain in enumerate(rows, 1):
        names = [chain[0]["caller"]["qualified_name"], *(step["callee"]["qualified_name"] for step in chain)]
        _print(f"{i}. " + " -> ".join(names))
        for step in chain:
            _print(f"     {step['path']}:{step['line']}  {step['callee']['qualified_name']}  [{step['confidence']}]")
    return 0


def run_graph(args: argparse.Namespace) -> int:
    """``codeloupe graph``: how well the call graph resolved (per language), the most called
    symbols, the widest callers and how many symbols nothing calls."""
    from ..graph import Graph

    graph = load_graph(args)
    assert isinstance(graph, Graph)  # not the calls alone: the figures read the whole map
    stats = graph.stats()

    def named(rows: list[tuple[str, int]]) -> list[dict[str, object]]:
        return [{**symbol_ref(graph, sid), "count": n} for sid, n in rows]

    report = {
        **stats,
        "most_called": named(graph.most_called(args.top)),
        "widest_callers": named(graph.widest_callers(args.top)),
        "unused": len(graph.unused()),
    }
    if args.json:
        _print(json.dumps(report))
        return 0
    _print(f"call sites: {stats['sites']}  edges: {stats['edges']}  ambiguous edges: {stats['ambiguous']}  "
          f"unused symbols: {report['unused']}")
    _print("  language      sites  resolved  by-name  ambiguous  external  unresolved")
    for lang, row in stats["languages"].items():  # type: ignore[union-attr]
        _print(f"  {lang:<12} {row['sites']:>6} {row['resolved']:>9} {row['by_name']:>8} {row['ambiguous']:>10} "
              f"{row['external']:>9} {row['unresolved']:>11}")
    for title, rows in (("most called", report["most_called"]), ("widest callers", report["widest_callers"])):
        _print(f"{title}:")
        for r in rows:  # type: ignore[union-attr]
            _print(f"  {r['count']:>5}  {r['qualified_name']}  {r['path']}:{r['start_line']}")
    return 0
