"""Extraction: run a language's tags query on a syntax tree and turn the matches into
symbols and references (resolution facts included).

Captures understood (the tree-sitter tags conventions):

* ``@definition.<kind>`` on a definition node, with ``@name`` on its name and an
  optional ``@doc``. A ``function`` directly inside a class-like symbol becomes a
  ``method``. ``@definition.namespace`` is a container only: its name prefixes the
  qualified names inside it, but it is not a symbol of its own.
* ``@reference.call`` / ``@reference.class`` on the using node with ``@name`` on the
  used name and an optional ``@receiver`` (the object of a method call).
* ``@reference.import`` with ``@name`` on the bound name, an optional ``@source``
  (the module it comes from) and an optional ``@original`` (the name in that module
  when the import renames it).
* ``@scope`` on a definition: a qualifier written outside the body (a Go method's
  receiver type, C++ ``void Foo::bar()``); it joins the qualified name.

Syntax errors do not stop extraction: tree-sitter recovers, and every match it
still finds is kept. The steps, one module each: ``parse`` (and recovery),
``captures`` (matches → definitions and raw references), ``symbols`` (nesting,
names, ids, the module unit), ``references`` (enclosing symbols, facts), ``docs``
(docstrings, comments, signatures), ``jsdoc`` and ``closures`` (JS/TS typing facts),
``macros`` (Rust macro invocations and the calls in their token trees).
"""

from __future__ import annotations

from tree_sitter import Node, Tree

from ..languages import Language, get_query, language_for_file, rules
from ..model import FileExtraction, Reference
from .arity import call_arity, param_facts
from .callbacks import callback_refs, callback_type_facts
from .captures import FACT_LIMIT, collect
from .closures import closure_param_facts
from .docs import DOC_TRANSPARENT
from .expando import find_members, member_facts, own_functions, this_receivers
from .jsdoc import jsdoc_facts
from .macros import function_macro_refs, macro_refs
from .narrowing import narrowed_refs
from .parse import blank_macros, blank_specifier_macros, count_errors, parse, recover
from .preproc import preproc_facts
from .references import make_references
from .source import Source
from .symbols import FileUnit, content_hash, make_symbols, module_symbol, name_definitions, nest

# What extraction makes of a file. Bump it when a change gives other symbols or
# references for unchanged files: indexes built before are then rebuilt (their
# vectors reused) instead of keeping the old extraction of every unchanged file.
# 1: JavaScript/TypeScript CommonJS members (`app.set`, `View.prototype.render`).
# 2: object literals as containers (`var app = {set() {}}`, `module.exports = {...}`,
#    `X.prototype = {...}`), a factory's local function lent members a class, a nested
#    definition in a member named under its object (`View.render.x`).
# 3: Python container facts (`xs.append(x)`, `d[k] = x`, `for k, v in ...`, comprehensions).
# 4: Rust macros: an invocation calls `name!`; the calls in its token trees.
# 5: JS `module.exports = function () {}` exports that function; the name pairs of an
#    exported literal (`module.exports = {parse: parse}`) are facts `module.exports.parse`.
# 6: members of exported classes and objects (`export class C`; `C.prototype.m = ...`).
# 7: arity (Python, Go): a call's argument count in its `source`, `params` facts.
# 8: Go's package clause (a "package" fact).
# 9: Rust `for x in e` (elem) and `if let Some(x) = e` / `while let` (unwrap) facts.
# 10: a `.h` that declares classes, namespaces or templates is C++; C++ export macros
#     between `class` and its name (`class TINYXML2_LIB StrPair {`) are blanked.
# 11: C++ arity and overloads: `params` and `ptypes` facts, argument types in a call's source.
# 12: Rust type parameters' bounds (`<V: Vector>`, `where V: Vector`) as assign facts.
# 13: JavaScript/TypeScript re-exports (`export * from "m"`, `export { a } from "m"`) as imports.
# 14: JavaScript merges' bases in the document's order (the order of a class's bases).
# 15: a template's own type parameters by name among a function's parameter types (`<T>`, `<U>`);
#     a conditional's type where both branches are literals of one type.
# 16: Java's arity and overloads: `params` and `ptypes` facts (varargs as arrays), argument
#     types in a call's source; a cast argument's type; try-with-resources variables typed.
# 17: C#'s arity and overloads (defaults by `=`, inline `params`, extension methods unknown).
# 18: C++ enumerators as typed rows of their enum (an overload taking the enum's type).
# 19: Ruby `extend M` and an `included` hook's mixins are bases (of the class or module around them).
# 20: Ruby `self.x = v` is a call of `x=`.
# 21: C/C++ function-like macros: a call of one the file defines also calls what it expands to;
#     C# properties' declared types (in classes and interfaces) are typed facts; Ruby's arity;
#     Go `for _, v := range xs`: v an element of xs.
# 22: C/C++ `guard` facts (the macros a function's conditionals need) and `defines` facts.
# 23: JS module wrappers (IIFE, UMD/AMD factories, a bundle's modules) are top levels of their own;
#     a Rust trait method without a body has its `returns` fact.
# 24: TypeScript `cbparam` / `cbtypes` facts (an inline callback's parameters, typed by context).
# 25: Java's `package` fact; Java and C# type parameters as declared names of their scope.
# 26: a C++ call argument that is a call, shown as `@callee`.
# 27: a `this` argument shown as `=this`.
# 28: a function-like macro defined in `#if` alternatives expands to the names of every body;
#     a Ruby require of a computed path ending with a literal (`ROOT + "/auto/x"`) names it.
# 29: a call's receiver narrowed by a type test around it (`x instanceof T`, `isinstance(x, T)`),
#     a name a test binds (`x instanceof T t`, `x is T t`) typed; PHPDoc types (`@var`, `@param`,
#     `@return`) are typing facts.
# 30: Rust `mod x;` bindings and `use a::*` imports.
# 31: C/C++ macros a file defines as declaration specifiers only are blanked where used;
#     Java/C# arguments `new T()`, `"a" + x`, `f()` typed; `require('./m').x` an import of x.
# 32: Go `import . "pkg"` is a `*` import of the package.
# 33: a member access argument (`entry.Key`) shown as `=entry.Key`.
# 34: TypeScript `this: T` parameters typed.
# 35: a Go type switch's alias narrowed in each one-type case.
# 36: PHP `$this->xs[] = $x` / `$xs[$k] = $x` put items into an array.
EXTRACT_VERSION = 36

__all__ = ["DOC_TRANSPARENT", "EXTRACT_VERSION", "content_hash", "extract", "extract_text", "parse"]


def extract(path: str, data: bytes, language: str, tree: Tree | None = None) -> FileExtraction:
    """Symbols and references of one file. ``data`` is the file's UTF-8 bytes;
    ``tree`` its syntax tree when the caller has parsed it already (in ``language``;
    a C header that holds C++ is parsed again as C++: ``language_for_file``)."""
    found_language = language_for_file(path, data, language) or language
    if found_language != language:
        language, tree = found_language, None
    blanked = blank_macros(rules(language).blanked_macros, data)
    if rules(language).preprocessor:  # `#define PUGI__FN inline`: `PUGI__FN int f()` read as `int f()`
        blanked = blank_specifier_macros(blanked)
    if blanked is not data:
        data, tree = blanked, None
    if tree is None:
        tree = parse(language, data)
    errors = count_errors(tree.root_node) if tree.root_node.has_error else 0
    if errors:
        data, tree = recover(language, data, tree)
    lang = rules(language)
    unit = FileUnit(path, language, lang, Source(data), tree.root_node)
    found = collect(unit.src, unit.root, get_query(language))
    expando = find_members(unit.src, unit.root, lang, found.defs) if lang.expando_members else None
    ordered = nest(found.defs, found.namespaces)
    real = name_definitions(path, ordered)
    symbols = make_symbols(unit, real)
    module = module_symbol(unit, ordered)
    raw = found.refs
    if lang.macro_invocation_node:
        raw = macro_refs(unit.src, lang, raw)
    whole: list[list[Reference]] = [[], [], []]
    if expando is not None:
        own_functions(expando, real)
        raw = this_receivers(unit.src, lang, expando, raw)
        more, whole = member_facts(path, lang, expando, unit.module_id)
        raw = raw + more
    if lang.setter_assignment_node:  # `self.scheme = x`: a call of `scheme=`
        raw = [(k, n, nm + "=" if k == "call" and _assigned(n, lang) else nm, rc, so, o)
               for k, n, nm, rc, so, o in raw]
    if lang.argument_list_nodes:  # a call's argument count, where the language shows it
        raw = [(k, n, nm, rc, call_arity(n, lang) if k == "call" and not so else so, o)
               for k, n, nm, rc, so, o in raw]
    if lang.function_macros:  # C: what a call of the file's function-like macro calls
        raw = function_macro_refs(unit.src, lang, unit.root, raw)
    if lang.type_tests or lang.type_switches:  # `if ($h instanceof T) { $h->m(); }`: a T there
        raw = narrowed_refs(unit.src, lang, unit.root, raw)
    if lang.callback_types:  # TS: an inline callback's untyped parameters
        raw = raw + callback_refs(unit.src, lang, unit.root)
    references = make_references(unit, ordered, raw)
    blocks = []  # each later pass's rows, a block of their own (``FileExtraction.blocks``)

    def add(more: list[Reference]) -> None:
        blocks.append(len(references))
        references.extend(more)

    for block in whole:
        add(block)
    add(param_facts(path, lang, real))
    if lang.preprocessor:
        add(preproc_facts(path, lang, real, unit.root, unit.module_id))
    if lang.callback_types:
        add(callback_type_facts(path, lang, real, unit.src))
    if lang.jsdoc or lang.phpdoc:
        add(jsdoc_facts(symbols, path, FACT_LIMIT, php=lang.phpdoc))
    if lang.closure_declarations:
        add(closure_param_facts(path, lang, real, references, unit.src))
    return FileExtraction(path, language, [module, *symbols], references, errors, tuple(blocks))


def extract_text(path: str, text: str, language: str) -> FileExtraction:
    """Convenience for callers that hold decoded text (tests, editor buffers)."""
    return extract(path, text.encode("utf-8", "surrogatepass"), language)


def _assigned(name_node: Node, lang: Language) -> bool:
    """Is the call whose called name is ``name_node`` the left side of an assignment?"""
    call = name_node.parent
    parent = call.parent if call is not None else None
    return parent is not None and parent.type == lang.setter_assignment_node and parent.child_by_field_name(
        "left") == call
