"""Where a folder's index lives, and whether codeloupe may trust it.

The default is ``ROOT/.codeloupe``, inside the repository, so a repository can
ship one: a committed ``.codeloupe`` with tampered rows, a ``.codeloupe`` that is
a symlink to somewhere else, a regular file, a folder of another user. An index
folder is used only when codeloupe made it for this user:

- it is a real folder (not a symlink), owned by this user, holding no symlinks
  at any depth;
- its ``owner`` mark is signed with this user's secret (``userkey``) over the
  folder's inode, so a copy (a clone, an archive) of a folder made elsewhere,
  even by the same user, is not trusted;
- the repository's git index tracks nothing under it (a commit cannot slip rows
  into a folder that is ours).

Anything else is ignored, with a message, and the index is kept in this user's
cache instead (``~/.cache/codeloupe/indexes/<name>-<hash>``); nothing is ever
written into or through the foreign folder. Remote locations (``s3://…``) are
the user's own choice and are not checked.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from .errors import CodeloupeError
from .safeio import open_no_follow, write_new_file
from .userkey import cache_dir, sign, user_secret

log = logging.getLogger(__name__)

INDEX_DIR = ".codeloupe"
OWNER_FILE = "owner"
GITIGNORE = "# codeloupe index: derived data\n*\n"
_MARK_FORMAT = 1


class IndexLocationError(CodeloupeError, RuntimeError):
    """No usable place for the index (the user's key cannot be made, the folder
    cannot be created); the message says which and why."""


@dataclass(frozen=True)
class IndexFolder:
    """The index location a command uses."""

    uri: str  # what the store opens: a local folder, or s3://…
    local: Path | None  # the folder, when local
    exists: bool  # False: nothing made yet (a read-only command asked)
    note: str | None = None  # for the user: a foreign folder was ignored, and why


def is_remote(uri: str) -> bool:
    """Object storage (``s3://...``), not a local folder (a path or ``file://``)."""
    return "://" in uri and not uri.startswith("file://")


def locate(root: Path, configured: str | None = None, create: bool = True) -> IndexFolder:
    """The index folder of ``root``: ``configured`` (a path or URI) or
    ``ROOT/.codeloupe``, when codeloupe made it for this user (or it is absent or
    an empty folder, and ``create`` makes it so); else a folder in this user's
    cache, with a note saying what was ignored and why."""
    if configured and is_remote(configured):
        return IndexFolder(configured, None, True)
    folder = Path(configured.removeprefix("file://")) if configured else root / INDEX_DIR
    folder = Path(os.path.abspath(folder))
    verdict = _check(folder, root)
    if verdict is None or verdict in ("absent", "empty"):
        if verdict is not None:
            if not create:
                return IndexFolder(str(folder), folder, False)
            verdict = _make(folder)
        if verdict is None:
            return IndexFolder(str(folder), folder, True)
    elsewhere = _fallback(root, folder)
    note = (f"{folder} was not made by codeloupe for this user ({verdict}); it is ignored "
            f"and the index is kept in {elsewhere}")
    again = _check(elsewhere, None)
    if again not in (None, "absent", "empty"):
        _discard(elsewhere)  # our own cache: a damaged or stale mark is ours to clear
        again = "absent"
    if again is not None:
        if not create:
            return IndexFolder(str(elsewhere), elsewhere, False, note)
        again = _make(elsewhere)
        if again is not None:
            raise IndexLocationError(f"cannot make an index folder at {elsewhere}: {again}")
    return IndexFolder(str(elsewhere), elsewhere, True, note)


def _fallback(root: Path, folder: Path) -> Path:
    digest = hashlib.blake2b(f"{os.path.realpath(root)}\0{folder}".encode(
        "utf-8", "surrogatepass"), digest_size=8).hexdigest()
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in root.name)[:40] or "root"
    return cache_dir() / "indexes" / f"{name}-{digest}"


def _discard(folder: Path) -> None:
    try:
        if folder.is_symlink() or not folder.is_dir():
            folder.unlink()
        else:
            shutil.rmtree(folder)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise IndexLocationError(f"cannot clear {folder}: {exc}") from None


# --- the owner mark ----------------------------------------------------------------------


def _uid() -> int | None:
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else None


def _mark(secret: bytes, uid: int | None, inode: int, nonce: str) -> str:
    return sign(secret, "codeloupe-index-folder", _MARK_FORMAT, str(uid), inode, nonce)


def _check(folder: Path, root: Path | None) -> str | None:
    """None when ``folder`` is an index folder codeloupe made for this user;
    "absent", "empty" (a folder with nothing in it), or why it is not."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return "absent"
    except OSError as exc:
        return f"it cannot be read: {exc.strerror or exc}"
    if stat.S_ISLNK(st.st_mode):
        return "it is a symlink"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a folder"
    uid = _uid()
    if uid is not None and st.st_uid != uid:
        return "it belongs to another user"
    try:
        entries = list(os.scandir(folder))
    except OSError as exc:
        return f"it cannot be listed: {exc.strerror or exc}"
    if not entries:
        return "empty"
    if _holds_symlinks(folder):
        return "it holds symlinks"
    if root is not None and _git_tracks_under(root, folder):
        return "the repository's git index tracks files in it"
    try:
        fd = open_no_follow(folder / OWNER_FILE, os.O_RDONLY)
        with os.fdopen(fd, "rb") as fh:
            mark = json.loads(fh.read(4096))
    except FileNotFoundError:
        return "it has no owner mark: made by someone else, or by codeloupe before 0.2"
    except (OSError, ValueError):
        return "its owner mark is unreadable"
    secret = user_secret()
    if secret is None:
        raise IndexLocationError(f"cannot read or make this user's key in {cache_dir()}")
    if not isinstance(mark, dict) or mark.get("format") != _MARK_FORMAT or not isinstance(
            mark.get("nonce"), str) or mark.get("mac") != _mark(secret, uid, st.st_ino,
                                                                mark["nonce"]):
        return "its owner mark is not this user's"
    return None


def _holds_symlinks(folder: Path) -> bool:
    """Is anything under ``folder`` a symlink? codeloupe never makes one, and LanceDB
    would read (and write) through it. (A few hundred entries: about a millisecond.)"""
    stack = [os.fspath(folder)]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    if entry.is_symlink():
                        return True
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue  # unreadable: the store reports it as damage
    return False


def _make(folder: Path) -> str | None:
    """Make ``folder`` (absent or empty) an index folder of this user's: None when
    done, else why not."""
    secret = user_secret()
    if secret is None:
        raise IndexLocationError(f"cannot read or make this user's key in {cache_dir()}")
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode):
            return "it is not a folder"
        nonce = os.urandom(16).hex()
        mark = {"format": _MARK_FORMAT, "made_by": "codeloupe", "nonce": nonce,
                "mac": _mark(secret, _uid(), st.st_ino, nonce)}
        write_new_file(folder / ".gitignore", GITIGNORE.encode(), 0o644)
        if not write_new_file(folder / OWNER_FILE, json.dumps(mark).encode()):
            pass  # another process made it at the same moment: checked below
    except OSError as exc:
        raise IndexLocationError(f"cannot make an index folder at {folder}: {exc}") from None
    return _check(folder, None)


# --- what git tracks ---------------------------------------------------------------------


def _git_dir(start: Path) -> tuple[Path, Path] | None:
    """(work tree, git dir) of the repository ``start`` is in, if any."""
    here = Path(os.path.abspath(start))
    for top in (here, *here.parents):
        dot = top / ".git"
        try:
            st = os.lstat(dot)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            return top, dot
        if stat.S_ISREG(st.st_mode):  # a worktree or submodule: "gitdir: <path>"
            try:
                line = dot.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                target = Path(line.removeprefix("gitdir:").strip())
                return top, target if target.is_absolute() else top / target
        return None
    return None


def _git_tracks_under(root: Path, folder: Path) -> bool:
    """Does the git index of the repository holding ``root`` list a file under
    ``folder``? (Index versions 2-4; an index it cannot read counts as no.)"""
    found = _git_dir(root)
    if found is None:
        return False
    top, git = found
    try:
        prefix = (os.path.relpath(folder, top).replace(os.sep, "/") + "/").encode(
            "utf-8", "surrogateescape")
    except ValueError:
        return False
    if prefix.startswith(b"../"):
        return False
    try:
        data = (git / "index").read_bytes()
        config = (git / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    sha256 = "objectformat = sha256" in config.replace("\t", " ").lower()
    try:
        return any(p.startswith(prefix) for p in _index_paths(data, 32 if sha256 else 20, prefix))
    except (IndexError, ValueError):
        return False


def _index_paths(data: bytes, hash_len: int, until: bytes) -> list[bytes]:
    """The paths of a git index, in order, up to the first that sorts after every
    path starting with ``until``."""
    if data[:4] != b"DIRC":
        return []
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return []
    pos, previous, out = 12, b"", []
    fixed = 40 + hash_len + 2
    for _ in range(count):
        flags = int.from_bytes(data[pos + fixed - 2 : pos + fixed], "big")
        head = fixed + (2 if version >= 3 and flags & 0x4000 else 0)
        if version == 4:
            at = pos + head
            byte = data[at]
            strip = byte & 0x7F
            while byte & 0x80:
                at += 1
                byte = data[at]
                strip = ((strip + 1) << 7) | (byte & 0x7F)
            at += 1
            end = data.index(b"\0", at)
            path = previous[: len(previous) - strip] + data[at:end]
            pos = end + 1
        else:
            start = pos + head
            end = data.index(b"\0", start)
            path = data[start:end]
            pos += (head + len(path) + 8) & ~7
        previous = path
        if path.startswith(until):
            out.append(path)
        elif path > until:
            break
    return out
