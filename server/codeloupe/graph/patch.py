"""A file's facts and digest after an edit, made from the last ones where the edit
touched only a few scopes (``SymbolIndex.replace_file``).

Typing in a function, inserting or deleting one, changes the rows of a few enclosing
symbols and perhaps adds or drops function symbols; the file's other facts are the
last ones. ``plan`` finds those scopes from the edit's shape (symbols, and rows but
calls, without positions: ``Shape``) or says the edit is anything else (an
import, a base, a class, a namespaced language's symbols: the whole file is digested
again). ``apply`` digests the rows of those scopes (and every row an attribute is set
by: an attribute gathers the methods of its class), and patches the digest entries
that read them. Same facts and digest as digesting the whole file
(tests/test_graph_languages.py, tests/test_buffer.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..languages import SELF_RECEIVERS, Language
from .digest import Digest, attribute_entry, digest_vars, function_entries, symbol_entry
from .facts import VARIABLE_KINDS, FileFacts, RefRow, digest_refs, type_refs
from .model import CLASS_KINDS, FUNCTION_KINDS, SymbolInfo

# the row kinds whose facts are keyed by the scope they are in (a variable's, an
# attribute's, a function's returns and parameters; type uses are no facts)
_SCOPED_KINDS = VARIABLE_KINDS | {"return", "returns", "params", "ptypes", "cbtypes", "class"}
_BY_FUNCTION = ("returns", "returned", "params", "ptypes", "cbtypes")  # FileFacts' fields keyed by function id


@dataclass(slots=True)
class Shape:
    """A file's shape at its last edit (its symbols, and its rows but calls, without
    positions: what its facts and digest depend on; calls are the graph's sites, not
    facts), and its digest then."""

    symbols: list[tuple]  # (id, name, qualified name, kind, parent, language)
    rows: list[tuple]  # (kind, name, receiver, enclosing, source, original)
    digest: Digest


@dataclass(slots=True)
class Plan:
    """What an edit touched: the enclosing ids whose rows changed or that came or
    went, the variable scopes they are filed under, and the shapes of the symbols
    that came and went (as in ``Shape.symbols``)."""

    scopes: set[str]
    var_scopes: set[str]
    came: list[tuple]
    went: list[tuple]


def plan(lang: Language, module: str, last: Shape, now: Shape) -> Plan | None:
    """The scopes an edit of a file (in ``lang``, its module unit's id ``module``)
    touched, from its shape and the last one; None when it touched anything else."""
    old_s = {t[0]: t for t in last.symbols}
    new_s = {t[0]: t for t in now.symbols}
    if len(old_s) != len(last.symbols) or len(new_s) != len(now.symbols):
        return None  # the same id twice
    added, removed = new_s.keys() - old_s.keys(), old_s.keys() - new_s.keys()
    if added or removed:
        if lang.namespaced:
            return None  # its definitions name the namespaces the file sees
        if any(old_s[i] != new_s[i] for i in old_s.keys() & new_s.keys()):
            return None
        for t, by in [*((new_s[i], new_s) for i in added), *((old_s[i], old_s) for i in removed)]:
            owner = by.get(t[4])
            if t[3] not in FUNCTION_KINDS or owner is None or owner[3] == "interface":
                return None  # only functions, in a class or a function or the module
    before, after = last.rows, now.rows
    n = min(len(before), len(after))
    start = next((i for i in range(n) if before[i] != after[i]), n)
    tail = 0
    while tail < n - start and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    was, now_ = before[start:len(before) - tail], after[start:len(after) - tail]
    # between the first and the last difference, rows of the same scopes in the same
    # order are no change (a row added to a later pass's block: every row in between)
    if [row for row in was if row[0] not in _SCOPED_KINDS] != [row for row in now_ if row[0] not in _SCOPED_KINDS]:
        return None  # an import, a base, a package changed
    came_or_went = added | removed
    if came_or_went and any(row[3] in came_or_went for row in (*after[:start], *after[len(after) - tail:])):
        return None  # a row kept whose symbol came or went: filed elsewhere now
    old_rows, new_rows = _by_scope(was), _by_scope(now_)
    changed = {e for e in old_rows.keys() | new_rows.keys() if old_rows.get(e) != new_rows.get(e)}
    scopes = changed | came_or_went
    # the scopes their variables are filed under (``digest_refs``: a row of no symbol,
    # the module's; all of those are digested again if one is among the rows in between,
    # whose order among them may have changed)
    var_scopes = {e for e in changed if (t := new_s.get(e) or old_s.get(e)) is not None
                  and t[3] not in CLASS_KINDS} | came_or_went  # a class body's fields: its attributes
    if module in old_rows or module in new_rows or any(e not in old_s for e in old_rows) \
            or any(e not in new_s for e in new_rows):
        var_scopes.add(module)
    return Plan(scopes, var_scopes, [new_s[i] for i in added], [old_s[i] for i in removed])


def _by_scope(rows: tuple | list) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for row in rows:
        if row[0] in _SCOPED_KINDS:
            out.setdefault(row[3], []).append(row)
    return out


def apply(path: str, lang: Language, module_unit: str | None, symbols: dict[str, SymbolInfo],
          old: FileFacts, rows: list[RefRow], refs: list[RefRow], the_plan: Plan,
          enclosing_class: Callable[[str], SymbolInfo | None], digest: Digest) -> tuple[FileFacts, Digest, set[str]]:
    """The file's facts, digest and changed dependency keys after the planned edit.
    ``module_unit`` is the id of the file's module unit (None: it has none), ``symbols``
    every symbol by id, the edit's among them."""
    module = module_unit or f"{path}::<module>"
    scopes, var_scopes = the_plan.scopes, the_plan.var_scopes
    by_module = module in var_scopes
    own_receivers = SELF_RECEIVERS | lang.parameter_property_receivers
    part = []
    for r in rows:
        e = r["enclosing"]
        if e in scopes or (by_module and (e == module or e not in symbols)) or (
                r["kind"] in VARIABLE_KINDS and (r["receiver"] in own_receivers or _in_class(symbols.get(e)))):
            part.append(r)  # a touched scope's, or one that sets an attribute
    new = digest_refs(path, part, module, lang, symbols.get, enclosing_class)
    variables = dict(old.vars)
    for scope in var_scopes:
        _put(variables, scope, new.vars.get(scope))
    fields = {}
    for name in _BY_FUNCTION:
        table, made = dict(getattr(old, name)), getattr(new, name)
        for scope in scopes:
            _put(table, scope, made.get(scope))
        fields[name] = table
    facts = replace(old, vars=variables, attrs=new.attrs, type_refs=type_refs(path, refs), **fields)
    gone = _entries(module_unit, old, facts, the_plan, removed=True)
    came = _entries(module_unit, facts, old, the_plan, removed=False)
    out = dict(digest)
    changed = set()
    for key in gone.keys() | came.keys():
        was = out.get(key, frozenset())
        value = (was - gone.get(key, frozenset())) | came.get(key, frozenset())
        if value != was:
            changed.add(key)
            if value:
                out[key] = frozenset(value)
            else:
                del out[key]
    return facts, out, changed


def _in_class(s: SymbolInfo | None) -> bool:
    return s is not None and s.kind in CLASS_KINDS


def _put(table: dict, key: str, value: object) -> None:
    if value is None:
        table.pop(key, None)
    else:
        table[key] = value


def _entries(module: str | None, facts: FileFacts, other: FileFacts, the_plan: Plan,
             *, removed: bool) -> dict[str, set]:
    """The digest entries of ``facts`` that the plan may change: of the symbols that
    went (``removed``) or came, the touched scopes' variables and functions, and the
    attributes that differ from ``other``'s or name a touched scope's locals."""
    out: dict[str, set] = defaultdict(set)
    for sid, name, qualified_name, kind, parent, _ in the_plan.went if removed else the_plan.came:
        out[name].add(symbol_entry(sid, kind, parent, qualified_name))
    for scope in the_plan.var_scopes:
        digest_vars(out, module, scope, facts.vars.get(scope, {}))
    for cls_id, attrs in facts.attrs.items():
        theirs = other.attrs.get(cls_id, {})
        for name, fl in attrs.items():
            if theirs.get(name) != fl or any(f.scope in the_plan.var_scopes for f in fl):
                out[name].add(attribute_entry(facts, cls_id, fl))
    for fid in the_plan.scopes:
        function_entries(out, facts, fid)
    return out
