"""Filters built from escaped literals: a path with a quote cannot break out."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

IN_CHUNK = 400  # literals per IN (...) list


def sql_literal(value: str) -> str:
    """A SQL string literal: quotes doubled, so paths with quotes cannot break out."""
    return "'" + value.replace("'", "''") + "'"


def sql_in(column: str, values: Iterable[str]) -> str:
    """``column IN (...)`` of escaped literals; ``false`` when there are none (a long list
    goes in ``chunks``, one call each)."""
    vals = list(values)
    if not vals:
        return "false"
    return f"{column} IN ({', '.join(sql_literal(v) for v in vals)})"


def chunks(values: Sequence[str], size: int = IN_CHUNK) -> Iterator[Sequence[str]]:
    """Slices of at most ``size`` values: one ``IN`` list each."""
    for i in range(0, len(values), size):
        yield values[i : i + size]


@dataclass(frozen=True)
class SymbolFilter:
    """Which symbols a query may return (all of them by default)."""

    languages: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    paths: tuple[str, ...] | None = None  # None: any path; (): none

    def where(self) -> str | None:
        """The filter as a SQL predicate; None when it lets every symbol through."""
        clauses = []
        if self.languages:
            clauses.append(sql_in("language", self.languages))
        if self.kinds:
            clauses.append(sql_in("kind", self.kinds))
        if self.paths is not None:
            clauses.append(sql_in("path", self.paths))  # "false" when empty
        return " AND ".join(f"({c})" for c in clauses) if clauses else None



def is_local_uri(uri: str) -> bool:
    """A folder on this machine (a path or ``file://``), not object storage."""
    return "://" not in uri or uri.startswith("file://")
