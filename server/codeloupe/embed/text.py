"""The text a symbol is embedded as (and its second, summary text), the full-text
column, identifiers split into words, and the cache key of an embedding.

The cache key of an embedding is ``hash(model id + embedded text)``: any symbol
whose text was embedded before by the same model costs nothing, wherever it moved.
"""

from __future__ import annotations

import functools
import hashlib
import re

from ..model import CONTAINER_KINDS, Symbol

# Bump when the embedded or full-text form of a symbol changes: indexes rebuild.
TEXT_VERSION = 6
# Characters of body kept before the tokenizer cuts at the model's limit: enough
# for 512 word pieces of code, small enough that tokenizing stays cheap.
_BODY_CHARS = 3000

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")


def split_identifier(name: str) -> list[str]:
    """``retry_failed_upload`` → [retry, failed, upload]; ``parseHTTPHeader`` → [parse, http, header]."""
    words: list[str] = []
    for part in _NOT_ALNUM.split(name):
        words.extend(w.lower() for w in _CAMEL.findall(part))
    return words


@functools.lru_cache(maxsize=1 << 16)
def _identifier_words(name: str) -> str:
    """``split_identifier`` joined, remembered: the identifiers of a code base repeat (on
    transformers' 1.0M lines, 6.9M identifiers split for the full-text column; a third of
    the time to symbols and full text went there)."""
    return " ".join(split_identifier(name))


def split_words(text: str) -> str:
    """Every identifier of a text split into lower-case words, in order."""
    return " ".join(_identifier_words(m) for m in _IDENT.findall(text))


def embed_text(symbol: Symbol, max_tokens: int = 256) -> str:
    """The text a symbol is embedded as: kind and qualified name in words, signature,
    doc and body. A class-like symbol too long for the model is embedded as its
    header, doc and member list (its methods are symbols of their own).

    Measured on bench/eval and left out: dropping the Python docstring from the
    body (it repeats the doc) lowered vector MRR 0.650 → 0.632; prefixing methods
    with their class and its doc line changed nothing (0.650 → 0.649). Over all
    five projects (hybrid recall@10 / MRR@10, now 0.893 / 0.701): a 128-token
    cut-off (1.7× faster to embed) 0.865 / 0.683; the body's identifiers split
    into words 0.872 / 0.695; that and the signature dropped where the body
    repeats it 0.900 / 0.707, but worse on the tune split (better only on the
    TypeScript held-out project), so not taken."""
    parts = [_head(symbol)]
    if symbol.signature and symbol.kind != "module":
        parts.append(symbol.signature)
    if symbol.doc:
        parts.append(symbol.doc[:1000])
    budget_chars = max_tokens * 4
    body = symbol.text
    if symbol.kind in CONTAINER_KINDS and symbol.members and len(body) > budget_chars:
        parts.append("members: " + "; ".join(symbol.members))
    else:
        parts.append(body[:_BODY_CHARS])
    return "\n".join(p for p in parts if p)


# Above this many characters the body dominates a symbol's vector, and a second
# vector of what the symbol is called and says it does is worth its cost.
SUMMARY_MIN_CHARS = 512


def summary_text(symbol: Symbol, embedded: str) -> str:
    """A symbol's second embedded text: kind and qualified name in words, signature
    and doc, without the body. A symbol is searched by the better of its two
    vectors. For a short symbol (``embedded`` at most ``SUMMARY_MIN_CHARS``) the
    two would say the same, and the summary is ``embedded`` itself (one vector).

    Measured on bench/eval (hybrid recall@10 / MRR@10, 133 queries on five
    projects): one vector 0.893 / 0.701, the better of
    the two 0.908 / 0.719 (held-out projects 0.883 / 0.614 -> 0.910 / 0.642). The
    summaries add 24% to the tokens embedded (74.7k on 310k). Tried on the same
    queries: a summary for every symbol 0.909 / 0.722 for 35% more tokens; name
    and signature without the doc 0.901 / 0.719; the summaries as a third list
    fused by RRF instead of the maximum 0.888 / 0.697."""
    if len(embedded) <= SUMMARY_MIN_CHARS:
        return embedded
    return summary_of(symbol.kind, symbol.qualified_name, symbol.path, symbol.signature,
                      symbol.doc)


def summary_of(kind: str, qualified_name: str, path: str, signature: str, doc: str) -> str:
    """The summary text of a long symbol from what the index keeps of it (its columns)."""
    parts = [_head_of(kind, qualified_name, path), signature if kind != "module" else "",
             (doc or "")[:1000]]
    return "\n".join(p for p in parts if p)


def _head(symbol: Symbol) -> str:
    return _head_of(symbol.kind, symbol.qualified_name, symbol.path)


def _head_of(kind: str, qualified_name: str, path: str) -> str:
    """Kind and qualified name in words (a module unit: its path too)."""
    words = " ".join(split_identifier(qualified_name))
    if kind == "module":
        return f"module {words} ({path})"
    return f"{kind} {words}".strip()


def search_text(symbol: Symbol) -> str:
    """The full-text column: names and identifiers split into words, plus the raw
    names so exact identifiers match too."""
    pieces = [
        symbol.name,
        symbol.qualified_name,
        " ".join(split_identifier(symbol.qualified_name)),
        split_words(symbol.signature),
        symbol.doc[:2000],
        split_words(symbol.text[:_BODY_CHARS]),
        " ".join(split_identifier(symbol.path)),
    ]
    return "\n".join(p for p in pieces if p)


def embedding_key(model_id: str, text: str) -> str:
    """The embedding cache key of a text under a model: a digest of both, so another model
    or text never reuses a vector."""
    h = hashlib.blake2b(digest_size=16)
    h.update(model_id.encode("utf-8"))
    h.update(b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()
