"""The workspace index: cold scan, warm start, per-file updates, then embeddings.

Work is ordered so that the cheap parts are usable first: files are scanned,
parsed (on every core) and written with their symbols, references and full text
in seconds; embeddings, about 97% of a cold index, follow in a second phase, and
search answers from what exists meanwhile.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from .config import Settings
from .embed import (
    TEXT_VERSION,
    Embedder,
    base_model_id,
    embed_text,
    embedding_key,
    load_embedder,
    model_identity,
    search_text,
    summary_of,
    summary_text,
)
from .errors import CodeloupeError
from .extract import EXTRACT_VERSION, extract
from .filejob import Parsed, ParseJob, file_hash, parse_batch, parse_file, snippet_of
from .graph_store import record_sync, settings_key
from .indexdir import locate
from .languages import language_for_path
from .model import FileExtraction
from .pending import EmbedClock, PendingPage, Progress, embed_order, forward_only, next_page
from .safeio import open_no_follow
from .scan import ScannedFile, ScanResult, scan
from .store import FileRow, IndexAbsent, IndexDamaged, Store
from .workers import TimedOut, WorkersUnavailable, run_batches

if TYPE_CHECKING:
    from .store import FileRefs

log = logging.getLogger(__name__)
T = TypeVar("T")


_WRITE_EVERY = 200  # files per store write
_POOL_MIN_FILES = 48  # below this, parsing in-process beats starting workers
# A batch of files (at most 64, each at most max_file_bytes) that is still being read
# and parsed this long after it started is stuck (a stalled network mount, a
# pathological file): its worker is killed and its files are tried one by one.
PARSE_DEADLINE_S = 300.0
# mtime_ns of a files row written from an editor buffer: it matches no file on
# disk, so the next scan re-reads the file (same content: a stat update only).
BUFFER_MTIME = -1
# Columns of the symbols table that describe a symbol (everything but text and vectors).
SYMBOL_COLUMNS = [
    "id", "path", "name", "qualified_name", "kind", "language", "signature", "doc", "parent",
    "start_line", "start_col", "end_line", "end_col",
]


LOCK_FILE = "lock"
# An index whose vectors another backend of the same model made is kept when this
# many of its symbols, embedded again, agree this well (cosine) with what it holds.
# Measured for the bundled model (bench/bench_onnx.py): onnx int8 against torch
# 0.995 on average, 0.987 at least, and search quality the same.
AGREE_SAMPLE = 32
AGREE_MEAN = 0.98
AGREE_MIN = 0.95


class IndexError_(CodeloupeError, RuntimeError):
    """A folder the index cannot take: the root is not a folder, or a buffer's file has no
    language."""


def _lock_holder(fd: int) -> str:
    """Who holds the index lock, in words (from what the holder wrote in the file)."""
    try:
        info = json.loads(os.pread(fd, 4096, 0) or b"{}")
        since = time.strftime("%H:%M:%S", time.localtime(float(info["since"])))
        return f"process {int(info['pid'])} ({info.get('command') or 'codeloupe'}, since {since})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another codeloupe process"


@dataclass
class IndexReport:
    """What one index run did: files parsed, unchanged, deleted and skipped (by reason),
    symbols written, texts embedded or reused, and how long it took."""

    files: int = 0
    files_parsed: int = 0
    files_unchanged: int = 0
    files_deleted: int = 0
    files_with_syntax_errors: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    symbols: int = 0
    symbols_written: int = 0
    embeddings_computed: int = 0  # texts embedded by the model (a symbol has one or two)
    embeddings_reused: int = 0  # texts whose vector came from the cache
    pending_embeddings: int = 0
    seconds: float = 0.0
    seconds_to_symbols: float = 0.0
    errors: list[str] = field(default_factory=list)
    rebuilt: str | None = None

    def as_dict(self) -> dict[str, object]:
        """Every field, as ``--json`` and the server's status report it."""
        return dict(self.__dict__)


class Index:
    """One workspace folder and its LanceDB index."""

    def __init__(
        self,
        root: str | Path,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        *,
        writable: bool = True,
        check_model: bool = True,
        rebuild: bool = True,
    ) -> None:
        """Open the index of ``root``. ``writable``: the commands that write (an index
        run, a search that updates first, the language server) make the index folder,
        rebuild on a model or schema change and repair damage; the others never
        change anything (``IndexAbsent``, ``IndexMismatch``, ``IndexDamaged``).
        ``check_model``: False for readers of symbols and references alone (the call
        graph), which work whatever model made the vectors. ``rebuild``: False for
        a writer that must not rebuild on a model or schema change (``IndexMismatch``
        instead; see ``Store``)."""
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise IndexError_(f"not a folder: {root}")
        self.root_real = os.path.realpath(self.root)
        self.settings = settings or Settings()
        self.writable = writable
        self._embedder = embedder
        self._embedder_lock = threading.Lock()
        self.location = locate(self.root, self.settings.index_uri, create=writable)
        if not self.location.exists:
            where = f"{self.location.note}; there is" if self.location.note else f"{self.root} has"
            raise IndexAbsent(f"{where} no index yet: run `codeloupe index {self.root}`")
        if embedder is not None:
            model_id, dim = embedder.model_id, embedder.dim
        else:
            model_id, dim = model_identity(self.settings.model, self.settings.max_tokens,
                                           self.settings.embedding_backend,
                                           self.settings.trust_remote_code,
                                           self.settings.embedding_device)
            if dim is None and (writable or check_model):
                # a model whose dimension we only learn by loading it
                self._embedder = self._load_embedder()
                model_id, dim = self._embedder.model_id, self._embedder.dim
        self.model_id = model_id
        self.store = Store(self.location.uri, model_id, dim, TEXT_VERSION, EXTRACT_VERSION, writable=writable,
                           check_model=check_model, rebuild=rebuild,
                           compatible=self._vectors_agree if check_model else None)

    @property
    def notes(self) -> list[str]:
        """What the user should hear about opening this index (a foreign index folder
        ignored, a rebuild and why, another backend's index kept and why)."""
        return [n for n in (self.location.note, self.store.rebuilt_reason, self.store.kept_reason)
                if n]

    def _vectors_agree(self, store: Store, old_model_id: str) -> tuple[bool, str]:
        """Can an index whose vectors ``old_model_id`` made be searched with this run's
        model? Only for another backend of the same model, and only when its vectors
        agree with this model's on a sample of its symbols (an index without vectors
        yet always can)."""
        if base_model_id(old_model_id) != base_model_id(store.model_id):
            return False, "another model"
        embedder = self.embedder  # may settle on another backend (a failed export)
        if embedder.model_id != store.model_id:
            store.model_id = self.model_id = embedder.model_id
            if embedder.model_id == old_model_id:
                return True, "the same model"
        if store.count_embedded() == 0:
            return True, "it holds no vectors yet"
        rows = store.embedded_summaries(AGREE_SAMPLE)
        if not rows:
            return False, "none of its vectors can be compared"
        texts = [summary_of(r["kind"] or "", r["qualified_name"] or "", r["path"],
                            r["signature"] or "", r["doc"] or "") for r in rows]
        new = embedder.embed(texts)
        old = np.asarray([r["summary_vector"] for r in rows], dtype=np.float32)
        old /= np.maximum(np.linalg.norm(old, axis=1, keepdims=True), 1e-12)
        cosine = (new * old).sum(axis=1)
        mean, least = float(cosine.mean()), float(cosine.min())
        why = (f"{len(rows)} of its symbols embedded again agree at cosine {mean:.3f} "
               f"(least {least:.3f})")
        if mean >= AGREE_MEAN and least >= AGREE_MIN:
            return True, why
        return False, f"{why}, below {AGREE_MEAN} (least {AGREE_MIN})"

    # --- the model ---------------------------------------------------------------

    def _load_embedder(self) -> Embedder:
        s = self.settings
        return load_embedder(
            s.model, backend=s.embedding_backend, device=s.embedding_device,
            max_tokens=s.max_tokens, batch_size=s.batch_size,
            trust_remote_code=s.trust_remote_code,
        )

    @property
    def embedder(self) -> Embedder:
        """The embedding model, loaded on first use (once, whichever thread asks first)."""
        if self._embedder is None:
            # the language server embeds in one thread and searches in another: load once
            with self._embedder_lock:
                if self._embedder is None:
                    embedder = self._load_embedder()
                    self._embedder = embedder
                    store = getattr(self, "store", None)
                    if store is not None and embedder.model_id != store.model_id:
                        # auto fell back to torch (a failed export): the index follows
                        self.model_id = embedder.model_id
                        store.reopen(embedder.model_id, embedder.dim)
        return self._embedder

    @property
    def max_tokens(self) -> int:
        """The token cut-off of embedded texts: the loaded model's, else the settings'
        (without loading the model)."""
        return self._embedder.max_tokens if self._embedder else self.settings.max_tokens

    # --- locking -----------------------------------------------------------------

    @contextlib.contextmanager
    def write_lock(self, wait: bool = True,
                   on_wait: Callable[[str], None] | None = None) -> Iterator[bool]:
        """An advisory lock so two processes do not index the same folder at once.
        Yields False (without the lock) when ``wait`` is False and it is held; when
        it waits, ``on_wait`` first hears who holds it. The lock is the kernel's
        (``flock``): it goes with its holder, so a holder killed with -9 leaves
        nothing stale to clear. The lock file is opened without following a link."""
        folder = self.location.local
        if folder is None:
            yield True
            return
        import fcntl

        fd = open_no_follow(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not wait:
                    yield False
                    return
                if on_wait is not None:
                    on_wait(_lock_holder(fd))
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, json.dumps({"pid": os.getpid(), "since": time.time(),
                                          "command": " ".join(sys.argv[:2])[:200]}).encode(), 0)
            except OSError:
                pass  # who holds it is a courtesy
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    # --- phase 1: files → symbols ------------------------------------------------

    def repair(self, report: IndexReport | None = None) -> list[str]:
        """Check every table of the index and rebuild what is damaged (``Store.repair``),
        before an index run; what was repaired goes into the report's errors."""
        done = self.store.repair()
        if report is not None:
            report.errors.extend(f"repaired {what}" for what in done)
        return done

    def _repairing(self, work: Callable[[], T], report: IndexReport) -> T:
        """``work()``; when it meets damaged data, repair what is damaged and do it
        again, once (a second failure, or damage repair cannot find, is raised)."""
        try:
            return work()
        except IndexDamaged as exc:
            log.warning("codeloupe: %s", exc)
            if not self.repair(report):
                raise
            return work()

    def sync_files(self, progress: Progress | None = None, report: IndexReport | None = None) -> IndexReport:
        """Bring symbols, references and full text up to date with the files on disk
        (repairing damaged tables it runs into)."""
        report = report or IndexReport()
        return self._repairing(lambda: self._sync_files(progress, report), report)

    def _sync_files(self, progress: Progress | None, report: IndexReport) -> IndexReport:
        t0 = time.perf_counter()
        report.rebuilt = self.store.rebuilt_reason
        report.skipped = {}
        s = self.settings

        def on_error(rel: str, exc: Exception) -> None:
            report.errors.append(f"{rel}: {exc}")

        scanned = scan(self.root, max_bytes=s.max_file_bytes, exclude=s.exclude,
                       include=s.include, on_error=on_error)
        for reason, n in scanned.skipped.items():
            report.skipped[reason] = report.skipped.get(reason, 0) + n
        known = self.store.load_files()
        on_disk = {f.path: f for f in scanned.files}
        deleted = [p for p in known if p not in on_disk]
        todo: list[ScannedFile] = []
        for f in scanned.files:
            row = known.get(f.path)
            if row is not None and row.size == f.size and row.mtime_ns == f.mtime_ns:
                report.files_unchanged += 1
            else:
                todo.append(f)
        if progress:
            progress("scan", len(scanned.files), len(scanned.files))

        stat_only: list[FileRow] = []
        pending_parsed: list[Parsed] = []
        left_out: set[str] = set()  # read and skipped for what they hold: the same next time
        done = 0
        for parsed in self._parse_all(todo, known):
            done += 1
            if parsed.error:
                report.errors.append(parsed.error)
            if parsed.extraction is None and parsed.skipped is None:
                # same content, new mtime
                old = known[parsed.path]
                stat_only.append(FileRow(parsed.path, parsed.size, parsed.mtime_ns, parsed.hash,
                                         parsed.language, old.symbols, old.errors, old.indexed_at))
                report.files_unchanged += 1
            elif parsed.skipped is not None:
                report.skipped[parsed.skipped] = report.skipped.get(parsed.skipped, 0) + 1
                if parsed.path in known:
                    deleted.append(parsed.path)
                if parsed.hash:  # it was read: binary, generated, ... (not unreadable, timed out)
                    left_out.add(parsed.path)
            else:
                pending_parsed.append(parsed)
            if len(pending_parsed) >= _WRITE_EVERY:
                self._write(pending_parsed, [], report)
                pending_parsed = []
            if progress:
                progress("parse", done, len(todo))
        if pending_parsed or deleted:
            self._write(pending_parsed, deleted, report)
        report.files_deleted = len(deleted)
        self.store.update_file_stats(stat_only)
        skipped = json.dumps(dict(sorted(report.skipped.items())))
        if report.files_parsed or deleted or self.store.built_with_skipped != skipped:
            self.store.ensure_indexes()
            self.store.maybe_optimize()
            self.store.touch(skipped=skipped)
        report.files = self.store.file_count()
        report.symbols = self.store.symbol_count()
        report.pending_embeddings = self.store.count_pending()
        self._record_sync(scanned, left_out)
        report.seconds_to_symbols = time.perf_counter() - t0
        return report

    def _record_sync(self, scanned: ScanResult, left_out: set[str]) -> None:
        """What this sync saw and left, for the next command to find the saved graph
        current without opening the store (``graph_store.record_sync``); a record that
        cannot be written is only a note in the log."""
        key = settings_key(self.root, self.location.uri, self.settings, self.model_id)
        try:
            record_sync(self.store, key, scanned, left_out)
        except OSError as exc:
            log.info("codeloupe: cannot record the sync in %s: %s", self.location.uri, exc)

    def _job(self, rel: str, language: str, old_hash: str | None) -> ParseJob:
        s = self.settings
        return ParseJob(rel, self.root_real, language, old_hash, s.max_file_bytes,
                        s.index_generated)

    def _parse_all(self, todo: Sequence[ScannedFile], known: dict[str, FileRow]) -> Iterator[Parsed]:
        jobs = [self._job(f.path, f.language, known[f.path].hash if f.path in known else None)
                for f in todo]
        workers = self.settings.workers or os.cpu_count() or 1
        if len(jobs) < _POOL_MIN_FILES or workers <= 1:
            for job in jobs:
                yield parse_file(job)
            return
        batch = max(4, min(64, len(jobs) // (workers * 8) or 1))
        batches = [jobs[i : i + batch] for i in range(0, len(jobs), batch)]
        done: set[str] = set()
        try:
            for _, results in run_batches(parse_batch, batches, workers, PARSE_DEADLINE_S):
                for result in results:
                    if isinstance(result, TimedOut):
                        job = result.item
                        result = Parsed(job.rel, 0, 0, "", job.language, None, skipped="timed out",
                                         error=f"{job.rel}: reading and parsing it took over "
                                               f"{PARSE_DEADLINE_S:.0f}s")
                    done.add(result.path)
                    yield result
        except WorkersUnavailable as exc:
            # The workers cannot run (out of memory, or a script that imports us
            # without an `if __name__ == "__main__":` guard): finish in this process.
            log.warning("codeloupe: parse workers failed (%s); parsing in-process", exc)
            for job in jobs:
                if job.rel not in done:
                    yield parse_file(job)

    def _write(self, parsed: list[Parsed], deleted: Sequence[str], report: IndexReport) -> None:
        symbol_rows: list[dict] = []
        ref_rows: list[dict] = []
        file_rows: list[FileRow] = []
        now = time.time()
        max_tokens = self.max_tokens
        for p in parsed:
            assert p.extraction is not None
            ex = p.extraction
            for sym in ex.symbols:
                text = embed_text(sym, max_tokens)
                summary = summary_text(sym, text)
                symbol_rows.append(
                    {
                        "id": sym.id, "path": sym.path, "name": sym.name,
                        "qualified_name": sym.qualified_name, "kind": sym.kind,
                        "language": sym.language, "signature": sym.signature, "doc": sym.doc,
                        "parent": sym.parent, "start_line": sym.start_line,
                        "start_col": sym.start_col, "end_line": sym.end_line,
                        "end_col": sym.end_col, "content_hash": sym.content_hash,
                        "embed_key": embedding_key(self.model_id, text),
                        "embed_text": text, "search_text": search_text(sym),
                        "snippet": snippet_of(sym), "vector": None,
                        "summary_key": embedding_key(self.model_id, summary),
                        "summary_text": summary, "summary_vector": None,
                    }
                )
            for ref in ex.references:
                ref_rows.append(
                    {
                        "path": ref.path, "kind": ref.kind, "name": ref.name,
                        "receiver": ref.receiver, "line": ref.line, "col": ref.col,
                        "enclosing": ref.enclosing, "source": ref.source,
                        "original": ref.original,
                    }
                )
            if ex.error_count:
                report.files_with_syntax_errors += 1
            file_rows.append(FileRow(p.path, p.size, p.mtime_ns, p.hash, p.language,
                                     len(ex.symbols), ex.error_count, now))
        cached = self.store.cached_vectors(
            [r["embed_key"] for r in symbol_rows] + [r["summary_key"] for r in symbol_rows])
        reused: set[str] = set()
        for row in symbol_rows:
            vec, summary_vec = cached.get(row["embed_key"]), cached.get(row["summary_key"])
            if vec is not None and summary_vec is not None:
                row["vector"], row["summary_vector"] = vec, summary_vec
                row["embed_text"] = row["summary_text"] = ""
                reused.update((row["embed_key"], row["summary_key"]))
        report.embeddings_reused += len(reused)
        self.store.replace_files(file_rows, symbol_rows, ref_rows, deleted)
        report.files_parsed += len(parsed)
        report.symbols_written += len(symbol_rows)

    # --- one file at a time (editor buffers, saves, watched files) ----------------

    def update_buffer(
        self, rel: str, text: str, extraction: FileExtraction | None = None
    ) -> IndexReport:
        """Write one file's symbols and references from in-memory text (an unsaved
        editor buffer). The files row is marked with ``BUFFER_MTIME`` so the next disk
        scan re-checks the file; vectors come from the cache where the embedded text
        is unchanged, the others stay pending for ``embed_pending``."""
        data = text.encode("utf-8", "surrogatepass")
        if extraction is None:
            language = language_for_path(rel)
            if language is None:
                raise IndexError_(f"no language for {rel}")
            extraction = extract(rel, data, language)
        report = IndexReport()
        parsed = Parsed(rel, len(data), BUFFER_MTIME, file_hash(data), extraction.language,
                         extraction)
        self._write([parsed], [], report)
        report.files = 1
        report.symbols = len(extraction.symbols)
        return report

    def refresh_file(self, rel: str) -> IndexReport:
        """Bring one file's rows back to what is on disk (after a save or a close, or
        a file changed outside the editor); a file that is gone loses its rows.

        Unlike ``sync_files`` this does not consult include/exclude globs or
        .gitignore: it is for files the editor already showed us."""
        report = IndexReport()
        return self._repairing(lambda: self._refresh_file(rel, report), report)

    def _refresh_file(self, rel: str, report: IndexReport) -> IndexReport:
        known = self.store.file_row(rel)
        abspath = self.root / rel
        language = language_for_path(rel)
        if language is None or not abspath.is_file():
            if known is not None:
                self.store.replace_files([], [], [], [rel])
                report.files_deleted = 1
            return report
        parsed = parse_file(self._job(rel, language, known.hash if known else None))
        if parsed.error:
            report.errors.append(parsed.error)
        if parsed.extraction is None and parsed.skipped is None:
            assert known is not None
            self.store.update_file_stats([FileRow(rel, parsed.size, parsed.mtime_ns, parsed.hash,
                                                  language, known.symbols, known.errors,
                                                  known.indexed_at)])
            report.files_unchanged = 1
        elif parsed.skipped is not None:
            report.skipped[parsed.skipped] = 1
            if known is not None:
                self.store.replace_files([], [], [], [rel])
                report.files_deleted = 1
        else:
            self._write([parsed], [], report)
        return report

    def load_rows(self, paths: Sequence[str] | None = None) -> tuple[list[dict], dict[str, FileRefs]]:
        """Symbol rows (``SYMBOL_COLUMNS``) and reference rows by file (kept as the
        store's columns: ``FileRefs.rows``), of these files or all."""
        return self.store.symbol_rows(SYMBOL_COLUMNS, paths), self.store.refs_by_file(paths)

    # --- phase 2: embeddings -----------------------------------------------------

    def embed_pending(
        self,
        progress: Progress | None = None,
        report: IndexReport | None = None,
        page: int = 4096,
        commit_every: int = 512,
        should_stop: Callable[[], bool] | None = None,
        first: Callable[[], Sequence[str]] | None = None,
    ) -> IndexReport:
        """Embed every symbol that has no vectors yet (its text and its summary,
        ``embed.summary_text``; one text when they are the same).

        Files are embedded in the order that serves a user (``pending.embed_order``):
        those ``first`` names (asked again before each page: the files open in the
        editor and their call-graph neighbours), then source, then tests, then docs
        and examples. Pending symbols are read a page of whole files at a time and
        embedded ``commit_every`` texts at a time in that order, each group sorted by
        token count (padding is wasted work); after each group the vectors go to the
        cache and the symbols with both vectors are committed, so an interrupted run
        loses at most that much work. A
        text seen before (by this model) is taken from the cache instead. Progress
        counts symbols, with the time left (``pending.EmbedClock``). Damaged tables it
        runs into are repaired, and the work goes on."""
        report = report or IndexReport()
        return self._repairing(lambda: self._embed_pending(progress, report, page, commit_every,
                                                           should_stop, first), report)

    def _embed_pending(self, progress: Progress | None, report: IndexReport, page: int,
                       commit_every: int, should_stop: Callable[[], bool] | None,
                       first: Callable[[], Sequence[str]] | None) -> IndexReport:
        counts = self.store.pending_paths()
        total = sum(counts.values())
        clock = EmbedClock(total)
        done = 0
        progress = forward_only(progress)
        if progress:
            progress("embed", 0, total)
        while counts and not (should_stop and should_stop()):
            paths = next_page(embed_order(counts, first() if first else ()), counts, page)
            rows = self.store.pending(paths=paths)
            if rows.num_rows == 0:  # another writer embedded them meanwhile
                counts = self.store.pending_paths()
                continue
            done = self._embed_page(PendingPage(rows), progress, report, done, total,
                                    commit_every, should_stop, clock)
            counts = self.store.pending_paths()
        if not (should_stop and should_stop()):
            self.store.ensure_vector_index()
        report.pending_embeddings = self.store.count_pending()
        return report

    def _embed_page(self, page: PendingPage, progress: Progress | None, report: IndexReport,
                    done: int, total: int, commit_every: int,
                    should_stop: Callable[[], bool] | None, clock: EmbedClock) -> int:
        started = time.perf_counter()
        known = self.store.cached_vectors(list(page.text_of))
        report.embeddings_reused += len(known)
        done += page.commit(self.store, known)
        new = [k for k in page.text_of if k not in known]
        if not new:
            clock.page(len(page.ids), [])
            return done  # all from the cache: the model is not even loaded
        if self._embedder is None:  # loading the model (or exporting it) is no embedding work
            loading = time.perf_counter()
            self.embedder  # noqa: B018
            started += time.perf_counter() - loading
        lengths = self.embedder.count_tokens([page.text_of[k] or "" for k in new])
        clock.page(len(page.ids), lengths)
        per_text = len(page.waiting) / len(new) if new else 1.0  # progress counts symbols
        for start in range(0, len(new), commit_every):
            if should_stop and should_stop():
                break
            # groups in the page's order (files as ranked, a symbol's texts together), each
            # sorted by length: padding is wasted work, and every group is a fair sample of
            # what is left, so the time left holds from the first one
            order = sorted(zip(lengths[start : start + commit_every],
                               new[start : start + commit_every], strict=True),
                           key=lambda t: t[0])
            group = [k for _, k in order]
            shown = float(done)

            def tick(n: int) -> None:
                nonlocal shown
                shown += n * per_text
                if progress:
                    progress("embed", min(total, int(shown)), total, clock.eta())

            vectors = self.embedder.embed([page.text_of[k] or "" for k in group], tick)
            self.store.cache_vectors(group, vectors)
            known.update(zip(group, vectors, strict=True))
            report.embeddings_computed += len(group)
            done += page.commit(self.store, known)
            now = time.perf_counter()
            clock.group(len(group), sum(n for n, _ in order), now - started)
            started = now
            if progress:
                progress("embed", min(total, done), total, clock.eta())
        return done

    # --- everything --------------------------------------------------------------

    def update(self, progress: Progress | None = None, embed: bool = True,
               on_wait: Callable[[str], None] | None = None) -> IndexReport:
        """A whole index run: check and repair every table, bring symbols and full text
        up to date, then embed what is pending. ``on_wait`` hears who holds the lock
        when another process is indexing the folder (this run waits for it)."""
        t0 = time.perf_counter()
        report = IndexReport()
        with self.write_lock(on_wait=on_wait):
            self.repair(report)
            self.sync_files(progress, report)
            if embed:
                self.embed_pending(progress, report)
                self.store.maybe_optimize()
        report.seconds = time.perf_counter() - t0
        return report

    def status(self) -> dict[str, object]:
        """What the index holds (``Upkeep.stats``) with its root, location, size on disk and
        last update; a note when a foreign index folder was ignored."""
        st = self.store.stats()
        st["root"] = str(self.root)
        st["index"] = self.store.uri
        st["index_bytes"] = self.store.size_bytes()
        st["updated_at"] = self.store.updated_at
        if self.location.note:
            st["note"] = self.location.note
        return st
