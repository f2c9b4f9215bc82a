"""The resolver reads the index only through ``resolve.reads.Reads``, and every read
records a dependency key: an edit re-resolves exactly what read what it changed only
when no lookup can read the tables unrecorded."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from codeloupe.graph.resolve import reads as reads_module
from codeloupe.graph.resolve.reads import Reads

from .test_graph_languages import DATA, _file_rows, _scratch, _snapshot, load

RESOLVE = Path(reads_module.__file__).parent
PHP_RELAY = "src/Relay.php"


def test_no_resolver_module_but_reads_touches_the_index() -> None:
    touched = []
    for path in sorted(RESOLVE.glob("*.py")):
        if path.name == "reads.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and (node.attr == "index" or node.attr.startswith("_idx_")):
                touched.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert touched == []


def _arguments(g, method: str) -> list[object]:
    """Arguments a read of the PHP fixture can be asked with, by parameter name."""
    index = g._index
    cls = index.symbols[f"{PHP_RELAY}::App.Relay"]
    fn = index.symbols[f"{PHP_RELAY}::App.Relay.pipe"]
    by_name = {"symbol_id": cls.id, "owner_id": cls.id, "name": "pipe", "path": PHP_RELAY,
               "qualified": "App.Relay", "modpath": "src/Relay", "source": "App/Net",
               "head": "App", "bound": "StreamInterface", "scope": fn.id, "cls": cls, "f": fn,
               "symbol": cls, "paths": [PHP_RELAY], "exact": False, "package": "App"}
    params = list(inspect.signature(getattr(Reads, method)).parameters)[1:]
    return [by_name[p] for p in params]


READS = sorted(name for name, member in vars(Reads).items()
               if inspect.isfunction(member) and not name.startswith("_"))


# reads that record nothing, each saying why in its docstring: what they answer is a
# function of the path, which a read that recorded the file gave
RECORDS_NOTHING = {"language_of", "module_of"}


@pytest.mark.parametrize("method", READS)
def test_every_read_records_a_key(method: str) -> None:
    if method in RECORDS_NOTHING:
        assert "Records nothing:" in (getattr(Reads, method).__doc__ or "")
        return
    g = load("php")
    resolver = g._resolver
    resolver._deps = set()
    try:
        getattr(resolver, method)(*_arguments(g, method))
        recorded = resolver._deps
    finally:
        resolver._deps = None
    assert recorded, f"Reads.{method} read the index without recording a key"


def test_a_vendor_namespace_that_comes_into_the_repository_re_resolves_its_users() -> None:
    """`use Psr\\...\\StreamInterface` is outside while nothing is defined in namespace
    Psr; a file defining something else there makes the interface unknown instead
    (vendor code checked in: its calls fall back on names), and its removal makes it
    outside again: the same graph as a build from scratch each time."""
    root = DATA / "php"
    files = {f.relative_to(root).as_posix(): f.read_text() for f in sorted(root.rglob("*.php"))}
    g = _scratch(files)
    stream = "src/Vendor/StreamFactory.php"
    text = "<?php\n\nnamespace Psr\\Http\\Message;\n\nclass StreamFactory\n{\n}\n"
    for new in (text, None):
        if new is None:
            del files[stream]
            g.replace_file(stream, [], [])
        else:
            files[stream] = new
            g.replace_file(stream, *_file_rows(stream, new))
        assert _snapshot(g) == _snapshot(_scratch(files))
        rewinds = {e.target for s in g.sites[PHP_RELAY] if s.name == "rewind" for e in g.site_edges[s]}
        assert bool(rewinds) == (new is not None), rewinds


def test_a_type_that_gains_the_interface_s_methods_becomes_an_implementation() -> None:
    """Go: `half` has Middleware but not Name; given Name it implements the interface,
    and the interface given a third method it no longer does: each time the graph a
    build from scratch gives (the interface's method names are a recorded read)."""
    root = DATA / "go"
    files = {f.relative_to(root).as_posix(): f.read_text() for f in sorted(root.rglob("*.go"))}
    g = _scratch(files)
    rel = "srv/middleware.go"
    original = files[rel]
    gains = original.replace("type chain struct", 'func (x *half) Name() string { return "half" }\n\ntype chain struct')
    narrower = gains.replace("\tName() string\n", "\tName() string\n\tClose()\n")
    for text, half in ((gains, True), (narrower, False), (original, False)):
        files[rel] = text
        g.replace_file(rel, *_file_rows(rel, text))
        assert _snapshot(g) == _snapshot(_scratch(files))
        called = {e.target for s in g.sites[rel] if s.name == "Middleware" for e in g.site_edges[s]}
        assert (f"{rel}::half.Middleware" in called) == half, called
