"""Reading a repository's files and writing codeloupe's own, trusting neither.

A repository is untrusted input: a file may be a symlink to ``/etc/passwd``, a
named pipe that blocks whoever opens it, a device, or be swapped for one of
these between the scan and the read. ``read_repo_file`` opens without blocking
and without following a last-component symlink, follows one only when its
target lies inside the root, checks that what it opened is a regular file, and
(on Linux) that the opened file really lies inside the root, whatever symlinked
folders the path went through. ``write_new_file`` and ``open_no_follow`` never
write through a symlink.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)  # Windows
_READ_FLAGS = os.O_RDONLY | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC | _O_BINARY
_PROC_FD = Path("/proc/self/fd")


class UnsafeFile(OSError):
    """A file codeloupe refuses to read: ``reason`` says why in a few words
    (``symlink out of the root``, ``not a regular file``, ``oversized``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def inside(root_real: str, path_real: str) -> bool:
    """Is ``path_real`` (a resolved path) ``root_real`` or under it?"""
    return path_real == root_real or path_real.startswith(root_real.rstrip(os.sep) + os.sep)


def _opened_path(fd: int) -> str | None:
    """Where an open file really is (Linux: ``/proc/self/fd``); None elsewhere."""
    try:
        return os.readlink(_PROC_FD / str(fd))
    except OSError:
        return None


def open_repo_file(root_real: str, path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """Open a file of the repository rooted at ``root_real`` (a resolved path) for
    reading: a descriptor and its ``fstat``. Never blocks (a FIFO or a device is
    refused, not waited on) and never leaves the root: a symlink is followed only
    when it resolves inside it. ``UnsafeFile`` when refused, ``OSError`` when it
    cannot be opened."""
    name = os.fspath(path)
    try:
        fd = os.open(name, _READ_FLAGS | _O_NOFOLLOW)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EMLINK) or not os.path.islink(name):
            raise
        target = os.path.realpath(name)
        if not inside(root_real, target):
            raise UnsafeFile(name, "symlink out of the root") from None
        fd = os.open(target, _READ_FLAGS | _O_NOFOLLOW)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(name, "not a regular file")
        real = _opened_path(fd)
        if real is None:  # no /proc: the path as it resolves now
            real = os.path.realpath(name)
        if not inside(root_real, real):
            raise UnsafeFile(name, "outside the root (through a symlinked folder)")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_repo_file(root_real: str, path: str | os.PathLike[str],
                   max_bytes: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of a repository file and its ``fstat`` (see ``open_repo_file``);
    ``UnsafeFile(reason="oversized")`` when it holds more than ``max_bytes``."""
    fd, st = open_repo_file(root_real, path)
    try:
        if max_bytes is not None and st.st_size > max_bytes:
            raise UnsafeFile(os.fspath(path), "oversized")
        chunks: list[bytes] = []
        size = 0
        limit = (max_bytes + 1) if max_bytes is not None else None
        while True:
            want = 1 << 20 if limit is None else min(1 << 20, limit - size)
            if want <= 0:
                break
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if max_bytes is not None and size > max_bytes:  # grew since the fstat
            raise UnsafeFile(os.fspath(path), "oversized")
        return b"".join(chunks), st
    finally:
        os.close(fd)


def open_no_follow(path: str | os.PathLike[str], flags: int, mode: int = 0o600) -> int:
    """``os.open`` that refuses a symlink as the last component (``OSError`` ELOOP)."""
    return os.open(path, flags | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY, mode)


def write_new_file(path: str | os.PathLike[str], data: bytes, mode: int = 0o600) -> bool:
    """Create ``path`` with ``data`` unless something (a file, a symlink, dangling or
    not) is there already: never writes through a link. True when it wrote."""
    try:
        fd = open_no_follow(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return True


def replace_file(path: str | os.PathLike[str], data: bytes, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` atomically: a new temporary file beside it, then a
    rename over whatever ``path`` is (a symlink there is replaced, not followed)."""
    target = os.fspath(path)
    tmp = f"{target}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    fd = open_no_follow(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
