"""``codeloupe index`` and ``codeloupe status``."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from ..store import IndexAbsent, IndexDamaged, IndexMismatch
from .common import note, progress_reporter
from .opening import open_index


def run_index(args: argparse.Namespace) -> int:
    """``codeloupe index``: bring the folder's index up to date (and embed what is pending
    unless ``--no-embed``), then say what the run did."""
    index = open_index(args.root, args)

    def waiting(holder: str) -> None:
        note(f"waiting for {holder}, which is indexing this folder")

    with progress_reporter(not args.quiet) as progress:
        report = index.update(progress, embed=not args.no_embed,  # type: ignore[arg-type]
                              on_wait=waiting)
    if args.json:
        print(json.dumps({"root": str(index.root), **report.as_dict()}))
        return 0
    skipped = sum(report.skipped.values())
    lines = [
        f"indexed {index.root}",
        f"  files:      {report.files} ({report.files_parsed} parsed, {report.files_unchanged} "
        f"unchanged, {report.files_deleted} deleted, {skipped} skipped)",
        f"  symbols:    {report.symbols} ({report.symbols_written} written)",
        f"  embeddings: {report.embeddings_computed} computed, {report.embeddings_reused} reused"
        + (f", {report.pending_embeddings} pending" if report.pending_embeddings else ""),
        f"  time:       {report.seconds:.1f}s (symbols and full text after "
        f"{report.seconds_to_symbols:.1f}s)",
    ]
    if report.skipped:
        lines.append("  skipped:    " + ", ".join(f"{n} {r}" for r, n in sorted(report.skipped.items())))
    if report.files_with_syntax_errors:
        lines.append(f"  {report.files_with_syntax_errors} files had syntax errors (indexed what parsed)")
    for message in report.errors[:10]:
        lines.append(f"  warning: {message}")
    print("\n".join(lines))
    return 0


def run_status(args: argparse.Namespace) -> int:
    """What the index holds, read without changing anything (an index built with
    other settings is described, with what ``codeloupe index`` would do)."""
    try:
        index = open_index(args.root, args, writable=False, check_model=False)
    except (IndexAbsent, IndexMismatch) as exc:
        state = "absent" if isinstance(exc, IndexAbsent) else "outdated"
        if args.json:
            print(json.dumps({"root": str(Path(args.root).resolve()), "state": state,
                              "note": str(exc)}))
        else:
            print(str(exc))
        return 0
    damaged = index.store.verify()  # status reads every table: damage shows here first
    if damaged:
        table, detail = next(iter(damaged.items()))
        raise IndexDamaged(index.store.uri, table, detail)
    st = index.status()
    st["state"] = "ready"
    mismatch: str | None = None
    built = index.store.built_with
    if built.get("model_id") != index.model_id:
        mismatch = (f"built with model {built.get('model_id')!r}; these settings use "
                    f"{index.model_id!r}: `codeloupe index` will rebuild it for them "
                    f"(nothing changes until then)")
        st["state"] = "model mismatch"
        st["note"] = mismatch
    elif st["pending_embeddings"]:
        st["state"] = f"embedding {st['symbols'] - st['pending_embeddings']}/{st['symbols']}"
    if args.json:
        print(json.dumps(st))
        return 0
    updated = st.get("updated_at")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(updated)) if updated else "never"
    size = st.get("index_bytes")
    langs = ", ".join(f"{k} {v}" for k, v in st["languages"].items()) or "-"  # type: ignore[union-attr]
    skipped = st.get("skipped") or {}
    lines = [
        f"root:        {st['root']}",
        f"index:       {st['index']}" + (f" ({size / 1e6:.1f} MB)" if size else ""),
        f"model:       {st['model']}",
        f"files:       {st['files']} ({langs})",
        f"symbols:     {st['symbols']} ({st['pending_embeddings']} waiting for an embedding)",
        f"last update: {when}",
    ]
    if skipped:
        lines.append("skipped:     " + ", ".join(f"{n} {r}" for r, n in sorted(  # type: ignore[union-attr]
            skipped.items(), key=lambda kv: -kv[1])))
    if mismatch:
        lines.append(f"note:        {mismatch}")
    print("\n".join(lines))
    return 0
