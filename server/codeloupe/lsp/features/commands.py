"""workspace/executeCommand: ``codeloupe.server.*``. Each command takes one JSON
object as its single argument (see docs/protocol.md); a bad argument is an
InvalidParams error that names it."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcRequestCancelled

from ... import __version__
from ...ask import (
    AskError,
    Context,
    RecentContexts,
    answer_result,
    build_context,
    llm_config,
    messages_for,
    result_for,
    verify,
)
from ...ask.llm import ChatClient, LLMCancelled, LLMError, ToolsUnsupported, chat
from ...ask.pipeline import with_tools
from ...ask.toolbox import Toolbox
from ...calls import TargetError, callees_answer, callers_answer, definition, find_symbols
from ...config import Settings
from ...graph import Edge
from ...languages import UnknownLanguageError
from ...search import SearchError
from ...store import IndexDamaged
from ...workspace import Folder, Snapshot, SymRow
from ..indexing import schedule_index
from ..options import (
    AskArgs,
    CallChainArgs,
    ContextArgs,
    OptionError,
    ReindexArgs,
    SearchArgs,
    StatusArgs,
    TargetArgs,
    camel,
    read_strict,
)
from ..pygls_compat import COMMAND_PARAMS, shown
from ..server import CodeloupeServer  # resolved at run time: pygls reads the handlers' hints

if TYPE_CHECKING:
    from ...index import Index

T = TypeVar("T")
log = logging.getLogger("codeloupe.lsp")
INDEX_WAIT_S = 3.0  # how long a command waits for an index that is opening
_ASK_REPORT_EVERY_S = 0.05
REQUEST_FAILED = -32803  # LSP ErrorCodes.RequestFailed

SEARCH = "codeloupe.server.search"
STATUS = "codeloupe.server.status"
REINDEX = "codeloupe.server.reindex"
CALL_CHAIN = "codeloupe.server.callChain"
ASK = "codeloupe.server.ask"
CITATIONS = "codeloupe.server.citations"
CALLERS = "codeloupe.server.callers"
CALLEES = "codeloupe.server.callees"
SYMBOL = "codeloupe.server.symbol"
CONTEXT = "codeloupe.server.context"
MAX_TARGETS = 10  # symbols answered for one target that several symbols match


def _args(cls: type[T], command: str, args: tuple[Any, ...], optional: bool = False) -> T:
    if optional and (not args or args == (None,)):
        return cls()
    if len(args) != 1:
        raise JsonRpcInvalidParams(
            f"{command} takes exactly one JSON object as its argument, got {len(args)} arguments")
    try:
        return read_strict(cls, args[0], command)
    except OptionError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None


def _folder(ls: CodeloupeServer, uri: str | None, command: str) -> Folder:
    try:
        return ls.folder_for(uri)
    except LookupError as exc:
        raise JsonRpcInvalidParams(f"{command}: {exc}") from None


async def search(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """The object ``codeloupe search --json`` prints for one query."""
    a = _args(SearchArgs, SEARCH, args)
    folder = _folder(ls, a.folder, SEARCH)
    index = await _open_index(folder, SEARCH)
    if index is None:  # still opening: say so, never an empty answer that looks final
        return {"query": a.query.strip(), "results": [], "pending_embeddings": None,
                "state": folder.label}
    await ls.flush()
    mode = a.mode if ls.options.embeddings else "fts"
    try:
        resp = await ls.read(ls.searcher(folder).search, a.query, a.k, lang=a.lang,
                             path=a.path, kind=a.kind, mode=mode)
    except (SearchError, UnknownLanguageError) as exc:
        raise JsonRpcInvalidParams(f"{SEARCH}: {exc}") from None
    return {**resp.as_dict(snippet=a.snippets), "state": folder.label}


async def _wait(event: asyncio.Event) -> None:
    """Wait for a folder's event, at most ``INDEX_WAIT_S``."""
    if not event.is_set():
        try:
            await asyncio.wait_for(event.wait(), INDEX_WAIT_S)
        except TimeoutError:
            pass


async def _open_index(folder: Folder, command: str) -> Index | None:
    """The folder's index once it is open (waiting for that at most ``INDEX_WAIT_S``);
    None while it is still opening; RequestFailed when opening it failed."""
    await _wait(folder.opened)
    index = folder.index
    if index is None and folder.state == "failed":
        raise JsonRpcException(f"{command}: the index of {folder.root} could not be opened: "
                               f"{folder.error}", code=REQUEST_FAILED)
    return index


def _folder_status(folder: Folder) -> dict[str, object]:
    out: dict[str, object] = {
        "root": str(folder.root),
        "uri": folder.uri,
        "state": folder.label,
        "progress": dict(folder.progress),
        **folder.counts(),
        "graph": folder.graph_source,
    }
    if folder.error:
        out["error"] = folder.error
    if folder.report:
        out["last_run"] = dict(folder.report)
    return out


def overall_state(folders: list[Folder]) -> str:
    """``ready`` when every folder is, ``failed`` when one failed, else the state of
    the first folder that is not ready (``opening``, ``indexing``, ``embedding N/M``)."""
    labels = [f.label for f in folders]
    if "failed" in labels:
        return "failed"
    return next((label for label in labels if label != "ready"), "ready")


async def status(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """The server's state, settings and resources, and each folder's; answered at
    once, also while an index is opening."""
    a = _args(StatusArgs, STATUS, args, optional=True)
    folders = [_folder(ls, a.folder, STATUS)] if a.folder else list(ls.folders.values())
    out = []
    for folder in folders:
        st = _folder_status(folder)
        if folder.index is not None:
            # the index's own view (files, symbols, pending embeddings, model, index path)
            try:
                st.update(await ls.read(folder.index.status))
            except IndexDamaged as exc:  # found damaged as it opened: being repaired now
                st["damage"] = str(exc)
            st["state"] = folder.label
        out.append(st)
    return {"version": __version__, "state": overall_state(folders),
            "embeddings": ls.options.embeddings,
            "settings": {camel(k): v for k, v in dataclasses.asdict(ls.options).items()},
            "folders": out, "server": ls.resources()}


async def reindex(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """``codeloupe.reindex``: schedule an index run of one folder, or of all; with ``wait``,
    answer once the runs have ended."""
    a = _args(ReindexArgs, REINDEX, args, optional=True)
    folders = [_folder(ls, a.folder, REINDEX)] if a.folder else list(ls.folders.values())
    tasks = [schedule_index(ls, f) for f in folders]
    if a.wait:
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"scheduled": [str(f.root) for f in folders], "waited": a.wait,
            "state": overall_state(folders), "folders": [_folder_status(f) for f in folders]}


def _symbols_named(snap: Snapshot, name: str) -> list[SymRow]:
    """Symbols by id, else by qualified name, else by name."""
    if name in snap.rows:
        return [snap.rows[name]]
    for key in ("qualified_name", "name"):
        found = [s for s in snap.rows.values() if getattr(s, key) == name and s.kind != "module"]
        if found:
            return sorted(found, key=lambda s: s.id)
    return []


async def call_chain(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """The shortest call chains from one symbol to another, over the call graph."""
    a = _args(CallChainArgs, CALL_CHAIN, args)
    folder = _folder(ls, a.folder, CALL_CHAIN)
    await _wait(folder.loaded)  # the model holds the index's symbols (briefly)
    await ls.settle()
    snap = await ls.read(folder.snapshot)
    ends = {}
    for wire, name in (("from", a.from_), ("to", a.to)):
        ends[wire] = _symbols_named(snap, name)
        if not ends[wire]:
            if not folder.loaded.is_set():  # not "no such symbol": not read yet
                return {"from": [s.id for s in ends.get("from", [])], "to": [], "chains": [],
                        "state": folder.label}
            raise JsonRpcInvalidParams(f"{CALL_CHAIN}: {wire!r}: no symbol {shown(name)}")
    least = a.min_confidence if a.min_confidence is not None else ls.options.call_hierarchy_min_confidence
    chains = await ls.read(snap.graph.call_chains, [s.id for s in ends["from"]],
                           [s.id for s in ends["to"]], a.max_depth, a.limit, least)
    return {
        "from": [s.id for s in ends["from"]],
        "to": [s.id for s in ends["to"]],
        "chains": [[_step(ls, folder, e) for e in chain] for chain in chains],
        "state": folder.label,
    }


def _step(ls: CodeloupeServer, folder: Folder, edge: Edge) -> dict[str, object]:
    """One call site; ``col`` in the negotiated position encoding (UTF-16 code units
    unless agreed otherwise), like every position on the wire."""
    lines = ls.lines(folder, edge.site.path)
    col = ls.positions.position(lines, edge.site.line - 1, edge.site.col).character
    return {
        "caller": edge.site.caller,
        "callee": edge.target,
        "path": edge.site.path,
        "line": edge.site.line,
        "col": col,
        "reason": edge.reason,
        "confidence": edge.confidence,
        "ambiguous": edge.ambiguous,
    }


# --- callers, callees, a definition, a context (the agent tools' commands) ---------------------


async def _targets(ls: CodeloupeServer, command: str, a: TargetArgs
                   ) -> tuple[Folder, Snapshot | None, list]:
    """The folder, its snapshot and the symbols ``a.target`` names; no snapshot while the
    model is not read yet (answered with the state, never as "no such symbol")."""
    folder = _folder(ls, a.folder, command)
    await _wait(folder.loaded)
    if not folder.loaded.is_set():
        return folder, None, []
    await ls.settle()
    snap = await ls.read(folder.snapshot)
    try:
        return folder, snap, find_symbols(snap.graph, a.target)[:MAX_TARGETS]
    except TargetError as exc:
        raise JsonRpcInvalidParams(f"{command}: {exc}") from None


async def _edges(ls: CodeloupeServer, command: str, answer: Callable[..., dict[str, object]],
                 args: tuple[Any, ...]) -> dict[str, object]:
    a = _args(TargetArgs, command, args)
    folder, snap, found = await _targets(ls, command, a)
    least = a.min_confidence if a.min_confidence is not None else ls.options.call_hierarchy_min_confidence
    symbols = [] if snap is None else [answer(snap.graph, s, a.depth, least) for s in found]
    return {"target": a.target, "symbols": symbols, "minConfidence": least, "state": folder.label}


async def callers(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """Who calls a symbol: resolved call sites, name-only candidates apart."""
    return await _edges(ls, CALLERS, callers_answer, args)


async def callees(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """What a symbol calls, each callee with its call sites."""
    return await _edges(ls, CALLEES, callees_answer, args)


async def symbol(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """A symbol's definition: signature, doc, numbered source (open buffers as the editor
    shows them), its class, the symbols of its file."""
    a = _args(TargetArgs, SYMBOL, args)
    folder, snap, found = await _targets(ls, SYMBOL, a)
    out = []
    for s in found:
        row = snap.rows.get(s.id) if snap is not None else None
        out.append(definition(snap.graph, s, ls.lines(folder, s.path),  # type: ignore[union-attr]
                              row.signature if row else "", row.doc if row else ""))
    return {"target": a.target, "symbols": out, "state": folder.label}


async def _question(ls: CodeloupeServer, command: str, a: ContextArgs | AskArgs
                    ) -> tuple[Folder, Index | None]:
    """The folder a question is about and its index (None while it is opening); an empty
    question is InvalidParams."""
    if not a.question.strip():
        raise JsonRpcInvalidParams(f"{command}: 'question' must not be empty")
    folder = _folder(ls, a.folder, command)
    return folder, await _open_index(folder, command)


async def _context(ls: CodeloupeServer, folder: Folder, index: Index, question: str,
                   settings: Settings) -> tuple[Snapshot, Context]:
    """The context of a question as ask builds it: the buffers flushed, the graph of the
    model as it is, the lines as the editor shows them."""
    await ls.flush()
    snap = await ls.read(folder.snapshot)
    ctx = await ls.read(build_context, question, index, settings, graph=snap.graph,
                        read_lines=lambda rel: ls.lines(folder, rel), mode=_ask_mode(ls))
    return snap, ctx


async def context(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """The cited context ``ask`` would send to a model for a question (no model called)."""
    a = _args(ContextArgs, CONTEXT, args)
    folder, index = await _question(ls, CONTEXT, a)
    if index is None:
        return {"question": a.question, "context": "", "sources": [], "state": folder.label}
    settings = _ask_settings(ls, AskArgs(question=a.question, folder=a.folder,
                                         context_tokens=a.budget_tokens))
    try:
        _, ctx = await _context(ls, folder, index, a.question, settings)
    except AskError as exc:
        raise JsonRpcInvalidParams(f"{CONTEXT}: {exc}") from None
    return {"question": a.question, "context": ctx.text, "tokens": ctx.tokens,
            "budgetTokens": ctx.budget, "sources": [sn.source() for sn in ctx.snippets],
            "state": folder.label}


# --- ask ---------------------------------------------------------------------------------

def _ask_settings(ls: CodeloupeServer, a: AskArgs) -> Settings:
    env = Settings.from_env()  # CODELOUPE_LLM_URL / _MODEL / _RERANKER when no setting says
    o = ls.options
    s = o.settings()
    s.llm_url = o.llm_endpoint or env.llm_url
    s.llm_model = o.llm_model or env.llm_model
    s.llm_api_key_env = o.llm_api_key_env
    s.ask_context_tokens = a.context_tokens or o.ask_context_tokens
    s.llm_max_tokens = o.llm_max_tokens or env.llm_max_tokens
    s.llm_deadline_s = o.llm_deadline_seconds or env.llm_deadline_s
    s.reranker = env.reranker
    s.ask_tokenizer = env.ask_tokenizer
    s.ask_tools = env.ask_tools  # CODELOUPE_ASK_TOOLS=0: one context, no tools
    return s


class _AskProgress:
    """``$/progress`` for one ask: the client's workDoneToken, else a token of our own
    when the client supports it. Reports carry the answer text generated since the
    previous report (concatenate them in order)."""

    def __init__(self, ls: CodeloupeServer) -> None:
        self.ls = ls
        self.token: types.ProgressToken | None = None

    async def begin(self, question: str) -> None:
        params = COMMAND_PARAMS.get()
        token = params.work_done_token if params is not None else None
        if token is None:
            token = await self.ls.new_progress_token("ask")
            if token is None:
                return
        self.token = token
        short = question if len(question) <= 60 else question[:57] + "..."
        self.ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title="codeloupe: ask", message=f"finding the code for: {short}", cancellable=True))

    @property
    def cancelled(self) -> bool:
        fut = self.ls.work_done_progress.tokens.get(self.token) if self.token is not None else None
        return fut is not None and fut.cancelled()

    def report(self, text: str) -> None:
        if self.token is not None and text:
            self.ls.work_done_progress.report(self.token, types.WorkDoneProgressReport(
                message=text, cancellable=True))

    def end(self, message: str) -> None:
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            self.token = None


async def ask(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """An answer with cited, verified sources (see docs/protocol.md); the answer streams
    through ``$/progress`` reports. The endpoint is checked before the context is built
    (an unreachable one fails at once). Cancellable with ``$/cancelRequest`` or by
    cancelling the progress: the HTTP read in flight stops."""
    a = _args(AskArgs, ASK, args)
    folder, index = await _question(ls, ASK, a)
    if index is None:
        raise JsonRpcException(f"{ASK}: the index of {folder.root} is still opening "
                               f"(state: {folder.label}); ask again in a moment",
                               code=REQUEST_FAILED)
    request = ls.protocol._request_futures.get(ls.protocol.msg_id)  # for $/cancelRequest
    progress = _AskProgress(ls)
    await progress.begin(a.question)

    def cancelled() -> bool:
        return progress.cancelled or (request is not None and request.cancelled())

    settings = _ask_settings(ls, a)
    stream = _Stream(ls, progress, cancelled)
    try:
        config = llm_config(settings)
        client = ChatClient(config) if config is not None else None
        if client is not None:
            await stream.run(client.check_reachable, client)
        if cancelled():
            raise LLMCancelled("cancelled")
        snap, context = await _context(ls, folder, index, a.question, settings)
        if cancelled():
            raise LLMCancelled("cancelled")
        if client is None:
            progress.end("no language model is configured")
            cid = _ASK_CONTEXTS.add(folder.uri, folder.root, context)  # for `citations`
            return {**result_for(a.question, context, None, None).as_dict(), "context_id": cid,
                    "state": folder.label}
        result = None
        if settings.ask_tools:  # the model may fetch more with the tools, where it takes them
            toolbox = Toolbox(index, snap.graph, lambda rel: ls.lines(folder, rel))
            try:
                result = await stream.run(functools.partial(
                    with_tools, a.question, context, toolbox, client, settings,
                    stream.on_delta, folder.root), client)
            except ToolsUnsupported as exc:
                log.info("codeloupe: %s; answering from the context alone", exc)
        if result is None:
            messages = messages_for(a.question, context)
            answer = await stream.run(
                functools.partial(chat, client.config, messages, stream.on_delta, client), client)
            result = answer_result(a.question, context, answer, client.config, folder.root)
    except LLMCancelled:
        progress.end("cancelled")
        raise JsonRpcRequestCancelled(f"{ASK}: cancelled") from None
    except (LLMError, AskError) as exc:
        progress.end(f"failed: {exc}")
        raise JsonRpcException(f"{ASK}: {exc}", code=REQUEST_FAILED) from None
    except BaseException:
        progress.end("failed")
        raise
    cited = sum(1 for s in result.sources if s.get("cited"))
    if result.cut_off == "deadline":
        progress.end(f"cut off at the deadline of {client.config.deadline_s:g}s "
                     f"({cited} sources cited so far)")
    else:
        progress.end(f"answered from {len(result.sources)} snippets ({cited} cited)")
    return {**result.as_dict(), "state": folder.label}


class _Stream:
    """An answer streaming in on the network threads: the text received so far goes
    out as progress every ``_ASK_REPORT_EVERY_S``, and a cancel closes the connection."""

    def __init__(self, ls: CodeloupeServer, progress: _AskProgress, cancelled: Callable[[], bool]) -> None:
        self.ls, self.progress, self.cancelled = ls, progress, cancelled
        self.pending: list[str] = []
        self.lock = threading.Lock()

    def on_delta(self, piece: str) -> None:
        """A piece of the answer (called on the network thread)."""
        with self.lock:
            self.pending.append(piece)

    async def run(self, job: Callable[[], T], client: ChatClient) -> T:
        """``job`` on the network threads (not the readers'), reporting meanwhile."""
        running = asyncio.get_running_loop().run_in_executor(self.ls.network, job)
        while True:
            done, _ = await asyncio.wait({running}, timeout=_ASK_REPORT_EVERY_S)
            with self.lock:
                text, self.pending[:] = "".join(self.pending), []
            self.progress.report(text)
            if done:
                return running.result()
            if self.cancelled():
                client.cancel()  # the blocking read returns; the endpoint sees the close


def _ask_mode(ls: CodeloupeServer) -> str:
    return "hybrid" if ls.options.embeddings else "fts"


# --- citations of an answer a client's own model wrote ------------------------------------

# The contexts of the last asks answered without a model, by the id the result gave
# the client. Module state, not the server's: the handler stays self-contained.
_ASK_CONTEXTS = RecentContexts(32)
MAX_ANSWER_CHARS = 1_000_000


def _answer_length(value: str) -> None:
    if len(value) > MAX_ANSWER_CHARS:
        raise OptionError(f"must be at most {MAX_ANSWER_CHARS:,} characters, got {len(value):,}")


@dataclasses.dataclass
class CitationsArgs:
    """``codeloupe.server.citations``'s argument (docs/protocol.md)."""

    answer: str = dataclasses.field(metadata={"check": _answer_length})
    context_id: str  # the ask result's `context_id`
    folder: str | None = None  # default: the folder the context came from


async def citations(ls: CodeloupeServer, *args: Any) -> dict[str, object]:
    """The citations of an answer written from an ask's context (``contextId``), each
    verified against that context, and its sources marked ``cited``."""
    a = _args(CitationsArgs, CITATIONS, args)
    remembered = _ASK_CONTEXTS.get(a.context_id)
    if remembered is None:
        raise JsonRpcInvalidParams(
            f"{CITATIONS}: 'contextId' {shown(a.context_id)} is not one of the last "
            f"{_ASK_CONTEXTS.size} contexts this server gave; ask again")
    folder = _folder(ls, a.folder or remembered.folder, CITATIONS)
    if folder.uri != remembered.folder:
        raise JsonRpcInvalidParams(f"{CITATIONS}: 'contextId' {shown(a.context_id)} is a "
                                   f"context of another folder ({remembered.folder})")
    checked = verify(a.answer, remembered.context, remembered.root)
    return {**checked.as_dict(remembered.context), "state": folder.label}


COMMANDS: dict[str, Callable[..., Awaitable[dict[str, object]]]] = {
    SEARCH: search,
    STATUS: status,
    REINDEX: reindex,
    CALL_CHAIN: call_chain,
    ASK: ask,
    CITATIONS: citations,
    CALLERS: callers,
    CALLEES: callees,
    SYMBOL: symbol,
    CONTEXT: context,
}
