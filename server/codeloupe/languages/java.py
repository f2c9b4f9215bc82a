"""Java: packages as folders, imports by qualified name, bare calls on ``this``, the
classes of the package seen without an import."""

from __future__ import annotations

from typing import Any

from .base import ImportContext, Language, PackageScope


def package_import(ctx: ImportContext, source: str, original: str, depth: int, lang: Language | None = None) -> Any:
    """``import a.b.C``: the member ``C`` of the file ``a/b/C.*`` (or of ``a/b.*``), else
    the top-level ``C`` of a file of the package folder ``a/b``."""
    modpath = source.replace(".", "/")
    files = ctx.module_files(modpath)
    if files:
        return ctx.module_member(tuple(files), original, depth + 1)
    parent = modpath.rsplit("/", 1)[0]
    found = [s for p in ctx.package_files(parent) for s in ctx.top_level(p, original)]
    if not found and "/" in parent:  # `import static a.b.C.m;`: the member m of the class C
        owner = parent.rsplit("/", 1)[1]
        files = set(ctx.module_files(parent))
        found = [s for s in ctx.qualified(f"{owner}.{original}", lang or JAVA) or () if s.path in files]
    return found or None


_PLATFORM_PACKAGES = ("java.", "javax.", "jdk.")


class Java(Language):
    """Java."""

    self_dispatch = True

    name = grammar = "java"
    type_tests = "(if_statement condition: (_) @cond consequence: (_) @body)"
    extensions = (".java",)
    instance_names = frozenset({"this"})
    super_receivers = frozenset({"super"})
    untyped_declarations = frozenset({"var"})
    implicit_this = True
    own_constructor_calls = frozenset({"this"})
    base_constructor_calls = frozenset({"super"})
    package_scope = PackageScope.CLASSES
    declared_packages = True
    closed_types = True
    # overloads: a call goes to the methods of its name that take its argument count, then
    # to those its arguments' types fit (extract.arity; graph/resolve/narrow.py)
    parameters_field = "parameters"
    variadic_parameter_nodes = frozenset({"spread_parameter"})
    varargs_are_arrays = True
    cast_argument_types = True
    primitives_box_only = True
    enum_from_number = False
    skipped_parameter_nodes = frozenset({"line_comment", "block_comment"})
    argument_list_nodes = frozenset({"argument_list"})
    overloads = True
    argument_literals = {"string_literal": "String", "text_block": "String", "character_literal": "char",
                         "true": "boolean", "false": "boolean", "null_literal": "nullptr",
                         "decimal_integer_literal": "number", "hex_integer_literal": "number",
                         "octal_integer_literal": "number", "binary_integer_literal": "number",
                         "decimal_floating_point_literal": "number"}
    external_types = frozenset({
        "Integer", "Long", "Double", "Float", "Short", "Byte", "Character", "char", "long",
        "double", "short", "byte", "var", "ArrayList", "HashMap", "Optional", "Stream",
        "Collection", "Exception", "RuntimeException", "StringBuilder", "Class",
    })

    def import_value(self, ctx: ImportContext, path: str, bound: str, source: str,
                     original: str, depth: int) -> Any:
        """``import a.b.C``: the class ``C`` of the package ``a.b`` (``package_import``);
        the JDK's packages (``java.*``, ``javax.*``: no other class loader may define
        them) are outside."""
        if source.startswith(_PLATFORM_PACKAGES):
            return ctx.external_value
        return package_import(ctx, source, original, depth, self)


JAVA = Java()
