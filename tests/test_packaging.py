"""The queries ship with the package, and every language's query compiles."""

from __future__ import annotations

import pytest

from codeloupe.languages import LANGUAGES, _queries_root, get_query, query_source


def test_queries_come_from_the_codeloupe_queries_package() -> None:
    root = _queries_root()
    for spec in LANGUAGES:
        assert (root / spec.name / "tags.scm").is_file(), spec.name


@pytest.mark.parametrize("lang", [spec.name for spec in LANGUAGES])
def test_every_query_compiles(lang: str) -> None:
    query = get_query(lang)
    names = {query.capture_name(i) for i in range(query.capture_count)}
    assert "name" in names
    assert any(n.startswith("definition.") for n in names)
    assert "reference.call" in names


def test_tsx_inherits_typescript() -> None:
    tsx = query_source("tsx")
    assert query_source("typescript") in tsx
    assert "jsx_self_closing_element" in tsx
