"""JavaScript, TypeScript and TSX, one family: relative module paths and ``require``,
``index`` files, JSDoc types, the parameters of local closures, the globals."""

from __future__ import annotations

import re
from typing import Any

from .base import ImplicitClasses, ImportContext, Language

GLOBALS = frozenset({
    "require", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate",
    "parseInt", "parseFloat", "isNaN", "isFinite", "String", "Number", "Boolean", "Array",
    "Object", "Symbol", "Error", "TypeError", "RangeError", "Promise", "Map", "Set",
    "WeakMap", "WeakSet", "Date", "RegExp", "JSON", "encodeURIComponent", "decodeURIComponent",
    "encodeURI", "decodeURI", "queueMicrotask", "structuredClone", "fetch", "BigInt",
    "Proxy", "Reflect", "eval", "URL", "URLSearchParams", "AbortController", "Buffer",
    # the runtime's objects, where a file neither declares nor imports the name
    "process", "console", "Math", "globalThis", "window", "document", "navigator", "Intl",
})
_WHOLE_REQUIRE = re.compile(r"""^require\(\s*(['"`])[^'"`]*\1\s*\)$""")  # the module itself
_MODULE_SUFFIX = re.compile(r"\.(m?[jt]sx?|cjs|cts|mts)$")
# where a package keeps its entry when it has no index file at its top (package.json's
# `main`, which the graph does not read)
PACKAGE_MAINS = ("lib/index", "src/index")


def module_path(source: str, path: str) -> str | None:
    """``./x`` / ``../lib/y.js`` from ``src/a.ts`` → ``src/x`` / ``lib/y``; a bare package
    name (``react``) → None (outside the repository)."""
    if not source.startswith("."):
        return None
    base = path.rsplit("/", 1)[0].split("/") if "/" in path else []
    for part in source.split("/"):
        if part in (".", ""):
            continue
        if part == "..":
            if base:
                base.pop()
        else:
            base.append(part)
    out = _MODULE_SUFFIX.sub("", "/".join(base))
    if out.endswith("/index"):
        out = out[: -len("/index")]
    return out


class JavaScript(Language):
    """JavaScript (and the rules TypeScript and TSX share with it)."""

    self_dispatch = True

    name = grammar = "javascript"
    type_tests = "(if_statement condition: (_) @cond consequence: (_) @body)"
    extensions = (".js", ".mjs", ".cjs", ".jsx")
    aliases = ("js", "jsx")
    family = "js"
    entry_stem = "index"
    entry_stem_at_root = True
    jsdoc = True
    closure_declarations = frozenset({"lexical_declaration", "variable_declaration", "function_declaration"})
    function_nodes = frozenset({"arrow_function", "function_expression", "function_declaration",
                                "generator_function", "generator_function_declaration"})
    argument_nodes = frozenset({"identifier", "member_expression", "subscript_expression",
                                "call_expression", "new_expression", "this"})
    instance_names = frozenset({"this"})
    self_aliases = frozenset({"me"})  # `var me = this`
    super_receivers = frozenset({"super"})
    untyped_declarations = frozenset({"let", "const"})
    constructor_names = ("constructor",)
    own_constructor_calls = frozenset({"this"})
    base_constructor_calls = frozenset({"super"})
    functions_as_methods = True
    expando_members = True
    proto_properties = frozenset({"__proto__"})
    lexical_this_functions = frozenset({"arrow_function"})
    merge_calls = frozenset({
        "Object.assign", "Object.setPrototypeOf", "merge", "mixin", "extend", "_.extend",
        "_.assign", "util.inherits", "inherits",
    })
    prototype_calls = frozenset({"Object.create"})
    export_targets = frozenset({"module.exports", "exports"})
    exports_variable = "module.exports"
    implicit_classes = ImplicitClasses.UNIQUE
    module_loader: str = "require("
    builtin_calls = GLOBALS
    external_types = frozenset({
        "string", "number", "boolean", "any", "unknown", "void", "never", "undefined", "null",
        "bigint", "symbol", "Array", "Promise", "Map", "WeakMap", "Record", "Partial",
        "Readonly", "ReadonlyArray", "Function", "Error", "Date", "RegExp", "Object", "String",
        "Number", "Boolean", "Uint8Array", "Buffer",
    })

    def star_module_path(self, source: str, path: str) -> str | None:
        """The slash path of a relative module (``export * from './m'``); None for a
        package."""
        return module_path(source, path)

    def import_value(self, ctx: ImportContext, path: str, bound: str, source: str,
                     original: str, depth: int) -> Any:
        """A relative module's member (``import {x} from './m'``), or the module itself
        (``import * as m``, ``const m = require('./m')``); a package name is external.
        A default import resolves to nothing here: the module's main export is found by
        the bound name."""
        modpath = module_path(source, path)
        if modpath is None:
            return ctx.external_value
        # `./utils` is that file or folder, never another folder's `utils` (a bundle's
        # inlined modules, required from beside them, are not the sources they came from)
        files = ctx.module_files(modpath, exact=True) or self._package_main(ctx, modpath)
        if not files:
            return None
        if original.startswith("*") or any(  # `const m = require('./m')`, not `require('./m').x`
                _WHOLE_REQUIRE.match(text) for text in ctx.assigned_texts(path, bound)):
            return ctx.module(files)
        return ctx.module_member(tuple(files), original, depth + 1)


    def _package_main(self, ctx: ImportContext, modpath: str) -> list[str]:
        """A folder without an index file (``require('../')`` from test/): the entry its
        package.json names, in the places packages put it (``lib/index.js``); the graph
        sees no package.json, so the first of ``PACKAGE_MAINS`` that exists."""
        for main in PACKAGE_MAINS:
            stem = f"{modpath}/{main}" if modpath else main
            files = [f for f in ctx.module_files(stem.rsplit("/", 1)[0] if main.endswith("/index") else stem)
                     if _MODULE_SUFFIX.sub("", f) == stem]
            if files:
                return files
        return []


class TypeScript(JavaScript):
    """TypeScript: JavaScript's rules, and constructor parameter properties."""

    name = grammar = "typescript"
    extensions = (".ts", ".mts", ".cts")
    aliases = ("ts",)
    parameter_property_receivers = frozenset({"private", "public", "protected", "readonly"})
    callback_types = True


class Tsx(TypeScript):
    """TSX: TypeScript with JSX (its query inherits TypeScript's)."""

    name = grammar = "tsx"
    extensions = (".tsx",)
    aliases = ()


JAVASCRIPT = JavaScript()
TYPESCRIPT = TypeScript()
TSX = Tsx()
