"""This user's secret: the key that marks index folders codeloupe made for this
user (``indexdir``) and signs what it saves in them.

It lives outside every repository (``$CODELOUPE_SECRET_DIR``, else
``$XDG_CACHE_HOME/codeloupe``, else ``~/.cache/codeloupe``), is made once from
``os.urandom``, and is readable by the user only, so a repository's author can
neither read nor guess it.
"""

from __future__ import annotations

import hmac
import os
from pathlib import Path

from .safeio import open_no_follow

KEY_FILE = "graph.key"  # the name it has had since the saved call graph was signed with it
_KEY_BYTES = 32


def cache_dir() -> Path:
    """codeloupe's per-user folder (the key, exported models, indexes kept outside
    a repository)."""
    cache = os.environ.get("XDG_CACHE_HOME")
    return (Path(cache) if cache else Path.home() / ".cache") / "codeloupe"


def _key_dir() -> Path:
    base = os.environ.get("CODELOUPE_SECRET_DIR")
    return Path(base) if base else cache_dir()


def _read_key(path: Path) -> bytes | None:
    try:
        fd = open_no_follow(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(4096)
    return data if len(data) >= _KEY_BYTES else None


def user_secret() -> bytes | None:
    """The key (made on first use; the first of two racing processes wins); None
    when it can be neither read nor made."""
    folder = _key_dir()
    path = folder / KEY_FILE
    try:
        data = _read_key(path)
        if data is not None:
            return data
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = folder / f"{KEY_FILE}.{os.getpid()}.{os.urandom(4).hex()}"
        fd = open_no_follow(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(os.urandom(_KEY_BYTES))
        try:
            os.link(tmp, path)  # the first writer's key wins; others read it
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
        return _read_key(path)
    except OSError:
        return None


def sign(secret: bytes, *parts: bytes | str | int) -> str:
    """An HMAC-SHA256 (hex) of ``parts``, each length-prefixed so no two lists of
    parts sign alike."""
    mac = hmac.new(secret, digestmod="sha256")
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode("utf-8", "surrogatepass")
        mac.update(len(data).to_bytes(8, "big"))
        mac.update(data)
    return mac.hexdigest()
