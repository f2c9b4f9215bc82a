"""A package's names imported from its modules on first use (a module ``__getattr__``,
PEP 562), so importing the package, or one light module of it, does not import its heavy
ones: ``store`` (LanceDB, pyarrow), ``graph`` (the resolver, numpy), ``embed`` (the
backends)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``where`` maps each name to the module of the
    package that defines it; a name is imported at its first use, then kept in the package
    (later uses do not come here); any other name is an ``AttributeError``."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
