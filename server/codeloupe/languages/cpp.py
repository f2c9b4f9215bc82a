"""C++: C's includes, and namespaces (``a::B``, ``using a::B;``, ``using namespace``),
methods defined out of line (``int Foo::bar() {}``), ``Base::send()``, ``using``
aliases, bare calls on ``this``."""

from __future__ import annotations

import re
from typing import Any

from .base import ImportContext, ModuleFacts
from .c import C


class Cpp(C):
    """C++."""

    name = grammar = "cpp"
    blanked_macros = re.compile(
        rb"\b(?:class|struct)[ \t]+([A-Z][A-Z0-9_]{2,})[ \t]+(?=[A-Za-z_]\w*[ \t\r\n]*(?:final\b[ \t\r\n]*)?[:{])")
    extensions = (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp")
    aliases = ("c++", "cxx")
    module_facts = ModuleFacts.DROP_PARAMETERS  # a prototype's parameters are no variables
    parameter_nodes = frozenset({"parameter_declaration", "optional_parameter_declaration"})
    instance_names = frozenset({"this"})
    untyped_declarations = frozenset({"auto"})
    implicit_this = True
    cast_argument_types = True
    enum_from_number = False
    this_pointer = True
    own_constructor_calls = frozenset({"this"})
    base_constructor_calls = frozenset({"super"})
    class_qualified_super = True
    out_of_line_methods = True
    type_aliases_as_variables = True
    namespaced = True
    parameters_field = "parameters"
    declarator_field = "declarator"
    optional_parameter_nodes = frozenset({"optional_parameter_declaration"})
    variadic_parameter_nodes = frozenset({"variadic_parameter_declaration"})
    variadic_tokens = frozenset({"..."})
    skipped_parameter_nodes = frozenset({"comment"})
    # std::string / vector / array / map members: `contents.data()` on a std::string is
    # no test class's only `data()`
    standard_methods = frozenset("""
    size data length empty begin end cbegin cend rbegin rend front back at c_str push_back
    pop_back emplace emplace_back resize reserve capacity erase substr compare swap
    find_first_of find_last_of count lower_bound upper_bound reset release
    """.split())
    argument_list_nodes = frozenset({"argument_list"})
    overloads = True
    argument_literals = {"string_literal": "char*", "raw_string_literal": "char*", "concatenated_string": "char*",
                         "char_literal": "char", "true": "bool", "false": "bool", "null": "nullptr",
                         "nullptr": "nullptr", "number_literal": "number"}

    def import_value(self, ctx: ImportContext, path: str, bound: str, source: str,
                     original: str, depth: int) -> Any:
        """``using a::C;``: the definitions of that qualified name, else by path."""
        found = self.qualified_import(ctx, source, original)
        if found is not None:
            return found
        return super().import_value(ctx, path, bound, source, original, depth)


CPP = Cpp()
