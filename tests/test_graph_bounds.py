"""The resolver's recursion is bounded: texts and facts that re-enter an evaluator, or
chains longer than any real code has, give an unresolved call, never an exception.

Each fixture is the smallest form of a pattern found in a real project (issue 11:
``transformers`` crashed ``codeloupe graph`` with a RecursionError in ``_type_value``)
or built to exceed the old per-lookup bounds (bench/robust_corpus.py runs the whole
pipeline over large real projects)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from codeloupe.graph import Graph
from codeloupe.graph.resolve.text import element_name, type_name, union_members

from .test_graph import _file, _scratch

build = _scratch  # the graph of these files, built from scratch


def _edges(g: Graph) -> set:
    return {(e.site, e.target, e.reason, e.confidence, e.ambiguous)
            for edges in g.out_edges.values() for e in edges}


def targets(g: Graph, caller: str, name: str) -> set[tuple[str, str]]:
    return {(e.target, e.reason) for e in g.callees(caller) if e.site.name == name}


@contextmanager
def stack_left(frames: int) -> Iterator[None]:
    """Run with only ``frames`` Python frames left above the caller's stack."""
    depth = 0
    f = sys._getframe()
    while f is not None:
        depth += 1
        f = f.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


TWO_CLASSES = "class A:\n    def go(self): pass\n\n\nclass B:\n    def go(self): pass\n\n\n"


def test_a_union_written_as_a_string_annotation_is_read_as_its_members() -> None:
    # transformers/cli/serving/utils.py: `processor: "ProcessorMixin | PreTrainedTokenizerFast"`
    g = build({"m.py": TWO_CLASSES + "def f(x: 'A | B'):\n    x.go()\n"})
    assert targets(g, "m.py::f", "go") == {("m.py::A.go", "type"), ("m.py::B.go", "type")}


def test_a_union_inside_brackets_is_no_type_and_does_not_re_enter() -> None:
    g = build({"m.py": TWO_CLASSES + "def f(x: [A | B]):\n    x.go()\n\n\n"
                       "def h(y: ['A | B', int]):\n    y.go()\n"})
    # a list is not a type: no precise edge, only the name candidates
    assert {reason for _, reason in targets(g, "m.py::f", "go")} <= {"name"}
    assert {reason for _, reason in targets(g, "m.py::h", "go")} <= {"name"}


def test_a_class_based_on_its_own_attribute_resolves_without_error() -> None:
    # `class A(A.B)`: the bases of A look up B on A while A's bases are being computed
    g = build({"a.py": "class A(A.B):\n    def go(self): pass\n\n\ndef f():\n    A().go()\n"})
    assert ("a.py::A.go", "type") in targets(g, "a.py::f", "go")
    g = build({"a.ts": "class A extends A.B {\n  go() { this.run(); }\n  run() {}\n}\n"})
    assert targets(g, "a.ts::A.go", "run") == {("a.ts::A.run", "self")}


def test_nested_type_wrappers_are_read_to_a_bound() -> None:
    deep = "Optional[" * 1500 + "A" + "]" * 1500
    assert type_name(deep) is None and element_name(deep) is None
    assert type_name("Optional[Optional[A]]") == "A"
    assert element_name("Optional[List[A]]") == "A"


def _copy_chain(n: int, nesting: int = 20) -> str:
    """``x1 = list(list(...(x0)))``, each variable copied from the one before."""
    lines = ["class A:", "    def go(self): pass", "", "", "def f(x0: list[A]):"]
    for i in range(1, n):
        lines.append(f"    x{i} = " + "list(" * nesting + f"x{i - 1}" + ")" * nesting)
    lines.append(f"    x{n - 1}[0].go()")
    return "\n".join(lines) + "\n"


def test_a_short_chain_of_copies_resolves() -> None:
    g = build({"m.py": _copy_chain(3, nesting=3)})
    assert targets(g, "m.py::f", "go") == {("m.py::A.go", "type")}


# chains far longer than real code has (transformers: 46 frames at most): each link
# is a remembered lookup, and the old bounds allowed 24 levels within each of 48
# nested lookups, past Python's recursion limit
CHAINS = {
    "copies": {"m.py": _copy_chain(60)},
    "variables": {"m.py": "class A:\n    def go(self): pass\n\n\ndef f():\n    x0 = A()\n"
                          + "".join(f"    x{i} = x{i - 1}\n" for i in range(1, 400)) + "    x399.go()\n"},
    "re-exports": {**{f"p/m{i}.py": f"from .m{i + 1} import thing\n" for i in range(200)},
                   "p/m200.py": "def thing(): pass\n", "p/__init__.py": "",
                   "p/use.py": "from .m0 import thing\n\n\ndef g():\n    thing()\n"},
    "bases": {**{f"q/c{i}.py": f"from .c{i + 1} import C{i + 1}\n\n\nclass C{i}(C{i + 1}):\n    pass\n"
                 for i in range(200)},
              "q/c200.py": "class C200:\n    def go(self): pass\n",
              "q/use.py": "from .c0 import C0\n\n\ndef g():\n    C0().go()\n"},
    "returns": {"r.py": "class A:\n    def go(self): pass\n\n\ndef f0():\n    return A()\n"
                        + "".join(f"def f{i}():\n    return f{i - 1}()\n" for i in range(1, 300))
                        + "def g():\n    f299().go()\n"},
    "attributes": {"s.py": "class A:\n    def go(self): pass\n\n\nclass K:\n    def __init__(self):\n"
                           "        self.a0 = A()\n"
                           + "".join(f"        self.a{i} = self.a{i - 1}\n" for i in range(1, 300))
                           + "    def m(self):\n        self.a299.go()\n"},
    "containers": {"u.py": "class A:\n    def go(self): pass\n\n\nclass K:\n    def __init__(self):\n"
                           "        self.a0 = [A()]\n"
                           + "".join(f"        self.a{i}.append(self.a{i - 1}[0])\n" for i in range(1, 300))
                           + "    def m(self):\n        for x in self.a299:\n            x.go()\n"},
    "nested literals": {"v.py": "class A:\n    def go(self): pass\n\n\ndef f():\n    x = " + "[" * 70
                                + "A()" + "]" * 70 + "\n    x" + "[0]" * 70 + ".go()\n"},
    "conditionals": {"w.py": "class A:\n    def go(self): pass\n\n\ndef f(c):\n    x0 = A()\n"
                             + "".join(f"    x{i} = x{i - 1} if c else x{i - 1}\n" for i in range(1, 300))
                             + "    x299.go()\n"},
    "super returns": {"y.py": "class C0:\n    def get(self):\n        return C0()\n\n\n"
                              + "".join(f"class C{i}(C{i - 1}):\n    def get(self):\n        return super().get()\n\n\n"
                                        for i in range(1, 200))
                              + "def g():\n    C199().get().get()\n"},
    "re-exported copies": {**{f"t/m{i}.py": f"from .m{i + 1} import v{i + 1}\nv{i} = "
                              + "list(" * 20 + f"v{i + 1}" + ")" * 20 + "\n" for i in range(100)},
                           "t/m100.py": "class A:\n    def go(self): pass\n\n\nv100: list[A] = []\n",
                           "t/__init__.py": "", "t/use.py": "from .m0 import v0\n\n\ndef g():\n    v0[0].go()\n"},
}


@pytest.mark.parametrize("name", list(CHAINS))
def test_a_chain_longer_than_the_bound_stays_far_from_the_recursion_limit(name: str) -> None:
    with stack_left(400):  # Python's default limit is 1000; callers (pytest, the server) use some
        g = build(CHAINS[name])
    assert g.stats()["sites"] > 0


def test_cut_chains_build_the_same_graph_after_an_edit() -> None:
    files = dict(CHAINS["re-exported copies"])
    g = build(files)
    files["t/m50.py"] = files["t/m50.py"] + "\n\ndef extra():\n    v50[0].go()\n"
    g.replace_file("t/m50.py", *_file("t/m50.py", files["t/m50.py"]))
    assert _edges(g) == _edges(build(files))


def test_cycles_of_imports_bases_and_assignments_give_no_edge_and_no_error() -> None:
    g = build({
        "c.py": "from c import x\nfrom c import y\nx = y\ny = x.z\n\n\nclass P(Q):\n    pass\n\n\n"
                "class Q(P):\n    pass\n\n\ndef f():\n    x.go()\n    P().go()\n    a = a.b\n    a.c()\n",
        "s/a.py": "from .b import *\n", "s/b.py": "from .a import *\n", "s/__init__.py": "",
        "s/u.py": "from .a import thing\n\n\ndef g():\n    thing()\n",
    })
    assert targets(g, "c.py::f", "go") == set()
    # containers filled from each other, a return of itself
    g = build({"d.py": "class K:\n    def __init__(self):\n        self.a = []\n        self.b = []\n\n"
                       "    def m(self):\n        self.a.append(self.b[0])\n        self.b.append(self.a.pop())\n"
                       "        self.a[0].go()\n        self.me().go()\n\n    def me(self):\n"
                       "        return self.me() if self else self.me()\n"})
    assert targets(g, "d.py::K.m", "go") == set()
    assert targets(g, "s/u.py::g", "thing") == set()


def test_call_chains_longer_than_the_recursion_limit_are_found() -> None:
    n = 1500  # the caller's max_depth: `codeloupe path --depth 2000`
    g = build({"c.py": "".join(f"def f{i}():\n    f{i + 1}()\n\n\n" for i in range(n)) + f"def f{n}():\n    pass\n"})
    for chains in (g.all_chains(["c.py::f0"], [f"c.py::f{n}"], max_depth=2000),
                   g.call_chains(["c.py::f0"], [f"c.py::f{n}"], max_depth=2000)):
        [chain] = chains
        assert len(chain) == n and chain[0].site.caller == "c.py::f0" and chain[-1].target == f"c.py::f{n}"


# unions inside other brackets, as real projects write them (each re-entered before)
BRACKETED_UNIONS = {
    # three: examples/jsm/exporters/USDZExporter.js, a nullable JSDoc union
    "three.js": "class A { go() {} }\nclass B { go() {} }\nclass U {\n  constructor() {\n"
                "    /** @type {?(A|B)} */\n    this.utils = null;\n  }\n  run() { this.utils.go(); }\n}\n",
    # webpack: lib/Compilation.js, a JSDoc array of object types
    "webpack.js": "class A { go() {} }\nfunction f() {\n"
                  "  /** @type {{ factory: A, context: string | undefined, origin: A | null }[]} */\n"
                  "  const items = [];\n  items[0].go();\n}\n",
    # effect: src/Predicate.ts, a type predicate over an index signature
    "effect.ts": "export const isRecord = (x: unknown): boolean => true\n"
                 "export const isReadonlyRecord: (\n  input: unknown\n"
                 ") => input is { readonly [x: string | symbol]: unknown } = isRecord\n"
                 "export function f(v: unknown) { return isReadonlyRecord(v) }\n",
    # torch: distributed/device_mesh.py, a string annotation
    "torch.py": "class Tensor:\n    def go(self): pass\n\n\n"
                "def f(mesh: 'Tensor | ArrayLike | None'):\n    mesh.go()\n",
}


@pytest.mark.parametrize("path", list(BRACKETED_UNIONS))
def test_unions_inside_other_brackets_resolve_without_error(path: str) -> None:
    g = build({path: BRACKETED_UNIONS[path]})
    assert g.stats()["sites"] > 0
    if path == "three.js":  # the nullable union is read as its members
        assert targets(g, "three.js::U.run", "go") == {("three.js::A.go", "type"), ("three.js::B.go", "type")}
    if path == "torch.py":
        assert targets(g, "torch.py::f", "go") == {("torch.py::Tensor.go", "type")}


def test_union_members_are_read_only_at_the_top_level() -> None:
    assert union_members("?(A|B)") == ["A", "B"] and union_members("'A | None'") == ["A", "None"]
    assert union_members("(A) | (B)") == ["(A)", "(B)"]
    for text in ("[A | B]", "{ a: A | null }", "(x) => x is { [k: A | B]: C }", "?(A|B", "A"):
        assert union_members(text) == [], text
