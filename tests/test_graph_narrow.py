"""Name candidates narrowed by evidence (graph.resolve.narrow): arity rules candidates
out, where they live only favours; what is left is marked with its evidence, and
several left stay below the default view, counted and offered."""

from __future__ import annotations

from pathlib import Path

from codeloupe.extract import extract
from codeloupe.graph import DEFAULT_MIN_CONFIDENCE, Graph, SymbolInfo

from .test_graph_languages import DATA, load, targets

LAYOUT, BOX, CIRCLE = "app/shapes/layout.py", "app/shapes/box.py", "app/shapes/circle.py"


def _file(root: Path, rel: str, text: str, language: str) -> tuple[list[SymbolInfo], list[dict]]:
    ex = extract(rel, text.encode(), language)
    return ([SymbolInfo(s.id, s.path, s.name, s.qualified_name, s.kind, s.parent, s.start_line, s.end_line,
                        s.language) for s in ex.symbols],
            [{f: getattr(r, f) for f in r.__slots__} for r in ex.references])


def test_survivors_that_evidence_cannot_split_stay_name_candidates_marked() -> None:
    g = load("python")
    # `view.scale(w, h)`: Panel.scale(factor, origin=None) and Image.scale(width, height) both take two
    got, edges = targets(g, LAYOUT, "zoom", "scale", 11)
    assert got == {f"{BOX}::Panel.scale", f"{CIRCLE}::Image.scale"}
    assert all(e.reason == "name" and e.confidence < DEFAULT_MIN_CONFIDENCE for e in edges)
    assert {g.evidence(e) for e in edges} == {"by name, 2 candidates"}
    # a decorated `submit` may take anything: never ruled out, so nothing is promoted
    got, edges = targets(g, LAYOUT, "enqueue", "submit", 20)
    assert got == {f"{CIRCLE}::Job.submit", f"{CIRCLE}::Queue.submit"}
    assert all(e.reason == "name" for e in edges)
    # `emit(*parts)` alone takes three, but `emit` is a name the standard types use:
    # one candidate left, by name, with the evidence, below the view
    got, edges = targets(g, LAYOUT, "log", "emit", 15)
    assert got == {f"{CIRCLE}::Image.emit"}
    assert [(e.reason, g.evidence(e)) for e in edges] == [
        ("name", "by name, 1 candidate (arity: 1 of 2 candidates)")]


def test_arity_leaves_one_candidate_below_the_view_and_says_why() -> None:
    g = load("python")
    assert g.callers(f"{BOX}::Box.resize", DEFAULT_MIN_CONFIDENCE) == []
    [edge] = g.callers(f"{BOX}::Box.resize")
    assert (edge.site.line, edge.reason, edge.confidence) == (2, "name", 0.3)
    assert g.evidence(edge) == "by name, 1 candidate (arity: 1 of 2 candidates)"
    # the trap: Circle.resize takes one argument, `fit` passes two
    assert [e.site.caller for e in g.callers(f"{CIRCLE}::Circle.resize")] == [f"{LAYOUT}::shrink"]


def test_a_test_files_own_copy_of_a_helper_class_is_narrowed_into_the_view() -> None:
    g = load("python")
    alpha, beta = "app/checks/test_alpha.py", "app/checks/test_beta.py"
    [edge] = g.callers(f"{alpha}::Clock.advance", DEFAULT_MIN_CONFIDENCE)
    assert (edge.site.path, edge.reason) == (alpha, "narrowed")
    assert g.evidence(edge) == "narrowed by caller's file has its own Clock.advance: 1 of 2 candidates"
    assert [e.site.path for e in g.callers(f"{beta}::Clock.advance")] == [beta]


def test_a_copy_the_caller_can_import_is_not_ruled_out() -> None:
    root = DATA / "python"
    g = load("python")
    alpha, beta = "app/checks/test_alpha.py", "app/checks/test_beta.py"
    text = "from .test_beta import Clock as Other\n" + (root / alpha).read_text()
    g.replace_file(alpha, *_file(root, alpha, text, "python"))
    got, edges = targets(g, alpha, "test_expiry", "advance", 11)
    assert got == {f"{alpha}::Clock.advance", f"{beta}::Clock.advance"}
    assert all(e.reason == "name" and e.confidence < DEFAULT_MIN_CONFIDENCE for e in edges)
    assert _edges(g) == _edges(_rebuilt(root, {alpha: text}))


def test_offered_lists_the_few_candidate_name_matches_below_the_view() -> None:
    g = load("python")
    offered = g.offered(f"{CIRCLE}::Image.scale", DEFAULT_MIN_CONFIDENCE)
    assert [(e.site.path, e.site.line) for e in offered] == [(LAYOUT, 11)]
    assert g.offered(f"{CIRCLE}::Image.scale", 0.0) == []  # nothing below a view of every edge
    out = g.offered(f"{LAYOUT}::zoom", DEFAULT_MIN_CONFIDENCE, incoming=False)
    assert {e.target for e in out} == {f"{BOX}::Panel.scale", f"{CIRCLE}::Image.scale"}


def test_edits_of_arity_re_narrow_the_call_and_equal_a_rebuild() -> None:
    root = DATA / "python"
    g = load("python")
    # Circle.resize takes two as well now: `fit`'s two arguments fit both, nothing is promoted
    circle = (root / CIRCLE).read_text().replace("def resize(self, radius):", "def resize(self, radius, y=0):")
    g.replace_file(CIRCLE, *_file(root, CIRCLE, circle, "python"))
    got, edges = targets(g, LAYOUT, "fit", "resize", 2)
    assert got == {f"{BOX}::Box.resize", f"{CIRCLE}::Circle.resize"}
    assert all(e.reason == "name" for e in edges)
    # the call passes one argument now: Box.resize takes two, Circle.resize is left
    text = (root / LAYOUT).read_text().replace("item.resize(w, h)", "item.resize(w)")
    g.replace_file(LAYOUT, *_file(root, LAYOUT, text, "python"))
    got, edges = targets(g, LAYOUT, "fit", "resize", 2)
    assert got == {f"{CIRCLE}::Circle.resize"} and g.evidence(edges[0]).endswith("(arity: 1 of 2 candidates)")
    assert _edges(g) == _edges(_rebuilt(root, {LAYOUT: text, CIRCLE: circle}))


def _rebuilt(root: Path, texts: dict[str, str]) -> Graph:
    symbols: list[SymbolInfo] = []
    refs: list[dict] = []
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root).as_posix()
        s, r = _file(root, rel, texts.get(rel, f.read_text()), "python")
        symbols += s
        refs += r
    return Graph(symbols, refs)


def _edges(g: Graph) -> set[tuple]:
    return {(s.path, s.line, s.col, s.name, e.target, str(e.reason), e.confidence, e.detail)
            for s, edges in g.site_edges.items() for e in edges}


def test_counts_are_what_the_call_hierarchy_lists() -> None:
    """A lens or a hover counts the callers shown and those offered beside them by name
    (a call with few candidates), not every name match below the view: a call of
    `draw` that five classes define is hidden there, and so not counted."""
    classes = "".join(f"class S{i}:\n    def draw(self):\n        pass\n\n" for i in range(5))
    files = {"shapes.py": classes + "class P1:\n    def paint(self):\n        pass\n\n"
                                    "class P2:\n    def paint(self):\n        pass\n",
             "use.py": "from shapes import S0\n\n\ndef show(x):\n    x.draw()\n\n\ndef fill(y):\n    y.paint()\n\n\n"
                       "def direct():\n    S0().draw()\n"}
    symbols: list[SymbolInfo] = []
    refs: list[dict] = []
    for rel, text in files.items():
        s, r = _file(Path("."), rel, text, "python")
        symbols += s
        refs += r
    g = Graph(symbols, refs)
    least = DEFAULT_MIN_CONFIDENCE
    assert g.below("shapes.py::S0.draw", least) == (1, 1)  # `x.draw()`: five candidates
    assert g.counts("shapes.py::S0.draw", least) == (1, 0)  # `S0().draw()` only
    assert g.counts("shapes.py::P1.paint", least) == (0, 1)  # `y.paint()`: offered
    assert g.counts("use.py::fill", least, incoming=False) == (0, 2)
    assert g.counts("use.py::show", least, incoming=False) == (0, 0)
