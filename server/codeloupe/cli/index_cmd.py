"""``codeloupe index`` and ``codeloupe status``."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from .common import note, progress_reporter, settings_of


def run_index(args: argparse.Namespace) -> int:
    """``codeloupe index``: bring the folder's index up to date (and embed what is pending
    unless ``--no-embed``), then say what the run did."""
    from .opening import open_index

    index = open_index(args.root, args)

    def waiting(holder: str) -> None:
        note(f"waiting for {holder}, which is indexing this folder")

    with progress_reporter(not args.quiet) as progress:
        report = index.update(progress, embed=not args.no_embed,  # type: ignore[arg-type]
                              on_wait=waiting)
    _save_what_it_wrote(index)
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
    other settings is described, with what ``codeloupe index`` would do). While its
    tables are as the last full read left them, the answer saved then is given
    (``statusfile``: no LanceDB); else every table is read, damage shows here first."""
    st = _saved_status(args)
    if st is None:
        st = _read_status(args)
        if st is None:
            return 0
    built = st.pop("built_model")
    settings_model = st.pop("settings_model")
    st["state"] = "ready"
    mismatch: str | None = None
    if built != settings_model:
        mismatch = (f"built with model {built!r}; these settings use "
                    f"{settings_model!r}: `codeloupe index` will rebuild it for them "
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
    langs = ", ".join(f"{k} {v}" for k, v in st["languages"].items()) or "-"
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
        lines.append("skipped:     " + ", ".join(f"{n} {r}" for r, n in sorted(
            skipped.items(), key=lambda kv: -kv[1])))
    if mismatch:
        lines.append(f"note:        {mismatch}")
    print("\n".join(lines))
    return 0


def _save_what_it_wrote(index: Any) -> None:  # codeloupe.index.Index
    """After an index run, the status of the tables it left (``statusfile``), so the next
    ``status`` answers at once; nothing when another writer came meanwhile."""
    from ..statusfile import save_status
    from ..store import tables_state

    folder = index.location.local
    if folder is None:
        return
    try:
        before = tables_state(folder)
        st = _store_status(index)
    except Exception:  # a cache: the run's own outcome is what counts
        return
    save_status(folder, before, st)


def _store_status(index: Any) -> dict[str, Any]:  # codeloupe.index.Index
    """``Index.status`` with the model the index was built with (``built_model``): what
    ``statusfile`` saves."""
    st: dict[str, Any] = index.status()
    st["built_model"] = index.store.built_with.get("model_id")
    return st


def _saved_status(args: argparse.Namespace) -> dict[str, Any] | None:
    """The status saved by the last full read, when the tables are as it left them
    (``statusfile.saved_status``), with what is worked out again: root, location, size
    on disk, the settings' model; None: read the index."""
    from ..embed import model_identity
    from ..errors import CodeloupeError
    from ..indexdir import locate
    from ..statusfile import saved_status
    from ..store.disk import folder_bytes

    settings = settings_of(args)
    try:
        root = Path(args.root).expanduser().resolve()
        if not root.is_dir():
            return None
        location = locate(root, settings.index_uri, create=False)
        if not location.exists or location.local is None:
            return None
        saved = saved_status(location.local)
        if saved is None:
            return None
        model_id, _ = model_identity(settings.model, settings.max_tokens,
                                     settings.embedding_backend, settings.trust_remote_code,
                                     settings.embedding_device)
        size = folder_bytes(location.local)
    except (CodeloupeError, OSError):
        return None
    if location.note:
        note(location.note)  # as opening the index says it
    st: dict[str, Any] = {k: saved[k] for k in ("files", "symbols", "pending_embeddings",
                                                 "languages", "skipped", "model",
                                                 "schema_version")}
    st.update(root=str(root), index=location.uri, index_bytes=size,
              updated_at=saved["updated_at"])  # the order of Index.status
    if location.note:
        st["note"] = location.note
    st.update(built_model=saved["built_model"], settings_model=model_id)
    return st


def _read_status(args: argparse.Namespace) -> dict[str, Any] | None:
    """The status read from the index itself (every table read: damage raises
    ``IndexDamaged``), saved for the next ``status`` when no writer came meanwhile; None
    when there is no index to describe (said on stdout)."""
    from ..statusfile import save_status
    from ..store import IndexAbsent, IndexDamaged, IndexMismatch, tables_state
    from .opening import open_index

    try:
        index = open_index(args.root, args, writable=False, check_model=False)
    except (IndexAbsent, IndexMismatch) as exc:
        state = "absent" if isinstance(exc, IndexAbsent) else "outdated"
        if args.json:
            print(json.dumps({"root": str(Path(args.root).resolve()), "state": state,
                              "note": str(exc)}))
        else:
            print(str(exc))
        return None
    folder = index.location.local
    try:
        before = tables_state(folder) if folder is not None else None
    except OSError:
        before = None
    damaged = index.store.verify()  # status reads every table: damage shows here first
    if damaged:
        table, detail = next(iter(damaged.items()))
        raise IndexDamaged(index.store.uri, table, detail)
    st = _store_status(index)
    if folder is not None and before is not None and save_status(folder, before, st):
        st["index_bytes"] = index.store.size_bytes()  # with the saved status, as next time
    st["settings_model"] = index.model_id
    return st
