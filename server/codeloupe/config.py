"""Settings of the engine, shared by the CLI and the language server."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

from .embed import DEFAULT_MODEL, EmbeddingError
from .embed.device import resolve_device
from .indexdir import INDEX_DIR
from .scan import DEFAULT_MAX_BYTES

__all__ = ["INDEX_DIR", "Settings"]

log = logging.getLogger(__name__)

# The LLM endpoint's limits (ask/llm.py). An answer is a concise explanation with
# citations (a few hundred tokens); 2048 leaves room for a long multi-hop one and for
# reasoning models, whose thinking counts too.
DEFAULT_MAX_TOKENS = 2048
# 2048 tokens at 10 tokens/s (a 7B model on a laptop CPU) plus reading a 6000-token
# prompt fit in 5 minutes; an endpoint that streams forever is stopped there.
DEFAULT_DEADLINE_S = 300.0


def _env_number(name: str, kind: type[int] | type[float], least: float) -> int | float | None:
    """A numeric environment variable; a bad value is reported and ignored (None)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or not least <= value < float("inf"):  # also refuses nan
        log.warning("%s must be %s of at least %g, got %r; ignored", name,
                    "an integer" if kind is int else "a number", least, raw)
        return None
    return value


@dataclass
class Settings:
    """What the engine is told: the model and how it is run, where the index is, which files
    it holds, parse workers, and the ``ask`` endpoint and its limits."""

    model: str = DEFAULT_MODEL  # "default" (bundled all-MiniLM-L6-v2), a hub name or a path
    max_tokens: int = 256  # model input cut-off; 256 measured the best speed/quality trade
    # "auto": onnx (onnxruntime, int8 weights; 2.1x torch's throughput at the same
    # search quality, bench/bench_onnx.py) for every model it can run, else torch with
    # the reason (embed.choice); "torch" or "onnx" by name
    embedding_backend: str = "auto"
    # "auto": a CUDA GPU where one is there and torch was built for it (then torch embeds:
    # embed.device), else the CPU; "cpu", "cuda" or "cuda:N" by name
    embedding_device: str = "auto"
    trust_remote_code: bool = False  # needed by some models (jina-embeddings-v2-base-code)
    index_uri: str | None = None  # default: <root>/.codeloupe; may be s3://…
    include: list[str] = field(default_factory=list)  # gitignore-style globs; empty = all
    exclude: list[str] = field(default_factory=list)
    max_file_bytes: int = DEFAULT_MAX_BYTES
    # files that say a program wrote them (protobuf stubs, `Code generated … DO NOT
    # EDIT.`, `@generated`; scan.is_generated) are skipped unless this is set
    index_generated: bool = False
    workers: int = 0  # parse processes; 0 = one per core
    batch_size: int = 32
    # ask: an OpenAI-compatible chat-completions endpoint (http://127.0.0.1:11434/v1)
    llm_url: str | None = None
    llm_model: str | None = None  # None: the first model the endpoint lists
    llm_api_key_env: str = "CODELOUPE_LLM_API_KEY"  # the variable holding the API key
    llm_timeout_s: float = 60.0  # longest wait to connect or for the next bytes
    llm_deadline_s: float = DEFAULT_DEADLINE_S  # longest an answer may take in all
    llm_max_tokens: int = DEFAULT_MAX_TOKENS  # most tokens of an answer (sent as max_tokens)
    ask_context_tokens: int = 6000  # budget of the code sent with a question
    ask_tokenizer: str | None = None  # local tokenizer.json to count with; None: estimate
    reranker: str | None = None  # CrossEncoder (local path or cached name); None: off
    # ask: offer the model the tools (search_code, symbol, callers, callees) to fetch what
    # the context lacks, where the endpoint takes them (ask.agent); False: one context
    ask_tools: bool = True

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """The defaults, then the ``CODELOUPE_*`` environment variables, then the
        ``overrides`` that are not None (command-line flags)."""
        s = cls()
        if os.environ.get("CODELOUPE_MODEL"):
            s.model = os.environ["CODELOUPE_MODEL"]
        if os.environ.get("CODELOUPE_EMBEDDING_BACKEND"):
            s.embedding_backend = os.environ["CODELOUPE_EMBEDDING_BACKEND"].strip().lower()
        if os.environ.get("CODELOUPE_EMBEDDING_DEVICE"):
            try:
                s.embedding_device = resolve_device(os.environ["CODELOUPE_EMBEDDING_DEVICE"])
            except EmbeddingError as exc:
                log.warning("CODELOUPE_EMBEDDING_DEVICE: %s; ignored", exc)
        if os.environ.get("CODELOUPE_INDEX_URI"):
            s.index_uri = os.environ["CODELOUPE_INDEX_URI"]
        if os.environ.get("CODELOUPE_LLM_URL"):
            s.llm_url = os.environ["CODELOUPE_LLM_URL"]
        if os.environ.get("CODELOUPE_LLM_MODEL"):
            s.llm_model = os.environ["CODELOUPE_LLM_MODEL"]
        deadline = _env_number("CODELOUPE_LLM_DEADLINE_S", float, 1)
        if deadline is not None:
            s.llm_deadline_s = float(deadline)
        timeout = _env_number("CODELOUPE_LLM_TIMEOUT_S", float, 1)
        if timeout is not None:
            s.llm_timeout_s = float(timeout)
        max_tokens = _env_number("CODELOUPE_LLM_MAX_TOKENS", int, 1)
        if max_tokens is not None:
            s.llm_max_tokens = int(max_tokens)
        if os.environ.get("CODELOUPE_RERANKER"):
            s.reranker = os.environ["CODELOUPE_RERANKER"]
        if os.environ.get("CODELOUPE_ASK_TOKENIZER"):
            s.ask_tokenizer = os.environ["CODELOUPE_ASK_TOKENIZER"]
        if os.environ.get("CODELOUPE_ASK_TOOLS"):
            s.ask_tools = os.environ["CODELOUPE_ASK_TOOLS"].strip().lower() not in (
                "0", "false", "no", "off")
        if os.environ.get("CODELOUPE_INDEX_GENERATED"):
            s.index_generated = os.environ["CODELOUPE_INDEX_GENERATED"].strip().lower() in (
                "1", "true", "yes", "on")
        for key, value in overrides.items():
            if value is not None:
                setattr(s, key, value)
        return s

