from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from pathlib import Path

from codeloupe.extract import extract_text
from codeloupe.graph import Graph, SymbolInfo
from codeloupe.languages import language_for_path
from codeloupe.languages import path_matches as _path_matches

FILES = {
    "pkg/transport.py": '''
class Socket:
    def send(self, data):
        return self.write(data)

    def write(self, data):
        return len(data)


class Mailer:
    def send(self, message):
        return deliver(message)


def deliver(message):
    return message
''',
    "pkg/app.py": '''
from .transport import deliver as ship
from .transport import Socket


def main():
    sock = Socket()
    ship("hello")
    sock.send(b"x")
    unknown_helper()
''',
}


def build() -> Graph:
    symbols, refs = [], []
    for path, text in FILES.items():
        ex = extract_text(path, text, language_for_path(path))
        symbols += [SymbolInfo(s.id, s.path, s.name, s.qualified_name, s.kind, s.parent,
                               s.start_line, s.end_line, s.language) for s in ex.symbols]
        refs += [{f: getattr(r, f) for f in r.__slots__} for r in ex.references]
    return Graph(symbols, refs)


def test_self_calls_resolve_to_the_enclosing_class() -> None:
    g = build()
    [edge] = g.callees("pkg/transport.py::Socket.send")
    assert edge.target == "pkg/transport.py::Socket.write" and edge.reason == "self"


def test_local_and_imported_alias_calls() -> None:
    g = build()
    [edge] = g.callees("pkg/transport.py::Mailer.send")
    assert (edge.target, edge.reason) == ("pkg/transport.py::deliver", "local")
    callees = {(e.target, e.reason) for e in g.callees("pkg/app.py::main")}
    assert ("pkg/transport.py::Socket", "import") in callees
    assert ("pkg/transport.py::deliver", "import") in callees  # called through its alias


def test_same_name_methods_stay_apart_and_ambiguity_is_marked() -> None:
    g = build()
    [send] = [e for e in g.callees("pkg/app.py::main") if e.site.name == "send"]
    # `sock = Socket()`: the variable's type picks Socket.send, not Mailer.send
    assert (send.target, send.reason, send.ambiguous) == ("pkg/transport.py::Socket.send", "type", False)
    # an unknown receiver: both `send` methods are candidates, marked ambiguous
    g.replace_file("pkg/app.py", *_file("pkg/app.py", FILES["pkg/app.py"] + "\n\ndef other(x):\n    x.send(1)\n"))
    sends = g.callees("pkg/app.py::other")
    assert {e.target for e in sends} == {"pkg/transport.py::Socket.send", "pkg/transport.py::Mailer.send"}
    assert all(e.ambiguous and e.reason == "name" and e.confidence < 0.5 for e in sends)
    # `len` is a builtin (outside the repository); `unknown_helper` is defined nowhere
    assert sorted(s.name for s in g.unresolved) == ["len", "unknown_helper"]
    assert [s.name for s in g.external] == ["len"]


def test_path_matches_import_sources() -> None:
    assert _path_matches("pkg/transport.py", ".transport")
    assert _path_matches("pkg/transport.py", "pkg.transport")
    assert _path_matches("src/lib/router/index.js", "./lib/router")
    assert _path_matches("src/util.ts", "../util.ts")
    assert not _path_matches("pkg/transport.py", "transporter")


def _edges(g: Graph) -> tuple[set, set, set]:
    out = {(k, e.site, e.target, e.reason, e.confidence, e.ambiguous) for k, v in g.out_edges.items() for e in v}
    inc = {(k, e.site, e.target) for k, v in g.in_edges.items() for e in v}
    return out, inc, set(g.unresolved)


def _file(path: str, text: str) -> tuple[list[SymbolInfo], list[dict]]:
    ex = extract_text(path, text, language_for_path(path))
    symbols = [SymbolInfo(s.id, s.path, s.name, s.qualified_name, s.kind, s.parent,
                          s.start_line, s.end_line, s.language) for s in ex.symbols]
    return symbols, [{f: getattr(r, f) for f in r.__slots__} for r in ex.references]


def _scratch(files: dict[str, str]) -> Graph:
    symbols, refs = [], []
    for path, text in files.items():
        s, r = _file(path, text)
        symbols += s
        refs += r
    return Graph(symbols, refs)


def test_replacing_a_file_equals_building_again() -> None:
    g = build()
    files = dict(FILES)
    edits = [
        # a new function in app.py that calls a method of transport.py
        ("pkg/app.py", FILES["pkg/app.py"] + "\n\ndef extra():\n    return deliver('x')\n"),
        # transport.py loses `deliver` (app.py's aliased import now resolves to nothing)
        ("pkg/transport.py", FILES["pkg/transport.py"].replace("def deliver(message):",
                                                              "def dispatch(message):")),
        # a new file defines `unknown_helper` (app.py's unresolved call now resolves)
        ("pkg/helpers.py", "def unknown_helper():\n    return deliver(1)\n"),
        # and the original transport.py comes back
        ("pkg/transport.py", FILES["pkg/transport.py"]),
    ]
    for path, text in edits:
        files[path] = text
        g.replace_file(path, *_file(path, text))
        assert _edges(g) == _edges(_scratch(files)), path
    assert "unknown_helper" not in {s.name for s in g.unresolved}
    # a deleted file
    del files["pkg/helpers.py"]
    g.replace_file("pkg/helpers.py", [], [])
    assert _edges(g) == _edges(_scratch(files))
    assert "unknown_helper" in {s.name for s in g.unresolved}


def test_an_edit_that_only_moves_lines_moves_calls_and_type_uses() -> None:
    """Typing in a comment, twice: the second edit has the first one's shape (same
    symbols and rows but for their positions), so the index keeps the file's facts;
    calls, type uses and symbol lines are still those of the new text."""
    files = dict(FILES)
    files["pkg/app.py"] += "\n\nclass Relay(Socket):\n    def pipe(self, s: Socket):\n        return s.send(1)\n"
    g = _scratch(files)
    for text in ("# a\n" + files["pkg/app.py"], "# a\n# b\n\n" + files["pkg/app.py"], files["pkg/app.py"]):
        g.replace_file("pkg/app.py", *_file("pkg/app.py", text))
        want = _scratch({**files, "pkg/app.py": text})
        assert _edges(g) == _edges(want)
        uses = g.type_references("pkg/transport.py::Socket")
        assert {k: sorted(map(repr, v)) for k, v in uses.items()} == {
            k: sorted(map(repr, v)) for k, v in want.type_references("pkg/transport.py::Socket").items()}
        assert len(uses["subclassed"]) == 1 and uses["type"], uses
        assert g.symbols["pkg/app.py::Relay"].start_line == want.symbols["pkg/app.py::Relay"].start_line


def test_typing_in_a_call_keeps_the_facts_and_moves_the_edge() -> None:
    """A called name typed letter by letter (`shi` → `ship`, and back): the file's
    symbols and facts are the same (calls are no facts), its edges those of a build."""
    files = dict(FILES)
    g = _scratch(files)
    before = g._index.facts["pkg/app.py"]
    for text in (files["pkg/app.py"].replace('ship("hello")', 'shi("hello")'),
                 files["pkg/app.py"].replace('ship("hello")', 'shi("hello")\n    ship("again")'),
                 files["pkg/app.py"]):
        g.replace_file("pkg/app.py", *_file("pkg/app.py", text))
        assert _edges(g) == _edges(_scratch({**files, "pkg/app.py": text})), text
    assert g._index.facts["pkg/app.py"].imports == before.imports
    assert {e.site for e in g.callers("pkg/transport.py::deliver")} == {
        e.site for e in _scratch(files).callers("pkg/transport.py::deliver")} != set()


def test_call_chains_are_the_shortest_paths_over_callees() -> None:
    g = build()
    [chain] = g.call_chains(["pkg/app.py::main"], ["pkg/transport.py::Socket.write"])
    assert [(e.site.caller, e.target) for e in chain] == [
        ("pkg/app.py::main", "pkg/transport.py::Socket.send"),
        ("pkg/transport.py::Socket.send", "pkg/transport.py::Socket.write"),
    ]
    assert g.call_chains(["pkg/transport.py::Socket.write"], ["pkg/app.py::main"]) == []
    assert g.call_chains(["pkg/app.py::main"], ["pkg/transport.py::Socket.write"], max_depth=1) == []


def _alive_once_dropped(make: Callable[[], Graph]) -> list[str]:
    """The parts of a graph ``make`` returns that are still alive once it is dropped,
    with the cyclic collector off: what only a collection would free."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        g = make()
        parts = {"graph": g, "resolver": g._resolver, "index": g._index, "edges": g._edges,
                 "memo": g._resolver.memo}
        refs = {name: weakref.ref(part) for name, part in parts.items()}
        del g, parts
        return [name for name, ref in refs.items() if ref() is not None]
    finally:
        if enabled:
            gc.enable()


def test_a_graph_holds_no_reference_cycle(tmp_path: Path) -> None:
    """``gc_paused`` freezes a built or loaded graph out of the collector's reach: a
    dropped one must then be freed by reference counts alone (a recursive closure in
    the resolver, one cycle per class's bases, kept the whole graph alive)."""
    files = dict(FILES)
    files["pkg/secure.py"] = '''
from .transport import Socket


class TlsSocket(Socket):
    def write(self, data):
        return super().write(data)
'''

    def built() -> Graph:
        return _scratch(files)

    def edited() -> Graph:
        g = _scratch(files)
        g.replace_file("pkg/secure.py", *_file("pkg/secure.py", files["pkg/secure.py"] + "\n# edited\n"))
        return g

    def loaded() -> Graph:
        _scratch(files).save(tmp_path / "map", "k")
        g = Graph.load(tmp_path / "map", "k")
        assert g is not None
        return g

    g = built()
    assert {e.site.caller for e in g.callers("pkg/transport.py::Socket.write")} >= {"pkg/transport.py::Socket.send"}
    assert ("pkg/secure.py::TlsSocket.write" in {e.target for e in g.callees("pkg/transport.py::Socket.send")})
    for make in (built, edited, loaded):
        assert _alive_once_dropped(make) == [], make.__name__
