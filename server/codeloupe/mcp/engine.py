"""The MCP server's engine: one folder kept up to date in the background, and the
answers of the tools as plain data (no MCP types here; ``tools`` adapts them).

A worker thread opens the index, brings symbols and full text up to date, loads
them into the folder's model (``workspace.Folder``: the same model and call-graph
cache as the language server's), then embeds what is pending. A change on disk
(``watch``) wakes it: embedding stops, the changed files are synced and their
models swapped in, and embedding goes on. The tools read meanwhile; every answer
carries the state of the index (``index_state``), so an agent knows when it reads
an index still being built or with symbols not embedded yet.

Another process indexing the same folder (the CLI, the language server) holds the
index's write lock: then nothing is written here and the tools answer from the
index as that process leaves it, until the next change."""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from pathlib import Path
from typing import Any

from ..ask.errors import AskError
from ..ask.files import disk_reader
from ..ask.pipeline import build_context
from ..ask.toolbox import ToolArgumentError, Toolbox, check_confidence, check_int
from ..calls import (
    TargetError,
    chain_rows,
    find_symbols,
    symbol_row,
)
from ..config import Settings
from ..graph import DEFAULT_MIN_CONFIDENCE
from ..index import Index
from ..search import Searcher
from ..workspace import FileModel, Folder, Snapshot, rows_and_key
from .watch import Watcher

log = logging.getLogger("codeloupe.mcp")

MAX_BUDGET = 60_000
MIN_BUDGET = 500
MAX_CHAIN_DEPTH = 12  # calls in one chain of call_path
MAX_CHAINS = 50
# how long a tool waits for the first sync of a folder whose index holds nothing yet
FIRST_SYNC_WAIT_S = 120.0
# how long the worker waits before trying again when another process holds the index
BUSY_RETRY_S = 30.0
_RELOAD_ALL = 200  # more files changed in one sync than this: the model is read again whole


ToolInputError = ToolArgumentError  # an argument a tool cannot take: the message names it


class Engine:
    """One folder for the MCP server: its index kept up to date by a worker thread,
    its model and call graph, and the tools' answers."""

    def __init__(self, root: str | Path, settings: Settings | None = None,
                 embed: bool = True, watch: bool = True) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise ToolInputError(f"not a folder: {root}")
        self.settings = settings or Settings()
        self.embed = embed
        self.watch = watch
        self.watch_note: str | None = None  # why file changes are not followed, if so
        self._watcher: Watcher | None = None
        self.folder = Folder(self.root.as_uri(), self.root)
        self.error: str | None = None
        self.notes: list[str] = []
        self.last_update: float | None = None  # when the last sync ended (time.time())
        self.syncs = 0  # syncs done: a test (or a client) can wait for the next
        self.busy_note: str | None = None  # another process holds the index
        self._changed = threading.Event()  # files changed on disk: sync again
        self._stop = threading.Event()
        self._opened = threading.Event()  # opening the index has ended (opened or failed)
        self._synced = threading.Condition()  # notified after each sync
        self._model_lock = threading.Lock()  # the folder's model, changed by the worker
        self._read_lock = threading.Lock()  # one tool call reads the index at a time
        self._searcher: Searcher | None = None
        self._worker: threading.Thread | None = None
        self._had_symbols = False
        self._recent: list[str] = []  # the files the last sync changed
        self._seen: dict[str, str] = {}  # path → content hash, as the model last read them

    # --- the worker ------------------------------------------------------------------

    def start(self) -> None:
        """Open the index and bring it up to date in the background; returns at once."""
        if self._worker is None:
            self._worker = threading.Thread(target=self._run, name="codeloupe-mcp-index",
                                            daemon=True)
            self._worker.start()

    def changed(self) -> None:
        """Files changed on disk (the watcher): sync again soon."""
        self._changed.set()

    def close(self, timeout: float | None = 10.0) -> None:
        """Stop the worker (an embedding group in flight is finished and committed)."""
        self._stop.set()
        self._changed.set()
        if self._watcher is not None:
            self._watcher.stop()
        if self._worker is not None:
            self._worker.join(timeout)
        if self._searcher is not None:
            self._searcher.close()

    def wait_synced(self, after: int, timeout: float) -> bool:
        """Wait until more than ``after`` syncs are done; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._synced:
            while self.syncs <= after:
                left = deadline - time.monotonic()
                if left <= 0 or self._stop.is_set() or self.folder.state == "failed":
                    return False
                self._synced.wait(left)
        return True

    def _run(self) -> None:
        try:
            self._open()
        except Exception as exc:
            self.error = f"cannot open the index of {self.root}: {exc}"
            log.exception("codeloupe: %s", self.error)
            with self._synced:
                self.folder.state = "failed"
                self._synced.notify_all()
            return
        finally:
            self._opened.set()
        while not self._stop.is_set():
            self._changed.clear()
            try:
                self._one_run()
            except Exception as exc:  # the server keeps answering from what is there
                self.error = f"updating the index failed: {exc}"
                log.exception("codeloupe: %s", self.error)
                self.folder.state = "ready"
            if self.busy_note:
                self._changed.wait(BUSY_RETRY_S)
            else:
                self._changed.wait()

    def _open(self) -> None:
        index = Index(self.root, self.settings)
        self.notes = list(index.notes)
        for message in self.notes:
            log.warning("codeloupe: %s", message)
        self._had_symbols = index.store.symbol_count() > 0
        self.folder.index = index
        self.folder.state = "indexing"
        if self.watch:  # before the first sync: a change during it wakes the next
            ignored = [index.location.local] if index.location.local is not None else []
            self._watcher = Watcher(self.root, self.changed, ignored)
            self.watch_note = self._watcher.start()
            if self.watch_note:
                log.warning("codeloupe: %s; files are synced when a tool is called", self.watch_note)
        else:
            self.watch_note = "not watching files (--no-watch); files are synced when a tool is called"
        if self._had_symbols:  # answer from the index as it is while the sync runs
            self._seen = self._file_hashes(index)
            self._load_all(index)

    def _progress(self, stage: str, done: int, total: int, eta: float | None = None, /) -> None:
        self.folder.progress = {"stage": stage, "done": done, "total": total, "eta": eta}

    def _one_run(self) -> None:
        index = self.folder.index
        assert index is not None
        with index.write_lock(wait=False) as locked:
            if not locked:
                self.busy_note = ("another codeloupe process is indexing this folder; "
                                  "answering from the index as it is")
                self._after_sync(index, self._files_changed(index))  # what it wrote so far
                self.folder.state = "ready"
                return
            self.busy_note = None
            self.folder.state = "indexing"
            report = index.sync_files(self._progress)
            changed = self._files_changed(index)
            self._after_sync(index, changed)
            if len(changed) <= _RELOAD_ALL:
                self._recent = changed
            self.folder.report = report.as_dict()
            if self.embed and not self._stop.is_set() and index.store.count_pending():
                self.folder.state = "embedding"
                index.embed_pending(self._progress, commit_every=128,
                                    should_stop=lambda: self._stop.is_set() or self._changed.is_set(),
                                    first=self._embed_first)
            index.store.maybe_optimize()
        self.folder.state = "ready"

    @staticmethod
    def _file_hashes(index: Index) -> dict[str, str]:
        return {p: f.hash for p, f in index.store.load_files().items()}

    def _files_changed(self, index: Index) -> list[str]:
        """The files whose rows changed since the model last read them: by this sync, or
        by another process (the CLI, the language server) that wrote meanwhile."""
        now = self._file_hashes(index)
        seen, self._seen = self._seen, now
        return sorted(p for p in seen.keys() | now.keys() if seen.get(p) != now.get(p))

    def _load_all(self, index: Index) -> None:
        """The whole model read again (``_seen``: the files table it goes with, set by the
        caller)."""
        key, symbol_rows, ref_rows = rows_and_key(index)
        with self._model_lock:
            self.folder.set_disk(FileModel.group_rows(symbol_rows, ref_rows), key=key)

    def _after_sync(self, index: Index, changed: list[str]) -> None:
        """Swap the changed files' models in (all of them on the first sync), then tell
        whoever waits for a sync."""
        if not self.folder.disk or len(changed) > _RELOAD_ALL:
            self._load_all(index)
        elif changed:
            symbol_rows, ref_rows = index.load_rows(changed)
            models = FileModel.group_rows(symbol_rows, ref_rows)
            with self._model_lock:
                self.folder.set_disk(models, changed)
        self.last_update = time.time()
        with self._synced:
            self.syncs += 1
            self._synced.notify_all()

    def _embed_first(self) -> list[str]:
        """The files the last sync changed: embedded before the rest."""
        return self._recent

    # --- reading ---------------------------------------------------------------------

    def _index(self) -> Index:
        """The open index, once there is something to read: a folder indexed before
        answers at once (from the index as it was), a new one after its first sync
        (waiting up to ``FIRST_SYNC_WAIT_S``)."""
        self._opened.wait()
        if self.watch_note is not None:  # nothing follows the files: sync in the background
            self.changed()
        index = self.folder.index
        if index is None:
            raise RuntimeError(self.error or f"the index of {self.root} could not be opened")
        if not self._had_symbols and self.syncs == 0:
            self.wait_synced(0, FIRST_SYNC_WAIT_S)
        return index

    def _snapshot(self) -> Snapshot:
        """The call graph of the model as it is now (after ``_index``: something to read)."""
        with self._model_lock:
            generation, disk, live, key = (self.folder.generation, self.folder.disk,
                                           self.folder.live, self.folder.disk_key)
        return self.folder.graphs.snapshot(generation, disk, live, key)

    def index_state(self) -> dict[str, Any]:
        """The state every answer carries: ``state`` (opening, indexing, embedding N/M,
        ready, failed), ``complete`` (symbols, full text and embeddings all up to date),
        the symbols waiting for an embedding, the last update, and why it is not
        complete."""
        index = self.folder.index
        pending = None
        if index is not None:
            try:
                pending = index.store.count_pending()
            except Exception:  # a table being rewritten: said as unknown
                pending = None
        state = self.folder.label
        complete = state == "ready" and pending == 0 and not self.busy_note and not self.error
        out: dict[str, Any] = {"state": state, "complete": complete,
                               "pending_embeddings": pending, "last_update": self.last_update}
        why = []
        if state in ("opening", "indexing"):
            why.append("the index is being brought up to date; answers may miss recent changes")
        if pending:
            why.append(f"{pending} symbols wait for an embedding: search uses full text for them")
        if self.busy_note:
            why.append(self.busy_note)
        if self.error:
            why.append(self.error)
        if self.watch_note:
            why.append(self.watch_note)
        if why:
            out["note"] = "; ".join(why)
        return out

    # --- the tools -------------------------------------------------------------------

    def _tools(self, graph: bool = True) -> Toolbox:
        """The ask toolbox over the index (and, with ``graph``, the call graph of the
        model as it is now)."""
        index = self._index()
        snap = self._snapshot() if graph else None
        if self._searcher is None or self._searcher.index is not index:
            self._searcher = Searcher(index)
        return Toolbox(index, snap.graph if snap else None,
                       disk_reader(self.root, index.settings.max_file_bytes), self._searcher)

    def _answer(self, graph: bool, name: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        tools = self._tools(graph)
        with self._read_lock:
            out = getattr(tools, name)(*args, **kwargs)
        return {**out, "index": self.index_state()}

    def search_code(self, query: str, k: int = 10, lang: str | None = None,
                    path: str | None = None, kind: str | None = None,
                    mode: str = "hybrid") -> dict[str, Any]:
        """Ranked symbols for a query in words or code."""
        return self._answer(False, "search_code", query, k, lang=lang, path=path, kind=kind,
                            mode=mode)

    def symbol(self, target: str) -> dict[str, Any]:
        """The definition of a symbol: signature, doc, source, its class, its file."""
        return self._answer(True, "symbol", target)

    def callers(self, target: str, depth: int = 1,
                min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> dict[str, Any]:
        """Resolved call sites into a symbol (each with its line of code), and the
        name-only candidates."""
        return self._answer(True, "callers", target, depth, min_confidence)

    def callees(self, target: str, depth: int = 1,
                min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> dict[str, Any]:
        """What a symbol calls, each callee with its call sites."""
        return self._answer(True, "callees", target, depth, min_confidence)

    def call_path(self, source: str, target: str, max_depth: int = 6, limit: int = 5,
                  min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> dict[str, Any]:
        """The shortest call chains from one symbol to another."""
        check_int("max_depth", max_depth, 1, MAX_CHAIN_DEPTH)
        check_int("limit", limit, 1, MAX_CHAINS)
        min_confidence = check_confidence(min_confidence)
        self._index()
        snap = self._snapshot()
        ends = {}
        for label, name in (("from", source), ("to", target)):
            try:
                ends[label] = find_symbols(snap.graph, name)
            except TargetError as exc:
                raise ToolInputError(f"{label}: {exc}") from None
        chains = snap.graph.all_chains([s.id for s in ends["from"]], [s.id for s in ends["to"]],
                                       max_depth=max_depth, limit=limit,
                                       min_confidence=min_confidence)
        out: dict[str, Any] = {"from": [symbol_row(s) for s in ends["from"]],
                               "to": [symbol_row(s) for s in ends["to"]],
                               "chains": chain_rows(snap.graph, chains),
                               "index": self.index_state()}
        if not chains:
            out["note"] = (f"no call chain of at most {max_depth} calls with confidence >= "
                           f"{min_confidence}" + (" (min_confidence 0 follows name matches too)"
                                                  if min_confidence > 0 else ""))
        return out

    def context_for(self, question: str, budget_tokens: int = 6000) -> dict[str, Any]:
        """The cited context ``ask`` would send to a model for this question."""
        check_int("budget_tokens", budget_tokens, MIN_BUDGET, MAX_BUDGET)
        index = self._index()
        snap = self._snapshot()
        settings = dataclasses.replace(self.settings, ask_context_tokens=budget_tokens)
        with self._read_lock:
            try:
                context = build_context(question, index, settings, graph=snap.graph)
            except AskError as exc:
                raise ToolInputError(str(exc)) from exc
        return {"question": question, "context": context.text, "tokens": context.tokens,
                "budget_tokens": budget_tokens,
                "sources": [s.source() for s in context.snippets],
                "cite_as": "path:line, as numbered in the context",
                "index": self.index_state()}

    def index_status(self) -> dict[str, Any]:
        """Files, symbols, pending embeddings, last update, and whether it is complete."""
        self._opened.wait()
        out: dict[str, Any] = {"root": str(self.root), **self.index_state()}
        index = self.folder.index
        if index is not None:
            with self._read_lock:
                st = index.status()
            out.update({"files": st.get("files"), "symbols": st.get("symbols"),
                        "languages": st.get("languages"), "model": index.model_id,
                        "index_bytes": st.get("index_bytes")})
        with self._model_lock:
            counts = self.folder.counts()
        out["symbols_in_model"] = counts["symbols"]
        out["syncs"] = self.syncs
        out["watching"] = self._watcher is not None and self._watcher.watching
        if self.notes:
            out["notes"] = list(self.notes)
        return out
