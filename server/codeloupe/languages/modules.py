"""Paths of modules as files name each other, whatever the language: a relative path
joined to a folder, and whether a file looks like the module an import names."""

from __future__ import annotations

import re

# what `path_matches` strips: the extensions import sources are written with
_SOURCE_SUFFIX = re.compile(r"\.(m?[jt]sx?|cjs|py|rb|php|h|hpp)$")


def join_path(folder: str, rel: str) -> str:
    """``net`` + ``../x/y.h`` → ``x/y.h``."""
    out = folder.split("/") if folder else []
    for part in rel.split("/"):
        if part in (".", ""):
            continue
        if part == "..":
            if out:
                out.pop()
        else:
            out.append(part)
    return "/".join(out)


def path_matches(path: str, source: str) -> bool:
    """Does a file path look like the module an import names? (``.x`` / ``pkg.x`` /
    ``./x`` / ``pkg/x``)"""
    stem = path.rsplit(".", 1)[0]
    if stem.endswith("/__init__") or stem.endswith("/index"):
        stem = stem.rsplit("/", 1)[0]
    mod = _SOURCE_SUFFIX.sub("", source.strip()).lstrip("./")
    mod = mod.replace("::", "/").replace(".", "/").replace("\\", "/")
    if not mod:
        return False
    return stem == mod or stem.endswith("/" + mod)
