"""C#: namespaces (``using A.B;``, ``using D = A.B.C;``), ``base``, bare calls on
``this``, the classes of the folder seen without a ``using``."""

from __future__ import annotations

from typing import Any

from .base import ImportContext, Language, PackageScope
from .java import package_import


class CSharp(Language):
    """C#."""

    # a call on a class-typed value also runs the overrides in its subclasses: C# lets a
    # method be overridden (`override`) only where the base declares it virtual or
    # abstract, so a subclass's method of the name is one (a `new` one hiding it is rare)
    self_dispatch = True
    name = grammar = "csharp"
    type_tests = "(if_statement condition: (_) @cond consequence: (_) @body)"
    extensions = (".cs",)
    aliases = ("cs", "c#")
    instance_names = frozenset({"this"})
    super_receivers = frozenset({"base"})
    untyped_declarations = frozenset({"var", "dynamic"})
    implicit_this = True
    own_constructor_calls = frozenset({"this"})
    base_constructor_calls = frozenset({"super", "base"})
    package_scope = PackageScope.CLASSES
    closed_types = True
    namespaced = True
    # overloads: by argument count, then by the arguments' types (extract.arity); `params`
    # stands inline in the parameter list (its type and name are no `parameter` node)
    parameters_field = "parameters"
    variadic_tokens = frozenset({"params"})
    skipped_parameter_nodes = frozenset({"comment", "attribute_list", "array_type", "identifier"})
    defaults_by_equals = True
    receiver_parameter_modifier = "this"
    argument_list_nodes = frozenset({"argument_list"})
    argument_wrapper_nodes = frozenset({"argument"})
    overloads = True
    cast_argument_types = True  # `Write((byte)x)`: the cast type is the argument's
    primitives_box_only = True
    argument_literals = {"string_literal": "string", "verbatim_string_literal": "string",
                         "raw_string_literal": "string", "interpolated_string_expression": "string",
                         "character_literal": "char", "boolean_literal": "bool", "null_literal": "nullptr",
                         "integer_literal": "number", "real_literal": "number"}
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
        return package_import(ctx, source, original, depth, self)


CSHARP = CSharp()
