"""The graph's tables of symbols and facts, kept up to date file by file.

``SymbolIndex`` holds every symbol by id, name, parent and qualified name, the files
by module stem and folder, each file's language and facts, and the classes naming
each base. ``replace_file`` swaps one file's part and says which dependency keys
(``graph.deps``) changed: the digest of a file (what other files can see of it) is
compared before and after.

Resolution reads these tables only through ``resolve.reads.Reads``, which records
the key of everything it reads.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from operator import attrgetter, itemgetter

from ..languages import NEUTRAL, Language, module_stem, rules
from . import deps, patch
from .digest import Digest, Seen, digest_facts, symbol_entry
from .facts import FileFacts, RefRow, digest_refs, type_refs
from .model import CALLABLE_KINDS, CLASS_KINDS, FUNCTION_KINDS, SymbolInfo
from .patch import Shape


class SymbolIndex:
    """Symbols and facts of every file, indexed for resolution."""

    def __init__(self) -> None:
        self.symbols: dict[str, SymbolInfo] = {}
        self.by_name: dict[str, list[SymbolInfo]] = defaultdict(list)  # callable kinds only
        self.children: dict[str, dict[str, list[SymbolInfo]]] = defaultdict(partial(defaultdict, list))
        self.by_qualified: dict[str, list[SymbolInfo]] = defaultdict(list)
        self.file_symbols: dict[str, list[str]] = defaultdict(list)  # path → symbol ids
        self.file_lang: dict[str, Language] = {}
        self.module_id: dict[str, str] = {}
        self.stems: dict[str, list[str]] = defaultdict(list)  # module stem → paths
        self.stem_tails: dict[str, set[str]] = defaultdict(set)  # last part of a stem → stems
        self.dirs: dict[str, list[str]] = defaultdict(list)  # folder → paths
        self.facts: dict[str, FileFacts] = {}
        self.subclasses: dict[str, set[str]] = defaultdict(set)  # base name → class ids naming it
        self.packages: dict[str, set[str]] = defaultdict(set)  # declared package → paths
        self.macros: dict[str, set[str]] = defaultdict(set)  # a #defined macro → paths (C)
        # a namespaced language's first part of qualified names → the files defining in it
        self.heads: dict[str, set[str]] = defaultdict(set)
        # each edited file's last shape and digest (what others see of it): the next
        # edit of that file starts from the digest instead of computing it again (it
        # reads only the file), and skips it when the shape is the same
        self._last: dict[str, Shape] = {}

    # --- symbols ---------------------------------------------------------------------------

    def add_symbol(self, s: SymbolInfo) -> None:
        """Index one symbol (a file's module unit also indexes the file)."""
        self.symbols[s.id] = s
        self.file_symbols[s.path].append(s.id)
        if s.kind == "module" and s.parent is None:
            self.file_lang[s.path] = rules(s.language)
            self.module_id[s.path] = s.id
            stem = module_stem(s.path)
            self.stems[stem].append(s.path)
            self.stem_tails[stem.rsplit("/", 1)[-1]].add(stem)
            self.dirs[_folder(s.path)].append(s.path)
            return
        if s.kind in CALLABLE_KINDS:
            self.by_name[s.name].append(s)
            self.by_qualified[s.qualified_name].append(s)
            if "." in s.qualified_name and rules(s.language).namespaced:
                self.heads[s.qualified_name.split(".", 1)[0]].add(s.path)
        if s.parent is not None:
            self.children[s.parent][s.name].append(s)

    def remove_symbols(self, path: str) -> None:
        """Take a file's symbols out of every index, one pass per touched list."""
        gone = [self.symbols[i] for i in self.file_symbols.pop(path, []) if i in self.symbols]
        touched: dict[tuple[int, object], tuple[dict, object]] = {}
        for s in gone:
            del self.symbols[s.id]
            if s.kind == "module" and s.parent is None:
                self.file_lang.pop(s.path, None)
                self.module_id.pop(s.path, None)
                stem = module_stem(s.path)
                _drop(self.stems, stem, s.path)
                if stem not in self.stems:
                    tails = self.stem_tails.get(stem.rsplit("/", 1)[-1])
                    if tails is not None:
                        tails.discard(stem)
                _drop(self.dirs, _folder(s.path), s.path)
                continue
            if s.kind in CALLABLE_KINDS:
                touched[(id(self.by_name), s.name)] = (self.by_name, s.name)
                touched[(id(self.by_qualified), s.qualified_name)] = (self.by_qualified, s.qualified_name)
                if "." in s.qualified_name:
                    _drop_set(self.heads, s.qualified_name.split(".", 1)[0], path)
            if s.parent is not None:  # a parent is always of the same file
                self.children.pop(s.parent, None)
        for index, key in touched.values():
            bucket = index.get(key)
            if bucket is not None:
                bucket[:] = [x for x in bucket if x.path != path]
                if not bucket:
                    del index[key]

    # --- facts -----------------------------------------------------------------------------

    def add_facts(self, path: str, refs: list[RefRow],
                  enclosing_class: Callable[[str], SymbolInfo | None]) -> None:
        """Digest a file's reference rows into its facts (its symbols are in already)."""
        module = self.module_id.get(path, f"{path}::<module>")
        facts = digest_refs(path, refs, module, self.file_lang.get(path, NEUTRAL), self.symbols.get,
                            enclosing_class)
        self.set_facts(path, facts)

    def set_facts(self, path: str, facts: FileFacts) -> None:
        """Index a file's facts as they are (digested, or loaded)."""
        self.facts[path] = facts
        if facts.package:
            self.packages[facts.package].add(path)
        for name in facts.defines:
            self.macros[name].add(path)
        for cls_id, bases in facts.bases.items():
            for _, name in bases:
                self.subclasses[name].add(cls_id)

    def remove_facts(self, path: str) -> None:
        """Take a file's facts out."""
        facts = self.facts.pop(path, None)
        if facts is None:
            return
        if facts.package:
            _drop_set(self.packages, facts.package, path)
        for name in facts.defines:
            _drop_set(self.macros, name, path)
        for cls_id, bases in facts.bases.items():
            for _, name in bases:
                ids = self.subclasses.get(name)
                if ids is not None:
                    ids.discard(cls_id)
                    if not ids:
                        del self.subclasses[name]

    def namespaces(self, path: str) -> frozenset[str]:
        """Namespaces whose names a file sees unqualified: those its definitions are
        in (and their parents), and those it imports whole (C# ``using A.B;``, C++
        ``using namespace a;``)."""
        out: set[str] = set()
        for sid in self.file_symbols.get(path, ()):
            s = self.symbols.get(sid)
            if s is None or s.kind not in CLASS_KINDS and s.kind not in FUNCTION_KINDS:
                continue
            parts = s.qualified_name.split(".")[:-1]
            for i in range(1, len(parts) + 1):
                out.add(".".join(parts[:i]))
        facts = self.facts.get(path)
        for bound, (source, original) in (facts.imports.items() if facts is not None else ()):
            dotted = source.replace("::", ".").replace("\\", ".").strip(".")
            if original == bound and (dotted == bound or dotted.endswith("." + bound)):
                out.add(dotted)
        return frozenset(out)

    # --- per-file updates ------------------------------------------------------------------

    def replace_file(self, path: str, symbols: list[SymbolInfo], refs: list[RefRow],
                     enclosing_class: Callable[[str], SymbolInfo | None]) -> set[str]:
        """Swap one file's symbols and facts (empty lists: the file is gone); the
        dependency keys whose digest changed.

        A file's facts and digest depend on its symbols and rows but calls, and not
        on their positions (its shape, ``Shape``). When the shape is the last edit's
        (typing in a call, a comment, a string; lines moved), the facts are the last
        ones with the type uses at their new places, and nothing changed for other
        files. When the edit touched a few scopes only (typing in an assignment,
        inserting a function: ``patch.plan``), their facts and digest entries are made
        again (``patch.apply``), the rest kept."""
        last = self._last.pop(path, None)
        old = self.facts.get(path)
        rows = [r for r in refs if r["kind"] != "call"]
        now = Shape(list(map(_SYMBOL_SHAPE, symbols)), list(map(_ROW_SHAPE, rows)), {})
        if last is None or old is None:
            return self._replace_all(path, symbols, refs, enclosing_class, now, last)
        if last.symbols == now.symbols and last.rows == now.rows:
            self._swap_symbols(path, symbols)
            self.facts[path] = replace(old, type_refs=type_refs(path, refs))  # the same package and bases
            self._last[path] = last
            return set()
        lang, module = self.file_lang.get(path, NEUTRAL), self.module_id.get(path)
        planned = patch.plan(lang, module or f"{path}::<module>", last, now)
        if planned is None:
            return self._replace_all(path, symbols, refs, enclosing_class, now, last)
        self._swap_symbols(path, symbols)
        facts, now.digest, changed = patch.apply(path, lang, module, self.symbols, old, rows, refs, planned,
                                                 enclosing_class, last.digest)
        self.facts[path] = facts  # the same package and bases
        self._last[path] = now
        return changed

    def _swap_symbols(self, path: str, symbols: list[SymbolInfo]) -> None:
        self.remove_symbols(path)
        for s in symbols:
            self.add_symbol(s)

    def _replace_all(self, path: str, symbols: list[SymbolInfo], refs: list[RefRow],
                     enclosing_class: Callable[[str], SymbolInfo | None], now: Shape,
                     last: Shape | None) -> set[str]:
        before = last.digest if last is not None else self.digest(path)
        self.remove_facts(path)
        self._swap_symbols(path, symbols)
        self.add_facts(path, refs, enclosing_class)
        now.digest = self.digest(path)
        if symbols or refs:
            self._last[path] = now
        return {k for k in before.keys() | now.digest.keys() if before.get(k) != now.digest.get(k)}

    def digest(self, path: str) -> Digest:
        """What other files can see of this one, by the key a lookup records."""
        out: dict[str, set] = defaultdict(set)
        for sid in self.file_symbols.get(path, ()):
            s = self.symbols.get(sid)
            if s is None:
                continue
            if s.kind == "module" and s.parent is None:
                out[deps.module_key(module_stem(path).rsplit("/", 1)[-1])].add((Seen.FILE, path))
                out[deps.module_key(_folder(path).rsplit("/", 1)[-1])].add((Seen.FILE, path))  # a Go package
                continue
            out[s.name].add(symbol_entry(s.id, s.kind, s.parent, s.qualified_name))
            if s.parent is not None and (owner := self.symbols.get(s.parent)) is not None and owner.kind == "interface":
                out[deps.members_key(s.parent)].add((Seen.MEMBER, s.name))
            if s.kind in CALLABLE_KINDS and "." in s.qualified_name and rules(s.language).namespaced:
                out[deps.head_key(s.qualified_name.split(".", 1)[0])].add((Seen.HEAD, path))
        facts = self.facts.get(path)
        if facts is not None:
            digest_facts(out, path, facts, self.module_id.get(path))
        lang = self.file_lang.get(path, NEUTRAL)
        if lang.namespaced:
            out[deps.namespace_key(path)].add(tuple(sorted(self.namespaces(path))))
        if facts is not None and facts.imports:
            out[deps.imports_key(path)].add(tuple(sorted(facts.imports.items())))
        if lang.includes_files and facts is not None and facts.imports:  # none: as a file without facts
            out[deps.include_key(path)].add(tuple(sorted(source for source, _ in facts.imports.values())))
        return {k: frozenset(v) for k, v in out.items()}


_SYMBOL_SHAPE = attrgetter("id", "name", "qualified_name", "kind", "parent", "language")
_ROW_SHAPE = itemgetter("kind", "name", "receiver", "enclosing", "source", "original")


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _drop_set(index: dict, key: object, item: object) -> None:
    bucket = index.get(key)
    if bucket is not None:
        bucket.discard(item)
        if not bucket:
            del index[key]


def _drop(index: dict, key: object, item: object) -> None:
    bucket = index.get(key)
    if bucket is None:
        return
    try:
        bucket.remove(item)
    except ValueError:
        return
    if not bucket:
        del index[key]
