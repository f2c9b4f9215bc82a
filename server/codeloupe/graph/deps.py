"""Dependency keys: the names under which a file publishes what other files can see
of it (``SymbolIndex.digest``) and under which a lookup records what it read
(``resolve.reads.Reads``). Both sides build their keys here, so they cannot drift
apart: an edit that changes what a lookup read changes the digest under the key the
lookup recorded, and the call sites that made it are resolved again.

Most keys are a bare name (a definition, an import binding, a base, a module-level
variable, an attribute, a function's return are published under their name); the
prefixed ones below stand for a file's module path, the classes deriving from a
base, a file's namespaces and includes, and a function's locals.
"""

from __future__ import annotations

STAR = "*"  # the `from m import *` / `export * from` of every file
MODULE_PREFIX = "mod:"  # + the last part of a module stem or folder: the files named so
SUBCLASS_PREFIX = "sub:"  # + a base name: the classes that name it as a base
NAMESPACE_PREFIX = "ns:"  # + a path: the namespaces that file sees
INCLUDE_PREFIX = "inc:"  # + a path: the files that file includes
IMPORTS_PREFIX = "imp:"  # + a path: every import of that file (narrowing by imports)
HEAD_PREFIX = "head:"  # + the first part of a namespace: whether the repository defines in it
MEMBERS_PREFIX = "members:"  # + an interface's id: the names of its methods
DEFINES_PREFIX = "def:"  # + a path: the macros that file defines
MACRO_PREFIX = "macro:"  # + a macro name: the files that define it
PACKAGE_PREFIX = "pkg:"  # + a path: the package that file declares


def module_key(tail: str) -> str:
    """The files whose module stem, or folder, ends with ``tail``."""
    return MODULE_PREFIX + tail


def subclass_key(base: str) -> str:
    """The classes that name ``base`` as a base."""
    return SUBCLASS_PREFIX + base


def namespace_key(path: str) -> str:
    """The namespaces file ``path`` is in or imports whole."""
    return NAMESPACE_PREFIX + path


def include_key(path: str) -> str:
    """The files file ``path`` includes."""
    return INCLUDE_PREFIX + path


def imports_key(path: str) -> str:
    """Every import of file ``path``, as a whole."""
    return IMPORTS_PREFIX + path


def head_key(head: str) -> str:
    """Whether any file defines something in a namespace starting with ``head``."""
    return HEAD_PREFIX + head


def members_key(owner: str) -> str:
    """The names of the methods an interface declares (Go: its method set)."""
    return MEMBERS_PREFIX + owner


def defines_key(path: str) -> str:
    """The macros file ``path`` #defines."""
    return DEFINES_PREFIX + path


def package_key(path: str) -> str:
    """The package file ``path`` declares."""
    return PACKAGE_PREFIX + path


def macro_key(name: str) -> str:
    """The files that #define macro ``name``."""
    return MACRO_PREFIX + name


def local_key(scope: str, name: str) -> str:
    """A variable local to a function: seen by its own file only, so a common local
    name edited in one file re-resolves nothing elsewhere."""
    return f"{scope}\0{name}"


def short_name(symbol_id: str) -> str:
    """The name a symbol's facts (bases, returns) are published under: the last part
    of its qualified name (``pkg/a.py::Client.send#2`` → ``send``)."""
    return symbol_id.rsplit("::", 1)[-1].rsplit(".", 1)[-1].split("#", 1)[0]
