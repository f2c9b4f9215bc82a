"""Imports and modules: what an import binding holds (each language's rule, asked
through ``languages.ImportContext``, which this class implements), a name in a
module (definitions, variables, re-exports, submodules), the files a file includes
and the namespaces it sees."""

from __future__ import annotations

from collections.abc import Iterable

from ...languages import Language, join_path, module_stem
from ..memo import Lookup
from ..model import EXTERNAL, FactForm, SymbolInfo, Value, ValueKind
from .reads import MAX_DEPTH
from .scopes import Scopes

MODULE = ValueKind.MODULE
INCLUDES, NAMESPACES, IMPORT, MEMBER = (Lookup.INCLUDES, Lookup.NAMESPACES, Lookup.IMPORT,
                                        Lookup.MEMBER)
UNIT_MACROS = Lookup.UNIT_MACROS
_UNIT_DEPTH = 4  # levels of #include followed for the macros a translation unit defines
_UNIT_FILES = 64  # files read for them, at most
# what an import or a module member holds: a value, the definitions of that name, or
# None (unknown)
Found = Value | list[SymbolInfo] | None


def _nearest(files: list[str], folder: str) -> list[str]:
    """Of the files an include names from elsewhere (not beside the includer), those of
    the folders sharing the most of the includer's folder: where ``-I../src`` points
    (each example of a project, with its own ``src/ProductionCode.h``, includes its
    own), all of them when that does not tell."""
    if len(files) < 2:
        return files
    here = folder.split("/") if folder else []

    def shared(p: str) -> int:
        parts = p.split("/")[:-1]
        n = 0
        while n < len(parts) and n < len(here) and parts[n] == here[n]:
            n += 1
        return n

    best = max(map(shared, files))
    return [p for p in files if shared(p) == best]


class Imports(Scopes):
    """Imports, modules, includes and namespaces (a part of the ``Resolver``)."""

    external_value = EXTERNAL

    def _included_files(self, path: str) -> list[str]:
        """Files this one names by #include / require / require_relative (relative
        to its folder, else anywhere the path matches), with the sources sharing their
        stem (``net/transport.h`` → ``net/transport.c``)."""
        return self._memoized((INCLUDES, path), self._compute_included) or []

    def _compute_included(self, path: str) -> list[str]:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        lang = self.language_of(path)
        out: list[str] = []
        for _bound, source in self.include_sources(path):
            if not lang.names_file(source):
                continue
            stem = module_stem(source.lstrip("./") if not source.startswith("..") else source)
            near = module_stem(join_path(folder, source)) if folder else stem
            files = self.module_files(near) or _nearest(self.module_files(stem), folder)
            out.extend(p for p in files if p != path and p not in out)
        return out

    def compiled_for(self, found: list[SymbolInfo], path: str) -> list[SymbolInfo]:
        """The definitions of ``found`` (from files ``path`` includes) compiled into its
        translation unit: each macro a definition's conditionals need (``extract.preproc``)
        is defined by the file or one it includes, when some file of the repository
        defines that macro (an opt-in switch such as ``UNITY_INCLUDE_SETUP_STUBS``); a
        macro no file defines comes from the build (``-DHAVE_X``), unknown: it counts."""
        unit: frozenset[str] | None = None
        kept = []
        for s in found:
            needs = [m for m in self.guards_of(s) if self.macro_defined(m)]
            if needs:
                unit = self._unit_macros(path) if unit is None else unit
                if not all(m in unit for m in needs):
                    continue
            kept.append(s)
        return kept

    def _unit_macros(self, path: str) -> frozenset[str]:
        return self._memoized((UNIT_MACROS, path), self._compute_unit_macros) or frozenset()

    def _compute_unit_macros(self, path: str) -> frozenset[str]:
        out = set(self.defines_of(path))
        seen, level = {path}, [path]
        for _ in range(_UNIT_DEPTH):
            nxt = []
            for p in level:
                named = {source.rsplit("/", 1)[-1] for _, source in self.include_sources(p)}
                for q in self._included_files(p):  # the files named, not their stems' sources
                    if q.rsplit("/", 1)[-1] in named and q not in seen and len(seen) < _UNIT_FILES:
                        seen.add(q)
                        nxt.append(q)
                        out |= self.defines_of(q)
            level = nxt
        return frozenset(out)

    def _file_namespaces(self, path: str) -> frozenset[str]:
        """Namespaces whose names a file sees unqualified (``SymbolIndex.namespaces``)."""
        return self._memoized((NAMESPACES, path), self.namespaces) or frozenset()

    def _import_value(self, path: str, bound: str, depth: int = 0) -> Found:
        return self._memoized((IMPORT, path, bound), self._compute_import, depth + 1)

    def _compute_import(self, path: str, bound: str, depth: int) -> Found:
        if depth > MAX_DEPTH:
            return self._cut()
        found = self.import_of(path, bound)
        if found is None:
            return None
        source, original = found
        return self.language_of(path).import_value(self, path, bound, source, original, depth)

    # --- what a language's import rule asks (languages.ImportContext) -----------------

    @staticmethod
    def module(files: Iterable[str]) -> Value:
        """The value of a module made of these files."""
        return Value(MODULE, tuple(files))

    def module_member(self, files: tuple[str, ...], name: str, depth: int = 0) -> Found:
        """``name`` in a module: a definition, a module-level variable, a re-export
        (an import in that module, ``export … from``, ``*``), or a submodule. Remembered:
        a package that re-exports its modules with ``*`` is walked once a name, not once
        a call site (transformers' ``models/__init__.py`` reaches 2,200 modules)."""
        return self._memoized((MEMBER, files, name), self._compute_member, depth + 1)

    def _compute_member(self, files: tuple[str, ...], name: str, depth: int) -> Found:
        if depth > MAX_DEPTH:
            return self._cut()
        for p in files:  # `module.exports = {stringify: stringify}`: what that name holds there
            var = self.language_of(p).exports_variable
            if var is not None and self.module_vars(p, f"{var}.{name}"):
                value = self._var_value(p, self.module_of(p) or "", f"{var}.{name}", depth + 1)
                if value is not None:
                    return value
        found = [s for p in files for s in self.top_level(p, name)]
        if found:
            return found
        for p in files:
            if self.module_vars(p, name):
                value = self._var_value(p, self.module_of(p) or "", name, depth + 1)
                if value is not None or not self.has_import(p, name):
                    return value
            if self.has_import(p, name):  # `var x = require('./x')`: the import's value
                return self._import_value(p, name, depth + 1)
        for p in files:
            for source in self.stars(p):
                modpath = self.language_of(p).star_module_path(source, p)
                if not modpath:
                    continue
                sub = self.module_files(modpath)
                if sub and tuple(sub) != files:
                    got = self.module_member(tuple(sub), name, depth + 1)
                    if got is not None:
                        return got
        if files and self.language_of(files[0]).is_package_entry(files[0]):
            sub = self.module_files(module_stem(files[0]) + "/" + name)
            if sub:
                return Value(MODULE, tuple(sub))
        exported = self.module_export(files, depth + 1)
        if exported is not None:  # `module.exports = app`: a member of that object
            members = [s for cid in exported.ids for s in self._lookup(cid, name, depth=depth + 1)[0]]
            if members:
                return members
        return None

    def module_export(self, files: tuple[str, ...], depth: int = 0) -> Value | None:
        """The object or class a module exports whole (``module.exports = app``,
        ``Language.exports_variable``), as a class value; None when it exports none."""
        for p in files:
            var = self.language_of(p).exports_variable
            module = self.module_of(p)
            if var is None or module is None or not self.module_vars(p, var):
                continue
            value = self._var_value(p, module, var, depth + 1)
            if value is not None and value.kind in (ValueKind.CLASS, ValueKind.INSTANCE):
                return Value(ValueKind.CLASS, value.ids)
        return None

    def module_callable(self, files: tuple[str, ...], depth: int = 0) -> Value | None:
        """What calling a module calls: the function it exports whole (``module.exports =
        function () {}``, as a function value), else the class of ``module_export``."""
        for p in files:
            var = self.language_of(p).exports_variable
            module = self.module_of(p)
            if var is None or module is None or not self.module_vars(p, var):
                continue
            value = self._var_value(p, module, var, depth + 1)
            if value is not None and value.kind is ValueKind.FUNCTION:
                return value
        return self.module_export(files, depth + 1)

    def qualified(self, dotted: str, language: Language) -> list[SymbolInfo]:
        """The definitions whose qualified name is (or ends with) this dotted name."""
        return self._qualified(dotted, language)

    def symbols_named(self, name: str) -> list[SymbolInfo]:
        """Every definition named ``name`` in the repository."""
        return list(self.named(name))

    def assigned_texts(self, path: str, name: str) -> list[str]:
        """The expressions assigned to a top-level variable of a file."""
        return [text for form, text in self.module_vars(path, name) if form is FactForm.ASSIGNED]

