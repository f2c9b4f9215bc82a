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
    {"magic": "codeloupe-graph", "format": 6, "codeloupe": "<version>", "key": "<key>",
     "strings": [...], "symbols": {...}, "facts": {...}, "targets": {...},
     "found": {...}, "deps": {...}, "sites": {...}}

The HMAC is keyed with this user's secret (``userkey``): a file made elsewhere (an
index folder copied or committed by someone else) is rejected before it is parsed;
the format is safe to parse without it. ``key`` names the index state the graph was
built from (``graph_store.store_key``).

Tables are columnar: an object of equal-length columns, one per field. A column of
integers is packed: the base64 text of its values as 32-bit little-endian signed
integers (with JSON lists of numbers the document parsed about five times slower); the
others (``targets.reason``, ``targets.confidence``, the facts' ``form``) are JSON
lists. Strings are written once, in ``strings``; a string field holds its index there
(``-1``: None, for the nullable ones). Flags are 0/1. Indexes are read unsigned, so
that looking one up checks it (a negative one is past the end).

- ``symbols``: ``id path name qualified_name kind parent start_line end_line
  language``, in the index's order (the order of every list the index keeps).
- ``facts``: per file that has facts, what ``facts.digest_refs`` made of its rows:
  ``files`` (paths, in order), and the tables ``imports`` (file bound source
  original), ``stars`` (file source), ``bases`` (file cls qualifier name), ``vars``
  (file scope name form text), ``attrs`` (file cls name form text scope), ``returns``
  (file fn text), ``returned`` (file fn text), ``params`` (file fn least most),
  ``type_refs`` (file line col name receiver enclosing kind), ``package`` (file name: the
  package it declares), ``ptypes`` (file fn types: its parameters' types joined by
  ``model.TYPE_SEP``), ``guards`` (file fn macros: those its conditionals need, joined by
  spaces), ``defines`` (file macros: those it #defines, joined by spaces), ``cbtypes``
  (file fn types: per parameter its function type's parameter types, ``model.CALLBACK_SEP``
  between parameters); ``file`` is an index into ``files``, ``form`` a
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
and links every site to its saved targets without resolving (``EdgeIndex.add_all``); the
memo starts with the sites' entries only (other lookups are computed again when an edit
needs them).
An edit after a load therefore re-resolves exactly the sites it would have in the
graph that was saved: the same edges as a build from scratch (tests/test_graph_persist.py).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import os
import sys
from array import array
from collections.abc import Sized
from functools import partial
from itertools import islice, repeat
from pathlib import Path
from typing import Any

from .. import __version__
from ..model import CALLBACK_SEP, TYPE_SEP
from ..userkey import user_secret
from .edges import EdgeIndex
from .facts import FileFacts
from .index import SymbolIndex
from .memo import Lookup, Memo, site_key
from .model import (
    RESOLUTION,
    AttrFact,
    CallSite,
    Fact,
    FactForm,
    Reason,
    SymbolInfo,
    Target,
    TypeRef,
)

# 1, 2: pickles of the Graph object (callgraph.pickle), never read; 4: arity, detail;
# 5: every site remembered (no ``memo`` column), a file's declared package, argument
# and parameter types where functions overload; 6: integer columns packed; 7: C's
# guards and defines; 8: TypeScript's callback types
FORMAT = 8
MAGIC = "codeloupe-graph"
_HEADER = b"codeloupe-graph/json "
_MAC_HEX = 64
_REASONS = {r.value: r for r in Reason}
_FORMS = {f.value: f for f in FactForm}
_SITE = Lookup.SITE
_INT32, _UINT32 = "i", "I"  # array's 32-bit integers (4 bytes wherever CPython runs)
_NONE = 2**32 - 1  # -1 read unsigned: None, in a nullable column of string indexes
_FLAGS = (False, True)
_SWAP = sys.byteorder == "big"  # the columns are little-endian
_call_site = partial(tuple.__new__, CallSite)  # CallSite from a tuple of its fields, in C
_fact = partial(tuple.__new__, Fact)
_attr_fact = partial(tuple.__new__, AttrFact)
_target = partial(tuple.__new__, Target)

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
    "guards": ("file", "fn", "macros"),
    "defines": ("file", "macros"),
    "cbtypes": ("file", "fn", "types"),
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
    try:
        doc = encode(index, edges, memo, key)
    except OverflowError as e:  # a number past 32 bits (no real line or index is)
        raise OSError(f"call graph state cannot be saved: {e}") from e
    payload = json.dumps(doc, separators=(",", ":"), allow_nan=False).encode()
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
        "magic": MAGIC, "format": FORMAT, "codeloupe": __version__, "resolution": RESOLUTION, "key": key,
        "strings": list(enc.ids),
        "symbols": _packed(symbols),
        "facts": {"files": pack(facts.pop("files")),
                  **{name: _packed(table, keep=("form",)) for name, table in facts.items()}},
        "targets": {**_packed({"target": [s(t.target) for t in targets],
                               "ambiguous": [1 if t.ambiguous else 0 for t in targets], "detail": details}),
                    "reason": [t.reason.value for t in targets],
                    "confidence": [float(t.confidence) for t in targets]},
        "found": _packed({"size": enc.found_size, "item": enc.found_item}),
        "deps": _packed({"size": enc.dep_size, "item": enc.dep_item}),
        "sites": _packed(sites),
    }


def pack(values: list[int]) -> str:
    """A column of integers as the format keeps it: base64 of 32-bit little-endian
    values. OverflowError for a value past 32 bits."""
    a = array(_INT32, values)
    if _SWAP:
        a.byteswap()
    return base64.b64encode(a.tobytes()).decode("ascii")


def unpack(text: object, signed: bool = True) -> array:
    """The integers of a packed column (``signed``: else read as unsigned, a negative
    value then past any index); ``_Invalid`` for anything that is not one."""
    if type(text) is not str:
        raise _Invalid("a packed column is not a string")
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as e:  # not base64, or not ASCII
        raise _Invalid("a packed column is not base64") from e
    if len(raw) % 4:
        raise _Invalid("a packed column's length")
    a = array(_INT32 if signed else _UINT32)
    a.frombytes(raw)
    if _SWAP:
        a.byteswap()
    return a


def _packed(table: dict[str, list], keep: tuple[str, ...] = ()) -> dict[str, Any]:
    """A table with its integer columns packed (``keep``: columns that stay lists)."""
    return {f: col if f in keep else pack(col) for f, col in table.items()}


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
        self.dep_ids: dict[tuple[str, ...], int] = {}
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

    def deps_index(self, keys: tuple[str, ...]) -> int:
        """The index of a set of dependency keys (in any order: written sorted)."""
        i = self.dep_by_id.get(id(keys))
        if i is None:
            ordered = tuple(sorted(keys))
            i = self.dep_ids.get(ordered)
            if i is None:
                i = self.dep_ids[ordered] = len(self.dep_size)
                self.dep_size.append(len(ordered))
                self.dep_item.extend(map(self.string, ordered))
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
        for fn, macros in facts.guards.items():
            row("guards", i, s(fn), s(" ".join(macros)))
        if facts.defines:
            row("defines", i, s(" ".join(sorted(facts.defines))))
        for fn, positions in facts.cbtypes.items():
            row("cbtypes", i, s(fn), s(CALLBACK_SEP.join(positions)))
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
        del payload  # the file's bytes (100 MB at a million lines) gone before the objects are made
        return decode(doc, key)
    except (_Invalid, ValueError, TypeError, KeyError, IndexError, RecursionError, UnicodeDecodeError):
        return None


def decode(doc: object, key: str) -> tuple[SymbolIndex, EdgeIndex, Memo] | None:
    """The graph state of a parsed document for this ``key``; None for one of another
    format, version or key. ``_Invalid`` (or a ValueError) for a wrong shape. The
    document is consumed: each table is taken out of it as it is read, so that its
    columns are freed while the objects made of them grow."""
    if type(doc) is not dict:
        raise _Invalid("not an object")
    if (doc.get("magic"), doc.get("format"), doc.get("codeloupe"), doc.get("resolution"), doc.get("key")) != (
            MAGIC, FORMAT, __version__, RESOLUTION, key) or type(doc.get("format")) is not int:
        return None
    strings = doc.get("strings")
    if type(strings) is not list or (strings and set(map(type, strings)) != {str}):
        raise _Invalid("strings")
    text = strings.__getitem__

    def nullable(i: int) -> str | None:
        return None if i == _NONE else strings[i]

    index = SymbolIndex()
    sym = _table(doc, "symbols", _SYMBOL_FIELDS)
    lines = _ints(sym, "start_line"), _ints(sym, "end_line")
    refs = {f: _indexes(sym, f) for f in _SYMBOL_FIELDS if not f.endswith("_line")}
    _same_length("symbols", *lines, *refs.values())
    for info in map(SymbolInfo, *(map(text, refs[f]) for f in ("id", "path", "name", "qualified_name", "kind")),
                    map(nullable, refs["parent"]), *lines, map(text, refs["language"])):
        index.add_symbol(info)
    if len(index.symbols) != len(lines[0]):
        raise _Invalid("symbol ids repeat")
    del sym, refs, lines
    _decode_facts(index, _table(doc, "facts", ("files", *_FACT_TABLES)), strings)

    tg = _table(doc, "targets", ("target", "reason", "confidence", "ambiguous", "detail"))
    reasons, confidence = tg["reason"], tg["confidence"]
    if type(reasons) is not list or type(confidence) is not list:
        raise _Invalid("targets")
    if confidence and (set(map(type, confidence)) != {float} or min(confidence) < 0 or max(confidence) > 1):
        raise _Invalid("confidence")
    targets = list(map(_target, zip(
        _texts(tg, "target", strings), map(_REASONS.__getitem__, reasons), confidence,
        map(_FLAGS.__getitem__, _indexes(tg, "ambiguous")), _texts(tg, "detail", strings), strict=True)))
    del tg, reasons, confidence
    founds = _groups(_table(doc, "found", ("size", "item")), targets, tuple)
    depsets = _groups(_table(doc, "deps", ("size", "item")), strings, tuple)

    st = _table(doc, "sites", _SITE_FIELDS)
    paths, names, receivers, callers, argtypes = (
        _texts(st, f, strings) for f in ("path", "name", "receiver", "caller", "argtypes"))
    args = _ints(st, "args", -1, 1000)
    found, external, dep = _indexes(st, "found"), _indexes(st, "external"), _indexes(st, "deps")
    sites = list(map(_call_site, zip(paths, _ints(st, "line"), _ints(st, "col"), names, receivers, callers, args,
                                     argtypes, strict=True)))
    _same_length("sites", sites, found, external, dep)
    keys = list(zip(repeat(_SITE), paths, callers, names, receivers, args, argtypes))  # site_key's fields
    del st, paths, names, receivers, callers, argtypes  # the columns, once in the sites and keys
    # memo key → its sites' (found, external, deps), which must be one
    shared = dict(zip(keys, zip(found, external, dep, strict=True), strict=True))
    if len(shared) != len(keys) and any(shared[k] != v for k, v in zip(keys, zip(found, external, dep, strict=True), strict=True)):
        raise _Invalid("sites of one memo entry differ")
    memo = Memo()
    memo.remember_all({k: ((founds[f], e == 1), depsets[d]) for k, (f, e, d) in shared.items()})
    edges = EdgeIndex(index.symbols)
    edges.add_all(keys, sites, map(founds.__getitem__, found), map(_FLAGS.__getitem__, external))
    if len(edges.site_edges) + len(edges.named) != len(sites):
        raise _Invalid("a call site repeats")
    return index, edges, memo


def _decode_facts(index: SymbolIndex, ft: dict, strings: list[str]) -> None:
    text = strings.__getitem__
    paths = _texts(ft, "files", strings)
    if len(set(paths)) != len(paths):
        raise _Invalid("a file's facts repeat")
    files = [FileFacts() for _ in paths]

    def rows(table: str, *text_fields: str, facts: Any = None) -> Any:
        """The table's rows: its file's facts, then each field (``text_fields`` as
        strings); with ``facts``, the fields from ``form`` on made into that record."""
        fields = _FACT_TABLES[table]
        t = _table(ft, table, fields)
        cols: list[Any] = [map(files.__getitem__, _indexes(t, "file"))]
        for f in fields[1:]:
            if f == "form":
                col = t[f]
                if type(col) is not list:
                    raise _Invalid(f)
                cols.append(map(_FORMS.__getitem__, col))
            elif f in text_fields:
                cols.append(map(text, _indexes(t, f)))
            else:
                cols.append(_ints(t, f))
        if facts is not None:
            at = fields.index("form")
            cols[at:] = [map(facts, zip(*cols[at:], strict=True))]
        return zip(*cols, strict=True)

    for facts, bound, source, original in rows("imports", "bound", "source", "original"):
        facts.imports[bound] = (source, original)
    for facts, source in rows("stars", "source"):
        facts.stars.append(source)
    for facts, cls, qualifier, name in rows("bases", "cls", "qualifier", "name"):
        facts.bases.setdefault(cls, []).append((qualifier, name))
    for facts, scope, name, fact in rows("vars", "scope", "name", "text", facts=_fact):
        facts.vars.setdefault(scope, {}).setdefault(name, []).append(fact)
    for facts, cls, name, fact in rows("attrs", "cls", "name", "text", "scope", facts=_attr_fact):
        facts.attrs.setdefault(cls, {}).setdefault(name, []).append(fact)
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
    for facts, fn, macros in rows("guards", "fn", "macros"):
        facts.guards[fn] = tuple(macros.split())
    for facts, macros in rows("defines", "macros"):
        facts.defines = frozenset(macros.split())
    for facts, fn, positions in rows("cbtypes", "fn", "types"):
        facts.cbtypes[fn] = tuple(positions.split(CALLBACK_SEP))
    by_file = dict(zip(map(id, files), paths, strict=True))
    for facts, line, col, name, receiver, enclosing, kind in rows(
            "type_refs", "name", "receiver", "enclosing", "kind"):
        facts.type_refs.append(TypeRef(by_file[id(facts)], line, col, name, receiver, enclosing, kind))
    for path, facts in zip(paths, files, strict=True):
        index.set_facts(path, facts)


def _table(doc: dict, name: str, fields: tuple[str, ...]) -> dict:
    """A table of the document, taken out of it: an object with exactly these fields."""
    t = doc.pop(name, None)
    if type(t) is not dict or t.keys() != set(fields):
        raise _Invalid(name)
    return t


def _same_length(name: str, *columns: Sized) -> None:
    if len(set(map(len, columns))) > 1:
        raise _Invalid(f"{name}: columns of two lengths")


def _ints(table: dict, field: str, lo: int | None = None, hi: int | None = None) -> array:
    """A packed column of integers (``lo <= i < hi`` when given)."""
    col = unpack(table[field])
    if col and (lo is not None and min(col) < lo or hi is not None and max(col) >= hi):
        raise _Invalid(field)
    return col


def _indexes(table: dict, field: str) -> array:
    """A packed column of indexes, read unsigned: each is checked where it is looked up
    (an IndexError past the end, a negative one included)."""
    return unpack(table[field], signed=False)


def _texts(table: dict, field: str, strings: list[str]) -> list[str]:
    """A column of string indexes, looked up."""
    return list(map(strings.__getitem__, _indexes(table, field)))


def _groups(table: dict, items: list, make: Any) -> list:
    """``size``/``item`` columns: consecutive runs of ``item`` (indexes into ``items``)."""
    sizes = _indexes(table, "size")
    refs = _indexes(table, "item")
    if sum(sizes) != len(refs):
        raise _Invalid("sizes")
    it = map(items.__getitem__, refs)
    return [make(islice(it, size)) for size in sizes]


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed in a saved call graph")
