"""The records the engine passes between units: symbols and references."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

MODULE_NAME = "<module>"
T = TypeVar("T")

# Kinds a symbol can have. Containers hold methods; "module" is the per-file unit
# for top-level code, and also Ruby modules / Rust `mod` blocks.
CONTAINER_KINDS = frozenset(
    {"class", "struct", "interface", "enum", "trait", "union", "module", "impl", "object"}
)
FUNCTION_KINDS = frozenset({"function", "method", "constructor"})
SYMBOL_KINDS = CONTAINER_KINDS | FUNCTION_KINDS | {"type"}
# Reference kinds that are facts for resolving calls, not uses a reader points at:
# "typed" (a parameter / variable / attribute and its declared type), "assign" (the
# value assigned to it), "elem" (a variable bound to the elements of a value: a loop,
# an array method's callback), "returns" (a declared return type), "return" (a
# returned expression), "item" (an element put into a container variable or attribute:
# `xs.append(x)`), "keyed" (a value stored under a key: `d[k] = x`), "second" (a
# variable bound to the second item of each element: `for k, v in d.items()`), "params" (the arguments a function takes: `source` is
# "<least> <most>", most -1 for any number; extract.arity), "package" (the package a file declares:
# Go's `package mux`), "unwrap" (a variable bound to the value a wrapper holds: Rust
# `if let Some(x) = e`), "ptypes" (a C++ function's parameter types; extract.arity). They carry line 0 (no position in the file) and the enclosing symbol
# they belong to; "base" (a base class) is a use and keeps its position.
# between the types of a call's arguments in its ``source``, of a function's
# parameters in its "ptypes" fact (extract.arity)
TYPE_SEP = "\x1f"
def template_type(name: str) -> str:
    """How a template's own type parameter ``name`` stands among a function's parameter
    types: ``<T>`` (two parameters of one type parameter deduce it together)."""
    return f"<{name}>"


def is_template_type(param: str) -> bool:
    """Is this parameter type a template's own type parameter (``template_type``)?"""
    return param.startswith("<") and param.endswith(">")
# between the positions of a ``cbtypes`` fact (extract.callbacks)
CALLBACK_SEP = "\x1e"
# after a call's receiver, the types a test narrows it to (``x instanceof T``:
# extract.narrowing), ``|`` between them
NARROW_SEP = "\x1d"
FACT_KINDS = frozenset({"typed", "assign", "elem", "returns", "return", "item", "keyed", "second",
                        "params", "package", "unwrap", "ptypes", "guard", "defines", "cbparam", "cbtypes"})


@dataclass(slots=True)
class Symbol:
    """A function, method, class-like type or module unit of one file.

    Lines are 1-based and inclusive; columns are 0-based, counted in characters
    (code points) of the decoded text.
    """

    id: str  # "<path>::<qualified name>", "#2" appended for the second overload
    path: str  # relative to the workspace root, "/"-separated
    name: str
    qualified_name: str  # name path inside the file: "Client.fetch"
    kind: str
    language: str
    signature: str
    doc: str
    parent: str | None  # id of the enclosing symbol (None for the module unit)
    start_line: int
    start_col: int
    end_line: int
    end_col: int
    text: str  # the source of the symbol (for the module unit: top-level code)
    content_hash: str
    members: list[str] = field(default_factory=list)  # signatures of direct children


@dataclass(slots=True)
class Reference:
    """A use of a name: a call, a type use, or an import binding."""

    path: str
    kind: str  # "call", "class", "import", "base"; resolution facts: FACT_KINDS
    name: str  # the called / referenced name, last component ("send" in "self.send()")
    receiver: str  # text before the name ("self", "client", "a.b"), "" if none
    line: int  # 1-based (0 for resolution facts)
    col: int  # 0-based, characters
    enclosing: str  # id of the innermost symbol containing the reference
    source: str = ""  # for imports: the module the name comes from; for calls: the argument count ("" unknown)
    original: str = ""  # for aliased imports: the name in that module (`y` in `import y as z`)


@dataclass(slots=True)
class FileExtraction:
    """What extracting one file gives: its symbols, its references, and how many syntax
    errors the tree had."""

    path: str
    language: str
    symbols: list[Symbol]
    references: list[Reference]
    error_count: int = 0  # ERROR / MISSING nodes in the tree: the file had syntax errors
    # where each block of ``references`` after the first starts: the rows found in the
    # tree's order, then each later pass's (a function's parameters, JSDoc types…), in
    # the order of the symbols; a splice keeps each block in its order (``buffer``)
    blocks: tuple[int, ...] = ()


def cut_blocks(items: Sequence[T], starts: tuple[int, ...]) -> list[Sequence[T]]:
    """``items`` cut where each of ``starts`` begins (``FileExtraction.blocks``)."""
    bounds = [0, *starts, len(items)]
    return [items[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
