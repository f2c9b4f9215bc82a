"""JSDoc types as resolution facts: ``@param {Option} option``, ``@returns {Help}``,
``/** @type {T} */`` above a field or variable."""

from __future__ import annotations

import re

from ..model import FUNCTION_KINDS, Reference, Symbol

JSDOC_TYPE = re.compile(r"@type\s+\{([^}]+)\}")
_JSDOC_PARAM = re.compile(r"@(?:param|arg|argument)\s+\{([^}]+)\}\s+\[?([A-Za-z_$][\w$]*)")
_JSDOC_RETURNS = re.compile(r"@returns?\s+\{([^}]+)\}")


def jsdoc_facts(symbols: list[Symbol], path: str, limit: int) -> list[Reference]:
    """``typed`` facts of the parameters and a ``returns`` fact of each function whose
    doc declares them (types cut to ``limit`` characters)."""
    out: list[Reference] = []
    for s in symbols:
        if s.kind not in FUNCTION_KINDS or "@" not in s.doc:
            continue
        for type_text, name in _JSDOC_PARAM.findall(s.doc):
            out.append(Reference(path, "typed", name, "", 0, 0, s.id, type_text.strip()[:limit]))
        m = _JSDOC_RETURNS.search(s.doc)
        if m:
            out.append(Reference(path, "returns", m.group(1).strip()[:limit], "", 0, 0, s.id))
    return out
