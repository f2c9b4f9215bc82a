"""One file of an index run, read, checked and extracted: the job a parse worker
gets (``ParseJob``, picklable) and what it hands back (``Parsed``). A file is read
without blocking or following a link out of the root (``safeio``), its content
hashed (an unchanged hash needs no parse), checked (binary, generated) and
extracted; nothing a file holds can stop the run."""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from typing import NamedTuple

from .extract import extract
from .model import FileExtraction, Symbol
from .safeio import UnsafeFile, read_repo_file
from .scan import check_content

log = logging.getLogger("codeloupe.index")

_SNIPPET_LINES = 6


@dataclass(slots=True)
class Parsed:
    """A file as a worker read it: its state on disk, and its extraction (None when
    its content did not change, or it was skipped with the reason)."""

    path: str
    size: int
    mtime_ns: int
    hash: str
    language: str
    extraction: FileExtraction | None  # None: unchanged content, or skipped
    skipped: str | None = None
    error: str | None = None


def file_hash(data: bytes) -> str:
    """The content hash the index keeps for a file."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def decode(data: bytes) -> bytes:
    """UTF-8 bytes of a file: invalid sequences replaced, never an exception."""
    try:
        data.decode("utf-8")
        return data
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace").encode("utf-8")


class ParseJob(NamedTuple):
    """One file to read, check and extract (picklable: it goes to a worker)."""

    rel: str
    root_real: str  # the resolved root: nothing outside it is read
    language: str
    old_hash: str | None  # of the indexed content: the same hash needs no parse
    max_bytes: int
    generated: bool = False  # index files that say they are generated


def parse_file(job: ParseJob) -> Parsed:
    """Read, check and extract one file (runs in a worker process). The file is
    opened without blocking or following links out of the root (``safeio``): a
    FIFO, a device or a link to ``/etc/passwd`` is skipped with the reason."""
    rel, language = job.rel, job.language
    try:
        data, st = read_repo_file(job.root_real, os.path.join(job.root_real, rel), job.max_bytes)
    except UnsafeFile as exc:
        return Parsed(rel, 0, 0, "", language, None, skipped=exc.reason)
    except OSError as exc:
        return Parsed(rel, 0, 0, "", language, None, skipped="unreadable", error=f"{rel}: {exc}")
    digest = file_hash(data)
    if job.old_hash is not None and digest == job.old_hash:
        return Parsed(rel, st.st_size, st.st_mtime_ns, digest, language, None)
    reason = check_content(data, rel, job.generated)
    if reason is not None:
        return Parsed(rel, st.st_size, st.st_mtime_ns, digest, language, None, skipped=reason)
    try:
        extraction = extract(rel, decode(data), language)
    except Exception as exc:  # a grammar or query bug must not stop the run
        log.exception("codeloupe: extraction failed for %s", rel)
        return Parsed(rel, st.st_size, st.st_mtime_ns, digest, language, None,
                       skipped="extraction failed", error=f"{rel}: {exc}")
    return Parsed(rel, st.st_size, st.st_mtime_ns, digest, language, extraction)


def parse_batch(jobs: list[ParseJob]) -> list[Parsed]:
    """A worker's batch, in order."""
    return [parse_file(job) for job in jobs]


def snippet_of(symbol: Symbol) -> str:
    """The first lines of a symbol's code, as search results show them."""
    lines = symbol.text.splitlines()[:_SNIPPET_LINES]
    return "\n".join(line[:160] for line in lines)
