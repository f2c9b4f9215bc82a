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
        found = self._use(ctx, source, original, depth + 1)
        if found is None and _crate(path) is not None:
            found = self._library_use(ctx, source, original, depth + 1)
        if found is not None:
            return found
        return super().import_value(ctx, path, bound, source, original, depth)

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
