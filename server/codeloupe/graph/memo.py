"""Remembered lookups: results many call sites share (a class's bases, a variable's
value, an import), each kept with the dependency keys it read, so an edit drops
exactly the entries that read a key whose digest changed."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from enum import StrEnum

from .model import CallSite


class Lookup(StrEnum):
    """What a remembered entry is the result of; the first part of its key."""

    SITE = "site"  # (path, caller, name, receiver, args, argtypes): a call site's targets
    MRO = "mro"  # (class id): the class and its bases in lookup order
    SUBCLASSES = "subs"  # (class id): the classes that derive from it directly
    IMPORT = "imp"  # (path, bound): what an import binding holds
    TYPE = "type"  # (path, scope, type name): the instances a type names
    ATTRIBUTE = "attr"  # (class id, name): an attribute's value
    VARIABLE = "var"  # (path, scope, name): a variable's value
    RETURNS = "ret"  # (function ids,): what calling these functions returns
    NAME = "name"  # (name, with receiver, family): the candidates by name
    INCLUDES = "inc"  # (path): the files a file includes
    UNIT_MACROS = "macros"  # (path): the macros a file and the files it includes define
    NAMESPACES = "ns"  # (path): the namespaces a file sees
    IMPORTED = "imported"  # (path): the module paths and files a file's imports name
    MEMBER = "member"  # (files, name): a name in a module, through its re-exports and stars


def site_key(site: CallSite) -> tuple:
    """The memo key of a call site's resolution (``resolve.calls``): sites alike (same
    caller, name, receiver, argument count) share it, wherever they are."""
    return (Lookup.SITE, site.path, site.caller, site.name, site.receiver, site.args, site.argtypes)


# a remembered result and the keys it read, each once (a tuple: only ever iterated, and
# about a fifth of a frozenset's memory: transformers' loaded memo 454 MB as frozensets)
Entry = tuple[object, tuple[str, ...]]
_FIRST_SWEEP = 256  # a key's list of readers is first swept of repeats and forgotten ones at this length


class Readers(list):
    """The memo keys of the entries that read one dependency key, in the order they
    were indexed: a list (8 bytes an entry: 32 MB for transformers' 9.5M, where
    sets took 442 MB), so a key indexed again after it was dropped through another dependency
    appears twice, and one forgotten stays. Both are harmless to ``drop``, and
    ``Memo.index`` sweeps them out whenever the list has doubled since it was last
    swept: its length stays within twice what it holds, in amortized constant time."""

    __slots__ = ("sweep_at",)

    def __init__(self) -> None:
        super().__init__()
        self.sweep_at = _FIRST_SWEEP

    def sweep(self, values: dict[tuple, Entry]) -> None:
        """Each key once, and only those still remembered."""
        self[:] = [k for k in dict.fromkeys(self) if k in values]
        self.sweep_at = max(_FIRST_SWEEP, 2 * len(self))


class Memo:
    """Results of lookups, each with the dependency keys it read."""

    def __init__(self) -> None:
        self.values: dict[tuple, Entry] = {}
        self.by_dep: dict[str, Readers] = defaultdict(Readers)
        self._unindexed: list[tuple] = []  # remembered, not yet in ``by_dep`` (``remember_all``)

    def remember(self, key: tuple, entry: Entry) -> None:
        """Keep a result until one of the keys it read changes. Indexed by those keys
        only when an edit asks (``index``): a graph built whole and never edited (the
        CLI's) never pays for it; the language server indexes in the background once
        the graph is made (transformers: 9.5M keys, 2.3 s and 32 MB)."""
        self.values[key] = entry
        self._unindexed.append(key)

    def remember_all(self, entries: dict[tuple, Entry]) -> None:
        """Keep many results at once (a loaded graph's), indexed as ``remember``'s."""
        self.values.update(entries)
        self._unindexed.extend(entries)

    def index(self) -> int:
        """Index the entries remembered since the last time by the keys they read (what
        ``drop`` needs); how many were."""
        keys, self._unindexed = self._unindexed, []
        by_dep, values = self.by_dep, self.values
        for key in keys:
            entry = values.get(key)
            for dep in entry[1] if entry is not None else ():
                readers = by_dep[dep]
                readers.append(key)
                if len(readers) >= readers.sweep_at:
                    readers.sweep(values)
        return len(keys)

    def drop(self, names: Iterable[str]) -> list[tuple]:
        """Forget the entries that read one of these keys; the keys forgotten (each once)."""
        if self._unindexed:
            self.index()
        dropped = []
        for name in names:
            for key in self.by_dep.pop(name, ()):
                if self.values.pop(key, None) is not None:
                    dropped.append(key)
        return dropped
