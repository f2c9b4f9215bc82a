"""What a file shows other files (its digest): entries by the dependency key a lookup
records (``graph.deps``), each saying what of the file that key sees. ``SymbolIndex``
compares a file's digest before and after an edit: the keys whose entries changed are
the lookups to forget. Every entry names the definition it comes from (a symbol, a
scope's variable, a class's attribute, a function's returns), so that an edit's
entries can be taken out and put back one by one (``graph.patch``)."""

from __future__ import annotations

from enum import StrEnum

from . import deps
from .facts import FileFacts
from .model import AttrFact, Fact

Digest = dict[str, frozenset]


class Seen(StrEnum):
    """What a file's digest says it shows other files, under a dependency key."""

    FILE = "file"  # the file itself (under its module stem and its folder)
    SYMBOL = "s"  # a definition: id, kind, parent, qualified name
    IMPORT = "i"  # an import binding: source, original name
    IMPORTED_AS = "i<"  # the same import, under the original name
    STAR = "*"  # a `*` import
    BASES = "b"  # a class's bases
    VARIABLE = "v"  # a variable's facts
    ATTRIBUTE = "a"  # an attribute's facts (with the locals its values name)
    RETURNS = "r"  # a function's declared return type
    RETURNED = "rv"  # what a function returns
    PARAMS = "p"  # the arguments a function takes
    PACKAGE = "pkg"  # the package the file declares
    PARAM_TYPES = "pt"  # the types of a function's parameters
    HEAD = "head"  # the file defines in a namespace starting so (a namespaced language)
    MEMBER = "m"  # a method an interface declares
    GUARDS = "g"  # the macros a function's conditionals need (C)
    DEFINES = "def"  # the macros a file defines (C)
    CALLBACK_TYPES = "cb"  # the parameter types of a function's function-typed parameters


def symbol_entry(symbol_id: str, kind: str, parent: str | None, qualified_name: str) -> tuple:
    """A definition's entry, under its name."""
    return Seen.SYMBOL, symbol_id, kind, parent, qualified_name


def digest_facts(out: dict[str, set], path: str, facts: FileFacts, module: str | None) -> None:
    """The entries of a file's facts (``module``: the id of its module unit)."""
    for bound, (source, original) in facts.imports.items():
        out[bound].add((Seen.IMPORT, source, original))
        out[original].add((Seen.IMPORTED_AS, bound, source))
    for source in facts.stars:
        out[deps.STAR].add((Seen.STAR, path, source))
    for cls_id, bases in facts.bases.items():
        out[deps.short_name(cls_id)].add((Seen.BASES, cls_id, tuple(bases)))
        for _, base in bases:
            out[deps.subclass_key(base)].add(cls_id)
    for scope, names in facts.vars.items():
        digest_vars(out, module, scope, names)
    for cls_id, attrs in facts.attrs.items():
        for name, fl in attrs.items():
            out[name].add(attribute_entry(facts, cls_id, fl))
    for fid in {**facts.returns, **facts.returned, **facts.params, **facts.ptypes, **facts.guards, **facts.cbtypes}:
        function_entries(out, facts, fid)
    if facts.package:
        out[deps.module_key(facts.package)].add((Seen.PACKAGE, path, facts.package))
        out[deps.package_key(path)].add((Seen.PACKAGE, path, facts.package))
    if facts.defines:
        out[deps.defines_key(path)].add((Seen.DEFINES, tuple(sorted(facts.defines))))
        for name in facts.defines:
            out[deps.macro_key(name)].add((Seen.DEFINES, path))


def digest_vars(out: dict[str, set], module: str | None, scope: str, names: dict[str, list[Fact]]) -> None:
    """A scope's variables' entries: a module's under their names, a function's local."""
    for name, fl in names.items():
        key = name if scope == module else deps.local_key(scope, name)
        out[key].add((Seen.VARIABLE, scope, tuple(fl)))


def attribute_entry(facts: FileFacts, cls_id: str, fl: list[AttrFact]) -> tuple:
    """An attribute's digest entry: its facts, with the locals of its scope that each
    value names."""
    deep = []
    for form, text, scope in fl:
        head = text.split(".", 1)[0].split("(", 1)[0].strip()
        local = facts.vars.get(scope, {}).get(head, ())
        deep.append((form, text, scope, tuple(local)))
    return Seen.ATTRIBUTE, cls_id, tuple(deep)


def function_entries(out: dict[str, set], facts: FileFacts, fid: str) -> None:
    """A function's entries: its declared and returned values, its parameters."""
    short = deps.short_name(fid)
    if fid in facts.returns:
        out[short].add((Seen.RETURNS, fid, facts.returns[fid]))
    if fid in facts.returned:
        out[short].add((Seen.RETURNED, fid, tuple(facts.returned[fid])))
    if fid in facts.params:
        out[short].add((Seen.PARAMS, fid, facts.params[fid]))
    if fid in facts.ptypes:
        out[short].add((Seen.PARAM_TYPES, fid, facts.ptypes[fid]))
    if fid in facts.guards:
        out[short].add((Seen.GUARDS, fid, facts.guards[fid]))
    if fid in facts.cbtypes:
        out[short].add((Seen.CALLBACK_TYPES, fid, facts.cbtypes[fid]))
