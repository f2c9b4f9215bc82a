"""Go: packages are folders, methods are defined anywhere in theirs, an import binds
the package's last path part, the builtins."""

from __future__ import annotations

from typing import Any

from .base import ImportContext, Language, MethodsApart, PackageScope

BUILTINS = frozenset({
    "len", "cap", "make", "new", "append", "copy", "delete", "panic", "recover", "print",
    "println", "close", "complex", "real", "imag", "min", "max", "clear", "string", "int",
    "int64", "int32", "uint", "uint64", "uint32", "byte", "rune", "float64", "float32",
    "bool", "error", "uintptr",
})


class Go(Language):
    """Go."""

    name = grammar = "go"
    extensions = (".go",)
    aliases = ("golang",)
    methods_apart = MethodsApart.SAME_FOLDER
    structural_interfaces = True
    functions_as_methods = True  # `pkg.F()`
    package_functions_imported = True  # `c.F()` on a value is a method
    package_scope = PackageScope.DEFINITIONS
    type_switches = "(type_switch_statement) @switch"
    builtin_calls = BUILTINS
    parameters_field = "parameters"
    variadic_parameter_nodes = frozenset({"variadic_parameter_declaration"})
    skipped_parameter_nodes = frozenset({"comment"})
    argument_list_nodes = frozenset({"argument_list"})
    spread_argument_nodes = frozenset({"variadic_argument"})
    allocator_calls = frozenset({"new"})
    type_assertions = True
    external_types = frozenset({
        "error", "rune", "uint", "uint64", "uint32", "int64", "int32", "float64", "float32",
        "uintptr", "interface{}", "context.Context",
    })

    def import_binding(self, name: str) -> str:
        """``import "net/http"`` binds ``http`` (an alias never has a slash)."""
        return name.rsplit("/", 1)[-1]

    def import_value(self, ctx: ImportContext, path: str, bound: str, source: str,
                     original: str, depth: int) -> Any:
        """The package (folder) of the import path; external when not in the repository."""
        files = ctx.package_files(source)
        return ctx.module(files) if files else ctx.external_value


GO = Go()
