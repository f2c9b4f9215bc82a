"""Tables of the standard libraries that the resolver applies to every language
alike (a value of unknown type may come from any of them)."""

from __future__ import annotations

import re

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

# Methods of an array / list that return one of the same elements again, or one element.
SAME_SEQUENCE_METHODS = frozenset({"filter", "slice", "concat", "sort", "reverse", "toSorted",
                                   "toReversed", "copy", "splice", "iter", "iter_mut", "into_iter",
                                   "drain"})
ONE_ELEMENT_METHODS = frozenset({"find", "findLast", "pop", "shift", "at", "get", "first", "last",
                                 "get_mut", "first_mut", "last_mut"})
# Methods of a mapping that return one of its values, its values, its (key, value) pairs.
MAPPING_VALUE_METHODS = frozenset({"get", "pop", "setdefault"})
MAPPING_VALUES_METHODS = frozenset({"values"})
MAPPING_PAIRS_METHODS = frozenset({"items"})

# A function expression as written, the value of an attribute a method sets
# (`this.parse = (a, b) => ...`, `x => ...`, `async function () {...}`, PHP `function () {}`):
# a call of that attribute calls it.
FUNCTION_EXPRESSION = re.compile(r"^(?:async\s+)?(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)")


def normal_type(text: str) -> str:
    """A type as written, compared: qualifiers and references dropped, spaces gone
    (``const char *`` → ``char*``, ``std::string const&`` → ``std::string``)."""
    words = [w for w in text.replace("*", " * ").replace("&", " ").split()
             if w not in ("const", "volatile", "struct", "class", "enum", "typename")]
    return "".join(words)


# built-in arithmetic types as ``normal_type`` writes them (C, C++): a literal of one
# converts to another, never to a pointer
ARITHMETIC_TYPES = frozenset({
    "bool", "char", "signedchar", "unsignedchar", "short", "unsignedshort", "int", "unsigned",
    "unsignedint", "long", "unsignedlong", "longlong", "unsignedlonglong", "longint", "float",
    "double", "longdouble", "size_t", "ssize_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t",
    "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t", "wchar_t", "char16_t",
    "char32_t",
})
