"""C#: namespaces (``using A.B;``, ``using D = A.B.C;``), ``base``, bare calls on
``this``, the classes of the folder seen without a ``using``."""

from __future__ import annotations

from typing import Any

from .base import ImportContext, Language, PackageScope
from .java import package_import


class CSharp(Language):
    """C#."""

    name = grammar = "csharp"
    extensions = (".cs",)
    aliases = ("cs", "c#")
    instance_names = frozenset({"this"})
    super_receivers = frozenset({"base"})
    untyped_declarations = frozenset({"var", "dynamic"})
    implicit_this = True
    own_constructor_calls = frozenset({"this"})
    base_constructor_calls = frozenset({"super", "base"})
    package_scope = PackageScope.CLASSES
    namespaced = True
    external_types = frozenset({
        "char", "long", "double", "short", "byte", "var", "Exception", "StringBuilder",
        "decimal", "sbyte", "ushort", "ulong",
    })

    def import_value(self, ctx: ImportContext, path: str, bound: str, source: str,
                     original: str, depth: int) -> Any:
        """A qualified name (``using D = A.B.C;``), else as Java: a file of that path."""
        found = self.qualified_import(ctx, source, original)
        if found is not None:
            return found
        return package_import(ctx, source, original, depth)


CSHARP = CSharp()
