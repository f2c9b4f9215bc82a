"""ask/citations: the one pattern that finds citations in an answer (it accepts what the
extension's own pattern accepted before it was removed, and what the server's did), the
offsets clients get (UTF-16 code units), and verification against the lines shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeloupe.ask import Context, Snippet, find_citations, verify


def found(text: str) -> list[tuple[str, int, int, str]]:
    return [(c.path, c.start_line, c.end_line, c.text) for c in find_citations(text)]


def utf16(text: str, start: int, end: int) -> str:
    """``text[start:end]`` with offsets in UTF-16 code units, as JavaScript slices."""
    units = text.encode("utf-16-le", "surrogatepass")
    return units[2 * start : 2 * end].decode("utf-16-le", "surrogatepass")


# --- finding -------------------------------------------------------------------------------


def test_path_line_and_path_range() -> None:
    assert found("Retries happen in src/shop/http.py:8-15, called from src/shop/cart.py:19.") == [
        ("src/shop/http.py", 8, 15, "src/shop/http.py:8-15"),
        ("src/shop/cart.py", 19, 19, "src/shop/cart.py:19"),
    ]


@pytest.mark.parametrize(("text", "expected"), [
    ("see ./web/upload.js:L8–L13 and main.go:3", [("web/upload.js", 8, 13), ("main.go", 3, 3)]),
    ("in `src/a.py:L12`", [("src/a.py", 12, 12)]),
    ("a.py:3 – 9 and b.py:4—6 and c.py:7 -8", [("a.py", 3, 9), ("b.py", 4, 6), ("c.py", 7, 8)]),
    ("@types/node/index.d.ts:3 and lib/c++/vec.cc:40-41", [("@types/node/index.d.ts", 3, 3),
                                                          ("lib/c++/vec.cc", 40, 41)]),
    ("../shared/util.ts:5", [("../shared/util.ts", 5, 5)]),
    ("src/données/modèle.py:3", [("src/données/modèle.py", 3, 3)]),
    ("Makefile.am:2, x.component.html:9, a.longext_10:1", [
        ("Makefile.am", 2, 2), ("x.component.html", 9, 9), ("a.longext_10", 1, 1)]),
    ("backwards src/a.py:20-12", [("src/a.py", 20, 20)]),
    ("far.py:123456789012345", [("far.py", 123456789012345, 123456789012345)]),  # a range that ends before it starts
    ("/repo/src/a.py:20", [("/repo/src/a.py", 20, 20)]),  # absolute: verification strips the root
])
def test_the_forms_an_answer_uses(text: str, expected: list[tuple[str, int, int]]) -> None:
    assert [(p, s, e) for p, s, e, _ in found(text)] == expected


@pytest.mark.parametrize("text", [
    "https://pay.example.com:8443/x at 12:30, python3.11:2? http://localhost:8080",
    "http://h.com/a.py:3 and file:b.py:3 and C:\\src\\c.py:4",
    "a/b.py:3/4 and b.py:12px",  # more of a path or a word after it
    "version 1.2:3 and x.12:4",  # no extension starts with a digit
    "a.py:0 and b.py:1234567890123456",  # no line 0; 16 digits are more than JavaScript holds
    "d.a.py:4x and e.py:5_",
])
def test_urls_times_versions_and_longer_paths_are_not_citations(text: str) -> None:
    assert found(text) == []


def test_a_range_does_not_continue_on_the_next_line() -> None:
    assert [(p, s, e) for p, s, e, _ in found("see a.py:3\n- 4 retries")] == [("a.py", 3, 3)]


def test_citations_are_found_in_code_spans_fences_and_links() -> None:
    text = ("`src/a.py:3` and `x = b.py:4 + 1`\n```python\n# src/c.py:5\n```\n"
            "[here](src/d.py:6)")
    assert [p for p, *_ in found(text)] == ["src/a.py", "b.py", "src/c.py", "src/d.py"]


# --- offsets -------------------------------------------------------------------------------


def test_offsets_slice_back_in_code_points_and_in_utf16_code_units() -> None:
    # 😀 and 𝔘 are outside the BMP: one code point, two UTF-16 code units each
    answer = "😀 See `src/a.py:3` — 𝔘𝔘 then src/b.py:4-5 (é is one unit)."
    a, b = find_citations(answer)
    for c in (a, b):
        assert answer[c.start:c.end] == c.text
        assert utf16(answer, c.start_utf16, c.end_utf16) == c.text
        wire = c.as_dict()
        assert (wire["start"], wire["end"]) == (c.start_utf16, c.end_utf16)
    assert (a.start, a.end, a.start_utf16, a.end_utf16) == (7, 17, 8, 18)
    assert (b.start, b.end, b.start_utf16, b.end_utf16) == (29, 41, 32, 44)


def test_offsets_with_non_bmp_characters_inside_and_between_many_citations() -> None:
    answer = "".join(f"🎉{i}: f{i}.py:{i + 1} " for i in range(50))
    cites = find_citations(answer)
    assert len(cites) == 50
    for c in cites:
        assert utf16(answer, c.start_utf16, c.end_utf16) == c.text
    assert cites[-1].start_utf16 - cites[-1].start == 50  # one extra unit per 🎉 before it


# --- verification --------------------------------------------------------------------------


def _context(*snips: tuple[str, int, int]) -> Context:
    out = [Snippet(f"{p}::f{s}", p, f"f{s}", "function", s, e,
                   [(n, "x") for n in range(s, e + 1)], 1.0, "search") for p, s, e in snips]
    return Context(out, 100, 1000)


SHOWN = _context(("src/shop/http.py", 8, 15), ("src/shop/cart.py", 17, 19))


def test_verified_by_path_and_overlapping_lines() -> None:
    answer = ("src/shop/http.py:12, ./src/shop/cart.py:15-17, src/shop/http.py:16-20, "
              "src/shop/text.py:1, http.py:L9")
    checked = verify(answer, SHOWN)
    assert [(c.path, c.verified) for c in checked.citations] == [
        ("src/shop/http.py", True), ("src/shop/cart.py", True), ("src/shop/http.py", False),
        ("src/shop/text.py", False), ("src/shop/http.py", True)]  # a unique suffix resolves
    assert checked.cited == {"src/shop/http.py::f8", "src/shop/cart.py::f17"}
    sources = checked.sources(SHOWN)
    assert [s["cited"] for s in sources] == [True, True]


def test_each_unverified_citation_is_listed_once() -> None:
    answer = "See src/shop/http.py:12, src/shop/text.py:4 and again src/shop/text.py:4."
    assert verify(answer, SHOWN).unverified == ["src/shop/text.py:4"]


def test_a_line_not_shown_in_a_snippet_is_not_verified() -> None:
    shown = Context([Snippet("m.py::f", "m.py", "f", "function", 10, 20,
                             [(10, "def f():"), (0, "... (docstring lines 11-18 not shown)"),
                              (19, "x"), (20, "y")], 1.0, "search")], 10, 100)
    checked = verify("m.py:12 m.py:11-18 m.py:18-19 m.py:1-999999999", shown)
    assert [c.verified for c in checked.citations] == [False, False, True, True]


def test_an_absolute_path_under_the_root_and_an_ambiguous_suffix() -> None:
    ctx = _context(("a/util.py", 1, 5), ("b/util.py", 1, 5), ("src/main.py", 1, 9))
    checked = verify("/repo/src/main.py:3 and util.py:2 and /elsewhere/src/main.py:3", ctx,
                     Path("/repo"))
    assert [(c.path, c.verified) for c in checked.citations] == [
        ("src/main.py", True), ("util.py", False), ("/elsewhere/src/main.py", False)]


def test_the_wire_form() -> None:
    checked = verify("x 😀 src/shop/http.py:9-10 y", SHOWN)
    assert checked.as_dict(SHOWN) == {
        "citations": [{"text": "src/shop/http.py:9-10", "path": "src/shop/http.py",
                       "start_line": 9, "end_line": 10, "verified": True, "start": 5,
                       "end": 26}],
        "sources": [{"path": "src/shop/http.py", "start_line": 8, "end_line": 15,
                     "qualified_name": "f8", "cited": True},
                    {"path": "src/shop/cart.py", "start_line": 17, "end_line": 19,
                     "qualified_name": "f17", "cited": False}],
        "unverified_citations": [],
    }
