"""Python: dotted module names, relative imports and ``__init__`` packages, docstrings,
class bodies that are no scope of their methods, and the builtins."""

from __future__ import annotations

import builtins
import re
from typing import Any

from .base import ImplicitClasses, ImportContext, Language

BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_")) | {"__import__"}
# `list(xs)`, `sorted(xs)`, `reversed(xs)`: a sequence with the same elements
_SEQUENCE_COPY = re.compile(r"^(list|tuple|sorted|reversed|set|frozenset|iter)\((.*)\)$", re.S)
# `next(it)`, `min(xs)`, `max(xs, key=...)`: one element of a sequence
_ELEMENT_CALL = re.compile(r"^(next|min|max)\((.*)\)$", re.S)
_PAIRS_CALL = re.compile(r"^(enumerate)\((.*)\)$", re.S)  # (index, element) pairs


def module_path(source: str, path: str) -> str:
    """The slash path of the module an import names, relative imports resolved against
    the importing file ``path`` (``..x.y`` from ``pkg/sub/a.py`` → ``pkg/x/y``); absolute
    names stay dotted-to-slashed (``a.b`` → ``a/b``)."""
    if not source.startswith("."):
        return source.replace(".", "/")
    dots = len(source) - len(source.lstrip("."))
    rest = source[dots:]
    pkg = path.rsplit("/", 1)[0] if "/" in path else ""
    for _ in range(dots - 1):
        pkg = pkg.rsplit("/", 1)[0] if "/" in pkg else ""
    tail = rest.replace(".", "/")
    return f"{pkg}/{tail}".strip("/") if tail else pkg


class Python(Language):
    """Python."""

    self_dispatch = True
    private_prefix = "__"

    name = grammar = "python"
    type_tests = "(if_statement condition: (_) @cond consequence: (_) @body)"
    extensions = (".py", ".pyi", ".pyw")
    aliases = ("py",)
    entry_stem = "__init__"
    entry_stem_at_root = True
    body_docstrings = True
    instance_names = frozenset({"self"})
    class_names = frozenset({"cls"})
    super_receivers = frozenset({"super()"})
    super_call_prefixes = ("super(",)
    class_body_is_scope = False
    constructor_names = ("__init__",)
    dynamic_members = True
    implicit_classes = ImplicitClasses.NONE
    ternaries = False  # no `c ? a : b` (its `a if c else b`: inline_conditional)
    sequence_copy = _SEQUENCE_COPY
    element_call = _ELEMENT_CALL
    pairs_call = _PAIRS_CALL
    container_literals = True
    inline_conditional = True
    builtin_calls = BUILTINS
    parameters_field = "parameters"
    optional_parameter_nodes = frozenset({"default_parameter", "typed_default_parameter"})
    variadic_parameter_nodes = frozenset({"list_splat_pattern", "dictionary_splat_pattern"})
    skipped_parameter_nodes = frozenset({"keyword_separator", "positional_separator", "comment"})
    arity_opaque_parents = frozenset({"decorated_definition"})
    argument_list_nodes = frozenset({"argument_list"})
    spread_argument_nodes = frozenset({"list_splat", "dictionary_splat"})
    external_types = frozenset({
        "str", "int", "float", "bool", "bytes", "bytearray", "dict", "list", "set", "frozenset",
        "tuple", "object", "type", "None", "complex", "memoryview", "range", "slice",
        "Any", "Dict", "List", "Set", "FrozenSet", "Tuple", "Type", "Callable", "Iterable",
        "Iterator", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator", "Mapping",
        "MutableMapping", "Sequence", "MutableSequence", "Awaitable", "Coroutine", "NoReturn",
        "Literal", "TypeVar", "IO", "TextIO", "BinaryIO", "Pattern", "Match", "OrderedDict",
        "DefaultDict", "Counter", "Deque", "ClassVar", "Final", "bytes_", "Never",
    })

    def module_qualified_name(self, path: str) -> str:
        """``pkg/http.py`` → ``pkg.http``; ``pkg/__init__.py`` → ``pkg``."""
        stem = path.rsplit(".", 1)[0]
        parts = [p for p in stem.split("/") if p]
        if parts and parts[-1] == "__init__":
            parts = parts[:-1]
        return ".".join(parts) or stem

    def star_module_path(self, source: str, path: str) -> str | None:
        """``from m import *``: the slash path of ``m``, relative imports resolved against
        ``path``."""
        return module_path(source, path)

    def is_package_entry(self, path: str) -> bool:
        """``__init__.py``: its package's submodules are its members."""
        return path.endswith("__init__.py")

    def import_value(self, ctx: ImportContext, path: str, bound: str, source: str,
                     original: str, depth: int) -> Any:
        """``import a.b`` / ``import a.b as c`` bind a module; ``from m import x`` a
        member of ``m`` (a definition, a variable, a re-export) or its submodule ``x``;
        an absolute module not in the repository is external."""
        if original == source:  # import a.b / import a.b as c
            modpath = module_path(source if bound != source.split(".")[0] else bound, path)
            files = ctx.module_files(modpath)
            return ctx.module(files) if files else ctx.external_value
        modpath = module_path(source, path)
        files = ctx.module_files(modpath) if modpath else []
        if not files and not source.startswith("."):
            sub = ctx.module_files(f"{modpath}/{original}")
            return ctx.module(sub) if sub else ctx.external_value
        found = ctx.module_member(tuple(files), original, depth + 1)
        if found is not None:
            return found
        sub = ctx.module_files(f"{modpath}/{original}" if modpath else original)
        return ctx.module(sub) if sub else None


PYTHON = Python()
