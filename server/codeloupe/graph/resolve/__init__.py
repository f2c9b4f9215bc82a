"""Resolution: call sites to the symbols they call, language-neutral, asking each
file's ``Language`` for its rules.

``Resolver`` is one object over the index and the memo, made of parts that call each
other (the evaluation is recursive: a class's bases are types, a type is a name, a
name may be an attribute of a base): ``reads`` (recorded reads of the index and
remembered lookups), ``scopes`` (scopes, members, MRO), ``imports`` (imports,
modules, includes, namespaces), ``returns`` (what calls return), ``callbacks`` (an
inline callback's parameters), ``values`` (values and types), ``calls`` (a site to its targets). ``text`` reads types and expressions as
written.
"""

from __future__ import annotations

from ..model import Value
from .calls import Calls

__all__ = ["Resolver"]


class Resolver(Calls):
    """Resolves call sites over a ``SymbolIndex``, remembering lookups in a ``Memo``."""

    def type_value(self, text: str, path: str, scope: str) -> Value | None:
        """The instances a type as written in ``scope`` of file ``path`` names."""
        return self._type_value(text, path, scope)
