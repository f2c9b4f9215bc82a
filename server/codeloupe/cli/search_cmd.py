"""``codeloupe search``: one query, or one per line from stdin (JSON lines out)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ..languages import normalize_language
from ..search import Searcher
from .common import note
from .opening import open_for_query


def run_search(args: argparse.Namespace) -> int:
    """``codeloupe search``: the query's results, or those of each line of stdin (``-``); a
    ``--lang`` naming no language fails before the index is opened."""
    if args.lang:
        for part in args.lang.split(","):
            normalize_language(part)
    index = open_for_query(args.root, args)
    searcher = Searcher(index)
    queries: Sequence[str]
    if args.query == ["-"]:
        queries = None  # type: ignore[assignment]
    else:
        queries = [" ".join(args.query)]
    pending_noted = False

    def run(q: str) -> None:
        nonlocal pending_noted
        resp = searcher.search(q, args.k, lang=args.lang, path=args.path, kind=args.kind, mode=args.mode)
        if resp.pending_embeddings and not pending_noted:
            note(f"{resp.pending_embeddings} symbols still wait for an embedding "
                  "(run `codeloupe index` to finish); results use full text for them")
            pending_noted = True
        for warning in resp.warnings:
            note(warning)
        if args.json:
            print(json.dumps(resp.as_dict(snippet=args.snippets)), flush=True)
            return
        if not resp.results:
            print(f"no results for {q!r}")
        for hit in resp.results:
            print(f"{hit.path}:{hit.start_line}-{hit.end_line}  {hit.kind:<9} {hit.qualified_name}"
                  f"  ({hit.score:.4f})")
            if args.snippets and hit.snippet:
                for line in hit.snippet.splitlines()[:3]:
                    print(f"    {line}")

    if queries is None:
        for line in sys.stdin:
            q = line.strip()
            if q:
                run(q)
    else:
        run(queries[0])
    return 0
