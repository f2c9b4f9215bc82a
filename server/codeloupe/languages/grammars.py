"""Grammars and tags queries, loaded once per language.

Grammars come from ``tree-sitter-language-pack`` below 1.0, which bundles compiled
grammars in its wheel (the 1.x releases download them at first use and fail offline).
Queries live in ``queries/<lang>/tags.scm`` at the top of the repository and ship in
the wheel as the package ``codeloupe.queries``.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from tree_sitter import Language as Grammar
from tree_sitter import Parser, Query


@functools.cache
def grammar(name: str) -> Grammar:
    """The tree-sitter grammar of a tree-sitter-language-pack name."""
    # imported when first needed: 20 ms, and commands that parse nothing skip it
    from tree_sitter_language_pack import get_language

    return get_language(name)  # type: ignore[arg-type]


def parser(grammar_name: str) -> Parser:
    """A new parser (parsers are not thread-safe; make one per worker)."""
    return Parser(grammar(grammar_name))


def _queries_root() -> Path:
    try:
        root = resources.files("codeloupe.queries")
        if root.is_dir():
            return Path(str(root))
    except ModuleNotFoundError:
        pass
    # A source checkout that was not installed: queries/ sits beside server/.
    return Path(__file__).resolve().parents[3] / "queries"


def query_source(name: str) -> str:
    """The tags query of a language. A first line ``; inherits: a, b`` prepends
    those languages' queries (nvim-treesitter's convention), so tsx reuses
    typescript's patterns instead of a copy that drifts."""
    text = (_queries_root() / name / "tags.scm").read_text(encoding="utf-8")
    first = text.split("\n", 1)[0].strip()
    if first.startswith("; inherits:"):
        parents = [p.strip() for p in first.split(":", 1)[1].split(",") if p.strip()]
        text = "\n".join([*(query_source(p) for p in parents), text])
    return text


@functools.cache
def tags_query(name: str, grammar_name: str) -> Query:
    """The compiled tags query of a language."""
    return Query(grammar(grammar_name), query_source(name))


@functools.cache
def query(grammar_name: str, source: str) -> Query:
    """Another query over a grammar, compiled once."""
    return Query(grammar(grammar_name), source)
