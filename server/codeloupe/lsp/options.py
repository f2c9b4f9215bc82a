"""Typed settings of the server and arguments of its commands.

Every field has a default; names are camelCase on the wire. Options are read
leniently: a bad value falls back to its default and the problem is reported by
name. Command arguments are read strictly: a bad value is an error naming it.
"""

from __future__ import annotations

import dataclasses
import logging
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import cattrs

from ..config import Settings
from ..embed import BACKENDS, EmbeddingError
from ..embed.device import resolve_device
from ..graph import DEFAULT_MIN_CONFIDENCE
from ..scan import DEFAULT_MAX_BYTES
from .pygls_compat.protocol import shown

T = TypeVar("T")

LOG_LEVELS = ("error", "warning", "info", "debug")


class OptionError(ValueError):
    """A bad option or command argument; the message says what it must be."""


def camel(name: str) -> str:
    """A field's wire name: ``max_file_bytes`` → ``maxFileBytes``."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _strict_int(value: Any, _type: type) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(f"must be an integer, got {shown(value)}")
    return value


def _strict_bool(value: Any, _type: type) -> bool:
    if not isinstance(value, bool):
        raise OptionError(f"must be true or false, got {shown(value)}")
    return value


def _strict_float(value: Any, _type: type) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise OptionError(f"must be a number, got {shown(value)}")
    try:
        return float(value)
    except OverflowError:  # an integer past the largest float
        raise OptionError(f"must be a number in range, got {shown(value)}") from None


def _unicode(value: str) -> str:
    """``value``, when it can be written as UTF-8: JSON lets a string hold half of a
    surrogate pair (``"\\ud800"``), which no encoder, index or model takes."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise OptionError(f"must be valid Unicode text, got a lone surrogate "
                          f"(U+{ord(value[exc.start]):04X}) at character {exc.start}") from None
    return value


def _strict_str(value: Any, _type: type) -> str:
    if not isinstance(value, str):
        raise OptionError(f"must be a string, got {shown(value)}")
    return _unicode(value)


def _strict_list(value: Any, _type: type) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise OptionError(f"must be a list of strings, got {shown(value)}")
    return [_unicode(v) for v in value]


def make_converter() -> cattrs.Converter:
    """A cattrs converter that coerces no scalar: a value of the wrong JSON type (``"5"``
    for an integer, ``1`` for a boolean) is an OptionError."""
    conv = cattrs.Converter()
    conv.register_structure_hook(int, _strict_int)
    conv.register_structure_hook(bool, _strict_bool)
    conv.register_structure_hook(float, _strict_float)
    conv.register_structure_hook(str, _strict_str)
    conv.register_structure_hook_func(lambda t: t == list[str], _strict_list)
    return conv


CONVERTER = make_converter()


def _field_value(f: dataclasses.Field, hint: Any, raw: Any) -> Any:
    try:
        value = CONVERTER.structure(raw, hint)
    except OptionError:
        raise
    except Exception as exc:  # cattrs' own errors (a union that matched nothing)
        raise OptionError(f"must be {_describe(hint)}, got {shown(raw)}") from exc
    check = f.metadata.get("check")
    if check is not None:
        check(value)
    return value


def _describe(hint: Any) -> str:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if args:
        return " or ".join(_describe(a) for a in args) + " or null"
    return {int: "an integer", float: "a number", str: "a string", bool: "true or false"}.get(hint, str(hint))


def read_lenient(cls: type[T], raw: Any, what: str = "initializationOptions",
                 report_unknown: bool = True) -> tuple[T, list[str]]:
    """``cls`` from a wire object; bad fields keep their default. Returns the value
    and one message per problem, each naming the field (unknown keys too, unless
    ``report_unknown`` is false: a client's settings section also holds its own)."""
    if raw is None:
        return cls(), []
    if not isinstance(raw, dict):
        return cls(), [f"{what} must be an object, got {type(raw).__name__}; using the defaults"]
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    problems: list[str] = []
    names = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        wire = camel(f.name)
        names[wire] = f
        if wire not in raw:
            continue
        try:
            values[f.name] = _field_value(f, hints[f.name], raw[wire])
        except OptionError as exc:
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
            problems.append(f"{what}.{wire} {exc}; using the default {default!r}")
    for key in raw:
        if key not in names and report_unknown:
            name = key if len(key) <= 60 and key.isprintable() else shown(key)
            problems.append(f"{what}.{name} is not a codeloupe setting; ignored")
    return cls(**values), problems


def read_strict(cls: type[T], raw: Any, what: str) -> T:
    """``cls`` from a wire object, or OptionError naming the first bad field."""
    if not isinstance(raw, dict):
        raise OptionError(f"{what} takes one JSON object as its argument, got {shown(raw)}")
    hints = typing.get_type_hints(cls)
    fields = {camel(f.name): f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for key in raw:
        if key not in fields:
            known = ", ".join(fields)
            raise OptionError(f"{what}: unknown argument {shown(key)} (known: {known})")
    values: dict[str, Any] = {}
    for wire, f in fields.items():
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if wire not in raw:
            if required:
                raise OptionError(f"{what}: the argument {wire!r} is required")
            continue
        try:
            values[f.name] = _field_value(f, hints[f.name], raw[wire])
        except OptionError as exc:
            raise OptionError(f"{what}: {wire!r} {exc}") from None
    return cls(**values)


def _between(low: int, high: int) -> Callable[[int], None]:
    """A check that an integer is within [low, high]: an unbounded count (``k:
    10**15``) would reach a query or an allocation as it is."""

    def check(value: int) -> None:
        if value < low:
            raise OptionError(f"must be at least {low:,}, got {shown(value)}")
        if value > high:
            raise OptionError(f"must be at most {high:,}, got {shown(value)}")

    return check


def _optional(check: Callable[[int], None]) -> Callable[[int | None], None]:
    def optional(value: int | None) -> None:
        if value is not None:
            check(value)

    return optional


MAX_K = 1000  # search results
MAX_DEPTH = 64  # calls in one chain
MAX_CHAINS = 1000
MAX_CONTEXT_TOKENS = 2_000_000
_max_file_bytes = _between(1, 2**30)
_workers = _between(0, 256)
_debounce_ms = _between(0, 3_600_000)
_context_tokens = _between(100, MAX_CONTEXT_TOKENS)


_optional_positive = _optional(_between(1, 1_000_000))


def _optional_at_least_1s(value: float | None) -> None:
    if value is not None and not 1.0 <= value < float("inf"):
        raise OptionError(f"must be at least 1 (seconds), got {value}")


def _confidence(value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise OptionError(f"must be between 0 and 1, got {value}")


def _optional_confidence(value: float | None) -> None:
    if value is not None:
        _confidence(value)


def _log_level(value: str) -> None:
    if value.lower() not in LOG_LEVELS:
        raise OptionError(f"must be one of {', '.join(LOG_LEVELS)}, got {shown(value)}")


def _backend(value: str) -> None:
    if value not in BACKENDS:
        raise OptionError(f"must be one of {', '.join(BACKENDS)}, got {shown(value)}")


def _device(value: str) -> None:
    try:
        resolve_device(value)
    except EmbeddingError as exc:
        raise OptionError(f"must be auto, cpu, cuda or cuda:N, got {shown(value)}") from exc


@dataclass
class ServerOptions:
    """``initializationOptions`` (camelCase on the wire)."""

    model: str = "default"  # embedding model: "default", a sentence-transformers name or a path
    # "auto" (onnx where it can run the model, else torch), "torch" or "onnx" (embed.choice)
    embedding_backend: str = field(default="auto", metadata={"check": _backend})
    embedding_device: str = field(default="auto", metadata={"check": _device})
    index_uri: str | None = None  # default: <folder>/.codeloupe
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    max_file_bytes: int = field(default=DEFAULT_MAX_BYTES, metadata={"check": _max_file_bytes})
    index_generated: bool = False  # index files that say a program wrote them (scan.is_generated)
    workers: int = field(default=0, metadata={"check": _workers})  # parse processes; 0 = cores
    embeddings: bool = True  # false: symbols, call graph and full text only (no model is loaded)
    embed_debounce_ms: int = field(default=500, metadata={"check": _debounce_ms})
    # codeloupe.server.ask: an OpenAI-compatible endpoint (http://127.0.0.1:11434/v1); null:
    # CODELOUPE_LLM_URL, else no model (ask returns the context it would send)
    llm_endpoint: str | None = None
    llm_model: str | None = None  # null: CODELOUPE_LLM_MODEL, else the endpoint's first model
    llm_api_key_env: str = "CODELOUPE_LLM_API_KEY"  # environment variable holding the API key
    ask_context_tokens: int = field(default=6000, metadata={"check": _context_tokens})
    # most tokens of an answer (sent as max_tokens); null: CODELOUPE_LLM_MAX_TOKENS, else 2048
    llm_max_tokens: int | None = field(default=None, metadata={"check": _optional_positive})
    # longest an answer may take in all (an endpoint may stream forever); null:
    # CODELOUPE_LLM_DEADLINE_S, else 300; what streamed until then is kept, with a note
    llm_deadline_seconds: float | None = field(default=None,
                                               metadata={"check": _optional_at_least_1s})
    # call hierarchy, code lens and hover counts, references, callChain: edges with at least
    # this confidence (0.5: resolved by scope, self/super, imports, types or a unique method
    # name); name-match candidates (0.3 or less) are counted apart; 0 shows them
    call_hierarchy_min_confidence: float = field(default=DEFAULT_MIN_CONFIDENCE, metadata={"check": _confidence})
    log_level: str = field(default="warning", metadata={"check": _log_level})

    def settings(self) -> Settings:
        """The engine settings of these options (what an index is opened with)."""
        return Settings(
            model=self.model,
            embedding_backend=self.embedding_backend,
            embedding_device=self.embedding_device,
            index_uri=self.index_uri,
            include=list(self.include),
            exclude=list(self.exclude),
            max_file_bytes=self.max_file_bytes,
            index_generated=self.index_generated,
            workers=self.workers,
        )

    @property
    def logging_level(self) -> int:
        """``logLevel`` as a ``logging`` level."""
        return getattr(logging, self.log_level.upper(), logging.WARNING)


# --- command arguments ---------------------------------------------------------------------


@dataclass
class SearchArgs:
    """Arguments of ``codeloupe.search``."""

    query: str
    k: int = field(default=10, metadata={"check": _between(1, MAX_K)})
    lang: str | None = None
    path: str | None = None
    kind: str | None = None
    mode: str = "hybrid"
    snippets: bool = False
    folder: str | None = None  # a workspace folder URI; default: the first folder


@dataclass
class StatusArgs:
    """Arguments of ``codeloupe.status``: one folder, or all."""

    folder: str | None = None


@dataclass
class ReindexArgs:
    """Arguments of ``codeloupe.reindex``."""

    folder: str | None = None  # default: every folder
    wait: bool = False  # answer when the index is up to date (symbols and embeddings)


@dataclass
class CallChainArgs:
    """Arguments of ``codeloupe.callChain``."""

    from_: str  # a symbol id ("src/a.py::Client.fetch"), qualified name or name
    to: str
    max_depth: int = field(default=6, metadata={"check": _between(1, MAX_DEPTH)})
    limit: int = field(default=10, metadata={"check": _between(1, MAX_CHAINS)})
    folder: str | None = None
    # follow edges with at least this confidence; null: the callHierarchyMinConfidence option
    min_confidence: float | None = field(default=None, metadata={"check": _optional_confidence})


MAX_CALL_DEPTH = 5  # levels of callers/callees in one answer


@dataclass
class TargetArgs:
    """Arguments of ``codeloupe.callers``, ``codeloupe.callees`` and ``codeloupe.symbol``."""

    target: str  # a name, qualified name, symbol id or path:line (1-based)
    depth: int = field(default=1, metadata={"check": _between(1, MAX_CALL_DEPTH)})
    # leave out edges below this confidence; null: the callHierarchyMinConfidence option
    min_confidence: float | None = field(default=None, metadata={"check": _optional_confidence})
    folder: str | None = None


@dataclass
class ContextArgs:
    """Arguments of ``codeloupe.context``: what ``ask`` would send to a model."""

    question: str
    budget_tokens: int | None = field(default=None, metadata={"check": _optional(_context_tokens)})
    folder: str | None = None


@dataclass
class AskArgs:
    """Arguments of ``codeloupe.ask``."""

    question: str
    folder: str | None = None  # a workspace folder URI; default: the first folder
    context_tokens: int | None = field(default=None, metadata={"check": _optional(_context_tokens)})
