"""Citations in an answer: finding them (the one pattern, for every client) and
verifying them against the lines of the context that was shown.

A citation is a relative path with an extension, then ``:line`` or
``:start-end``: ``src/shop/http.py:12``, ``src/shop/http.py:8-15``, also
``./web/upload.js:L8–L13`` (an ``L`` before a number, an en or em dash, spaces
or tabs around it) and an absolute path under the root. It is not part of a
URL or a longer path (``https://host.com:8443/x``, ``a/b.py:3/4``, ``C:\\a.py:3``,
``a.py:3x``), and a line number has 1 to 15 digits (what a JavaScript number holds
exactly) and is not 0. A range continues on the same line only. Citations are
found everywhere in the text, code spans and fenced blocks included: what a client
links is its own markdown business; it gets every citation's offsets.

Offsets are given as Python indexes (code points) and as UTF-16 code units,
which is how JavaScript (and LSP's default position encoding) index a string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from .context import Context

CITATION = re.compile(
    r"(?<![\w/.:\\-])"  # not inside a word, a URL or a longer path
    r"(?P<path>(?:/|\.{1,2}/)?(?:[\w.@+-]+/)*[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9_]{0,9})"
    r":L?(?P<start>[0-9]{1,15})"
    r"(?:[ \t]*[-–—][ \t]*L?(?P<end>[0-9]{1,15}))?"
    r"(?![\w/])"  # nor followed by more of one
)
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two UTF-16 code units each


@dataclass(frozen=True)
class Citation:
    """One ``path:line`` or ``path:start-end`` of an answer. ``path`` is as written
    (without a leading ``./``) until verification resolves it to the context's path;
    ``start``/``end`` index the answer in code points, ``start_utf16``/``end_utf16``
    in UTF-16 code units."""

    text: str
    path: str
    start_line: int
    end_line: int
    start: int
    end: int
    start_utf16: int
    end_utf16: int
    verified: bool = False

    def as_dict(self) -> dict[str, object]:
        """The citation on the wire: offsets in UTF-16 code units (docs/protocol.md)."""
        return {"text": self.text, "path": self.path, "start_line": self.start_line,
                "end_line": self.end_line, "verified": self.verified,
                "start": self.start_utf16, "end": self.end_utf16}


def find_citations(answer: str) -> list[Citation]:
    """Every citation in ``answer``, in order (none verified yet)."""
    out: list[Citation] = []
    extra, at = 0, 0  # code units beyond one per code point, up to ``at``
    for m in CITATION.finditer(answer):
        start_line = int(m.group("start"))
        if start_line < 1:
            continue
        end_line = max(start_line, int(m.group("end") or start_line))
        extra += len(_ASTRAL.findall(answer, at, m.start()))
        inner = len(_ASTRAL.findall(answer, m.start(), m.end()))
        at = m.start()
        path = m.group("path")
        path = path[2:] if path.startswith("./") else path
        out.append(Citation(m.group(0), path, start_line, end_line, m.start(), m.end(),
                            m.start() + extra, m.end() + extra + inner))
    return out


@dataclass
class Verification:
    """The citations of an answer, each marked verified or not, and the ids of the
    snippets they cite."""

    citations: list[Citation]
    cited: set[str]

    @property
    def unverified(self) -> list[str]:
        """The citations (as written, each once) that point at no line shown."""
        return list(dict.fromkeys(c.text for c in self.citations if not c.verified))

    def sources(self, context: Context) -> list[dict[str, object]]:
        """The context's snippets as ``sources``, each with ``cited``."""
        return [dict(s.source(), cited=s.id in self.cited) for s in context.snippets]

    def as_dict(self, context: Context) -> dict[str, object]:
        """``citations``, ``sources`` and ``unverified_citations`` as the ask result has them."""
        return {"citations": [c.as_dict() for c in self.citations],
                "sources": self.sources(context), "unverified_citations": self.unverified}


def _resolve(path: str, shown: dict[str, set[int]], root_prefix: str | None) -> str:
    """The context's path a written one means: the same, the same below the root,
    or the only one it is a suffix of (an answer may shorten a path)."""
    if root_prefix and path.startswith(root_prefix):
        path = path[len(root_prefix):]
    if path in shown:
        return path
    options = [k for k in shown if k.endswith("/" + path)]
    return options[0] if len(options) == 1 else path


def verify(answer: str, context: Context, root: Path | None = None) -> Verification:
    """Check every citation of ``answer`` against the lines of ``context``: verified
    when it names a path of the context (or an absolute path below ``root``) and at
    least one line it cites was shown."""
    shown = context.shown()
    prefix = (str(root).rstrip("/") + "/") if root else None
    citations: list[Citation] = []
    cited: set[str] = set()
    for c in find_citations(answer):
        path = _resolve(c.path, shown, prefix)
        lines = shown.get(path, ())
        ok = any(c.start_line <= n <= c.end_line for n in lines)
        if ok:
            cited.update(s.id for s in context.snippets if s.path == path
                         and any(c.start_line <= n <= c.end_line for n, _ in s.lines if n))
        citations.append(replace(c, path=path, verified=ok))
    return Verification(citations, cited)
