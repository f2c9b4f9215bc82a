"""Editor buffers keystroke by keystroke (codeloupe.buffer): Tree.edit + re-parse
with the old tree, and a re-extraction of only the top-level definition an edit
fell into; both checked against parsing and extracting from scratch."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from codeloupe.buffer import DocTree, byte_edit, update
from codeloupe.extract import extract, parse

DATA = Path(__file__).parent / "data" / "lsp" / "repo"

BODY_EDITS = ["", "x", "e", "(", ")", "\n    ", " + 1", "é😀", "{", "}", "'", "#"]
BIG_EDITS = ["def g(a):\n    return a\n", "\nclass K:\n    def m(self):\n        pass\n",
             "function h() { return 1 }\n", "func F() {}\n"]


def copies(text: str, n: int) -> str:
    """``text`` n times, definitions renamed in each copy (no overloads)."""
    return "\n".join(re.sub(r"\b(def|class|function) (\w+)", rf"\1 \2_{k}", text) for k in range(n))


def sources() -> dict[str, tuple[str, str]]:
    py = (DATA / "src/shop/http.py").read_text() + (DATA / "src/shop/cart.py").read_text()
    return {
        "python": ("a.py", copies(py, 3)),
        "javascript": ("a.js", copies((DATA / "web/upload.js").read_text(), 3)),
        "go": ("a.go", (DATA / "cmd/main.go").read_text()),
    }


def facts(ex):
    symbols = [(s.id, s.kind, s.parent, s.signature, s.doc, s.start_line, s.start_col, s.end_line,
                s.end_col, s.text, s.content_hash, tuple(s.members)) for s in ex.symbols]
    # in order: the order of a file's facts is the resolver's (the first of a kind wins)
    refs = [(r.line, r.col, r.kind, r.name, r.receiver, r.enclosing, r.source, r.original)
            for r in ex.references]
    return symbols, refs, ex.error_count


def test_byte_edit_spans_the_difference() -> None:
    assert byte_edit(b"abc", b"abc") is None
    e = byte_edit(b"ab\ncd", b"ab\ncXd")
    assert (e["start_byte"], e["old_end_byte"], e["new_end_byte"]) == (4, 4, 5)
    assert tuple(e["start_point"]) == (1, 1) and tuple(e["new_end_point"]) == (1, 2)
    e = byte_edit(b"aaaa", b"aa")  # a repeated byte: the span is still consistent
    assert (e["start_byte"], e["old_end_byte"], e["new_end_byte"]) == (2, 4, 2)


KEYWORDS = {"return", "function", "const", "await", "async", "throw", "catch", "struct", "func",
            "package", "import", "string", "class", "from", "self", "raise", "except", "attempt",
            "range", "type", "export", "error", "false", "true", "None", "else", "elif", "while",
            "print", "Println", "Sprintf", "bytes", "float", "dict", "Error", "console"}


def identifier_edit(text: str, rng: random.Random) -> str:
    """Type a letter into an identifier that is no keyword: the file stays valid."""
    words = [m for m in re.finditer(r"\b[a-z_][A-Za-z_]{3,}\b", text) if m.group() not in KEYWORDS]
    m = rng.choice(words)
    at = m.start() + rng.randrange(1, len(m.group()))
    return text[:at] + rng.choice("qz") + text[at:]


@pytest.mark.parametrize("language", ["python", "javascript", "go"])
def test_edit_by_edit_the_same_as_from_scratch(language: str) -> None:
    path, text = sources()[language]
    rng = random.Random(language)
    doc = DocTree(language)
    version = 0
    valid = text
    for step in range(80):
        if step % 4 == 1:  # anything, syntax errors included; undone at the next step
            i = rng.randrange(len(text) + 1)
            j = min(len(text), i + rng.choice([0, 0, 1, 3, 30]))
            insert = rng.choice(BIG_EDITS if rng.random() < 0.2 else BODY_EDITS)
            text = text[:i] + insert + text[j:]
        elif step:
            text = valid = identifier_edit(valid, rng)
        version += 1
        doc.latest = version + (step % 9 == 4)  # now and then a newer version is on its way
        got = update(doc, path, text, version)
        if doc.latest != version:
            assert got is None
            continue
        data = text.encode("utf-8", "surrogatepass")
        assert str(doc.tree.root_node) == str(parse(language, data).root_node)
        assert facts(got) == facts(extract(path, data, language)), f"step {step}"
    assert doc.incremental == doc.parses - 1
    if language != "go":  # Go methods belong to their struct: always the whole file
        assert doc.spliced >= 5, doc.spliced


def test_typing_inside_a_function_redoes_that_function_only() -> None:
    text = "".join(f"def f{i}(x):\n    y = x + {i}\n    return g{i}(y)\n\n\n" for i in range(50))
    doc = DocTree("python")
    assert update(doc, "m.py", text, None) is not None
    at = text.index("return g7(")
    text = text[:at] + "z = 1\n    " + text[at:]
    ex = update(doc, "m.py", text, None)
    assert doc.spliced == 1
    assert facts(ex) == facts(extract("m.py", text.encode(), "python"))
    later = [s for s in ex.symbols if s.name == "f8"][0]
    assert later.start_line == 8 * 5 + 2  # shifted down one line


def test_typing_at_the_end_of_a_function_or_of_the_file() -> None:
    text = "def f(a):\n    return a\n\n\ndef g(b):\n    return b"
    doc = DocTree("python")
    update(doc, "m.py", text, None)
    for extra in (" + 1", " + 2"):  # the last line of g, at the very end of the file
        text += extra
        ex = update(doc, "m.py", text, None)
        assert facts(ex) == facts(extract("m.py", text.encode(), "python"))
    assert doc.spliced == 2
    text += "\n\ndef h():\n    pass\n"  # a new function after everything: the whole file
    ex = update(doc, "m.py", text, None)
    assert facts(ex) == facts(extract("m.py", text.encode(), "python"))
    assert [s.name for s in ex.symbols[1:]] == ["f", "g", "h"]


@pytest.mark.parametrize("language", ["python", "javascript"])
def test_file_model_made_from_the_previous_one_is_the_same(language: str) -> None:
    """The language server makes each keystroke's FileModel from the previous one,
    keeping what the edit did not touch: equal to one made from scratch."""
    from codeloupe.workspace import FileModel

    path, text = sources()[language]
    rng = random.Random(language + "model")
    doc = DocTree(language)
    previous = None
    kept = 0
    valid = text
    for step in range(40):
        if step % 5 == 2:  # anything, a new line or a syntax error; undone next
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice(BODY_EDITS + BIG_EDITS) + text[i:]
        elif step:
            text = valid = identifier_edit(valid, rng)
        got = update(doc, path, text, None)
        model = FileModel.from_extraction(got, step, previous)
        fresh = FileModel.from_extraction(got, step)
        assert model == fresh, f"step {step}"
        assert list(model.infos) == [s.info() for s in fresh.symbols]
        if previous is not None:
            old = {id(r) for r in previous[1].refs}
            kept += sum(id(r) in old for r in model.refs)
        previous = (got, model)
    assert kept > 0  # what a spliced extraction kept was not made again


COMMONJS = """var app = {
  init: function init() {
    this.settings = {};
    this.defaultConfiguration();
  },

  set(setting, val) {
    return this;
  },

  enable: (setting) => this.set(setting, true),

  cookies: {
    clear: function clear(name) {
      return this.reset(name);
    },
  },
};

function createApplication() {
  var app = function (req, res, next) {
    app.handle(req, res, next);
  };

  mixin(app, proto, false);
  app.init();
  return app;
}

var proto = module.exports = function (options) {
  function router(req, res, next) {
    router.handle(req, res, next);
  }

  Object.setPrototypeOf(router, proto);
  return router;
};

proto.handle = function handle(req, res, out) {
  next();
};

function View(name) {
  this.name = normalize(name);

  function normalize(n) {
    return n;
  }
}

View.prototype = {
  render: function render() {
    return this.lookup();
  },
};
"""


def test_commonjs_members_and_factories_splice_as_extracted() -> None:
    """Typing inside an object literal's members and inside a factory function (a
    local function lent members by a merge, turned a class and back) gives the
    extraction of the whole file, spliced where that is the same."""
    doc = DocTree("javascript")
    text = COMMONJS
    kinds = {s.id: s.kind for s in update(doc, "app.js", text, None).symbols}
    assert (kinds["app.js::app.init"], kinds["app.js::app.cookies.clear"], kinds["app.js::createApplication.app"],
            kinds["app.js::proto.router"], kinds["app.js::View.render"]) == ("method", "method", "class", "class",
                                                                             "method")
    edits = [  # (text after which to type, what is typed)
        ("this.defaultConfiguration", "X"), ("return this", ";"), ("this.set(setting", ", 2"),
        ("this.reset", "All"), ("app.handle", "r"), ("app.init", "2"), ("mixin", "s"),
        ("mixins", "\b"), ("mixin(app, proto", "2"), ("return app", "lication"),
        ("router.handle", "r"), ("setPrototypeOf(router, proto", "x"), ("this.name = normalize", "d"),
        ("return this.lookup", "Path"), ("next(", "err")]
    for after, typed in edits:
        at = text.index(after) + len(after)
        text = text[:at - 1] + text[at:] if typed == "\b" else text[:at] + typed + text[at:]
        ex = update(doc, "app.js", text, None)
        assert facts(ex) == facts(extract("app.js", text.encode(), "javascript")), (after, typed)
    assert doc.spliced >= 6, doc.spliced


def test_typing_in_a_function_patches_its_scope_of_the_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor's path for a keystroke: a spliced extraction keeps the rows in a whole
    extraction's order, so the graph sees that only one function's rows changed
    and patches its facts (``graph.patch``) instead of digesting the file; the
    graph is the one built from a whole extraction, the attribute set in two methods
    (order matters: the first of a kind wins) included."""
    from codeloupe.graph import Graph, SymbolInfo, patch

    patched = []
    real = patch.apply
    monkeypatch.setattr(patch, "apply", lambda path, *a: patched.append(path) or real(path, *a))

    def rows(ex):
        return ([SymbolInfo(s.id, s.path, s.name, s.qualified_name, s.kind, s.parent, s.start_line, s.end_line,
                            s.language) for s in ex.symbols],
                [{f: getattr(r, f) for f in r.__slots__} for r in ex.references])

    text = ("class Reader:\n    def __init__(self):\n        self.buf = Buffer()\n\n"
            "    def reset(self):\n        self.buf = Other()\n\n    def read(self):\n        return self.buf.take()\n\n\n"
            "class Buffer:\n    def take(self):\n        return 1\n\n\nclass Other:\n    def take(self):\n        return 2\n\n\n"
            + "".join(f"def f{i}(x):\n    y = g{i}(x)\n    return y\n\n\ndef g{i}(x):\n    return x\n\n\n" for i in range(20)))
    doc = DocTree("python")
    g = Graph(*rows(update(doc, "m.py", text, None)))
    steps = [("y = g7(x", "+1"), ("y = g7(x+1", "+2"), ("self.buf = Buffer(", "1"), ("y = g3", "0")]
    for after, typed in steps:
        at = text.index(after) + len(after)
        text = text[:at] + typed + text[at:]
        g.replace_file("m.py", *rows(update(doc, "m.py", text, None)))
        want = Graph(*rows(extract("m.py", text.encode(), "python")))
        assert g._index.facts["m.py"] == want._index.facts["m.py"], after
        out = {(e.site, e.target, e.reason) for v in g.out_edges.values() for e in v}
        assert out == {(e.site, e.target, e.reason) for v in want.out_edges.values() for e in v}, after
    assert doc.spliced == len(steps)
    # the first edit digests the file whole (no shape of it remembered yet); the third
    # sets an attribute: its class's attributes are digested again with the scope
    assert len(patched) == len(steps) - 1, patched
