"""The context as a walk over the code: a long function elided to its head and the calls
that lead to the other candidates (line numbers kept, citations still checkable), a
nested function and its parent never both in full, tests and examples after source."""

from __future__ import annotations

from pathlib import Path

from codeloupe import ask as A
from codeloupe.extract import extract
from codeloupe.graph import Graph, SymbolInfo
from codeloupe.workspace import FileModel

BODY = "\n".join(f"    step_{i} = compute({i})" for i in range(60))
SOURCE = f'''def dispatch(request):
    """Route a request to its handler."""
    kind = request.kind
{BODY}
    if kind == "json":
        return encode_json(request)
{BODY}
    return encode_text(request)


def encode_json(request):
    return "json"


def encode_text(request):
    return "text"


def outer():
    def inner_helper(x):
        a = x + 1
        b = a * 2
        c = b - 3
        return c
    return inner_helper(1)
'''


def _graph(tmp_path: Path) -> Graph:
    (tmp_path / "app.py").write_text(SOURCE)
    fx = extract("app.py", SOURCE.encode(), "python")
    symbols = [SymbolInfo(s.id, s.path, s.name, s.qualified_name, s.kind, s.parent, s.start_line,
                          s.end_line, s.language) for s in fx.symbols]
    return Graph(symbols, list(FileModel.from_extraction(fx).refs))


def test_a_long_function_shows_its_head_and_the_calls_to_the_chain(tmp_path: Path) -> None:
    graph = _graph(tmp_path)
    cands = [A.Candidate.of(graph.symbols[f"app.py::{n}"]) for n in ("dispatch", "encode_json")]
    ctx = A.assemble(cands, graph, A.disk_reader(tmp_path), budget=1200)
    lines = ctx.snippets[0].render().splitlines()
    assert ctx.snippets[0].truncated
    call = next(line for line in lines if "return encode_json(request)" in line)
    assert call.split("|")[0].strip() == "65"  # the line number of the file, kept
    assert "    1 | def dispatch(request):" in lines and "      | ..." in lines
    assert len(lines) < 25  # not 127 lines
    assert [s.qualified_name for s in ctx.snippets] == ["dispatch", "encode_json"]
    checked = A.verify("It calls encode_json (app.py:65), not app.py:40.", ctx)
    assert checked.unverified == ["app.py:40"]  # an elided line was not sent
    full = A.assemble(cands, graph, A.disk_reader(tmp_path), budget=100_000)
    assert not full.snippets[0].truncated  # room enough: shown whole


def test_a_parent_after_its_nested_function_leaves_out_what_was_shown(tmp_path: Path) -> None:
    graph = _graph(tmp_path)
    inner = next(s for s in graph.symbols.values() if s.name == "inner_helper")
    cands = [A.Candidate.of(inner), A.Candidate.of(graph.symbols["app.py::outer"])]
    ctx = A.assemble(cands, graph, A.disk_reader(tmp_path), budget=10_000)
    inner_snip, outer_snip = ctx.snippets
    assert inner_snip.shown() & outer_snip.shown() == set()
    assert any("shown above" in text for n, text in outer_snip.lines if not n)


def test_tests_and_examples_come_after_source_unless_asked_about() -> None:
    from codeloupe.ask import retrieval

    assert retrieval._ABOUT_TESTS.search("how do the tests mock the server?")
    assert not retrieval._ABOUT_TESTS.search("how does the latest release attest signatures?")
