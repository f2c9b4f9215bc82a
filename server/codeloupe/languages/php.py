"""PHP: namespaces (``use A\\B\\C as D;``), ``$this``, ``parent::``, ``__construct``."""

from __future__ import annotations

from typing import Any

from .base import ImportContext, Language, use_path


class Php(Language):
    """PHP."""

    self_dispatch = True

    name = grammar = "php"
    phpdoc = True
    type_tests = "(if_statement condition: (_) @cond body: (_) @body)"
    extensions = (".php", ".phtml")
    instance_names = frozenset({"$this"})
    super_receivers = frozenset({"parent"})
    constructor_names = ("__construct",)
    dynamic_members = True
    namespaced = True
    external_types = frozenset({
        "array", "mixed", "iterable", "callable", "DateTime", "DateTimeImmutable",
    })

    def import_value(self, ctx: ImportContext, path: str, bound: str, source: str,
                     original: str, depth: int) -> Any:
        """``use A\\B\\C;``: the definitions of that qualified name, else by path;
        outside the repository when nothing is defined in namespace ``A`` (a package
        of vendor/: ``use Psr\\Http\\Message\\UriInterface;``)."""
        found = self.qualified_import(ctx, source, original)
        if found is not None:
            return found
        found = super().import_value(ctx, path, bound, source, original, depth)
        if found is None:
            parts = use_path(source, original)
            if len(parts) > 1 and not ctx.namespace_defined(parts[0]):
                return ctx.external_value
        return found


PHP = Php()
