"""What can go wrong with an index, as exceptions, and how a LanceDB error is told
apart from a bug: ``guarded`` turns damaged-data errors into ``IndexDamaged``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import pyarrow as pa

from ..errors import CodeloupeError


class StoreError(CodeloupeError, RuntimeError):
    """The index cannot be used as asked; the message says why and what to run."""


class IndexAbsent(StoreError):
    """A read-only command found no index."""


class IndexMismatch(StoreError):
    """A read-only command found an index built by another model, schema or text
    version: it is left as it is, and the message says what ``index`` will do."""


class IndexDamaged(StoreError):
    """A table of the index (or one of its indexes) cannot be read."""

    def __init__(self, uri: str, table: str, detail: str) -> None:
        super().__init__(f"the index at {uri} is damaged ({table}: {detail}); "
                         "`codeloupe index` repairs it, reusing what is intact")
        self.table = table
        self.detail = detail


class FullTextUnavailable(StoreError):
    """The full-text index is missing or unreadable (search goes on without it)."""


F = TypeVar("F", bound=Callable[..., Any])


_DATA_LIBRARIES = ("lancedb", "lance", "pyarrow")


def _raised_in_data_library(exc: BaseException) -> bool:
    """Did the exception come out of LanceDB / Lance / Arrow code (not ours)?"""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return False
    module = str(last.tb_frame.f_globals.get("__name__", ""))
    return module.split(".", 1)[0] in _DATA_LIBRARIES


def damage_detail(exc: BaseException) -> str | None:
    """The first line of an error that means damaged data: any error LanceDB, Lance
    or Arrow raise while reading or writing the tables (a missing, truncated or
    garbage file, an undecodable manifest, a Rust panic), and file errors; None for
    any other exception (a bug of ours is not damage)."""
    text = str(exc).strip()
    panic = type(exc).__name__ == "PanicException"  # pyo3's, a BaseException
    if panic or isinstance(exc, (pa.ArrowException, OSError)) or (
            isinstance(exc, (RuntimeError, ValueError)) and (
                _raised_in_data_library(exc) or "lance" in text.lower())):
        first = text.splitlines()[0] if text else type(exc).__name__
        return first[:200]
    return None


def is_failure(exc: BaseException) -> bool:
    """An error to handle (anything but an interrupt or an exit: a Rust panic from
    Lance is a BaseException too)."""
    return not isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit))


def guarded(table: str) -> Callable[[F], F]:
    """Turn the damaged-data errors of a method that reads ``table`` into ``IndexDamaged``."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def guarded_call(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return fn(self, *args, **kwargs)
            except (StoreError, KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # a Rust panic is a BaseException
                detail = damage_detail(exc)
                if detail is None:
                    raise
                raise IndexDamaged(self.uri, table, detail) from exc

        return guarded_call  # type: ignore[return-value]

    return wrap

