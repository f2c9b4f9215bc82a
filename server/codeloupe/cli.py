"""The command line: the same engine as the language server, from a terminal.

Progress goes to stderr; results go to stdout (JSON with ``--json``)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from . import __version__
from .config import Settings

log = logging.getLogger("codeloupe")

SEARCH_EMBED_LIMIT = 2000  # a search embeds this many pending symbols itself; more: `index`


class CliError(Exception):
    pass


def _err(message: str) -> None:
    sys.stderr.write(f"codeloupe: error: {message}\n")


def _note(message: str) -> None:
    sys.stderr.write(f"codeloupe: {message}\n")


# --- progress on stderr ---------------------------------------------------------------

_STAGES = {"scan": "scanning", "parse": "parsing", "embed": "embedding"}


@contextmanager
def progress_reporter(enabled: bool = True) -> Iterator[object]:
    """A rich progress bar on a terminal; a line per 10% otherwise (CI logs)."""
    if not enabled:
        yield None
        return
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        bars: dict[str, int] = {}
        with Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True),
            transient=False,
        ) as prog:
            def update(stage: str, done: int, total: int) -> None:
                if stage not in bars:
                    bars[stage] = prog.add_task(_STAGES.get(stage, stage), total=total)
                prog.update(bars[stage], completed=done, total=total)

            yield update
        return
    last: dict[str, int] = {}
    started = time.monotonic()

    def plain(stage: str, done: int, total: int) -> None:
        if total <= 0:
            return
        tenth = done * 10 // total
        if last.get(stage, -1) == tenth:
            return
        last[stage] = tenth
        if stage != "scan" and (done == total or total >= 200):
            sys.stderr.write(
                f"codeloupe: {_STAGES.get(stage, stage)} {done}/{total} "
                f"({time.monotonic() - started:.1f}s)\n"
            )

    yield plain


# --- commands ---------------------------------------------------------------------------


def _settings(args: argparse.Namespace) -> Settings:
    return Settings.from_env(model=args.model, embedding_backend=args.backend,
                             index_uri=args.index_uri,
                             index_generated=True if args.include_generated else None)


def _open(root: str, args: argparse.Namespace, *, writable: bool = True,
          check_model: bool = True, rebuild: bool = True):  # noqa: ANN202
    """The index of ``root`` (see ``Index`` for the flags); its notes go to stderr."""
    from .index import Index

    path = Path(root).expanduser()
    if not path.exists():
        raise CliError(f"no such folder: {root}")
    if not path.is_dir():
        raise CliError(f"not a folder: {root}")
    index = Index(path, _settings(args), writable=writable, check_model=check_model,
                  rebuild=rebuild)
    for note in index.notes:
        _note(note)
    return index


def open_for_query(root: str, args: argparse.Namespace, *, needs_model: bool = True,
                   before_update: Callable[[], object] | None = None):  # noqa: ANN202
    """The index a query reads, brought up to date first unless ``--no-update``
    (``before_update`` runs just before that, with or without an update).
    A query never rebuilds: an index built with another model or schema is an
    error saying what to run, or (``needs_model`` False: the call graph, which
    needs symbols and references only) answered from as it is, with a note."""
    from .store import IndexMismatch

    def opened(index, update: bool):  # noqa: ANN001, ANN202
        if before_update is not None:
            before_update()
        if update:
            _bring_up_to_date(index, args, embed=needs_model)
        return index

    if args.no_update:
        return opened(_open(root, args, writable=False, check_model=needs_model), False)
    try:
        index = _open(root, args, rebuild=False)
    except IndexMismatch as exc:
        if needs_model:
            raise
        _note(f"{exc} (answering from the index as it is, without updating it)")
        return opened(_open(root, args, writable=False, check_model=False), False)
    return opened(index, True)


def cmd_index(args: argparse.Namespace) -> int:
    index = _open(args.root, args)

    def waiting(holder: str) -> None:
        _note(f"waiting for {holder}, which is indexing this folder")

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


def _bring_up_to_date(index, args: argparse.Namespace, embed: bool = True) -> None:  # noqa: ANN001
    """Queries first update the index (cheap when nothing changed); a search also
    embeds a few pending symbols itself (``SEARCH_EMBED_LIMIT``)."""
    with index.write_lock(wait=False) as locked:
        if not locked:
            _note("another codeloupe process is indexing this folder; answering from the index as it is")
            return
        with progress_reporter(not args.quiet) as progress:
            index.sync_files(progress)  # type: ignore[arg-type]
            if embed and 0 < index.store.count_pending() <= SEARCH_EMBED_LIMIT:
                index.embed_pending(progress)  # type: ignore[arg-type]


def cmd_search(args: argparse.Namespace) -> int:
    from .languages import normalize_language
    from .search import Searcher

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
            _note(f"{resp.pending_embeddings} symbols still wait for an embedding "
                  "(run `codeloupe index` to finish); results use full text for them")
            pending_noted = True
        for warning in resp.warnings:
            _note(warning)
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


def _reachable_client(settings: Settings):  # noqa: ANN202 - llm.ChatClient | None
    """The endpoint's client, checked to answer (and its model resolved) before any
    index or retrieval work; None when no endpoint is configured."""
    from .ask import llm_config
    from .llm import ChatClient, LLMError

    config = llm_config(settings)
    if config is None:
        return None
    try:
        client = ChatClient(config)
        client.check_reachable()
    except LLMError as exc:
        raise CliError(str(exc)) from None
    return client


def cmd_ask(args: argparse.Namespace) -> int:
    """Retrieve, assemble, answer with cited sources (or the context alone when no
    model is configured); the answer streams to stdout, notes go to stderr."""
    from .ask import AskError, ask
    from .llm import LLMError

    question = " ".join(args.question).strip()
    if not question:
        raise CliError("the question is empty")
    settings = Settings.from_env(model=args.model, embedding_backend=args.backend,
                                 index_uri=args.index_uri, llm_url=args.llm_url,
                                 llm_model=args.llm_model, ask_context_tokens=args.context_tokens,
                                 llm_max_tokens=args.llm_max_tokens,
                                 llm_deadline_s=args.llm_deadline)
    if settings.ask_context_tokens < 100:
        raise CliError("--context-tokens must be at least 100")
    if settings.llm_max_tokens < 1:
        raise CliError("--llm-max-tokens must be at least 1")
    if not 1 <= settings.llm_deadline_s < float("inf"):
        raise CliError("--llm-deadline must be at least 1 (seconds)")
    clients: list = []
    # an unreachable endpoint: said before the update and before any context is built
    index = open_for_query(args.root, args,
                           before_update=lambda: clients.append(_reachable_client(settings)))
    client = clients[0]
    streamed = False

    def on_delta(piece: str) -> None:
        nonlocal streamed
        streamed = True
        sys.stdout.write(piece)
        sys.stdout.flush()

    try:
        result = ask(question, index, settings, on_delta=None if args.json else on_delta,
                     client=client)
    except (AskError, LLMError) as exc:
        if streamed:
            sys.stdout.write("\n")
        raise CliError(str(exc)) from None
    except KeyboardInterrupt:  # the connection is closed: the endpoint stops generating
        if streamed:
            sys.stdout.write("\n")
            sys.stdout.flush()
        _err("interrupted; the answer above is incomplete" if streamed else
             "interrupted before the answer")
        return 130
    if args.json:
        print(json.dumps(result.as_dict()))
        return 0
    if result.answer is None:
        _note(result.note or "no language model is configured")
        print(result.context or "no code matched the question")
        return 0
    if not streamed:
        sys.stdout.write(result.answer)
    print("\n\nsources:")
    for s in result.sources:
        mark = "*" if s.get("cited") else " "
        print(f" {mark} {s['path']}:{s['start_line']}-{s['end_line']}  {s['qualified_name']}")
    if result.unverified_citations:
        _note("citations that point outside the code sent to the model (unverified): "
              + ", ".join(result.unverified_citations))
    if result.note:
        _note(result.note)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    """What the index holds, read without changing anything (an index built with
    other settings is described, with what ``codeloupe index`` would do)."""
    from .store import IndexAbsent, IndexDamaged, IndexMismatch

    try:
        index = _open(args.root, args, writable=False, check_model=False)
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


def cmd_serve(args: argparse.Namespace) -> int:
    """The language server. Stdout carries only the protocol; logs go to stderr and
    to the client (window/logMessage)."""
    from .lsp import serve

    if args.tcp and ":" not in args.tcp:
        raise CliError(f"--tcp wants HOST:PORT, got {args.tcp!r}")
    overrides = {"model": args.model or os.environ.get("CODELOUPE_MODEL"),
                 "embedding_backend": args.backend or os.environ.get("CODELOUPE_EMBEDDING_BACKEND"),
                 "index_uri": args.index_uri or os.environ.get("CODELOUPE_INDEX_URI")}
    return serve(args.tcp, overrides)


# --- parser -----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--model", help="embedding model: 'default' (bundled all-MiniLM-L6-v2), "
                        "a sentence-transformers name or a path (env CODELOUPE_MODEL)")
    common.add_argument("--backend", choices=("torch", "onnx"),
                        help="embedding backend: torch (default) or onnx (onnxruntime, int8 "
                        "weights; pip install 'codeloupe[onnx]'; env CODELOUPE_EMBEDDING_BACKEND)")
    common.add_argument("--index-uri", help="where the index lives (default ROOT/.codeloupe; "
                        "env CODELOUPE_INDEX_URI)")
    common.add_argument("--include-generated", action="store_true",
                        help="index files that say a program wrote them (protobuf stubs, "
                        "`Code generated ... DO NOT EDIT.`, @generated; env "
                        "CODELOUPE_INDEX_GENERATED=1)")
    common.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    common.add_argument("--log-level", default=os.environ.get("CODELOUPE_LOG", "warning"))

    parser = argparse.ArgumentParser(prog="codeloupe", description=__doc__)
    parser.add_argument("--version", action="version", version=f"codeloupe {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("index", parents=[common], help="build or update the index of a folder")
    p.add_argument("root", nargs="?", default=".")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-embed", action="store_true", help="symbols and full text only")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", parents=[common], help="hybrid semantic + full-text search")
    p.add_argument("query", nargs="+", help="the query; '-' reads one query per line from stdin")
    p.add_argument("--root", default=".")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--lang", help="only these languages (comma-separated)")
    p.add_argument("--path", help="only paths matching this glob (src/**/*.py)")
    p.add_argument("--kind", help="only these kinds (function,method,class,...)")
    p.add_argument("--mode", default="hybrid", choices=["hybrid", "vector", "fts"])
    p.add_argument("--json", action="store_true", help="one JSON object per query")
    p.add_argument("--snippets", action="store_true", help="include code snippets")
    p.add_argument("--no-update", action="store_true", help="do not update the index first")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("ask", parents=[common], help="ask a question about the code: an answer "
                       "with cited, verified sources from an OpenAI-compatible model")
    p.add_argument("question", nargs="+")
    p.add_argument("--root", default=".")
    p.add_argument("--json", action="store_true", help="print the response object")
    p.add_argument("--llm-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 "
                   "(env CODELOUPE_LLM_URL; API key from env CODELOUPE_LLM_API_KEY)")
    p.add_argument("--llm-model", help="model name (env CODELOUPE_LLM_MODEL; default: the "
                   "endpoint's first model)")
    p.add_argument("--context-tokens", type=int, help="token budget of the code sent (default 6000)")
    p.add_argument("--llm-max-tokens", type=int, metavar="N", help="most tokens of the answer, "
                   "sent as max_tokens (env CODELOUPE_LLM_MAX_TOKENS; default 2048)")
    p.add_argument("--llm-deadline", type=float, metavar="SECONDS", help="longest the answer "
                   "may take in all; what streamed until then is kept, with a note (env "
                   "CODELOUPE_LLM_DEADLINE_S; default 300)")
    p.add_argument("--no-update", action="store_true", help="do not update the index first")
    p.set_defaults(func=cmd_ask)

    from .graph_cli import add_parsers as add_graph_parsers  # calls, path, graph

    add_graph_parsers(sub, common)

    p = sub.add_parser("status", parents=[common], help="what the index holds")
    p.add_argument("root", nargs="?", default=".")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("serve", parents=[common], help="run the language server (stdio)")
    transport = p.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk LSP on stdin/stdout (default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port instead")
    p.set_defaults(func=cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=getattr(logging, str(args.log_level).upper(), logging.WARNING),
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("LANCE_LOG", "error")
    os.environ.setdefault("LANCEDB_LOG", "error")
    from .embed import EmbeddingError
    from .index import IndexError_
    from .indexdir import IndexLocationError
    from .languages import UnknownLanguageError
    from .search import SearchError
    from .store import StoreError

    try:
        return int(args.func(args) or 0)
    except (CliError, IndexError_, StoreError, SearchError, UnknownLanguageError, EmbeddingError,
            IndexLocationError) as exc:
        _err(str(exc))
        return 2
    except KeyboardInterrupt:
        _err("interrupted; the index keeps everything written so far, the next run completes it")
        return 130
    except BrokenPipeError:
        return 0
