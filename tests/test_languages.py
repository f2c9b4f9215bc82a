"""Per-language extraction fixtures.

Each folder under tests/data/languages/<lang>/ holds one source file and an
``expected.json`` with the exact symbols and calls it must yield:

    {"file": "sample.py",
     "symbols": [{"qualified_name": "Client.fetch", "kind": "method",
                  "start_line": 8, "end_line": 10}, ...],          # exact, module unit excluded
     "calls": [{"caller": "Client.fetch", "name": "send", "line": 10}, ...],  # exact
     "receivers": {"10:send": "self"},                              # optional, checked where given
     "docs": {"Client": "A client."},                                # optional, checked where given
     "signatures": {"Client.fetch": "def fetch(self, url: str) -> bytes"},   # optional
     "class_refs": [{"caller": "Client", "name": "Base"}],           # optional, exact when given
     "imports": [{"name": "z", "source": ".x"}]}                     # optional, exact when given

``caller`` is the qualified name of the innermost enclosing symbol, or
``<module>`` for top-level code.

The keys of ``docs`` and ``signatures`` name one symbol by its id without the
``<path>::`` prefix: the qualified name for the first symbol of that name, and
``Client#2``, ``Client#3``, ... for later ones that share it (overloads, or a Rust
``struct Client`` and its ``impl Client``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codeloupe.extract import extract
from codeloupe.languages import LANGUAGES, language_for_path
from codeloupe.model import MODULE_NAME

DATA = Path(__file__).parent / "data" / "languages"
CASES = sorted(p.parent.name for p in DATA.glob("*/expected.json"))


def _load(lang: str):
    folder = DATA / lang
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    source = folder / expected["file"]
    language = language_for_path(source)
    assert language == lang, f"{source.name} maps to {language}, folder says {lang}"
    rel = f"fixtures/{source.name}"
    return expected, extract(rel, source.read_bytes(), language), rel


def _caller(enclosing: str, rel: str) -> str:
    qualified = enclosing.split("::", 1)[1]
    return MODULE_NAME if qualified == MODULE_NAME else qualified.split("#", 1)[0]


def _by_id_suffix(symbols) -> dict:
    """Symbols by their id after ``<path>::`` (``Client``, ``Client#2``)."""
    return {s.id.split("::", 1)[1]: s for s in symbols}


def test_every_language_has_a_fixture() -> None:
    assert sorted(CASES) == sorted(spec.name for spec in LANGUAGES)


@pytest.mark.parametrize("lang", CASES)
def test_symbols(lang: str) -> None:
    expected, result, _ = _load(lang)
    got = sorted(
        (s.qualified_name, s.kind, s.start_line, s.end_line)
        for s in result.symbols
        if s.kind != "module" or s.name != result.path.rsplit("/", 1)[-1]
    )
    want = sorted(
        (s["qualified_name"], s["kind"], s["start_line"], s["end_line"]) for s in expected["symbols"]
    )
    assert got == want


@pytest.mark.parametrize("lang", CASES)
def test_module_unit(lang: str) -> None:
    _, result, rel = _load(lang)
    module = result.symbols[0]
    assert module.kind == "module" and module.id == f"{rel}::{MODULE_NAME}"
    assert module.start_line == 1 and module.end_line >= max(s.end_line for s in result.symbols)


@pytest.mark.parametrize("lang", CASES)
def test_calls(lang: str) -> None:
    expected, result, rel = _load(lang)
    got = sorted(
        (_caller(r.enclosing, rel), r.name, r.line) for r in result.references if r.kind == "call"
    )
    want = sorted((c["caller"], c["name"], c["line"]) for c in expected["calls"])
    assert got == want
    receivers = {f"{r.line}:{r.name}": r.receiver for r in result.references if r.kind == "call"}
    for key, receiver in expected.get("receivers", {}).items():
        assert receivers.get(key) == receiver, key


@pytest.mark.parametrize("lang", CASES)
def test_docs_signatures_and_other_references(lang: str) -> None:
    expected, result, rel = _load(lang)
    by_name = _by_id_suffix(result.symbols)
    for name, doc in expected.get("docs", {}).items():
        assert name in by_name, f"no symbol {name!r}"
        assert by_name[name].doc == doc, name
    for name, signature in expected.get("signatures", {}).items():
        assert name in by_name, f"no symbol {name!r}"
        assert by_name[name].signature == signature, name
    if "class_refs" in expected:
        got = sorted(
            (_caller(r.enclosing, rel), r.name) for r in result.references if r.kind == "class"
        )
        want = sorted((c["caller"], c["name"]) for c in expected["class_refs"])
        assert got == want
    if "imports" in expected:
        got = sorted((r.name, r.source) for r in result.references if r.kind == "import")
        want = sorted((i["name"], i["source"]) for i in expected["imports"])
        assert got == want


@pytest.mark.parametrize("lang", CASES)
def test_syntax_error_keeps_the_rest(lang: str) -> None:
    """Break the file in the middle: the definitions before and after survive."""
    expected, result, rel = _load(lang)
    folder = DATA / lang
    data = (folder / expected["file"]).read_bytes()
    lines = data.split(b"\n")
    mid = len(lines) // 2
    broken = b"\n".join([*lines[:mid], b"  ) ] } @@@ (((", *lines[mid:]])
    damaged = extract(rel, broken, lang)
    names = {s.qualified_name for s in damaged.symbols}
    before = [s for s in result.symbols if s.end_line < mid and s.kind != "module"]
    assert all(s.qualified_name in names for s in before)
    assert len(damaged.symbols) >= len(result.symbols) // 2


CPP_HEADER = b"""#pragma once
namespace xml {

class XML_EXPORT Node
{
public:
    Node* FirstChild() { return _first; }
    void Clear();
private:
    Node* _first;
};

struct LIB_API Attribute final : public Node {
    int Value() const { return 0; }
};

}
"""
C_HEADER = b"""#ifndef POINT_H
#define POINT_H
struct point { int x; int y; };
struct POINT_API point_list;
int point_add(struct point *a, const struct point *b);
#endif
"""


def test_a_header_holding_cpp_is_read_as_cpp() -> None:
    """A `.h` is C by its extension; one that declares classes, namespaces, templates
    or access labels is C++ (and a C header stays C)."""
    from codeloupe.languages import language_for_file

    assert language_for_file("include/node.h", CPP_HEADER) == "cpp"
    assert language_for_file("include/point.h", C_HEADER) == "c"
    assert language_for_file("src/node.hpp", C_HEADER) == "cpp"
    assert language_for_file("src/node.cc", CPP_HEADER) == "cpp"
    result = extract("include/node.h", CPP_HEADER, "c")
    assert result.language == "cpp"
    assert {s.qualified_name for s in result.symbols} >= {"xml.Node", "xml.Node.FirstChild",
                                                           "xml.Attribute", "xml.Attribute.Value"}
    point = extract("include/point.h", C_HEADER, "c")
    assert point.language == "c" and "point" in {s.name for s in point.symbols}


def test_an_export_macro_between_class_and_its_name_is_blanked_and_lines_kept() -> None:
    """`class XML_EXPORT Node {`: the macro is no part of the C++ grammar; blanked (the
    offsets kept) the class and its inline methods are found where they are."""
    result = extract("node.cpp", CPP_HEADER, "cpp")
    by_name = {s.qualified_name: s for s in result.symbols}
    assert by_name["xml.Node"].start_line == 4 and by_name["xml.Node.FirstChild"].start_line == 7
    assert by_name["xml.Attribute"].start_line == 13
    assert by_name["xml.Node.FirstChild"].parent == by_name["xml.Node"].id
