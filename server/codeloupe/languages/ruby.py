"""Ruby: ``require`` names files, ``include M`` mixes a module in, ``Foo.new``,
``super``, ``@attr``, constants naming classes, bare calls on ``self``."""

from __future__ import annotations

from .base import Language


class Ruby(Language):
    """Ruby."""

    self_dispatch = True

    name = grammar = "ruby"
    extensions = (".rb", ".rake", ".gemspec")
    aliases = ("rb",)
    module_functions_are_methods = True  # `def` in a `module` is a method of it
    instance_names = frozenset({"self"})
    implicit_this = True
    constructor_names = ("initialize",)
    instance_factory = "new"
    super_method_calls = frozenset({"super"})
    mixin_modules = True
    dynamic_members = True
    type_aliases_as_variables = True
    includes_files = True
    constant_paths = True

    def names_file(self, source: str) -> bool:
        """Always: a ``require`` names a file."""
        return True  # `require 'x'` / `require_relative 'x'`: always a file

    def fact_target(self, name: str, receiver: str) -> tuple[str, str]:
        """``@x = ...``: the attribute ``x`` of the instance."""
        if name.startswith("@") and not name.startswith("@@"):
            return name[1:], "self"
        return name, receiver


RUBY = Ruby()
