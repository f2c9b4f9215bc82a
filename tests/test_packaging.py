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


def test_every_subpackage_is_in_the_wheel() -> None:
    """pyproject lists the packages by name: a new subpackage missing there would be
    left out of an installed (non-editable) codeloupe."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    source = root / "server" / "codeloupe"
    found = {"codeloupe." + ".".join(p.parent.relative_to(source).parts) if p.parent != source
             else "codeloupe" for p in source.rglob("__init__.py")}
    assert found | {"codeloupe.queries"} == listed
