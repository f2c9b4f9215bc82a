"""File extension → language, grammar loading, and the tags query of each language.

Grammars come from ``tree-sitter-language-pack`` below 1.0, which bundles compiled
grammars in its wheel (the 1.x releases download them at first use and fail offline).
Queries live in ``queries/<lang>/tags.scm`` at the top of the repository and ship in
the wheel as the package ``codeloupe.queries``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePath

from tree_sitter import Language, Parser, Query

from .errors import CodeloupeError


@dataclass(frozen=True)
class LanguageSpec:
    name: str  # our name, also the folder under queries/
    grammar: str  # the name tree-sitter-language-pack knows it by
    extensions: tuple[str, ...]


LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", "python", (".py", ".pyi", ".pyw")),
    LanguageSpec("javascript", "javascript", (".js", ".mjs", ".cjs", ".jsx")),
    LanguageSpec("typescript", "typescript", (".ts", ".mts", ".cts")),
    LanguageSpec("tsx", "tsx", (".tsx",)),
    LanguageSpec("java", "java", (".java",)),
    LanguageSpec("go", "go", (".go",)),
    LanguageSpec("rust", "rust", (".rs",)),
    LanguageSpec("c", "c", (".c", ".h")),
    LanguageSpec("cpp", "cpp", (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp")),
    LanguageSpec("csharp", "csharp", (".cs",)),
    LanguageSpec("ruby", "ruby", (".rb", ".rake", ".gemspec")),
    LanguageSpec("php", "php", (".php", ".phtml")),
)

BY_NAME: dict[str, LanguageSpec] = {spec.name: spec for spec in LANGUAGES}
_BY_EXTENSION: dict[str, str] = {ext: spec.name for spec in LANGUAGES for ext in spec.extensions}
# Names people type for a language, mapped to ours (``--lang js``).
ALIASES: dict[str, str] = {
    "py": "python",
    "js": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "c++": "cpp",
    "cxx": "cpp",
    "cs": "csharp",
    "c#": "csharp",
    "rb": "ruby",
    "golang": "go",
    "rs": "rust",
}


class UnknownLanguageError(CodeloupeError, ValueError):
    pass


def language_for_path(path: str | PurePath) -> str | None:
    """The language of a file by its extension, or None when we do not parse it."""
    suffix = PurePath(path).suffix.lower()
    return _BY_EXTENSION.get(suffix)


def normalize_language(name: str) -> str:
    """Map a user-typed language name to ours; raise UnknownLanguageError if none fits."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in BY_NAME:
        known = ", ".join(spec.name for spec in LANGUAGES)
        raise UnknownLanguageError(f"unknown language {name!r} (known: {known})")
    return key


@functools.cache
def get_language(name: str) -> Language:
    from tree_sitter_language_pack import get_language as _get

    return _get(BY_NAME[name].grammar)  # type: ignore[arg-type]


def get_parser(name: str) -> Parser:
    """A new parser for the language (parsers are not thread-safe; make one per worker)."""
    return Parser(get_language(name))


def _queries_root() -> Path:
    try:
        root = resources.files("codeloupe.queries")
        if root.is_dir():
            return Path(str(root))
    except ModuleNotFoundError:
        pass
    # A source checkout that was not installed: queries/ sits beside server/.
    return Path(__file__).resolve().parents[2] / "queries"


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
def get_query(name: str) -> Query:
    return Query(get_language(name), query_source(name))
