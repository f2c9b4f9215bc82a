"""Pure helpers of call resolution (``codeloupe.graph``): reading type annotations and
receiver expressions as written, in the notations of every language."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

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


def folder(path: str) -> str:
    """A file's folder ("" at the top of the repository)."""
    return path.rsplit("/", 1)[0] if "/" in path else ""


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
            if prefix == "&" and t.startswith("'"):  # Rust `&'a T`: a lifetime
                t = t.split(None, 1)[1] if " " in t else ""
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


def generic_args(text: str) -> tuple[str, list[str]] | None:
    """``Result<Self, io::Error>`` → ``("Result", ["Self", "io::Error"])`` (a reference
    ``&`` before it dropped); None when the text is not a generic type."""
    t = text.strip().lstrip("&").strip()
    if t.startswith("mut "):
        t = t[4:].strip()
    m = re.match(r"^([\w$.:]+)\s*<(.*)>$", t)
    if not m:
        return None
    args = [a.strip() for a in split_top(m.group(2), ",")]
    return m.group(1).rsplit(":", 1)[-1].rsplit(".", 1)[-1], [a for a in args if a]


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


_ASSERTION = re.compile(r"\.\(\s*(\*?[A-Za-z_][\w.]*)\s*\)$")


def asserted_type(text: str) -> str | None:
    """The type a Go type assertion ends in (``f.Value.(SliceValue)`` → ``SliceValue``);
    None for any other text, and for a type switch's ``x.(type)``."""
    found = _ASSERTION.search(text)
    return found.group(1) if found is not None and found.group(1) != "type" else None


@lru_cache(maxsize=65536)
def receiver_parts(expr: str) -> list[str]:
    """``self.pool.get(x).conn`` → ``["self", "pool", "get()", "conn"]``; a call keeps
    ``()`` with its arguments dropped, a subscript after a name or a call is a part
    ``[]`` (``xs.slice(-1)[0]`` → ``["xs", "slice()", "[]"]``; a slice ``xs[1:]``:
    ``[:]``), a postfix ``?`` is a part ``?`` (Rust's ``open()?``, JavaScript's
    ``a?.b``: the value opened, or the same value). Empty when the expression is not a chain of names, calls and subscripts
    (a literal, an operator expression)."""
    e = expr.strip()
    for prefix in ("await ", "new ", "yield "):
        if e.startswith(prefix):
            e = e[len(prefix):].strip()
    if e.startswith("::"):  # Ruby `::Addressable::IDNA`, C++ `::ns::f`: from the top, the same names
        e = e[2:]
    e = e.replace("::", ".").replace("->", ".").lstrip("&*")
    if "\\" in e.split("(", 1)[0]:  # PHP `\App\Net\Client(...)`: a namespace path
        head, paren, rest = e.partition("(")
        e = head.replace("\\", ".").lstrip(".") + paren + rest
    if e.startswith("mut "):  # Rust `&mut x`
        e = e[4:].strip()
    if e.startswith("@") and not e.startswith("@@"):  # Ruby `@x`: the instance's attribute
        e = "self." + e[1:]
    if e.startswith("(") and e.endswith(")") and len(split_top(e, ".")) == 1:
        e = e[1:-1].strip().lstrip("&*")  # Rust `(**self)`: the value behind the references
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
        while rest:  # xs[0], f()[i][j], f()?
            if rest.startswith("?"):
                out.append("?")
                rest = rest[1:].strip()
                continue
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


def container_literal(text: str) -> tuple[bool, list[str], bool] | None:
    """``[a, b]``, ``{a}``, ``{k: v}``, ``[E for x in xs]``, ``(E for x in xs)`` →
    (whether it is a mapping, its elements (a mapping's values) as written, whether it
    is a comprehension); a comprehension's element is left out when it starts with a
    name the comprehension binds (``[x.y for x in xs]``: not a value of this scope). None when ``text`` is no
    such literal (a tuple, a parenthesized expression, ``[a][0]``). A literal cut short
    keeps its complete elements."""
    t = text.strip()
    if not t or t[0] not in "[{(":
        return None
    end = _matching(t)
    if end < len(t) - 1:  # something follows the literal
        return None
    inner = t[1:end]
    clauses = split_top(inner.replace("\n", " "), " for ")
    if len(clauses) > 1:
        bound = {n.strip(" ()") for c in clauses[1:] for n in split_top(c, " in ")[0].split(",")}
        elements = [clauses[0]]
    elif t[0] == "(":
        return None
    else:
        elements = split_top(inner, ",")
        if end >= len(t):
            elements = elements[:-1]
        bound = set()
    elements = [e.strip() for e in elements if e.strip() and not e.strip().startswith("*")]
    mapping = t[0] == "{" and bool(elements) and len(split_top(elements[0], ":")) > 1
    if mapping:
        elements = [":".join(split_top(e, ":")[1:]).strip() for e in elements]
    if bound:
        head = receiver_parts(elements[0]) if elements else []
        if not head or head[0].removesuffix("()") in bound:
            elements = []
    return mapping, elements, len(clauses) > 1


def inline_branches(text: str) -> tuple[str, str] | None:
    """``a if c else b`` → ``("a", "b")`` (outside brackets and quotes); None when the
    expression is not one."""
    t = text.replace("\n", " ")
    parts = split_top(t, " if ")
    if len(parts) < 2:
        return None
    rest = split_top(" if ".join(parts[1:]), " else ")
    if len(rest) < 2:
        return None
    a, b = parts[0].strip(), " else ".join(rest[1:]).strip()
    return (a, b) if a and b else None
