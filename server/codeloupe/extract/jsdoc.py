"""Doc comments' types as resolution facts. JSDoc: ``@param {Option} option``,
``@returns {Help}``, ``/** @type {T} */`` above a field or variable. PHPDoc:
``@param HandlerInterface $handler``, ``@return Response``, ``/** @var HandlerInterface[] */``
above a property (older PHP declares its types only there)."""

from __future__ import annotations

import re

from ..model import FUNCTION_KINDS, Reference, Symbol

JSDOC_TYPE = re.compile(r"@type\s+\{([^}]+)\}")
_JSDOC_PARAM = re.compile(r"@(?:param|arg|argument)\s+\{([^}]+)\}\s+\[?([A-Za-z_$][\w$]*)")
_JSDOC_RETURNS = re.compile(r"@returns?\s+\{([^}]+)\}")
# PHPDoc: a type is written bare (`HandlerInterface[]`, `?Foo`, `A|B|null`, `\Ns\C`)
_PHP_TYPE = r"(\??[\\\w][\\\w|\[\]<>,?]*)"
PHPDOC_VAR = re.compile(r"@var\s+" + _PHP_TYPE)
_PHPDOC_PARAM = re.compile(r"@param\s+" + _PHP_TYPE + r"\s+(?:\.\.\.)?&?(\$\w+)")
_PHPDOC_RETURN = re.compile(r"@return\s+" + _PHP_TYPE)


def doc_type(comment: str) -> str | None:
    """The type a doc comment above a field or variable gives it (``@type {T}``, ``@var T``)."""
    found = JSDOC_TYPE.search(comment) or PHPDOC_VAR.search(comment)
    return found.group(1).strip().lstrip("\\") if found is not None else None


def jsdoc_facts(symbols: list[Symbol], path: str, limit: int, php: bool = False) -> list[Reference]:
    """``typed`` facts of the parameters and a ``returns`` fact of each function whose
    doc declares them (types cut to ``limit`` characters); PHPDoc's with ``php``."""
    params, returns = (_PHPDOC_PARAM, _PHPDOC_RETURN) if php else (_JSDOC_PARAM, _JSDOC_RETURNS)
    out: list[Reference] = []
    for s in symbols:
        if s.kind not in FUNCTION_KINDS or "@" not in s.doc:
            continue
        for type_text, name in params.findall(s.doc):
            out.append(Reference(path, "typed", name, "", 0, 0, s.id, type_text.strip().lstrip("\\")[:limit]))
        m = returns.search(s.doc)
        if m:
            out.append(Reference(path, "returns", m.group(1).strip().lstrip("\\")[:limit], "", 0, 0, s.id))
    return out
