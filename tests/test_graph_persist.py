"""The saved call graph (``graph.persist``, issue 12): plain data in a versioned format
that loads as the graph that was saved, keeps updating exactly like a graph built
from scratch, answers None for anything else, and never runs what a file holds."""

from __future__ import annotations

import base64
import hmac
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codeloupe import __version__
from codeloupe.graph import Edge, Graph, deps, persist
from codeloupe.graph.memo import Lookup, site_key
from codeloupe.graph_store import CALLS_FILE, GRAPH_FILE, LEGACY_GRAPH_FILES
from codeloupe.userkey import user_secret

from .test_graph_languages import CASES, DATA, _file_rows, _scratch, _snapshot


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This user's cache (its secret) in a folder of the test's."""
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    monkeypatch.delenv("CODELOUPE_SECRET_DIR", raising=False)
    return folder


def _files(lang: str) -> dict[str, str]:
    root = DATA / lang
    from codeloupe.languages import language_for_path
    return {f.relative_to(root).as_posix(): f.read_text() for f in sorted(root.rglob("*"))
            if f.is_file() and language_for_path(f)}


def _state(g: Graph) -> dict[str, object]:
    """Everything a graph answers and keeps for its updates."""
    index, edges, memo = g._index, g._edges, g._resolver.memo
    deps = {site: (memo.values[site_key(site)][0], frozenset(memo.values[site_key(site)][1]))  # keys: a set
            for sites in edges.sites.values() for site in sites}
    return {
        "edges": _snapshot(g), "stats": g.stats(),
        "callers": {s: [(e.site, e.target, e.reason) for e in g.callers(s)] for s in g.symbols},
        "callees": {s: [(e.site, e.target, e.reason) for e in g.callees(s)] for s in g.symbols},
        "types": {s: {k: [(e.site, e.target, e.reason) if isinstance(e, Edge) else e for e in v]
                      for k, v in g.type_references(s).items()} for s in g.symbols},
        "unused": g.unused(),
        "sites": {p: list(v) for p, v in edges.sites.items() if v},
        "deps": deps,
        "symbols": list(index.symbols.values()),
        "tables": [dict(t) for t in (index.by_name, index.by_qualified, index.file_symbols, index.stems,
                                     index.stem_tails, index.dirs, index.subclasses, index.file_lang,
                                     index.module_id, index.macros)],
        "children": {k: dict(v) for k, v in index.children.items()},
        "facts": dict(index.facts),
    }


def _reload(g: Graph, path: Path, key: str = "state") -> Graph:
    g.save(path, key)
    loaded = Graph.load(path, key)
    assert loaded is not None
    return loaded


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_loaded_graph_is_the_graph_that_was_saved(lang: str, tmp_path: Path) -> None:
    g = _scratch(_files(lang))
    loaded = _reload(g, tmp_path / GRAPH_FILE)
    assert _state(loaded) == _state(g)
    assert loaded.unresolved and loaded.stats()["edges"] > 0
    text = (tmp_path / GRAPH_FILE).read_bytes()
    doc = json.loads(text.split(b"\n", 1)[1])  # plain JSON after the header line
    assert (doc["magic"], doc["format"], doc["codeloupe"], doc["resolution"], doc["key"]) == (
        "codeloupe-graph", persist.FORMAT, __version__, persist.RESOLUTION, "state")


def test_a_map_saved_by_another_resolution_is_built_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A newer commit of the same release resolves calls differently: its saved map
    (same key, same version) is not served with the old edges."""
    g = _scratch(_files("python"))
    g.save(tmp_path / GRAPH_FILE, "state")
    assert Graph.load(tmp_path / GRAPH_FILE, "state") is not None
    monkeypatch.setattr(persist, "RESOLUTION", persist.RESOLUTION + 1)
    assert Graph.load(tmp_path / GRAPH_FILE, "state") is None


@pytest.mark.parametrize("lang", sorted(CASES))
def test_edits_after_a_load_equal_a_rebuild(lang: str, tmp_path: Path) -> None:
    """The graph saved, loaded, then edited file by file (delete, restore, rename,
    move calls): the same edges as building from scratch, every time; saved and loaded
    again halfway (a graph saved after edits), still the same."""
    files = _files(lang)
    g = _reload(_scratch(files), tmp_path / "g1")
    for n, (rel, text) in enumerate(list(files.items())):
        lines = text.split("\n")
        half = len(lines) // 2
        edits = [None, text, text.replace("send", "sendx").replace("Send", "Sendx"), "\n\n" + text,
                 "\n".join([*lines[:half], "", *lines[half:]]),
                 text.replace("Transport", "Transporter"), text.replace("Mailer", "Poster"), text]
        for new in edits:
            if new is None:
                del files[rel]
                g.replace_file(rel, [], [])
            else:
                files[rel] = new
                g.replace_file(rel, *_file_rows(rel, new))
            assert _snapshot(g) == _snapshot(_scratch(files)), (rel, new is None)
        if n == 0:
            g = _reload(g, tmp_path / "g2")
            assert _snapshot(g) == _snapshot(_scratch(files))



def test_a_site_resolved_through_a_cycle_is_remembered_and_re_resolved_after_a_load(tmp_path: Path) -> None:
    """``x = x.y``: a lookup that runs into itself is not remembered, but the site's
    resolution around it is (with every key the cycle read), so an edit that moves the
    site re-links it from the memo; after a load an edit of what it read still
    re-resolves it."""
    files = {"a.py": "class A(B):\n    def f(self):\n        self.g()\n\nclass B(A):\n    pass\n\n"
                     "def h():\n    x = x.y\n    x.send()\n",
             "b.py": "class C:\n    def send(self):\n        pass\n"}
    g = _reload(_scratch(files), tmp_path / GRAPH_FILE)
    memo = g._resolver.memo
    [send] = [s for s in g._edges.sites["a.py"] if s.name == "send"]
    assert deps.local_key("a.py::h", "x") in memo.values[site_key(send)][1]
    assert not [k for k in memo.values if k[0] == Lookup.VARIABLE and k[3] == "x"]  # the cycle itself
    for text in ("class C:\n    def sendx(self):\n        pass\n", files["b.py"], ""):
        files["b.py"] = text
        g.replace_file("b.py", *_file_rows("b.py", text))
        assert _snapshot(g) == _snapshot(_scratch(files)), text


def _signed(path: Path, payload: bytes) -> None:
    """A file in the saved format around ``payload``, signed with this user's key."""
    secret = user_secret()
    assert secret is not None
    path.write_bytes(persist._HEADER + persist._mac(secret, payload).encode() + b"\n" + payload)


def _doc(g: Graph, key: str = "state") -> dict:
    return persist.encode(g._index, g._edges, g._resolver.memo, key)


def _packed_places(doc: dict) -> list[tuple[str, ...]]:
    """Where ``doc`` holds packed integer columns: (table, field) or (table, sub-table,
    field)."""
    places = []
    for name, table in doc.items():
        for f, col in table.items() if isinstance(table, dict) else ():
            if isinstance(col, dict):
                places += [(name, f, g) for g, c in col.items() if isinstance(c, str)]
            elif isinstance(col, str):
                places.append((name, f))
    return places


def _unpacked(doc: dict) -> dict:
    """A copy of ``doc`` with every packed column a list of ints (to edit as a list)."""
    d = json.loads(json.dumps(doc))
    for *tables, field in _packed_places(doc):
        holder = d
        for t in tables:
            holder = holder[t]
        holder[field] = list(persist.unpack(holder[field]))
    return d


def _repacked(d: object, like: dict) -> object:
    """``d`` (from ``_unpacked(like)``, edited) with the columns packed again where
    ``like`` has them packed: a list of 32-bit ints is packed, anything else (a float, a
    bool, a number past 32 bits, not a list) stays as it is: of a wrong shape."""
    d = json.loads(json.dumps(d))
    for *tables, field in _packed_places(like) if isinstance(d, dict) else ():
        holder = d
        for t in tables:
            holder = holder.get(t) if isinstance(holder, dict) else None
        col = holder.get(field) if isinstance(holder, dict) else None
        if isinstance(col, list) and all(type(x) is int and -2**31 <= x < 2**31 for x in col):
            holder[field] = persist.pack(col)
    return d


def _bad_docs(doc: dict) -> dict[str, object]:
    """Documents of a wrong shape, each a copy of ``doc`` changed in one place."""
    def changed(edit) -> object:
        d = _unpacked(doc)
        edit(d)
        return _repacked(d, doc)

    def raw(table: str, field: str, value: object) -> dict:  # a column as it is written
        d = json.loads(json.dumps(doc))
        d[table][field] = value
        return d

    n = len(doc["strings"])
    assert persist.unpack(doc["sites"]["line"]), "the fixture has call sites"

    def twin_differs(d: dict) -> None:  # a second site of the first one's memo entry, other targets
        s = d["sites"]
        i = 0
        for f in s:
            s[f].append(s[f][i])
        s["line"][-1] += 1000
        s["found"][-1] = (s["found"][i] + 1) % len(d["found"]["size"])

    def repeat_site(d: dict) -> None:
        for col in d["sites"].values():
            col.append(col[0])

    n_sites = len(persist.unpack(doc["sites"]["line"]))
    return {
        "top level list": [doc],
        "a packed column not base64": raw("sites", "line", "!" * 8),
        "a packed column not ASCII": raw("sites", "line", "\u00e9" * 8),
        "a packed column not a whole number of values": raw("sites", "line", base64.b64encode(b"abc").decode()),
        "a packed column one value short": raw("sites", "col", persist.pack([1] * (n_sites - 1))),
        "a packed column as a list of ints": raw("sites", "line", list(persist.unpack(doc["sites"]["line"]))),
        "strings a string": changed(lambda d: d.__setitem__("strings", "abc")),
        "a string not a str": changed(lambda d: d["strings"].__setitem__(0, 7)),
        "symbols missing": changed(lambda d: d.pop("symbols")),
        "a column a string": changed(lambda d: d["symbols"].__setitem__("id", "abc")),
        "an extra column": changed(lambda d: d["sites"].__setitem__("extra", [])),
        "columns of two lengths": changed(lambda d: d["sites"]["line"].pop()),
        "a string index past the end": changed(lambda d: d["sites"]["name"].__setitem__(0, n)),
        "a negative string index": changed(lambda d: d["sites"]["caller"].__setitem__(0, -1)),
        "a float for an int": changed(lambda d: d["sites"]["line"].__setitem__(0, 1.5)),
        "a bool for an int": changed(lambda d: d["sites"]["col"].__setitem__(0, True)),
        "a flag of 2": changed(lambda d: d["sites"]["external"].__setitem__(0, 2)),
        "a found index past the end": changed(lambda d: d["sites"]["found"].__setitem__(
            0, len(d["found"]["size"]))),
        "sizes that do not add up": changed(lambda d: d["deps"]["size"].append(1)),
        "an unknown reason": changed(lambda d: d["targets"]["reason"].__setitem__(0, "guess")),
        "a confidence above 1": changed(lambda d: d["targets"]["confidence"].__setitem__(0, 2.0)),
        "a confidence as a string": changed(lambda d: d["targets"]["confidence"].__setitem__(0, "0.9")),
        "an unknown fact form": changed(lambda d: d["facts"]["vars"]["form"].__setitem__(0, "x")),
        "a file index past the end": changed(lambda d: d["facts"]["imports"]["file"].__setitem__(
            0, len(d["facts"]["files"]))),
        "a symbol id repeated": changed(lambda d: [c.append(c[0]) for c in d["symbols"].values()]),
        "a call site repeated": changed(repeat_site),
        "sites of one memo entry that differ": changed(twin_differs),
    }


def test_anything_but_a_graph_of_this_format_version_and_key_loads_as_none(tmp_path: Path) -> None:
    g = _scratch(_files("python"))
    path = tmp_path / GRAPH_FILE
    g.save(path, "state")
    good = path.read_bytes()
    assert Graph.load(path, "state") is not None
    assert Graph.load(path, "other-state") is None
    assert Graph.load(tmp_path / "missing", "state") is None
    for cut in (0, 10, len(persist._HEADER) + 64, len(good) // 2, len(good) - 1):
        path.write_bytes(good[:cut])
        assert Graph.load(path, "state") is None, cut
    path.write_bytes(b"garbage\n" * 100)
    assert Graph.load(path, "state") is None
    path.write_bytes(good.replace(b'"key":"state"', b'"key":"stata"'))  # no longer signed
    assert Graph.load(path, "stata") is None
    # signed with another user's key: rejected before it is parsed
    other = persist._HEADER + persist._mac(b"k" * 32, good.split(b"\n", 1)[1]).encode() + b"\n"
    path.write_bytes(other + good.split(b"\n", 1)[1])
    assert Graph.load(path, "state") is None

    # signed with this user's key but not a graph of this format: each field is checked
    doc = _doc(g)
    _signed(path, json.dumps(doc).encode())
    assert Graph.load(path, "state") is not None  # the control: a document as dump makes it
    for label, change in {"format": ("format", 2), "version": ("codeloupe", "0.0.1"),
                          "key": ("key", "other"), "magic": ("magic", "something-else")}.items():
        _signed(path, json.dumps({**doc, change[0]: change[1]}).encode())
        assert Graph.load(path, "state") is None, label
    for label, bad in _bad_docs(doc).items():
        _signed(path, json.dumps(bad).encode())
        assert Graph.load(path, "state") is None, label
    text = json.dumps(doc, separators=(",", ":"))
    for label, payload in {
        "NaN": re.sub(r'"confidence":\[[^,\]]+', '"confidence":[NaN', text, count=1),
        "Infinity": re.sub(r'"confidence":\[[^,\]]+', '"confidence":[Infinity', text, count=1),
        "1e999": re.sub(r'"confidence":\[[^,\]]+', '"confidence":[1e999', text, count=1),
        "deep nesting": "[" * 200_000 + "]" * 200_000,
        "deep nesting unclosed": '{"strings":' + "[" * 1_000_000,
        "not UTF-8": '{"magic":"\xff"}',
        "empty": "",
    }.items():
        assert payload != text
        _signed(path, payload.encode("latin-1") if label == "not UTF-8" else payload.encode())
        assert Graph.load(path, "state") is None, label



def test_every_field_of_a_wrong_type_loads_as_none(tmp_path: Path) -> None:
    """Each column of each table, and each table, replaced by values of other types:
    None every time; by values of the right type out of range somewhere: never an
    exception either (None, or a graph where the value happens to be valid)."""
    like = _doc(_scratch(_files("javascript")))
    doc = _unpacked(like)  # each packed column a list, packed again where it still can be
    path = tmp_path / GRAPH_FILE
    wrong_type = [None, 0, 1.5, "x", {}, [None], [[]], [{}], [True]]
    maybe_valid = [["x"], [-2], [10**30], [0.5]]
    tried = 0
    for name, table in doc.items():
        places = [(table, f) for f in table if isinstance(table[f], list) and table[f]] \
            if isinstance(table, dict) else []
        for sub in (table.values() if isinstance(table, dict) else ()):
            if isinstance(sub, dict):  # the tables of facts
                places += [(sub, f) for f in sub if sub[f]]
        for holder, field in [*places, (doc, name)]:
            keep = holder[field]
            for bad in wrong_type + maybe_valid:
                value = bad + keep[1:] if isinstance(bad, list) and isinstance(keep, list) else bad
                holder[field] = value  # a list: one bad value, the rest as it was (same lengths)
                _signed(path, json.dumps(_repacked(doc, like)).encode())
                got = Graph.load(path, "state")
                if bad in wrong_type:
                    assert got is None, (name, field, bad)
                tried += 1
            holder[field] = keep
    assert tried > 500
    _signed(path, json.dumps(_repacked(doc, like)).encode())
    assert Graph.load(path, "state") is not None


def test_a_graph_state_that_cannot_be_saved_raises_oserror(tmp_path: Path) -> None:
    g = _scratch(_files("python"))
    (tmp_path / "folder").mkdir()
    with pytest.raises(OSError):
        g.save(tmp_path / "missing" / GRAPH_FILE, "state")  # no such folder
    assert list((tmp_path / "folder").iterdir()) == []


# --- a repository's own index folder, and old pickles ------------------------------------


class _Payload:
    """What a hostile pickle does when it is loaded: here, create a marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def _old_pickle(marker: Path, key: str, secret: bytes) -> bytes:
    """A file in the old format (``Graph.save`` up to format 2), signed as it signed:
    unpickling it runs ``open(marker, "w")``."""
    payload = pickle.dumps((2, __version__, key, _Payload(marker)), protocol=5)
    return b"codeloupe-graph\n" + hmac.digest(secret, payload, "sha256") + payload


def _cli(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "HF_HUB_OFFLINE": "1"}
    env.pop("CODELOUPE_SECRET_DIR", None)
    return subprocess.run([sys.executable, "-m", "codeloupe", *args], capture_output=True, text=True,
                          env=env, timeout=600)


def _calls(root: Path, cache: Path) -> dict:
    out = _cli("calls", "--root", str(root), "--json", "-q", "--min-confidence", "0", "Transport.write",
               cache=cache)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _hostile_graph(marker: Path, key: str) -> bytes:
    """A graph in the new format, signed with this user's key, that says
    ``Transport.write`` is called from a function that does not exist."""
    g = _scratch({"app/net/transport.py": (DATA / "python" / "app/net/transport.py").read_text(),
                  "evil.py": "from app.net.transport import Transport\n\ndef steal(t: Transport):\n"
                             "    t.write(1)\n"})
    payload = json.dumps(_doc(g, key)).encode()
    secret = user_secret()
    assert secret is not None
    return persist._HEADER + persist._mac(secret, payload).encode() + b"\n" + payload


def test_a_repository_shipping_a_codeloupe_folder_never_runs_or_trusts_it(tmp_path: Path,
                                                                          cache: Path) -> None:
    marker = tmp_path / "PWNED"
    clean = tmp_path / "clean"
    shutil.copytree(DATA / "python", clean)
    assert _cli("index", str(clean), "--no-embed", "-q", cache=cache).returncode == 0
    want = _calls(clean, cache)
    assert "steal" not in json.dumps(want) and want["callers"]

    # the author indexes the repository (their own key) and commits its .codeloupe with a
    # pickle under the old name and a graph under the new one, both made to be loaded
    author, author_cache = tmp_path / "author", tmp_path / "author-cache"
    shutil.copytree(DATA / "python", author)
    assert _cli("index", str(author), "--no-embed", "-q", cache=author_cache).returncode == 0
    _calls(author, author_cache)
    folder = author / ".codeloupe"
    assert (folder / GRAPH_FILE).exists()
    key = json.loads((folder / GRAPH_FILE).read_bytes().split(b"\n", 1)[1])["key"]
    for old in LEGACY_GRAPH_FILES:
        (folder / old).write_bytes(_old_pickle(marker, key, user_secret() or b""))
    (folder / GRAPH_FILE).write_bytes(_hostile_graph(marker, key))
    victim = tmp_path / "victim"
    shutil.copytree(author, victim, symlinks=True)
    before = {p.name: p.read_bytes() for p in (victim / ".codeloupe").iterdir() if p.is_file()}

    assert _cli("index", str(victim), "--no-embed", "-q", cache=cache).returncode == 0
    got = _calls(victim, cache)
    assert got == {**want, "callers": got["callers"]} and got["callers"] == want["callers"]
    assert not marker.exists()
    after = {p.name: p.read_bytes() for p in (victim / ".codeloupe").iterdir() if p.is_file()}
    assert after == before  # nothing read into a graph, nothing written there


def test_an_old_pickle_in_the_users_own_index_folder_is_never_loaded(tmp_path: Path, cache: Path) -> None:
    marker = tmp_path / "PWNED"
    root = tmp_path / "repo"
    shutil.copytree(DATA / "python", root)
    assert _cli("index", str(root), "--no-embed", "-q", cache=cache).returncode == 0
    want = _calls(root, cache)
    folder = root / ".codeloupe"  # ours: made by codeloupe for this user, used in place
    saved = folder / GRAPH_FILE
    key = json.loads(saved.read_bytes().split(b"\n", 1)[1])["key"]
    # the old format under the old name, signed with this user's key for the current
    # state: exactly what the old loader accepted; the new file gone, then damaged
    for new_file in ("gone", "hostile", "unsigned"):
        for old in LEGACY_GRAPH_FILES:
            (folder / old).write_bytes(_old_pickle(marker, key, user_secret() or b""))
        (folder / CALLS_FILE).unlink()  # else `calls` reads its calls and never the map
        if new_file == "gone":
            saved.unlink()
        elif new_file == "hostile":  # the old pickle's bytes under the new name
            saved.write_bytes((folder / LEGACY_GRAPH_FILES[0]).read_bytes())
        else:  # a graph that lies, signed with another user's key
            payload = _hostile_graph(marker, key).split(b"\n", 1)[1]
            saved.write_bytes(persist._HEADER + persist._mac(b"k" * 32, payload).encode() + b"\n" + payload)
        assert _calls(root, cache)["callers"] == want["callers"], new_file
        assert not marker.exists(), new_file
        assert saved.exists() and Graph.load(saved, key) is not None  # built and saved again
        assert (folder / CALLS_FILE).exists()  # with its calls
        assert not any((folder / old).exists() for old in LEGACY_GRAPH_FILES)  # and the old one gone
    # the new file as codeloupe saved it is used (loaded, not rebuilt)
    stamp = saved.stat().st_mtime_ns
    assert _calls(root, cache)["callers"] == want["callers"] and saved.stat().st_mtime_ns == stamp
