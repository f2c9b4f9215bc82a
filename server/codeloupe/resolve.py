"""Pure helpers of call resolution (``codeloupe.graph``): reading type annotations and
receiver expressions as written, module paths, and what each language provides
without a definition in the repository (builtins, standard types)."""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterator
from functools import lru_cache

PY_BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_")) | {"__import__"}

# Callables every program of the language has: calling them is not a call into the repo.
BUILTIN_CALLS: dict[str, frozenset[str]] = {
    "python": PY_BUILTINS,
    "javascript": frozenset({
        "require", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate",
        "parseInt", "parseFloat", "isNaN", "isFinite", "String", "Number", "Boolean", "Array",
        "Object", "Symbol", "Error", "TypeError", "RangeError", "Promise", "Map", "Set",
        "WeakMap", "WeakSet", "Date", "RegExp", "JSON", "encodeURIComponent", "decodeURIComponent",
        "encodeURI", "decodeURI", "queueMicrotask", "structuredClone", "fetch", "BigInt",
        "Proxy", "Reflect", "eval", "URL", "URLSearchParams", "AbortController", "Buffer",
    }),
    "go": frozenset({
        "len", "cap", "make", "new", "append", "copy", "delete", "panic", "recover", "print",
        "println", "close", "complex", "real", "imag", "min", "max", "clear", "string", "int",
        "int64", "int32", "uint", "uint64", "uint32", "byte", "rune", "float64", "float32",
        "bool", "error", "uintptr",
    }),
}
BUILTIN_CALLS["typescript"] = BUILTIN_CALLS["tsx"] = BUILTIN_CALLS["javascript"]

# Type names that are never a repository class: a value of such a type has no
# repository methods.
EXTERNAL_TYPES = frozenset({
    # python
    "str", "int", "float", "bool", "bytes", "bytearray", "dict", "list", "set", "frozenset",
    "tuple", "object", "type", "None", "complex", "memoryview", "range", "slice",
    "Any", "Dict", "List", "Set", "FrozenSet", "Tuple", "Type", "Callable", "Iterable",
    "Iterator", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator", "Mapping",
    "MutableMapping", "Sequence", "MutableSequence", "Awaitable", "Coroutine", "NoReturn",
    "Literal", "TypeVar", "IO", "TextIO", "BinaryIO", "Pattern", "Match", "OrderedDict",
    "DefaultDict", "Counter", "Deque", "ClassVar", "Final", "bytes_", "Never",
    # javascript / typescript
    "string", "number", "boolean", "any", "unknown", "void", "never", "undefined", "null",
    "bigint", "symbol", "Array", "Promise", "Map", "WeakMap", "Record", "Partial",
    "Readonly", "ReadonlyArray", "Function", "Error", "Date", "RegExp", "Object", "String",
    "Number", "Boolean", "Uint8Array", "Buffer",
    # java / c#
    "Integer", "Long", "Double", "Float", "Short", "Byte", "Character", "char", "long",
    "double", "short", "byte", "var", "ArrayList", "HashMap", "Optional", "Stream",
    "Collection", "Exception", "RuntimeException", "StringBuilder", "Class",
    # go
    "error", "rune", "uint", "uint64", "uint32", "int64", "int32", "float64", "float32",
    "uintptr", "interface{}", "context.Context",
    # rust
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
    "f32", "f64", "Vec", "Option", "Result", "Box", "Rc", "Arc", "HashSet",
    "BTreeMap", "BTreeSet", "VecDeque", "RefCell", "Cell", "Mutex", "RwLock",
    # c / c++ / c#
    "unsigned", "signed", "size_t", "ssize_t", "int8_t", "int16_t", "int32_t", "int64_t",
    "uint8_t", "uint16_t", "uint32_t", "uint64_t", "decimal", "sbyte", "ushort", "ulong",
    # php
    "array", "mixed", "iterable", "callable", "DateTime", "DateTimeImmutable",
})

# Method names of the standard types of the languages (dict, list, str, bytes, files,
# sockets, streams, promises, arrays, maps): a call of one on a value of unknown type
# is as likely theirs as the repository's.
COMMON_METHODS = frozenset("""
get set items keys values update pop popitem setdefault clear copy append extend insert
remove index count sort reverse add discard union intersection difference join split
rsplit strip lstrip rstrip startswith endswith format encode decode lower upper replace
find rfind read readline readlines write writelines close flush seek tell open send recv
sendall connect bind listen accept settimeout fileno next send throw then catch finally
map filter reduce forEach push shift unshift slice splice concat includes indexOf has
delete entries toString valueOf apply call emit on once off listen match test exec
search trim padStart padEnd charAt substring toLowerCase toUpperCase run start stop wait
result done cancel acquire release put info debug warning error exception critical log
isoformat total_seconds group groups span fetch json text render
""".split())

# `Optional[X]`-like wrappers: the type of a value is the wrapped one.
_WRAPPERS = frozenset({"Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired",
                       "ReadOnly", "Readonly", "Ptr"})
_NONE_TYPES = frozenset({"None", "null", "undefined", "nil", "NoneType"})
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_DOTTED = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$")
# wrappers of wrappers read through (``Optional[Annotated[...]]``): a bound on the
# recursion over a text that may come from any file
_MAX_NESTING = 32
LITERAL_START = tuple('"\'`0123456789[{-') + ("f'", 'f"', "b'", 'b"', "r'", 'r"', "lambda ", "not ")


def _top_level(text: str, opens: str = "([{", closes: str = ")]}") -> Iterator[int]:
    """Indexes of the characters of ``text`` outside quotes and brackets."""
    depth = 0
    quote = ""
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        elif c in opens:
            depth += 1
        elif c in closes:
            depth = max(0, depth - 1)
        elif depth == 0:
            yield i
        i += 1


def split_top(text: str, sep: str) -> list[str]:
    """Split at ``sep`` outside brackets and quotes (and angle brackets, when
    splitting a union or a list of types)."""
    angle = sep in ("|", ",")
    parts: list[str] = []
    start = 0
    for i in _top_level(text, "([{<" if angle else "([{", ")]}>" if angle else ")]}"):
        if i >= start and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
    parts.append(text[start:])
    return parts


@lru_cache(maxsize=65536)
def type_name(text: str, _depth: int = 0) -> str | None:
    """The class a value annotated ``text`` is an instance of, as a dotted name:
    ``Optional[Foo]``, ``Foo | None``, ``"Foo"``, ``*pkg.Foo``, ``Foo<T>``, ``List[Foo]``
    → ``Foo`` for all but the last (a container: ``List``). None past ``_MAX_NESTING``
    wrappers (``Optional[Optional[...]]``)."""
    t = text.strip().strip("\"'").strip()
    if not t or _depth > _MAX_NESTING:
        return None
    for prefix in ("readonly ", "const ", "final ", "*", "&", "?", "mut ", "dyn ", "impl ", "\\"):
        while t.startswith(prefix):
            t = t[len(prefix):].strip()
    t = t.rstrip("*& ").strip()  # C++ `Foo*`, `Foo&`
    if t.startswith("(") and _matching(t) == len(t) - 1:
        if len(split_top(t[1:-1], "|")) > 1:  # JSDoc: {(Option | Argument)}
            return type_name(t[1:-1], _depth + 1)
    if t.startswith("(") and t.endswith(")"):  # Go: (T, error)
        first = split_top(t[1:-1], ",")[0].strip()
        parts = first.split()
        return type_name(parts[-1], _depth + 1) if parts else None
    alts = [a.strip() for a in split_top(t, "|")]
    alts = [a for a in alts if a and a not in _NONE_TYPES]
    if len(alts) != 1:
        return None
    t = alts[0].rstrip("?").strip()
    m = re.match(r"^([\w$.]+)\s*[\[<]", t)
    if m:
        head = m.group(1)
        inner = t[len(m.group(0)):].rstrip("]> ")
        short = head.rsplit(".", 1)[-1]
        if short in _WRAPPERS:
            return type_name(split_top(inner, ",")[0], _depth + 1)
        if short == "Union":
            args = [a.strip() for a in split_top(inner, ",") if a.strip() not in _NONE_TYPES]
            return type_name(args[0], _depth + 1) if len(args) == 1 else None
        return head
    t = t.replace("::", ".").replace("\\", ".")  # C++ / Rust `a::B`, PHP `A\B`
    return t if _DOTTED.match(t) else None


def union_members(text: str) -> list[str]:
    """The members of a union type as written: ``A | B``, ``(A | B)``, JSDoc's nullable
    ``?(A|B)``, the string annotation ``"A | B"``; each shorter than the text. Empty when
    the text is not a union at its top level (a union inside other brackets:
    ``[A | B]``, ``{ a: A | null }``, ``(x) => x is { [k: A | B]: C }``)."""
    t = text.strip()
    for _ in range(2):  # as written, then inside the quotes of a string annotation
        t = t.lstrip("?!").strip()
        while t.startswith("(") and _matching(t) == len(t) - 1:
            t = t[1:-1].strip()
        alts = split_top(t, "|")
        if len(alts) > 1:
            return [a.strip() for a in alts if a.strip()]
        if not (len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'"):
            break
        t = t[1:-1].strip()
    return []


_SEQUENCES = frozenset({"Array", "ReadonlyArray", "Set", "ReadonlySet", "List", "list", "Sequence",
                        "MutableSequence", "Iterable", "Iterator", "Collection", "set", "frozenset",
                        "AbstractSet", "MutableSet", "Generator", "AsyncIterator", "AsyncIterable",
                        "Deque", "deque", "ArrayList", "LinkedList", "IEnumerable", "IList", "Vec"})


@lru_cache(maxsize=65536)
def element_name(text: str, _depth: int = 0) -> str | None:
    """The element type of a sequence type as written: ``Option[]``, ``Array<Option>``,
    ``List[Option]``, ``Optional[list[Option]]``, ``[]*Option`` → ``Option``; None past
    ``_MAX_NESTING`` wrappers."""
    if _depth > _MAX_NESTING:
        return None
    t = text.strip().strip("\"'").strip()
    alts = [a.strip() for a in split_top(t.strip("()"), "|")]
    alts = [a for a in alts if a and a not in _NONE_TYPES]
    if len(alts) != 1:
        return None
    t = alts[0]
    if t.endswith("[]"):
        return t[:-2].strip().strip("()") or None
    if t.startswith("[]"):
        return t[2:].lstrip("*").strip() or None
    m = re.match(r"^([\w$.]+)\s*[\[<](.*)[\]>]$", t)
    if not m:
        return None
    head, inner = m.group(1).rsplit(".", 1)[-1], m.group(2)
    if head in _WRAPPERS:
        return element_name(split_top(inner, ",")[0], _depth + 1)
    if head in _SEQUENCES or head == "tuple" and inner.rstrip().endswith("..."):
        return split_top(inner, ",")[0].strip() or None
    return None


@lru_cache(maxsize=65536)
def receiver_parts(expr: str) -> list[str]:
    """``self.pool.get(x).conn`` → ``["self", "pool", "get()", "conn"]``; a call keeps
    ``()`` with its arguments dropped, a subscript after a name or a call is a part
    ``[]`` (``xs.slice(-1)[0]`` → ``["xs", "slice()", "[]"]``; a slice ``xs[1:]``:
    ``[:]``). Empty when the expression is not a chain of names, calls and subscripts
    (a literal, an operator expression)."""
    e = expr.strip()
    for prefix in ("await ", "new ", "yield "):
        if e.startswith(prefix):
            e = e[len(prefix):].strip()
    e = e.replace("?.", ".").replace("::", ".").replace("->", ".").lstrip("&*")
    if "\\" in e.split("(", 1)[0]:  # PHP `\App\Net\Client(...)`: a namespace path
        head, paren, rest = e.partition("(")
        e = head.replace("\\", ".").lstrip(".") + paren + rest
    if e.startswith("mut "):  # Rust `&mut x`
        e = e[4:].strip()
    if e.startswith("@") and not e.startswith("@@"):  # Ruby `@x`: the instance's attribute
        e = "self." + e[1:]
    if e.startswith("(") and e.endswith(")") and len(split_top(e, ".")) == 1:
        e = e[1:-1].strip()
    out: list[str] = []
    for part in split_top(e, "."):
        part = part.strip()
        m = _IDENT.match(part)
        if not m:
            return []
        rest = part[m.end():].strip()
        if rest.startswith("<"):  # generic arguments: new Map<K, V>()
            close = rest.find(">")
            rest = rest[close + 1:].strip() if close != -1 else ""
        rest = rest.rstrip()
        if not rest:
            out.append(m.group(0))
            continue
        name = m.group(0)
        if rest.startswith("(") or rest.startswith("{"):
            # f(...) / Go composite literal T{...}: one call (its text may be cut
            # short), then subscripts only
            name += "()"
            rest = rest[_matching(rest) + 1:].strip()
        out.append(name)
        while rest:  # xs[0], f()[i][j]
            if not rest.startswith("["):
                return []
            end = _matching(rest)
            if end >= len(rest):
                return []
            inner = rest[1:end]
            # a Python slice (xs[1:]) is a sequence again; an index, one element
            out.append("[:]" if len(split_top(inner, ":")) > 1 and "?" not in inner else "[]")
            rest = rest[end + 1:].strip()
    return out


def ternary_branches(text: str) -> tuple[str, str] | None:
    """``c ? a : b`` → ``("a", "b")`` (outside brackets and quotes; ``?.`` and ``??``
    are not a ternary); None when the expression is not one."""
    question = -1
    nested = 0
    skip = 0
    for i in _top_level(text):
        if i < skip:
            continue
        c = text[i]
        if c == "?":
            if text.startswith("?.", i) and not text[i + 2:i + 3].isdigit() or text.startswith("??", i):
                skip = i + 2
                continue
            if question < 0:
                question = i
            else:
                nested += 1
        elif c == ":" and question >= 0:
            if nested:
                nested -= 1
            else:
                a, b = text[question + 1:i].strip(), text[i + 1:].strip()
                return (a, b) if a and b else None
    return None


def _matching(text: str) -> int:
    """Index of the bracket closing the one ``text`` starts with (the end when cut short)."""
    depth = 0
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


def module_stem(path: str) -> str:
    """``pkg/x.py`` → ``pkg/x``; ``pkg/__init__.py`` / ``src/index.ts`` → ``pkg`` / ``src``."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    if stem.endswith("/__init__") or stem.endswith("/index") or stem.endswith("/mod"):
        stem = stem.rsplit("/", 1)[0]
    elif stem in ("__init__", "index"):
        stem = ""
    return stem


def python_module_path(source: str, path: str) -> str:
    """The slash path of the module an import names, relative imports resolved against
    the importing file ``path`` (``..x.y`` from ``pkg/sub/a.py`` → ``pkg/x/y``); absolute
    names stay dotted-to-slashed (``a.b`` → ``a/b``)."""
    if not source.startswith("."):
        return source.replace(".", "/")
    dots = len(source) - len(source.lstrip("."))
    rest = source[dots:]
    pkg = path.rsplit("/", 1)[0] if "/" in path else ""
    for _ in range(dots - 1):
        pkg = pkg.rsplit("/", 1)[0] if "/" in pkg else ""
    tail = rest.replace(".", "/")
    return f"{pkg}/{tail}".strip("/") if tail else pkg


def js_module_path(source: str, path: str) -> str | None:
    """``./x`` / ``../lib/y.js`` from ``src/a.ts`` → ``src/x`` / ``lib/y``; a bare package
    name (``react``) → None (outside the repository)."""
    if not source.startswith("."):
        return None
    base = path.rsplit("/", 1)[0].split("/") if "/" in path else []
    for part in source.split("/"):
        if part in (".", ""):
            continue
        if part == "..":
            if base:
                base.pop()
        else:
            base.append(part)
    out = "/".join(base)
    out = re.sub(r"\.(m?[jt]sx?|cjs|cts|mts)$", "", out)
    if out.endswith("/index"):
        out = out[: -len("/index")]
    return out
