"""The calls of a saved map laid out to be read in place: what ``codeloupe calls`` and
``codeloupe path`` ask of a graph (the edges around a few symbols), answered without
decoding the whole map, which ``persist`` takes seconds to do at a million call sites.

Written beside the saved map, for the same key (``Graph.save_calls``); read by mapping
the file and decoding only the sites a query reaches (``CallFile``). The answers are
the graph's: ``queries`` runs over either (tests/test_graph_callfile.py).

A file is a header line, a directory line, then the columns::

    codeloupe-calls/1 <HMAC-SHA256 of everything after this line, hex>\\n
    {"magic": "codeloupe-calls", "format": 1, "codeloupe": "<version>", "resolution": ...,
     "key": "<key>", "columns": {"<name>": [offset, typecode, length], ...}}\\n
    <the columns: little-endian arrays, each at its offset from the end of the
     directory line (padded with spaces to a multiple of 8 bytes), a multiple of 8>

Like the map, the file is signed with this user's secret (``userkey``) and rejected
before anything in it is read when it is not theirs; nothing in it is run.

The columns (string fields are indexes into the string table; ``NONE`` for None):

- ``str_off`` (one more than the strings) / ``str_blob``: every string, sorted, as
  UTF-8 (``surrogatepass``): a string's index is found by bisection.
- ``sym_id sym_path sym_name sym_qualified_name sym_kind sym_parent sym_start_line
  sym_end_line sym_language``: the symbols, in the index's order; ``sym_by_id``: their
  rows in the order of their ids (a symbol found by bisection).
- ``site_path site_line site_col site_name site_receiver site_caller site_args
  site_argtypes site_found``: every call site, file by file.
- ``tg_target tg_reason tg_confidence tg_ambiguous tg_detail``: the distinct targets;
  ``found_off`` / ``found_item``: the distinct tuples of them sites resolved to.
- three maps from a string to sites, each ``<map>_keys`` (sorted string indexes),
  ``<map>_off`` and ``<map>_item`` (site indexes): ``out`` (caller id → its sites),
  ``into`` (target id → the sites with a precise edge to it) and ``named`` (a name →
  the sites resolved by that name only, whose candidates hold every symbol of it).
"""

from __future__ import annotations

import hmac
import json
import mmap
import os
import sys
from array import array
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .. import __version__
from ..userkey import user_secret
from .edges import EdgeIndex
from .index import SymbolIndex
from .model import RESOLUTION, CallSite, Edge, Reason, SymbolInfo, Target
from .queries import EdgeQueries

FORMAT = 1
MAGIC = "codeloupe-calls"
_HEADER = b"codeloupe-calls/1 "
_MAC_HEX = 64
NONE = 2**32 - 1
_ALIGN = 8
_NAME = Reason.NAME
_REASONS = {r.value: r for r in Reason}
_SYMBOL_FIELDS = ("id", "path", "name", "qualified_name", "kind", "parent", "start_line", "end_line", "language")
_SITE_FIELDS = ("path", "line", "col", "name", "receiver", "caller", "args", "argtypes", "found")
_INT_FIELDS = {"sym_start_line", "sym_end_line", "site_line", "site_col", "site_args"}
_MAPS = ("out", "into", "named")


# --- writing ---------------------------------------------------------------------------------


def dump(index: SymbolIndex, edges: EdgeIndex, path: str | os.PathLike[str], key: str) -> None:
    """Write the calls of a graph's state to ``path`` for ``key``: to a temporary file
    beside it, then renamed. OSError when it cannot be written (nor this user's secret
    made, nor a number fit in 32 bits)."""
    secret = user_secret()
    if secret is None:
        raise OSError("no codeloupe secret to sign the call file with")
    try:
        columns = _columns(index, edges)
    except OverflowError as e:
        raise OSError(f"call file cannot be saved: {e}") from e
    directory: dict[str, list[Any]] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, col in columns.items():
        if sys.byteorder == "big" and col.itemsize > 1:
            col = array(col.typecode, col)
            col.byteswap()
        data = col.tobytes()
        directory[name] = [offset, col.typecode, len(col)]
        pad = -len(data) % _ALIGN
        chunks.append(data + b"\0" * pad)
        offset += len(data) + pad
    head = json.dumps({"magic": MAGIC, "format": FORMAT, "codeloupe": __version__, "resolution": RESOLUTION,
                       "key": key, "columns": directory}, separators=(",", ":")).encode()
    head += b" " * (-(len(_HEADER) + _MAC_HEX + 1 + len(head) + 1) % _ALIGN) + b"\n"  # columns aligned in the file
    mac = hmac.new(secret, _HEADER, "sha256")
    mac.update(head)
    for chunk in chunks:
        mac.update(chunk)
    target = Path(path)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        with tmp.open("wb") as fh:
            fh.write(_HEADER + mac.hexdigest().encode() + b"\n")
            fh.write(head)
            for chunk in chunks:
                fh.write(chunk)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _columns(index: SymbolIndex, edges: EdgeIndex) -> dict[str, array]:
    symbols = list(index.symbols.values())
    sites: list[tuple[CallSite, tuple[Target, ...]]] = []
    named, site_edges = edges.named, edges.site_edges
    for path_sites in edges.sites.values():
        for site in path_sites:
            found = named.get(site)
            if found is None:
                found = tuple(Target(e.target, e.reason, e.confidence, e.ambiguous, e.detail)
                              for e in site_edges[site])
            sites.append((site, found))
    site_found, found_off, found_item, targets = _found_groups(sites)

    strings: set[str] = set()
    for s in symbols:
        strings.update((s.id, s.path, s.name, s.qualified_name, s.kind, s.language))
        if s.parent is not None:
            strings.add(s.parent)
    for site, _ in sites:
        strings.update((site.path, site.name, site.receiver, site.caller, site.argtypes))
    for t in targets:
        strings.update((t.target, t.reason.value, t.detail))
    table = sorted(strings)
    sid = {text: i for i, text in enumerate(table)}
    blob = bytearray()
    str_off = array("I", [0])
    for text in table:
        blob += text.encode("utf-8", "surrogatepass")
        str_off.append(len(blob))

    cols: dict[str, array] = {"str_off": str_off, "str_blob": array("B", bytes(blob))}
    for f in _SYMBOL_FIELDS:
        if f"sym_{f}" in _INT_FIELDS:
            cols[f"sym_{f}"] = array("i", [getattr(s, f) for s in symbols])
        elif f == "parent":
            cols["sym_parent"] = array("I", [NONE if s.parent is None else sid[s.parent] for s in symbols])
        else:
            cols[f"sym_{f}"] = array("I", [sid[getattr(s, f)] for s in symbols])
    cols["sym_by_id"] = array("I", sorted(range(len(symbols)), key=cols["sym_id"].__getitem__))
    for j, f in enumerate(_SITE_FIELDS[:-1]):
        values = [site[j] for site, _ in sites]
        cols[f"site_{f}"] = array("i", values) if f"site_{f}" in _INT_FIELDS else array("I", map(sid.__getitem__,
                                                                                                  values))
    cols["site_found"] = site_found
    cols["tg_target"] = array("I", [sid[t.target] for t in targets])
    cols["tg_reason"] = array("I", [sid[t.reason.value] for t in targets])
    cols["tg_confidence"] = array("d", [float(t.confidence) for t in targets])
    cols["tg_ambiguous"] = array("B", [1 if t.ambiguous else 0 for t in targets])
    cols["tg_detail"] = array("I", [sid[t.detail] for t in targets])
    cols["found_off"], cols["found_item"] = found_off, found_item

    cols.update(_site_maps(sites, sid))
    return cols


def _found_groups(sites: list[tuple[CallSite, tuple[Target, ...]]]) -> tuple[array, array, array, list[Target]]:
    """Each site's found group (an index), the groups (``found_off``/``found_item``) and
    the distinct targets they name."""
    found_ids: dict[tuple[Target, ...], int] = {}
    by_id: dict[int, int] = {}
    target_ids: dict[Target, int] = {}
    site_found = array("I")
    found_off, found_item = array("I", [0]), array("I")
    for _, found in sites:
        i = by_id.get(id(found))
        if i is None:
            i = found_ids.get(found)
            if i is None:
                i = found_ids[found] = len(found_off) - 1
                found_item.extend(target_ids.setdefault(t, len(target_ids)) for t in found)
                found_off.append(len(found_item))
            by_id[id(found)] = i  # the tuple stays alive in ``sites``: its id is not reused
        site_found.append(i)
    return site_found, found_off, found_item, list(target_ids)


def _site_maps(sites: list[tuple[CallSite, tuple[Target, ...]]], sid: dict[str, int]) -> dict[str, array]:
    """The ``out``, ``into`` and ``named`` maps' columns."""
    maps: dict[str, dict[int, list[int]]] = {m: defaultdict(list) for m in _MAPS}
    for i, (site, found) in enumerate(sites):
        maps["out"][sid[site.caller]].append(i)
        if found and found[0].reason is _NAME:
            maps["named"][sid[site.name]].append(i)
        else:
            for target in dict.fromkeys(t.target for t in found):
                maps["into"][sid[target]].append(i)
    cols: dict[str, array] = {}
    for m, buckets in maps.items():
        keys = sorted(buckets)
        off, item = array("I", [0]), array("I")
        for k in keys:
            item.extend(buckets[k])
            off.append(len(item))
        cols[f"{m}_keys"], cols[f"{m}_off"], cols[f"{m}_item"] = array("I", keys), off, item
    return cols


# --- reading ---------------------------------------------------------------------------------


class CallFile:
    """A call file mapped in memory: the symbols (decoded on first use) and the edges
    into and out of a symbol, decoded from its sites when asked (``EdgeReader``)."""

    def __init__(self, mm: mmap.mmap, base: int, columns: dict[str, list]) -> None:
        self._mm = mm
        view = memoryview(mm)
        self._cols: dict[str, memoryview] = {}
        for name, (offset, typecode, length) in columns.items():
            start = base + offset
            col = view[start:start + length * array(typecode).itemsize].cast(typecode)
            self._cols[name] = col
        c = self._cols
        self._str_off, self._blob = c["str_off"], c["str_blob"]
        self._texts: dict[int, str] = {}
        self._sites: dict[int, CallSite] = {}
        self._found_of: dict[CallSite, int] = {}
        self._targets: dict[int, Target] = {}
        self._by_id: dict[str, SymbolInfo | None] = {}
        _check_lengths(c)

    @classmethod
    def open(cls, path: str | os.PathLike[str], key: str) -> CallFile | None:
        """The call file ``dump`` wrote at ``path`` for this ``key``; None when there is
        none, it is not signed with this user's secret, or it is of another format,
        version, resolution or key (or byte order)."""
        secret = user_secret()
        if secret is None or sys.byteorder != "little":
            return None
        try:
            with open(path, "rb") as fh:
                mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # none, unreadable, or empty (ValueError)
            return None
        try:
            newline = mm.find(b"\n", 0, len(_HEADER) + _MAC_HEX + 1)
            if newline != len(_HEADER) + _MAC_HEX or mm[:len(_HEADER)] != _HEADER:
                return None
            mac = hmac.new(secret, _HEADER, "sha256")
            mac.update(memoryview(mm)[newline + 1:])
            if not hmac.compare_digest(mm[len(_HEADER):newline], mac.hexdigest().encode()):
                return None
            end = mm.find(b"\n", newline + 1)
            doc = json.loads(mm[newline + 1:end])
            if type(doc) is not dict or (doc.get("magic"), doc.get("format"), doc.get("codeloupe"),
                                         doc.get("resolution"), doc.get("key")) != (
                    MAGIC, FORMAT, __version__, RESOLUTION, key):
                return None
            found = cls(mm, end + 1, doc["columns"])
        except (ValueError, TypeError, KeyError, IndexError):
            return None
        return found

    # --- strings and records ---------------------------------------------------------------

    def text(self, i: int) -> str:
        """The string of index ``i``."""
        found = self._texts.get(i)
        if found is None:
            found = self._texts[i] = bytes(self._blob[self._str_off[i]:self._str_off[i + 1]]).decode(
                "utf-8", "surrogatepass")
        return found

    def string_index(self, text: str) -> int | None:
        """The index of ``text`` in the string table; None when no record holds it."""
        n = len(self._str_off) - 1
        i = bisect_left(range(n), text, key=self.text)
        return i if i < n and self.text(i) == text else None

    def _site(self, i: int) -> CallSite:
        site = self._sites.get(i)
        if site is None:
            c, t = self._cols, self.text
            site = CallSite(t(c["site_path"][i]), c["site_line"][i], c["site_col"][i], t(c["site_name"][i]),
                            t(c["site_receiver"][i]), t(c["site_caller"][i]), c["site_args"][i],
                            t(c["site_argtypes"][i]))
            self._sites[i] = site
            self._found_of[site] = c["site_found"][i]
        return site

    def _target(self, i: int) -> Target:
        target = self._targets.get(i)
        if target is None:
            c, t = self._cols, self.text
            target = self._targets[i] = Target(t(c["tg_target"][i]), _REASONS[t(c["tg_reason"][i])],
                                               c["tg_confidence"][i], c["tg_ambiguous"][i] == 1,
                                               t(c["tg_detail"][i]))
        return target

    def _found(self, f: int) -> list[Target]:
        off = self._cols["found_off"]
        return [self._target(i) for i in self._cols["found_item"][off[f]:off[f + 1]]]

    def _bucket(self, name: str, text: str) -> memoryview | tuple[()]:
        """The site indexes of map ``name`` at ``text``."""
        k = self.string_index(text)
        if k is None:
            return ()
        keys = self._cols[f"{name}_keys"]
        j = bisect_left(keys, k)
        if j == len(keys) or keys[j] != k:
            return ()
        off = self._cols[f"{name}_off"]
        return self._cols[f"{name}_item"][off[j]:off[j + 1]]

    # --- symbols -------------------------------------------------------------------------------

    def _symbol(self, row: int) -> SymbolInfo:
        c, t = self._cols, self.text
        parent = c["sym_parent"][row]
        return SymbolInfo(t(c["sym_id"][row]), t(c["sym_path"][row]), t(c["sym_name"][row]),
                          t(c["sym_qualified_name"][row]), t(c["sym_kind"][row]),
                          None if parent == NONE else t(parent), c["sym_start_line"][row],
                          c["sym_end_line"][row], t(c["sym_language"][row]))

    def symbol(self, symbol_id: str) -> SymbolInfo | None:
        """The symbol of this id, or None (its row found by bisection)."""
        found = self._by_id.get(symbol_id)
        if found is None and symbol_id not in self._by_id:
            k = self.string_index(symbol_id)
            found = None
            if k is not None:
                order, ids = self._cols["sym_by_id"], self._cols["sym_id"]
                j = bisect_left(order, k, key=ids.__getitem__)
                if j < len(order) and ids[order[j]] == k:
                    found = self._symbol(order[j])
            self._by_id[symbol_id] = found
        return found

    def symbols_where(self, field: str, value: str) -> list[SymbolInfo]:
        """The symbols whose ``field`` (a string field) is ``value``, in the index's order."""
        k = self.string_index(value)
        if k is None:
            return []
        return [self._symbol(row) for row, v in enumerate(self._cols[f"sym_{field}"]) if v == k]

    def symbol_count(self) -> int:
        """How many symbols there are."""
        return len(self._cols["sym_id"])

    def all_symbols(self) -> Iterator[SymbolInfo]:
        """Every symbol, in the index's order."""
        return map(self._symbol, range(self.symbol_count()))

    # --- edges (EdgeReader) --------------------------------------------------------------------

    def edges_in(self, target: str) -> Iterator[Edge]:
        """The edges into a symbol, name matches included (``EdgeIndex.edges_in``'s)."""
        for i in self._bucket("into", target):
            site = self._site(i)
            for t in self._found(self._found_of[site]):
                if t.target == target:
                    yield Edge(site, *t)
        sym = self.symbol(target)
        if sym is None:
            return
        hit: dict[int, Target | None] = {}
        for i in self._bucket("named", sym.name):
            site = self._site(i)
            f = self._found_of[site]
            if f not in hit:
                hit[f] = next((t for t in self._found(f) if t.target == target), None)
            t = hit[f]
            if t is not None:
                yield Edge(site, *t)

    def edges_out(self, caller: str) -> Iterator[Edge]:
        """The edges out of a symbol, name matches included, site by site."""
        for i in self._bucket("out", caller):
            site = self._site(i)
            for t in self._found(self._found_of[site]):
                yield Edge(site, *t)

    def candidates(self, site: CallSite) -> int:
        """How many targets a call site has (``EdgeIndex.candidates``)."""
        f = self._found_of.get(site)
        if f is None:
            return 0
        found = self._found(f)
        return len({t.target for t in found}) if found and found[0].reason is _NAME else len(found)


_COLUMNS = frozenset({"str_off", "str_blob", "sym_by_id", "found_off", "found_item",
                      *(f"sym_{f}" for f in _SYMBOL_FIELDS), *(f"site_{f}" for f in _SITE_FIELDS),
                      *(f"tg_{f}" for f in ("target", "reason", "confidence", "ambiguous", "detail")),
                      *(f"{m}_{part}" for m in _MAPS for part in ("keys", "off", "item"))})


def _check_lengths(c: dict[str, memoryview]) -> None:
    """Every column is there, the columns of each table have one length, and every map
    has its three parts."""
    if c.keys() != _COLUMNS:
        raise ValueError("columns")
    for prefix, fields in (("sym", _SYMBOL_FIELDS), ("site", _SITE_FIELDS),
                           ("tg", ("target", "reason", "confidence", "ambiguous", "detail"))):
        if len({len(c[f"{prefix}_{f}"]) for f in fields}) != 1:
            raise ValueError(f"{prefix}: columns of two lengths")
    for m in _MAPS:
        if len(c[f"{m}_off"]) != len(c[f"{m}_keys"]) + 1:
            raise ValueError(m)
    if not len(c["str_off"]) or not len(c["found_off"]) or len(c["sym_by_id"]) != len(c["sym_id"]):
        raise ValueError("strings")


class SavedCalls(EdgeQueries):
    """A saved map's calls read in place: its symbols and the edge queries of ``Graph``
    (callers, callees, what a view leaves out or offers, chains), for a command that
    asks about a few symbols (``codeloupe calls``, ``codeloupe path``)."""

    _edges: CallFile

    def __init__(self, calls: CallFile) -> None:
        self._edges = calls

    @classmethod
    def open(cls, path: str | os.PathLike[str], key: str) -> SavedCalls | None:
        """The calls ``Graph.save_calls`` wrote at ``path`` for this ``key``; None as
        ``CallFile.open`` answers it."""
        calls = CallFile.open(path, key)
        return None if calls is None else cls(calls)

    @property
    def symbols(self) -> Mapping[str, SymbolInfo]:
        """Symbol id → its symbol (read-only; one found without decoding the others)."""
        return _Symbols(self._edges)

    def symbols_where(self, field: str, value: str) -> list[SymbolInfo]:
        """The symbols whose ``field`` (``path``, ``name``, ``qualified_name``...) is
        ``value``, in the index's order (``Graph.symbols_where``)."""
        return self._edges.symbols_where(field, value)


class _Symbols(Mapping):
    """``SavedCalls.symbols``: a symbol looked up by its id in the file."""

    def __init__(self, calls: CallFile) -> None:
        self._calls = calls

    def __getitem__(self, symbol_id: str) -> SymbolInfo:
        found = self._calls.symbol(symbol_id) if isinstance(symbol_id, str) else None
        if found is None:
            raise KeyError(symbol_id)
        return found

    def __iter__(self) -> Iterator[str]:
        return (s.id for s in self._calls.all_symbols())

    def __len__(self) -> int:
        return self._calls.symbol_count()

    def values(self):  # one pass over the rows, not a lookup a symbol
        """Every symbol, in the index's order."""
        return list(self._calls.all_symbols())
