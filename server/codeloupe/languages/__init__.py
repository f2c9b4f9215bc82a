"""The languages codeloupe reads, one module each (JavaScript, TypeScript and TSX
share one): which files, which grammar and query, and every rule extraction and
call resolution apply per language (``Language`` in ``base.py``).

This module is the registry: file extension → language, the names people type, the
grammar and tags query of each, and the tables the resolver applies across
languages (the union of what each declares).
"""

from __future__ import annotations

import re
from pathlib import PurePath

from tree_sitter import Parser, Query

from ..errors import CodeloupeError
from .base import ImplicitClasses, ImportContext, Language, MethodsApart, ModuleFacts, PackageScope
from .c import C_LANG
from .common import COMMON_METHODS, FUNCTION_EXPRESSION, ONE_ELEMENT_METHODS, SAME_SEQUENCE_METHODS
from .cpp import CPP
from .csharp import CSHARP
from .go import GO
from .grammars import _queries_root, parser, query, query_source, tags_query
from .java import JAVA
from .javascript import JAVASCRIPT, TSX, TYPESCRIPT
from .modules import join_path, path_matches
from .php import PHP
from .python import PYTHON
from .ruby import RUBY
from .rust import RUST

__all__ = [
    "COMMON_METHODS", "CLASS_NAMES", "FUNCTION_EXPRESSION", "EXTERNAL_TYPES", "LANGUAGES", "NEUTRAL", "NO_TYPE",
    "ONE_ELEMENT_METHODS", "SAME_SEQUENCE_METHODS", "SELF_NAMES", "SELF_RECEIVERS",
    "SUPER_RECEIVERS", "ImplicitClasses", "ImportContext", "Language", "MethodsApart",
    "ModuleFacts", "PackageScope", "UnknownLanguageError", "_queries_root", "family_rules",
    "family_standard_methods", "get_parser", "get_query", "is_super_receiver", "join_path", "language_for_file", "language_for_path", "module_stem",
    "normalize_language", "path_matches", "query", "query_source", "rules", "same_family",
]

LANGUAGES: tuple[Language, ...] = (PYTHON, JAVASCRIPT, TYPESCRIPT, TSX, JAVA, GO, RUST, C_LANG, CPP,
                                   CSHARP, RUBY, PHP)
BY_NAME: dict[str, Language] = {lang.name: lang for lang in LANGUAGES}
_BY_EXTENSION: dict[str, str] = {ext: lang.name for lang in LANGUAGES for ext in lang.extensions}
ALIASES: dict[str, str] = {alias: lang.name for lang in LANGUAGES for alias in lang.aliases}
# the rules of a file whose language is not one of ours (no rule applies)
NEUTRAL = Language()
_BY_FAMILY: dict[str, Language] = {}
_STANDARD_METHODS: dict[str, frozenset[str]] = {}  # family → its languages' ``standard_methods``
for _lang in LANGUAGES:
    _BY_FAMILY.setdefault(_lang.family, _lang)
    _STANDARD_METHODS[_lang.family] = _STANDARD_METHODS.get(_lang.family, frozenset()) | _lang.standard_methods


def _union(attr: str) -> frozenset[str]:
    return frozenset().union(*(getattr(lang, attr) for lang in LANGUAGES))


# What the resolver reads alike in every language, from what each declares (a
# `this.x()` in a Python file is a call on the instance too, and a type one language's
# standard library defines is no repository class in any).
INSTANCE_NAMES = _union("instance_names")
CLASS_NAMES = _union("class_names")
SELF_NAMES = INSTANCE_NAMES | CLASS_NAMES  # names whose value is the instance or its class
SELF_RECEIVERS = SELF_NAMES | _union("self_aliases")  # receivers of a call on the instance
SUPER_RECEIVERS = _union("super_receivers")
_SUPER_PREFIXES = tuple(p for lang in LANGUAGES for p in lang.super_call_prefixes)
EXTERNAL_TYPES = _union("external_types")
NO_TYPE = _union("untyped_declarations")
UNWRAP_METHODS = _union("unwrap_methods")  # `opt.unwrap()`: the value an Option/Result holds
WRAPPER_SAME_METHODS = _union("wrapper_same_methods")  # `opt.as_ref()`: the same wrapper
INSTANCE_FACTORIES = frozenset(lang.instance_factory for lang in LANGUAGES if lang.instance_factory)
_ENTRY_STEMS = tuple("/" + lang.entry_stem for lang in LANGUAGES if lang.entry_stem)
_ROOT_ENTRY_STEMS = frozenset(lang.entry_stem for lang in LANGUAGES if lang.entry_stem and lang.entry_stem_at_root)
for _lang in LANGUAGES:
    _lang.external_names = _lang.builtin_calls | (EXTERNAL_TYPES if _lang.namespaced else frozenset())


class UnknownLanguageError(CodeloupeError, ValueError):
    """A language name we do not know (``--lang``)."""


def rules(name: str) -> Language:
    """The rules of the language of this name (``NEUTRAL`` for one we do not know)."""
    return BY_NAME.get(name, NEUTRAL)


def family_rules(family: str) -> Language:
    """The rules of the first language of a family (the rules its languages share)."""
    return _BY_FAMILY.get(family, NEUTRAL)


def family_standard_methods(family: str) -> frozenset[str]:
    """The core types' method names of every language of a family (C's and C++'s)."""
    return _STANDARD_METHODS.get(family, frozenset())


def same_family(a: str, b: str) -> bool:
    """Do symbols of these two languages call each other (``.ts`` and ``.js``)?"""
    return a == b or rules(a).family == rules(b).family != ""


def is_super_receiver(receiver: str) -> bool:
    """``super``, ``super()``, ``super(Cls, self)``, ``base``, ``parent``."""
    return receiver in SUPER_RECEIVERS or receiver.startswith(_SUPER_PREFIXES)


def module_stem(path: str) -> str:
    """``pkg/x.py`` → ``pkg/x``; a package's entry file stands for its folder:
    ``pkg/__init__.py`` / ``src/index.ts`` / ``src/net/mod.rs`` → ``pkg`` / ``src`` /
    ``src/net``."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    if stem.endswith(_ENTRY_STEMS):
        stem = stem.rsplit("/", 1)[0]
    elif stem in _ROOT_ENTRY_STEMS:
        stem = ""
    return stem


def language_for_path(path: str | PurePath) -> str | None:
    """The language of a file by its extension, or None when we do not parse it."""
    suffix = PurePath(path).suffix.lower()
    return _BY_EXTENSION.get(suffix)


# what only C++ writes, at the start of a line: a class, a namespace, a template, an
# access label, `using namespace`
_CPP_ONLY = re.compile(rb"^[ \t]*(?:class[ \t]+\w+[^;\n]*$|namespace(?:[ \t]+\w+)?[ \t]*\{|template[ \t]*<"
                       rb"|(?:public|private|protected)[ \t]*:|using[ \t]+namespace\b)", re.MULTILINE)
_SNIFF_BYTES = 1 << 16


def language_for_file(path: str | PurePath, data: bytes, language: str | None = None) -> str | None:
    """The language of a file by its extension (or ``language``, that of its
    extension), and for a C header by what it holds: a ``.h`` that declares classes,
    namespaces or templates is C++ (``tinyxml2.h``), read by the C++ grammar."""
    language = language or language_for_path(path)
    if language == "c" and PurePath(path).suffix.lower() == ".h" and _CPP_ONLY.search(data[:_SNIFF_BYTES]):
        return "cpp"
    return language


def normalize_language(name: str) -> str:
    """Map a user-typed language name to ours; raise UnknownLanguageError if none fits."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in BY_NAME:
        known = ", ".join(lang.name for lang in LANGUAGES)
        raise UnknownLanguageError(f"unknown language {name!r} (known: {known})")
    return key


def get_parser(name: str) -> Parser:
    """A new parser for the language (parsers are not thread-safe; make one per worker)."""
    return parser(BY_NAME[name].grammar)


def get_query(name: str) -> Query:
    """The tags query of the language."""
    return tags_query(name, BY_NAME[name].grammar)

