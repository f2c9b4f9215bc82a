"""Rust: ``use`` paths (``crate::``, ``self::``, ``super::``), ``mod`` files, ``impl``
blocks of a type anywhere in the crate, ``Self``."""

from __future__ import annotations

from typing import Any

from .base import ImportContext, Language, MethodsApart, use_path

# the standard macros (a call of one is named `name!`: never a repository function)
STD_MACROS = frozenset(f"{m}!" for m in """
assert assert_eq assert_ne debug_assert debug_assert_eq debug_assert_ne write writeln print
println eprint eprintln format format_args vec panic todo unimplemented unreachable matches dbg
concat stringify include include_str include_bytes env option_env cfg line column file
module_path compile_error thread_local
""".split())


_STD_CRATES = frozenset({"std", "core", "alloc", "test", "proc_macro"})
# folders whose files are crates of their own, each depending on the library (Cargo's
# layout): `src/` never calls into them, nor one of them into another
_OWN_CRATES = frozenset({"benches", "tests", "examples"})


def _crate(path: str) -> tuple[str, bool] | None:
    """The crate folder a file is in and whether it is one file's crate (``benches/a.rs``)
    rather than a module the crates there share (``tests/common/mod.rs``); None in the
    library."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        if part in _OWN_CRATES:
            folder = "/".join(parts[:i + 1])
            return (f"{folder}/{parts[i + 1].removesuffix('.rs')}", True) if i + 2 == len(parts) else (folder, False)
    return None


def _crate_dir(path: str) -> str:
    """The folder the modules of a file's crate hang from (``crate::a`` is ``<it>/a``):
    ``tests`` for ``tests/a.rs`` and the modules the test crates share, else the
    library's ``src``."""
    crate = _crate(path)
    if crate is not None:
        return crate[0].rsplit("/", 1)[0] if crate[1] else crate[0]
    at = path.rfind("/src/")
    return path[:at + 4] if at >= 0 else "src" if path.startswith("src/") else ""


def _module_dir(path: str) -> str:
    """The folder a file's own submodules live in (``mod util;`` in it names
    ``<it>/util``): a ``mod.rs``'s or a crate root's folder, else the file's stem."""
    stem = path.removesuffix(".rs")
    folder, _, name = stem.rpartition("/")
    crate = _crate(path)
    if name == "mod" or crate is not None and crate[1] or crate is None and name in ("lib", "main") \
            and folder == _crate_dir(path):
        return folder
    return stem


def module_at(source: str, path: str) -> str | None:
    """The slash path a ``use`` path names from the file ``path`` (``crate::util`` from
    ``tests/a.rs`` → ``tests/util``; ``self::x``, ``super::x``; a one-name path, as
    ``mod util;`` binds it, beside the file); None for a path from another crate."""
    parts = [p for p in source.replace(".", "::").split("::") if p]
    if not parts:
        return None
    if parts[0] == "crate":
        base, parts = _crate_dir(path), parts[1:]
    elif parts[0] in ("self", "super"):
        base = _module_dir(path)
        if parts[0] == "self":
            parts = parts[1:]
        while parts and parts[0] == "super":
            base, parts = base.rpartition("/")[0], parts[1:]
    elif len(parts) == 1:
        base = _module_dir(path)
    else:
        return None
    return "/".join(p for p in (base, *parts) if p)


class Rust(Language):
    """Rust."""

    # `self.advance(1)` in a trait's default method runs each impl's `advance`
    self_dispatch = True

    name = grammar = "rust"
    extensions = (".rs",)
    aliases = ("rs",)
    entry_stem = "mod"  # a crate's root module is lib.rs / main.rs: no mod.rs at the top
    instance_names = frozenset({"self"})
    class_names = frozenset({"Self"})
    methods_apart = MethodsApart.ANYWHERE
    impl_blocks = True
    namespaced = True
    path_roots = frozenset({"crate", "self", "super"})
    macro_invocation_node = "macro_invocation"
    token_tree_node = "token_tree"
    builtin_calls = STD_MACROS
    external_types = frozenset({
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64", "Vec", "Option", "Result", "Box", "Rc", "Arc", "HashSet",
        "BTreeMap", "BTreeSet", "VecDeque", "RefCell", "Cell", "Mutex", "RwLock",
        "String", "str", "char", "bool", "HashMap", "BinaryHeap", "LinkedList", "Cow", "Weak",
        "Path", "PathBuf", "OsStr", "OsString", "Duration", "Instant", "Formatter", "Ordering",
        "MaybeUninit", "NonNull", "PhantomData", "ManuallyDrop", "Layout",
    })

    bounded_type_parameters = True
    wrapper_types = frozenset({"Option", "Result"})
    unwrap_methods = frozenset({"unwrap", "expect", "unwrap_or", "unwrap_or_default", "unwrap_or_else",
                                "unwrap_unchecked"})
    wrapper_same_methods = frozenset({"as_ref", "as_mut", "as_deref", "as_deref_mut", "clone", "cloned",
                                      "copied", "take", "ok", "or", "or_else", "map_err", "filter", "replace"})
    pointer_types = frozenset({"Box", "Rc", "Arc"})

    def sees(self, path: str, target_path: str) -> bool:
        """The library is seen from everywhere; a bench, test or example crate only from
        itself (and a module its folder's crates share, from each of them)."""
        target = _crate(target_path)
        if target is None:
            return True
        caller = _crate(path)
        if caller is None:
            return False
        if target[1]:
            return caller[0] == target[0]
        return caller[0] == target[0] or caller[0].startswith(target[0] + "/")

    def import_value(self, ctx: ImportContext, path: str, bound: str, source: str,
                     original: str, depth: int) -> Any:
        """``use`` paths first (``_use``), else the default: definitions of the name in
        files whose path looks like the source."""
        found = self._relative_use(ctx, path, source, original, depth + 1)
        if found is None:
            found = self._use(ctx, source, original, depth + 1)
        if found is None and _crate(path) is not None:
            found = self._library_use(ctx, source, original, depth + 1)
        if found is not None:
            return found
        return super().import_value(ctx, path, bound, source, original, depth)

    def star_module_path(self, source: str, path: str) -> str | None:
        """``use crate::util::*``: the module that path names from the file."""
        return module_at(source, path)

    def _relative_use(self, ctx: ImportContext, path: str, source: str, original: str, depth: int) -> Any:
        """A path from this crate's root, this module or its parent (``crate::``,
        ``self::``, ``super::``, a ``mod util;`` binding) where it names a file of the
        repository exactly: the item of that module, else the module; None to look
        further (``_use``)."""
        full = module_at("::".join(use_path(source, original)), path)
        if full is None:
            return None
        head, _, last = full.rpartition("/")
        files = ctx.module_files(head, exact=True) if head else []
        if files:
            found = ctx.module_member(tuple(files), last, depth + 1)
            if found is not None:
                return found
        files = ctx.module_files(full, exact=True)
        return ctx.module(files) if files else None

    def _library_use(self, ctx: ImportContext, source: str, original: str, depth: int) -> Any:
        """A bench, test or example crate names the library by its crate name (``use
        bytes::{BufMut, BytesMut}`` in benches/): the path from the library's root, as
        ``crate::`` would name it there; only the library's items."""
        parts = use_path(source, original)
        if len(parts) < 2 or parts[0] in self.path_roots or parts[0] in _STD_CRATES:
            return None
        found = self._use(ctx, "crate::" + "::".join(parts[1:]), parts[-1], depth)
        if isinstance(found, list):
            return [s for s in found if _crate(s.path) is None] or None
        return found

    def _use(self, ctx: ImportContext, source: str, original: str, depth: int) -> Any:
        """``use a::b::C`` / ``use a::{b::C as D}``: the item ``C`` of the module file
        ``a/b``, else the module ``a/b/C`` itself, else the definitions of that
        qualified name."""
        parts = use_path(source, original)
        while parts and parts[0] in self.path_roots:
            parts = parts[1:]
        if not parts:
            return None
        if len(parts) > 1:
            files = ctx.module_files("/".join(parts[:-1]))
            if files:
                found = ctx.module_member(tuple(files), parts[-1], depth + 1)
                if found is not None:
                    return found
        files = ctx.module_files("/".join(parts))
        if files:
            return ctx.module(files)
        return ctx.qualified(".".join(parts), self) or None


RUST = Rust()
