"""The calls of a saved map read in place (``graph.callfile``, issue 14): every answer
``codeloupe calls`` and ``codeloupe path`` take from it is the graph's own, on every
language's fixtures and on a real package (this one); anything not this user's, of
another key or damaged reads as None."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeloupe.graph import Edge, Graph
from codeloupe.graph.callfile import SavedCalls
from codeloupe.languages import language_for_path

from .test_graph_languages import CASES, DATA, _scratch
from .test_graph_persist import cache  # noqa: F401  (autouse: this user's secret in the test's folder)

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "codeloupe"


def _files(root: Path) -> dict[str, str]:
    return {f.relative_to(root).as_posix(): f.read_text() for f in sorted(root.rglob("*"))
            if f.is_file() and language_for_path(f)}


def _edge(e: Edge) -> tuple:
    return (e.site, e.target, e.reason, e.confidence, e.ambiguous, e.detail)


def _answers(g: Graph | SavedCalls, ends: list[str]) -> dict[str, object]:
    """Everything the two commands ask, of every symbol."""
    syms = list(g.symbols.values())
    out: dict[str, object] = {"symbols": syms, "ids": list(g.symbols), "count": len(g.symbols),
                              "missing": [g.symbols.get(x) for x in ("", "no::such", syms[0].path)]}
    for s in syms:
        out[f"{s.id} symbol"] = (g.symbols[s.id], s.id in g.symbols)
        for field in ("path", "name", "qualified_name"):
            out[f"{s.id} {field}"] = g.symbols_where(field, getattr(s, field))
    for sid in g.symbols:
        for cut in (0.0, 0.5):
            out[f"{sid} callers {cut}"] = [(_edge(e), g.evidence(e)) for e in g.callers(sid, cut)]
            out[f"{sid} callees {cut}"] = [(_edge(e), g.evidence(e)) for e in g.callees(sid, cut)]
        for incoming in (True, False):
            out[f"{sid} below {incoming}"] = g.below(sid, 0.5, incoming=incoming)
            out[f"{sid} offered {incoming}"] = [(_edge(e), g.evidence(e))
                                                for e in g.offered(sid, 0.5, incoming=incoming)]
            out[f"{sid} counts {incoming}"] = g.counts(sid, 0.5, incoming=incoming)
        out[f"{sid} up"] = g.upstream(sid, 3)
        out[f"{sid} down"] = g.downstream(sid, 3)
        out[f"{sid} chains"] = [[_edge(e) for e in c] for c in g.call_chains([sid], ends, 6, 10, 0.0)]
        out[f"{sid} all chains"] = [[_edge(e) for e in c] for c in g.all_chains([sid], ends, 4, 20, 0.5)]
    return out


def _most_called(g: Graph) -> list[str]:
    return [sid for sid, _ in g.most_called(3)]


def _saved(g: Graph, tmp_path: Path, key: str = "state") -> SavedCalls:
    g.save_calls(tmp_path / "callgraph.calls", key)
    saved = SavedCalls.open(tmp_path / "callgraph.calls", key)
    assert saved is not None
    return saved


@pytest.mark.parametrize("lang", sorted(CASES))
def test_the_saved_calls_answer_as_the_graph(lang: str, tmp_path: Path) -> None:
    g = _scratch(_files(DATA / lang))
    ends = _most_called(g)
    assert ends and any(g.callers(s) for s in g.symbols)
    assert _answers(_saved(g, tmp_path), ends) == _answers(g, ends)


def test_the_saved_calls_of_a_real_package_answer_as_its_graph(tmp_path: Path) -> None:
    g = _scratch(_files(PACKAGE))
    ends = _most_called(g)
    saved = _saved(g, tmp_path)
    named = [s for s in g.symbols if any(e.reason == "name" for e in g.callers(s))]
    assert len(g.symbols) > 1000 and named  # name matches (the compact sites) are there too
    assert _answers(saved, ends) == _answers(g, ends)


def test_only_this_users_calls_of_this_key_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = _scratch(_files(DATA / "python"))
    path = tmp_path / "callgraph.calls"
    g.save_calls(path, "state")
    assert SavedCalls.open(path, "state") is not None
    assert SavedCalls.open(path, "another state") is None
    assert SavedCalls.open(tmp_path / "none", "state") is None
    data = path.read_bytes()
    for damaged in (b"", data[:-1], data[:200], data[:-8] + bytes(8 * [0x41]),
                    data.replace(b'"format":1', b'"format":2'), b"not a call file\n" + data):
        path.write_bytes(damaged)
        assert SavedCalls.open(path, "state") is None, damaged[:40]
    path.write_bytes(data)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "someone else"))  # another user's secret
    assert SavedCalls.open(path, "state") is None
