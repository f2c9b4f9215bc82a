"""The saved call graph: an explicit, versioned file of plain data (JSON), never a
pickle of live objects.

What it owns: turning a graph's state (``SymbolIndex``, ``EdgeIndex``, the call-site
entries of its ``Memo``) into plain lists of strings and numbers (``dump``), and
back (``load``), checking every field on the way in: a file of another format or
version, of another ``key``, damaged, or of a wrong shape anywhere loads as None
(the caller builds the graph again), never as stale edges and never by running
anything. Only ``json`` parses the file, with the constants ``NaN``/``Infinity``
refused; no class is named in it, so a changed class can never load from it.

A file is one header line, then one JSON object::

    codeloupe-graph/json <HMAC-SHA256 of the JSON, hex>\\n
    {"magic": "codeloupe-graph", "format": 4, "codeloupe": "<version>", "key": "<key>",
     "strings": [...], "symbols": {...}, "facts": {...}, "targets": {...},
     "found": {...}, "deps": {...}, "sites": {...}}

The HMAC is keyed with this user's secret (``userkey``): a file made elsewhere (an
index folder copied or committed by someone else) is rejected before it is parsed;
the format is safe to parse without it. ``key`` names the index state the graph was
built from (``graph_store.store_key``).

Tables are columnar: an object of equal-length lists, one per field. Strings are
written once, in ``strings``; a string field holds its index there (``-1``: None,
for the nullable ones). Flags are 0/1.

- ``symbols``: ``id path name qualified_name kind parent start_line end_line
  language``, in the index's order (the order of every list the index keeps).
- ``facts``: per file that has facts, what ``facts.digest_refs`` made of its rows:
  ``files`` (paths, in order), and the tables ``imports`` (file bound source
  original), ``stars`` (file source), ``bases`` (file cls qualifier name), ``vars``
  (file scope name form text), ``attrs`` (file cls name form text scope), ``returns``
  (file fn text), ``returned`` (file fn text), ``params`` (file fn least most),
  ``type_refs`` (file line col name receiver enclosing kind), ``package`` (file name: the
  package it declares), ``ptypes`` (file fn types: its parameters' types joined by
  ``model.TYPE_SEP``); ``file`` is an index into ``files``, ``form`` a
  ``FactForm`` value.
- ``targets``: the distinct resolved targets, ``target reason confidence
  ambiguous detail`` (``reason``: a ``Reason`` value).
- ``found``: the distinct tuples of targets a site resolved to, as ``size`` (the
  length of each) and ``item`` (indexes into ``targets``, one tuple after another).
- ``deps``: the distinct sets of dependency keys (``graph.deps``) resolutions read,
  as ``size`` and ``item`` (string indexes).
- ``sites``: every call site, file by file in order: ``path line col name receiver
  caller args argtypes``, its ``found`` tuple, ``external`` (known to call outside the
  repository) and the ``deps`` set its resolution read. Every site's resolution is
  remembered (sites alike share that entry and its keys): loading installs those
  entries in the memo again.

Loading rebuilds the index with the calls a build makes (``add_symbol``, then
``set_facts`` with the saved facts: the graph keeps a file's facts, not its rows),
and links every site to its saved targets without resolving (``EdgeIndex.add``); the memo starts with
the sites' entries only (other lookups are computed again when an edit needs them).
An edit after a load therefore re-resolves exactly the sites it would have in the
graph that was saved: the same edges as a build from scratch (tests/test_graph_persist.py).
"""

from __future__ import annotations

import hmac
import json
import os
from pathlib import Path
from typing import Any

from .. import __version__
from ..model import TYPE_SEP
from ..userkey import user_secret
from .edges import EdgeIndex
from .facts import FileFacts
from .index import SymbolIndex
from .memo import Entry, Lookup, Memo, site_key
from .model import AttrFact, CallSite, Fact, FactForm, Reason, SymbolInfo, Target, TypeRef

# 1, 2: pickles of the Graph object (callgraph.pickle), never read; 4: arity, detail;
# 5: every site remembered (no ``memo`` column), a file's declared package, argument
# and parameter types where functions overload
FORMAT = 5
MAGIC = "codeloupe-graph"
_HEADER = b"codeloupe-graph/json "
_MAC_HEX = 64
_REASONS = {r.value: r for r in Reason}
_FORMS = {f.value: f for f in FactForm}
_SITE = Lookup.SITE

_SYMBOL_FIELDS = ("id", "path", "name", "qualified_name", "kind", "parent", "start_line", "end_line",
                  "language")
_FACT_TABLES: dict[str, tuple[str, ...]] = {
    "imports": ("file", "bound", "source", "original"),
    "stars": ("file", "source"),
    "bases": ("file", "cls", "qualifier", "name"),
    "vars": ("file", "scope", "name", "form", "text"),
    "attrs": ("file", "cls", "name", "form", "text", "scope"),
    "returns": ("file", "fn", "text"),
    "returned": ("file", "fn", "text"),
    "params": ("file", "fn", "least", "most"),
    "type_refs": ("file", "line", "col", "name", "receiver", "enclosing", "kind"),
    "package": ("file", "name"),
    "ptypes": ("file", "fn", "types"),
}
_SITE_FIELDS = ("path", "line", "col", "name", "receiver", "caller", "args", "argtypes", "found", "external",
                "deps")


class _Invalid(Exception):
    """The file's content is not a graph of this format."""


# --- writing ---------------------------------------------------------------------------------


def dump(index: SymbolIndex, edges: EdgeIndex, memo: Memo, path: str | os.PathLike[str], key: str) -> None:
    """Write a graph's state to ``path`` for ``key``: to a temporary file beside it,
    then renamed (two writers: one wins whole). OSError when it cannot be written
    (nor this user's secret made)."""
    secret = user_secret()
    if secret is None:
        raise OSError("no codeloupe secret to sign the call graph with")
    payload = json.dumps(encode(index, edges, memo, key), separators=(",", ":"), allow_nan=False).encode()
    target = Path(path)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        with tmp.open("wb") as fh:
            fh.write(_HEADER + _mac(secret, payload).encode() + b"\n")
            fh.write(payload)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def encode(index: SymbolIndex, edges: EdgeIndex, memo: Memo, key: str) -> dict[str, Any]:
    """The plain-data document of a graph's state (the module docstring's format)."""
    enc = _Encoder()
    symbols = enc.symbols(list(index.symbols.values()))
    facts = _encode_facts(index.facts, enc.string)
    sites = enc.sites(edges, memo)
    targets = list(enc.target_ids)
    s = enc.string
    details = [s(t.detail) for t in targets]  # before the strings table is taken
    return {
        "magic": MAGIC, "format": FORMAT, "codeloupe": __version__, "key": key,
        "strings": list(enc.ids),
        "symbols": symbols,
        "facts": facts,
        "targets": {"target": [s(t.target) for t in targets], "reason": [t.reason.value for t in targets],
                    "confidence": [float(t.confidence) for t in targets],
                    "ambiguous": [1 if t.ambiguous else 0 for t in targets],
                    "detail": details},
        "found": {"size": enc.found_size, "item": enc.found_item},
        "deps": {"size": enc.dep_size, "item": enc.dep_item},
        "sites": sites,
    }


class _Encoder:
    """The tables ``encode`` fills: strings, targets, target tuples and dependency-key
    sets, each stored once and named by its index."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.target_ids: dict[Target, int] = {}
        self.found_ids: dict[tuple, int] = {}
        self.found_by_id: dict[int, int] = {}
        self.found_size: list[int] = []
        self.found_item: list[int] = []
        self.dep_ids: dict[frozenset, int] = {}
        self.dep_by_id: dict[int, int] = {}
        self.dep_size: list[int] = []
        self.dep_item: list[int] = []

    def string(self, text: str) -> int:
        """The index of a string in the string table."""
        return self.ids.setdefault(text, len(self.ids))

    def nullable(self, text: str | None) -> int:
        """``string``, or -1 for None."""
        return -1 if text is None else self.ids.setdefault(text, len(self.ids))

    def symbols(self, syms: list[SymbolInfo]) -> dict[str, list]:
        """The symbols table, one column a field."""
        s, ns = self.string, self.nullable
        return {
            "id": [s(x.id) for x in syms], "path": [s(x.path) for x in syms],
            "name": [s(x.name) for x in syms], "qualified_name": [s(x.qualified_name) for x in syms],
            "kind": [s(x.kind) for x in syms], "parent": [ns(x.parent) for x in syms],
            "start_line": [x.start_line for x in syms], "end_line": [x.end_line for x in syms],
            "language": [s(x.language) for x in syms],
        }

    def found_index(self, found: tuple[Target, ...] | list[Target]) -> int:
        """The index of a site's targets (one entry for every site sharing them)."""
        i = self.found_by_id.get(id(found))
        if i is None:
            t = tuple(found)
            i = self.found_ids.get(t)
            if i is None:
                i = self.found_ids[t] = len(self.found_size)
                self.found_size.append(len(t))
                self.found_item.extend(self.target_ids.setdefault(x, len(self.target_ids)) for x in t)
            if isinstance(found, tuple):  # a shared tuple (kept alive by the graph)
                self.found_by_id[id(found)] = i
        return i

    def deps_index(self, keys: frozenset[str]) -> int:
        """The index of a set of dependency keys."""
        i = self.dep_by_id.get(id(keys))
        if i is None:
            i = self.dep_ids.get(keys)
            if i is None:
                i = self.dep_ids[keys] = len(self.dep_size)
                self.dep_size.append(len(keys))
                self.dep_item.extend(self.string(k) for k in sorted(keys))
            self.dep_by_id[id(keys)] = i
        return i

    def sites(self, edges: EdgeIndex, memo: Memo) -> dict[str, list[int]]:
        """The call sites table: place, names, targets, dependency keys, one column a field."""
        s = self.string
        cols: dict[str, list[int]] = {f: [] for f in _SITE_FIELDS}
        named, site_edges, external = edges.named, edges.site_edges, edges.external
        values = memo.values
        for path, sites in edges.sites.items():
            p = s(path)
            for site in sites:
                found = named.get(site)
                if found is None:
                    found = [Target(e.target, e.reason, e.confidence, e.ambiguous, e.detail)
                             for e in site_edges[site]]
                entry = values.get(site_key(site))  # it holds the keys the resolution read
                if entry is None:
                    raise OSError(f"call graph state is inconsistent: no memo entry for {site}")
                cols["path"].append(p)
                cols["line"].append(site.line)
                cols["col"].append(site.col)
                cols["name"].append(s(site.name))
                cols["receiver"].append(s(site.receiver))
                cols["caller"].append(s(site.caller))
                cols["args"].append(site.args)
                cols["argtypes"].append(s(site.argtypes))
                cols["found"].append(self.found_index(found))
                cols["external"].append(1 if site in external else 0)
                cols["deps"].append(self.deps_index(entry[1]))
        return cols


def _encode_facts(all_facts: dict[str, FileFacts], s: Any) -> dict[str, Any]:
    tables: dict[str, dict[str, list]] = {name: {f: [] for f in fields} for name, fields in _FACT_TABLES.items()}

    def row(table: str, *values: object) -> None:
        for col, v in zip(tables[table].values(), values, strict=True):
            col.append(v)

    files = []
    for i, (path, facts) in enumerate(all_facts.items()):
        files.append(s(path))
        for bound, (source, original) in facts.imports.items():
            row("imports", i, s(bound), s(source), s(original))
        for source in facts.stars:
            row("stars", i, s(source))
        for cls, bases in facts.bases.items():
            for qualifier, name in bases:
                row("bases", i, s(cls), s(qualifier), s(name))
        for scope, names in facts.vars.items():
            for name, fl in names.items():
                for fact in fl:
                    row("vars", i, s(scope), s(name), fact.form.value, s(fact.text))
        for cls, attrs in facts.attrs.items():
            for name, al in attrs.items():
                for fact in al:
                    row("attrs", i, s(cls), s(name), fact.form.value, s(fact.text), s(fact.scope))
        for fn, text in facts.returns.items():
            row("returns", i, s(fn), s(text))
        for fn, texts in facts.returned.items():
            for text in texts:
                row("returned", i, s(fn), s(text))
        for fn, (least, most) in facts.params.items():
            row("params", i, s(fn), least, most)
        for fn, types in facts.ptypes.items():
            row("ptypes", i, s(fn), s(TYPE_SEP.join(types)))
        for r in facts.type_refs:
            row("type_refs", i, r.line, r.col, s(r.name), s(r.receiver), s(r.enclosing), s(r.kind))
        if facts.package:
            row("package", i, s(facts.package))
    return {"files": files, **tables}


def _mac(secret: bytes, payload: bytes) -> str:
    mac = hmac.new(secret, _HEADER, "sha256")
    mac.update(payload)
    return mac.hexdigest()


# --- reading ---------------------------------------------------------------------------------


def load(path: str | os.PathLike[str], key: str) -> tuple[SymbolIndex, EdgeIndex, Memo] | None:
    """The state ``dump`` wrote to ``path`` for this ``key``; None when there is none,
    it is not signed with this user's secret, it is of another format, version or
    key, or anything in it is not of the expected shape."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    secret = user_secret()
    newline = data.find(b"\n", 0, len(_HEADER) + _MAC_HEX + 1)
    if secret is None or newline != len(_HEADER) + _MAC_HEX or not data.startswith(_HEADER):
        return None
    mac = data[len(_HEADER):newline]
    payload = data[newline + 1:]
    del data
    if not hmac.compare_digest(mac, _mac(secret, payload).encode()):
        return None
    try:
        doc = json.loads(payload, parse_constant=_refuse_constant)
        return decode(doc, key)
    except (_Invalid, ValueError, TypeError, KeyError, IndexError, RecursionError, UnicodeDecodeError):
        return None


def decode(doc: object, key: str) -> tuple[SymbolIndex, EdgeIndex, Memo] | None:
    """The graph state of a parsed document for this ``key``; None for one of another
    format, version or key. ``_Invalid`` (or a ValueError) for a wrong shape."""
    if type(doc) is not dict:
        raise _Invalid("not an object")
    if (doc.get("magic"), doc.get("format"), doc.get("codeloupe"), doc.get("key")) != (
            MAGIC, FORMAT, __version__, key) or type(doc.get("format")) is not int:
        return None
    strings = doc.get("strings")
    if type(strings) is not list or (strings and set(map(type, strings)) != {str}):
        raise _Invalid("strings")
    n = len(strings)
    text = strings.__getitem__
    nullable = [*strings, None].__getitem__  # -1: None

    index = SymbolIndex()
    sym = _table(doc, "symbols", _SYMBOL_FIELDS)
    infos = list(map(SymbolInfo, *(
        map(text, _ints(sym, f, 0, n)) for f in ("id", "path", "name", "qualified_name", "kind")),
        map(nullable, _ints(sym, "parent", -1, n)), _ints(sym, "start_line"), _ints(sym, "end_line"),
        map(text, _ints(sym, "language", 0, n))))
    for info in infos:
        index.add_symbol(info)
    if len(index.symbols) != len(infos):
        raise _Invalid("symbol ids repeat")
    _decode_facts(index, _table(doc, "facts", ("files", *_FACT_TABLES), columns=False), text, n)

    tg = _table(doc, "targets", ("target", "reason", "confidence", "ambiguous", "detail"))
    reasons = tg["reason"]
    confidence = tg["confidence"]
    if type(reasons) is not list or type(confidence) is not list:
        raise _Invalid("targets")
    if confidence and (set(map(type, confidence)) != {float} or min(confidence) < 0 or max(confidence) > 1):
        raise _Invalid("confidence")
    targets = list(map(Target, map(text, _ints(tg, "target", 0, n)), map(_REASONS.__getitem__, reasons),
                       confidence, map(bool, _ints(tg, "ambiguous", 0, 2)), map(text, _ints(tg, "detail", 0, n))))
    founds = _groups(_table(doc, "found", ("size", "item"), columns=False), targets, tuple)
    depsets = _groups(_table(doc, "deps", ("size", "item"), columns=False), strings, frozenset)

    edges = EdgeIndex(index.symbols)
    memo = Memo()
    st = _table(doc, "sites", _SITE_FIELDS)
    rows = zip(
        map(text, _ints(st, "path", 0, n)), _ints(st, "line"), _ints(st, "col"),
        map(text, _ints(st, "name", 0, n)), map(text, _ints(st, "receiver", 0, n)),
        map(text, _ints(st, "caller", 0, n)), _ints(st, "args", -1, 1000), map(text, _ints(st, "argtypes", 0, n)),
        _ints(st, "found", 0, len(founds)),
        _ints(st, "external", 0, 2), _ints(st, "deps", 0, len(depsets)),
        strict=True)
    shared: dict[tuple, tuple[int, int, int]] = {}  # memo key → its sites' (found, external, deps)
    sites, add, has = edges.sites, edges.add, edges.has
    entries: dict[tuple, Entry] = {}
    for path, line, col, name, receiver, caller, args, argtypes, f, ext, d in rows:
        site = CallSite(path, line, col, name, receiver, caller, args, argtypes)
        if has(site):
            raise _Invalid("a call site repeats")
        found = founds[f]
        key = (_SITE, path, caller, name, receiver, args, argtypes)
        seen = shared.get(key)
        if seen is None:
            shared[key] = (f, ext, d)
            entries[key] = ((found, ext == 1), depsets[d])
        elif seen != (f, ext, d):
            raise _Invalid("sites of one memo entry differ")
        sites[path].append(site)
        add(site, found, ext == 1)
    memo.remember_all(entries)
    return index, edges, memo


def _decode_facts(index: SymbolIndex, ft: dict, text: Any, n: int) -> None:
    paths = list(map(text, _ints(ft, "files", 0, n)))
    if len(set(paths)) != len(paths):
        raise _Invalid("a file's facts repeat")
    files = [FileFacts() for _ in paths]
    nf = len(files)

    def rows(table: str, *text_fields: str, forms: str | None = None) -> Any:
        t = _table(ft, table, _FACT_TABLES[table])
        cols: list[Any] = [map(files.__getitem__, _ints(t, "file", 0, nf))]
        for f in _FACT_TABLES[table][1:]:
            if f == forms:
                col = t[f]
                if type(col) is not list:
                    raise _Invalid(f)
                cols.append(map(_FORMS.__getitem__, col))
            elif f in text_fields:
                cols.append(map(text, _ints(t, f, 0, n)))
            else:
                cols.append(_ints(t, f))
        return zip(*cols, strict=True)

    for facts, bound, source, original in rows("imports", "bound", "source", "original"):
        facts.imports[bound] = (source, original)
    for facts, source in rows("stars", "source"):
        facts.stars.append(source)
    for facts, cls, qualifier, name in rows("bases", "cls", "qualifier", "name"):
        facts.bases.setdefault(cls, []).append((qualifier, name))
    for facts, scope, name, form, fact_text in rows("vars", "scope", "name", "text", forms="form"):
        facts.vars.setdefault(scope, {}).setdefault(name, []).append(Fact(form, fact_text))
    for facts, cls, name, form, fact_text, scope in rows("attrs", "cls", "name", "text", "scope", forms="form"):
        facts.attrs.setdefault(cls, {}).setdefault(name, []).append(AttrFact(form, fact_text, scope))
    for facts, fn, fact_text in rows("returns", "fn", "text"):
        facts.returns[fn] = fact_text
    for facts, fn, fact_text in rows("returned", "fn", "text"):
        facts.returned.setdefault(fn, []).append(fact_text)
    for facts, fn, least, most in rows("params", "fn"):
        if least < 0 or most < -1 or 0 <= most < least:
            raise _Invalid("params")
        facts.params[fn] = (least, most)
    for facts, fn, types in rows("ptypes", "fn", "types"):
        facts.ptypes[fn] = tuple(types.split(TYPE_SEP))
    for facts, name in rows("package", "name"):
        facts.package = name
    by_file = dict(zip(map(id, files), paths, strict=True))
    for facts, line, col, name, receiver, enclosing, kind in rows(
            "type_refs", "name", "receiver", "enclosing", "kind"):
        facts.type_refs.append(TypeRef(by_file[id(facts)], line, col, name, receiver, enclosing, kind))
    for path, facts in zip(paths, files, strict=True):
        index.set_facts(path, facts)


def _table(doc: dict, name: str, fields: tuple[str, ...], columns: bool = True) -> dict:
    """A table of the document: an object with exactly these fields (``columns``:
    lists of one length)."""
    t = doc.get(name)
    if type(t) is not dict or t.keys() != set(fields):
        raise _Invalid(name)
    if columns and (any(type(c) is not list for c in t.values()) or len({len(c) for c in t.values()}) > 1):
        raise _Invalid(name)
    return t


def _ints(table: dict, field: str, lo: int | None = None, hi: int | None = None) -> list[int]:
    """A column of integers (``lo <= i < hi`` when given)."""
    col = table[field]
    if type(col) is not list:
        raise _Invalid(field)
    if col and (set(map(type, col)) != {int} or lo is not None and min(col) < lo
                or hi is not None and max(col) >= hi):
        raise _Invalid(field)
    return col


def _groups(table: dict, items: list, make: Any) -> list:
    """``size``/``item`` columns: consecutive runs of ``item`` (indexes into ``items``)."""
    sizes = _ints(table, "size", 0)
    refs = _ints(table, "item", 0, len(items))
    if sum(sizes) != len(refs):
        raise _Invalid("sizes")
    get = items.__getitem__
    out = []
    at = 0
    for size in sizes:
        out.append(make(map(get, refs[at:at + size])))
        at += size
    return out


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed in a saved call graph")
