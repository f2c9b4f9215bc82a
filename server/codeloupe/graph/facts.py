"""What extraction hands the graph besides symbols, and how it is digested: a file's
reference rows (dicts, as the store keeps them) become its ``FileFacts`` (imports,
bases, variables and attributes with their types or values, returns, type uses).
Call rows become call sites, not facts (``call_site``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..languages import NO_TYPE, SELF_RECEIVERS, Language
from ..model import CALLBACK_SEP, TYPE_SEP
from .model import CLASS_KINDS, AttrFact, CallSite, Fact, FactForm, SymbolInfo, TypeRef

# a reference row: the fields of codeloupe.model.Reference, by name
RefRow = dict
_ARGTYPES_LIMIT = 400  # characters of a call's argument types kept
# the fact form of each variable fact kind but "typed"
_VARIABLE_FORMS = {"assign": FactForm.ASSIGNED, "elem": FactForm.ELEMENTS, "item": FactForm.ITEM,
                   "keyed": FactForm.KEYED, "second": FactForm.SECOND, "unwrap": FactForm.UNWRAPPED,
                   "cbparam": FactForm.CALLBACK}
# the kinds of rows that state a variable's (or an attribute's) type or value
VARIABLE_KINDS = frozenset({*_VARIABLE_FORMS, "typed"})
# forms that change what a variable holds without binding it (`xs.append(x)`, `d[k] = x`)
MUTATIONS = frozenset({FactForm.ITEM, FactForm.KEYED})


@dataclass(slots=True)
class FileFacts:
    """The resolution facts of one file."""

    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # bound → (source, original)
    stars: list[str] = field(default_factory=list)  # sources of `*` imports
    bases: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # class id → [(qualifier, name)]
    vars: dict[str, dict[str, list[Fact]]] = field(default_factory=dict)  # scope id → name → facts
    attrs: dict[str, dict[str, list[AttrFact]]] = field(default_factory=dict)  # class id → name → facts
    returns: dict[str, str] = field(default_factory=dict)  # function id → declared return type
    returned: dict[str, list[str]] = field(default_factory=dict)  # function id → returned expressions
    params: dict[str, tuple[int, int]] = field(default_factory=dict)  # function id → (least, most) arguments
    ptypes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # function id → parameter types
    type_refs: list[TypeRef] = field(default_factory=list)
    package: str = ""  # the package the file declares (Go), "" for none
    guards: dict[str, tuple[str, ...]] = field(default_factory=dict)  # function id → macros it needs (C)
    defines: frozenset[str] = frozenset()  # the macros the file #defines (C)
    # function id → per parameter, its function type's parameter types (TypeScript)
    cbtypes: dict[str, tuple[str, ...]] = field(default_factory=dict)


def call_site(r: RefRow) -> CallSite:
    """The call site of a ``call`` reference row (its ``source``: the argument count,
    then where functions overload each argument's type: ``extract.arity``)."""
    args, _, types = (r.get("source") or "").partition(TYPE_SEP)
    return CallSite(r["path"], r["line"], r["col"], r["name"], r["receiver"] or "", r["enclosing"],
                    int(args) if args.isdigit() and len(args) < 4 else -1, types[:_ARGTYPES_LIMIT])


def digest_refs(path: str, refs: list[RefRow], module: str, lang: Language,
                symbol: Callable[[str], SymbolInfo | None],
                enclosing_class: Callable[[str], SymbolInfo | None]) -> FileFacts:
    """The facts of file ``path`` from its reference rows. ``module`` is the id of its
    module unit; ``symbol`` and ``enclosing_class`` look up the symbols the facts
    belong to (an attribute set in a method belongs to the method's class).

    One loop over the rows with the common case (a variable's fact) inline: every
    edit of a file digests all of its rows again."""
    facts = FileFacts()
    imports, stars, bases, variables, attrs = facts.imports, facts.stars, facts.bases, facts.vars, facts.attrs
    own_receivers = SELF_RECEIVERS | lang.parameter_property_receivers
    for r in refs:
        kind = r["kind"]
        if kind == "call":
            continue
        form = _VARIABLE_FORMS.get(kind)
        if form is not None or kind == "typed":
            enclosing, source = r["enclosing"], r["source"] or ""
            if form is FactForm.CALLBACK:  # the callee, then the positions
                fact = Fact(form, f"{r.get('original') or ''}{TYPE_SEP}{source}")
            elif form is not None:
                fact = Fact(form, source)
            elif source and source not in NO_TYPE:
                fact = Fact(FactForm.TYPED, source)
            else:
                fact = Fact(FactForm.DECLARED, "")
            receiver, scope = r["receiver"], symbol(enclosing)
            if receiver:  # `self.x = ...`, a TypeScript parameter property
                if receiver not in own_receivers:
                    continue
                cls = enclosing_class(enclosing)
                if cls is not None:
                    attrs.setdefault(cls.id, {}).setdefault(r["name"], []).append(
                        AttrFact(fact.form, fact.text, enclosing))
                if receiver in SELF_RECEIVERS:
                    continue
            if scope is not None and scope.kind in CLASS_KINDS:  # a field in a class body
                attrs.setdefault(scope.id, {}).setdefault(r["name"], []).append(
                    AttrFact(fact.form, fact.text, enclosing))
            else:
                variables.setdefault(enclosing if scope is not None else module, {}).setdefault(
                    r["name"], []).append(fact)
        elif kind == "import":
            if r["name"] in ("*", "."):  # `from m import *`, Go `import . "pkg"`
                stars.append(r["source"] or "")
            else:
                imports[r["name"]] = (r["source"] or r["name"], r.get("original") or r["name"])
        elif kind == "base":
            bases.setdefault(r["enclosing"], []).append((r["receiver"] or "", r["name"]))
        elif kind == "returns":
            facts.returns[r["enclosing"]] = r["name"]
        elif kind == "return":
            facts.returned.setdefault(r["enclosing"], []).append(r["name"])
        elif kind == "package":
            facts.package = r["name"]
        elif kind == "guard":
            facts.guards[r["enclosing"]] = tuple((r["source"] or "").split())
        elif kind == "cbtypes":
            facts.cbtypes[r["enclosing"]] = tuple((r["source"] or "").split(CALLBACK_SEP))
        elif kind == "defines":
            facts.defines = frozenset((r["source"] or "").split())
        elif kind == "ptypes":
            facts.ptypes[r["enclosing"]] = tuple((r["source"] or "").split(TYPE_SEP))
        elif kind == "params":
            bounds = _params(r["source"] or "")
            if bounds is not None:
                facts.params[r["enclosing"]] = bounds
    _drop_unbound(facts)
    facts.type_refs = type_refs(path, refs)
    return facts


def type_refs(path: str, refs: list[RefRow]) -> list[TypeRef]:
    """The uses of classes of a file that are not calls, with their positions: bases
    and type names (a base class is a "class" reference too: kept once, as a base)."""
    out = [TypeRef(path, r["line"], r["col"], r["name"], r["receiver"] or "", r["enclosing"],
                   "base" if r["kind"] == "base" else "type")
           for r in refs if r["kind"] == "base" or r["kind"] == "class"]
    at = {(t.line, t.col) for t in out if t.kind == "base"}
    return [t for t in out if t.kind == "base" or (t.line, t.col) not in at] if at else out


def _params(text: str) -> tuple[int, int] | None:
    """``"<least> <most>"`` of a ``params`` row (most -1: any number); None if malformed."""
    parts = text.split()
    if len(parts) != 2 or not all(p.lstrip("-").isdigit() and len(p) < 4 for p in parts):
        return None
    least, most = int(parts[0]), int(parts[1])
    if least < 0 or most < -1 or (most >= 0 and most < least):
        return None
    return least, most


def _drop_unbound(facts: FileFacts) -> None:
    """A variable that a scope only mutates (``xs.append(x)``, ``d[k] = x``) is not
    bound there (it is an outer variable, an import, a parameter of an outer
    function): its facts say nothing of a local, drop them. An attribute keeps them
    (assigned in another method, or in a base)."""
    for names in facts.vars.values():
        for name in [n for n, fl in names.items() if all(f.form in MUTATIONS for f in fl)]:
            del names[name]
