"""The context sent to a model: snippets of the ranked candidates, highest-ranked
first, until the token budget is spent.

Each snippet is headed ``## path:start-end qualified_name (kind)`` and shows
numbered lines; a method comes with its class header, a class with its lines
before its first member, a whole-file unit with its top-level lines, a long Python
docstring with its first lines only. A snippet is cut only at a line end. The
context is also given as structured snippets (``Snippet.as_dict``) for clients
that render it themselves, and remembered by id (``RecentContexts``) so that an
answer written elsewhere can be checked against exactly what was shown.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..graph import Graph, SymbolInfo
from ..model import CONTAINER_KINDS
from .files import ReadLines
from .retrieval import Candidate
from .tokens import TokenCounter, estimate_tokens

DEFAULT_CONTEXT_TOKENS = 6000
MIN_PARTIAL_TOKENS = 80  # a snippet cut to fit shows at least this much
CLASS_HEAD_LINES = 40  # lines of a class shown before its first member
MODULE_LINES = 40  # top-level lines shown for a whole-file unit
DOC_KEEP_LINES = 3  # of a longer Python docstring, the first lines are shown
SNIPPET_GAP_TOKENS = 2  # the blank line between two snippets
# a function longer than this that does not fit what is left of the budget shows its
# head and the lines around its calls to the other candidates ("..." for the rest, line
# numbers kept) instead of its first lines only. Eliding earlier (any function over 35%
# of the budget) lost 0.05 of the needed symbols at 3,000 tokens on the tune split
# (bench/eval_ask.py counts a symbol reached by its lines shown)
ELIDE_MIN_LINES = 40
ELIDE_HEAD_LINES = 6  # the signature and the start of the doc
ELIDE_AROUND = 2  # lines kept before and after a call site
SHOWN_RUN = 3  # lines already shown above, this many in a row, are left out again

Line = tuple[int, str]  # (line number, text); number 0: an omission marker ("...")


@dataclass
class Snippet:
    """One candidate's lines as shown to the model."""

    id: str
    path: str
    qualified_name: str
    kind: str
    start_line: int  # of the symbol's lines shown (a class header above is extra)
    end_line: int
    lines: list[Line]
    score: float
    why: str
    tokens: int = 0
    truncated: bool = False

    @property
    def header(self) -> str:
        """``path:start-end qualified_name (kind)``."""
        return f"{self.path}:{self.start_line}-{self.end_line} {self.qualified_name} ({self.kind})"

    def render(self) -> str:
        """The snippet as the model reads it: ``## header``, then numbered lines."""
        body = [f"{n:>5} | {text}" if n else f"{'':>5} | {text}" for n, text in self.lines]
        return f"## {self.header}\n" + "\n".join(body)

    def shown(self) -> set[int]:
        """The line numbers shown (markers excluded)."""
        return {n for n, _ in self.lines if n}

    def source(self) -> dict[str, object]:
        """The snippet as an entry of ``sources`` (docs/protocol.md)."""
        return {"path": self.path, "start_line": self.start_line, "end_line": self.end_line,
                "qualified_name": self.qualified_name}

    def as_dict(self) -> dict[str, object]:
        """The snippet as structured data: its header and each line shown
        (``"line": null`` for an omission marker)."""
        return {**self.source(), "kind": self.kind, "header": self.header,
                "truncated": self.truncated,
                "lines": [{"line": n or None, "text": text} for n, text in self.lines]}


@dataclass
class Context:
    """The snippets sent, their token count and the budget they were fitted into."""

    snippets: list[Snippet]
    tokens: int
    budget: int

    @property
    def text(self) -> str:
        """The rendered snippets, a blank line apart."""
        return "\n\n".join(s.render() for s in self.snippets)

    def shown(self) -> dict[str, set[int]]:
        """path → the line numbers shown of it."""
        out: dict[str, set[int]] = {}
        for s in self.snippets:
            out.setdefault(s.path, set()).update(s.shown())
        return out


# --- which lines of a candidate are shown ------------------------------------------------------


def _header_lines(lines: list[str], start: int, end: int, language_hint: str) -> list[int]:
    """Line numbers of a class's header (``class X(Base):`` / ``class X {``)."""
    out = []
    for n in range(start, min(end, start + 4) + 1):
        text = lines[n - 1] if n - 1 < len(lines) else ""
        out.append(n)
        stripped = text.split("#", 1)[0].rstrip() if language_hint == "py" else text.rstrip()
        if stripped.endswith(":") or "{" in stripped or (language_hint != "py" and n > start):
            break
    return out


def _children(graph: Graph, sid: str) -> list[SymbolInfo]:
    info = graph.symbols.get(sid)
    if info is None:
        return []
    by_file = getattr(graph, "file_symbols", None)  # path → ids, when the graph keeps it
    ids = by_file.get(info.path, []) if by_file is not None else list(graph.symbols)
    return sorted((graph.symbols[i] for i in ids
                   if i in graph.symbols and graph.symbols[i].parent == sid),
                  key=lambda s: s.start_line)


def _module_lines(c: Candidate, graph: Graph, end: int, line: Callable[[int], Line]) -> list[Line]:
    """A whole-file unit: its top-level lines (members left out), at most MODULE_LINES."""
    covered: set[int] = set()
    for child in _children(graph, c.id):
        covered.update(range(child.start_line, child.end_line + 1))
    out: list[Line] = []
    gap = False
    for n in range(c.start_line, end + 1):
        if n in covered:
            gap = True
            continue
        if gap and out:
            out.append((0, "..."))
        gap = False
        if len(out) >= MODULE_LINES:
            out.append((0, "..."))
            break
        out.append(line(n))
    return out


def _snippet_lines(c: Candidate, graph: Graph, lines: list[str]) -> list[Line]:
    def line(n: int) -> Line:
        return (n, lines[n - 1].rstrip() if n - 1 < len(lines) else "")

    end = min(c.end_line, len(lines))
    if c.kind == "module":
        return _module_lines(c, graph, end, line)
    if c.kind in CONTAINER_KINDS:
        kids = _children(graph, c.id)
        stop = kids[0].start_line - 1 if kids else end
        while stop > c.start_line and not lines[stop - 1].strip():
            stop -= 1
        out = _without_long_docstring(c, lines, c.start_line, stop, line)
        if len(out) > CLASS_HEAD_LINES:
            out = out[:CLASS_HEAD_LINES]
            stop = -1
        if stop < end:
            out.append((0, "..."))
        return out
    return _without_long_docstring(c, lines, c.start_line, end, line)


_DOC_OPEN = re.compile(r'^\s*[rRuUbB]{0,2}("""|\'\'\')')


def _without_long_docstring(c: Candidate, lines: list[str], start: int, end: int,
                            line: Callable[[int], Line]) -> list[Line]:
    """Lines start..end; a Python docstring longer than DOC_KEEP_LINES keeps its first
    lines and a marker (docstrings of library code often outweigh the code)."""
    out = [line(n) for n in range(start, end + 1)]
    if not c.path.endswith((".py", ".pyi")):
        return out
    # the header ends at the first line whose code ends with ':'
    n = start
    while n <= min(end, start + 30) and not lines[n - 1].split("#", 1)[0].rstrip().endswith(":"):
        n += 1
    first = n + 1
    while first <= end and not lines[first - 1].strip():
        first += 1
    if first > end:
        return out
    m = _DOC_OPEN.match(lines[first - 1])
    if not m:
        return out
    quote = m.group(1)
    rest = lines[first - 1][m.end():]
    last = first if quote in rest else None
    k = first + 1
    while last is None and k <= end:
        if quote in lines[k - 1]:
            last = k
        k += 1
    if last is None or last - first + 1 <= DOC_KEEP_LINES + 1:
        return out
    indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    keep = [line(i) for i in range(first, first + DOC_KEEP_LINES)]
    marker = (0, f"{indent}... (docstring lines {first + DOC_KEEP_LINES}-{last} not shown)")
    return ([line(i) for i in range(start, first)] + keep + [marker]
            + [line(i) for i in range(last + 1, end + 1)])


def _class_prefix(c: Candidate, graph: Graph, lines: list[str],
                  header_shown: set[str]) -> tuple[list[Line], SymbolInfo | None]:
    """The header of a member's class, when no snippet showed it yet (and the class)."""
    parent = graph.symbols.get(c.parent) if c.parent else None
    if (c.kind in CONTAINER_KINDS or parent is None or parent.kind not in CONTAINER_KINDS
            or parent.kind == "module" or parent.id in header_shown):
        return [], parent
    hint = "py" if c.path.endswith(".py") else ""
    head = [n for n in _header_lines(lines, parent.start_line, c.start_line - 1, hint)
            if n < c.start_line]
    if not head:
        return [], parent
    prefix: list[Line] = [(n, lines[n - 1].rstrip()) for n in head]
    if head[-1] + 1 < c.start_line:
        prefix.append((0, "..."))
    return prefix, parent


# --- under the budget ----------------------------------------------------------------------------


def assemble(
    candidates: Sequence[Candidate],
    graph: Graph,
    read_lines: ReadLines,
    budget: int = DEFAULT_CONTEXT_TOKENS,
    count_tokens: TokenCounter = estimate_tokens,
) -> Context:
    """Snippets in rank order until the budget is spent. One that does not fit
    is cut at a line end when at least ``MIN_PARTIAL_TOKENS`` remain; smaller
    ones further down may still fill the rest. A symbol whose lines are all
    shown already is skipped."""
    snippets: list[Snippet] = []
    used = 0
    shown: dict[str, set[int]] = {}
    header_shown: set[str] = set()
    targets: set[str] = set()  # the candidates' ids, once a function is elided
    for c in candidates:
        remaining = budget - used
        if remaining < 20:
            break
        lines = read_lines(c.path)
        if not lines:
            continue
        body = _snippet_lines(c, graph, lines)
        nums = {n for n, _ in body if n}
        if not nums or nums <= shown.get(c.path, set()):
            continue
        body = _without_shown(body, shown.get(c.path, set()))  # a nested function sent above
        prefix, parent = _class_prefix(c, graph, lines, header_shown)
        snip = Snippet(c.id, c.path, c.qualified_name, c.kind, min(nums), max(nums),
                       prefix + body, c.score, c.why[0] if c.why else "")
        cost = count_tokens(snip.render()) + SNIPPET_GAP_TOKENS
        if cost > remaining and c.kind not in CONTAINER_KINDS and len(body) > ELIDE_MIN_LINES:
            targets = targets or _targets(candidates)
            elided = _elided(c, body, graph, targets)
            if elided is not None:
                trial = Snippet(c.id, c.path, c.qualified_name, c.kind, min(nums), max(nums),
                                prefix + elided, c.score, c.why[0] if c.why else "",
                                truncated=True)
                trial_cost = count_tokens(trial.render()) + SNIPPET_GAP_TOKENS
                if trial_cost < cost:
                    snip, body, cost = trial, elided, trial_cost
        if cost > remaining:
            if remaining < MIN_PARTIAL_TOKENS:
                continue
            cut = _cut(snip, prefix, body, remaining, count_tokens)
            if cut is None:
                continue
            snip, cost = cut, count_tokens(cut.render()) + SNIPPET_GAP_TOKENS
        snip.tokens = cost
        used += cost
        snippets.append(snip)
        shown.setdefault(c.path, set()).update(snip.shown())
        if c.kind in CONTAINER_KINDS:
            header_shown.add(c.id)
        elif prefix and parent is not None:
            header_shown.add(parent.id)
    return Context(snippets, used, budget)


def _targets(candidates: Sequence[Candidate], most: int = 60) -> set[str]:
    """The symbols a long function's elided form keeps the calls to."""
    return {c.id for c in candidates[:most]}


def _elided(c: Candidate, body: list[Line], graph: Graph, targets: set[str]) -> list[Line] | None:
    """A long function as its head and the lines around its calls to ``targets`` (the
    chain the context follows), "..." between them, line numbers kept; None when it
    calls none of them."""
    sites = {e.site.line for e in graph.callees(c.id) if e.target in targets and e.target != c.id}
    if not sites:
        return None
    numbered = [n for n, _ in body if n]
    keep = set(numbered[:ELIDE_HEAD_LINES]) | {numbered[-1]}
    for line in sites:
        keep.update(range(line - ELIDE_AROUND, line + ELIDE_AROUND + 1))
    out: list[Line] = []
    gap = False
    for n, text in body:
        if n and n not in keep:
            gap = True
            continue
        if gap and out and out[-1][0]:
            out.append((0, "..."))
        gap = False
        out.append((n, text))
    return out


def _without_shown(body: list[Line], shown: set[int]) -> list[Line]:
    """``body`` with the runs of lines a snippet above showed already (a nested function
    sent before its parent) replaced by one marker."""
    if not shown:
        return body
    out: list[Line] = []
    i = 0
    while i < len(body):
        j = i
        while j < len(body) and body[j][0] in shown:
            j += 1
        if j - i >= SHOWN_RUN:
            out.append((0, f"... (lines {body[i][0]}-{body[j - 1][0]} shown above)"))
            i = j
        else:
            out.append(body[i])
            i += 1
    return out


def _cut(snip: Snippet, prefix: list[Line], body: list[Line], remaining: int,
         count_tokens: TokenCounter) -> Snippet | None:
    """The longest head of the snippet that fits, ending at a line end."""
    lo, hi, best = 1, len(body) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        kept = [x for x in body[:mid] if x[0]]
        if not kept:
            lo = mid + 1
            continue
        trial = Snippet(snip.id, snip.path, snip.qualified_name, snip.kind, kept[0][0],
                        kept[-1][0], prefix + body[:mid] + [(0, "... (cut to fit the budget)")],
                        snip.score, snip.why, truncated=True)
        if count_tokens(trial.render()) + SNIPPET_GAP_TOKENS <= remaining:
            best, lo = trial, mid + 1
        else:
            hi = mid - 1
    return best


# --- contexts remembered between an ask and a check of its answer ---------------------------


@dataclass(frozen=True)
class Remembered:
    """A context as it was sent, with the folder it came from."""

    folder: str
    root: Path
    context: Context


class RecentContexts:
    """The last ``size`` contexts handed to a client, by a random id: the client's own
    model answers from one, and its citations are then checked against it."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._items: OrderedDict[str, Remembered] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, folder: str, root: Path, context: Context) -> str:
        """Remember a context; its id (the oldest one is forgotten past ``size``)."""
        cid = secrets.token_hex(8)
        with self._lock:
            self._items[cid] = Remembered(folder, root, context)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return cid

    def get(self, cid: str) -> Remembered | None:
        """The context of an id, None when it was never given or is forgotten."""
        with self._lock:
            item = self._items.get(cid)
            if item is not None:
                self._items.move_to_end(cid)
            return item
