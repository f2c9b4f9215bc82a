"""The order an index run embeds symbols in (open files and their neighbours, source,
tests, docs and examples), and the time left it shows meanwhile."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeloupe.config import Settings
from codeloupe.index import Index
from codeloupe.pending import (
    ASIDE,
    SOURCE,
    TESTS,
    EmbedClock,
    about,
    embed_order,
    next_page,
    path_class,
)

from .conftest import write_tree
from .test_graph import _scratch


@pytest.mark.parametrize(("rel", "cls"), [
    ("pkg/core.py", SOURCE), ("src/main/java/a/App.java", SOURCE), ("lib/router.js", SOURCE),
    ("contest.py", SOURCE), ("latest_news.py", SOURCE), ("src/testing_utils.rs", SOURCE),
    ("tests/test_core.py", TESTS), ("pkg/test_core.py", TESTS), ("pkg/conftest.py", TESTS),
    ("server/handler_test.go", TESTS), ("src/app.spec.ts", TESTS), ("lib/x.test.mjs", TESTS),
    ("src/test/java/a/AppTest.java", TESTS), ("Lib.Tests/ParserTests.cs", TESTS),
    ("spec/models/user_spec.rb", TESTS), ("src/__tests__/view.jsx", TESTS),
    ("Tests/Unit/FooTest.php", TESTS),
    ("docs/conf.py", ASIDE), ("examples/basic/main.go", ASIDE), ("benches/bytes.rs", ASIDE),
    ("Doc/tools/extensions/peg.py", ASIDE),
])
def test_what_a_file_is(rel: str, cls: int) -> None:
    assert path_class(rel) == cls


def test_open_files_and_their_neighbours_come_first_then_source_tests_docs() -> None:
    counts = {"tests/test_a.py": 3, "docs/conf.py": 1, "pkg/b.py": 2, "pkg/a.py": 5,
              "examples/demo.py": 1, "pkg/c.py": 1}
    assert embed_order(counts) == ["pkg/a.py", "pkg/b.py", "pkg/c.py", "tests/test_a.py",
                                   "docs/conf.py", "examples/demo.py"]
    # first: as given, repeats and files with nothing pending left out
    first = ["tests/test_a.py", "pkg/c.py", "tests/test_a.py", "gone.py"]
    assert embed_order(counts, first) == ["tests/test_a.py", "pkg/c.py", "pkg/a.py", "pkg/b.py",
                                          "docs/conf.py", "examples/demo.py"]


def test_a_page_is_whole_files() -> None:
    counts = {"a": 3, "b": 3, "c": 1, "big": 50}
    assert next_page(["a", "b", "c"], counts, 4) == ["a"]
    assert next_page(["a", "b", "c"], counts, 7) == ["a", "b", "c"]
    assert next_page(["big", "a"], counts, 4) == ["big"]  # a file larger than a page: alone


def test_neighbour_files_are_callers_and_callees_most_edges_first() -> None:
    g = _scratch({
        "core.py": "def parse(x):\n    return helper(x)\n\ndef helper(x):\n    return x\n",
        "cli.py": "from core import parse\n\ndef main():\n    parse(1)\n    parse(2)\n",
        "web.py": "from core import parse\n\ndef view():\n    return parse(3)\n",
        "util.py": "def fmt(x):\n    return str(x)\n",
        "app.py": "from cli import main\n\ndef run():\n    main()\n",
    })
    assert g.neighbour_files(["core.py"]) == ["cli.py", "web.py"]
    assert g.neighbour_files(["cli.py"]) == ["core.py", "app.py"]  # two calls, one call
    assert g.neighbour_files(["util.py"]) == []


def test_the_language_server_embeds_open_files_and_their_neighbours_first(tmp_path: Path) -> None:
    from codeloupe.extract import extract_text
    from codeloupe.languages import language_for_path
    from codeloupe.lsp.indexing import embed_first
    from codeloupe.workspace import FileModel, Folder

    files = {"core.py": "def parse(x):\n    return x\n",
             "cli.py": "from core import parse\n\ndef main():\n    parse(1)\n",
             "util.py": "def fmt(x):\n    return str(x)\n"}
    models = {p: FileModel.from_extraction(extract_text(p, t, language_for_path(p)))
              for p, t in files.items()}
    folder = Folder(uri=tmp_path.as_uri(), root=tmp_path)
    folder.set_disk(models)
    assert embed_first(folder) == []  # nothing open
    folder.set_live(models["core.py"])
    assert embed_first(folder) == ["core.py"]  # no graph made yet: never built for this
    folder.snapshot()
    assert embed_first(folder) == ["core.py", "cli.py"]
    folder.set_live(models["util.py"])  # a newer generation: the last graph still serves
    assert embed_first(folder) == ["core.py", "util.py", "cli.py"]


def _py(name: str, n: int) -> str:
    return "".join(f"def {name}_{i}(x):\n    '''Return x for {name} {i}.'''\n    return x + {i}\n\n"
                   for i in range(n))


def test_an_index_run_embeds_in_that_order_and_asks_for_the_first_files_each_page(
        tmp_path: Path, embedder) -> None:
    root = tmp_path / "repo"
    write_tree(root, {
        "docs/conf.py": _py("conf", 2), "tests/test_core.py": _py("check", 3),
        "pkg/core.py": _py("core", 3), "pkg/zeta.py": _py("zeta", 2),
        "pkg/alpha.py": _py("alpha", 2), "examples/demo.py": _py("demo", 2),
    })
    idx = Index(root, Settings(), embedder=embedder)
    idx.sync_files()
    finished: list[str] = []  # files in the order their last symbol got its vectors
    before = idx.store.pending_paths()

    def progress(stage: str, done: int, total: int, eta: float | None = None, /) -> None:
        now = idx.store.pending_paths()
        finished.extend(sorted(p for p in before if p not in now and p not in finished))

    asked: list[int] = []

    def first() -> list[str]:
        # the user opens pkg/zeta.py after the first page: it comes next
        asked.append(len(asked))
        return ["pkg/core.py"] if len(asked) == 1 else ["pkg/core.py", "pkg/zeta.py"]

    idx.embed_pending(progress, page=1, commit_every=2, first=first)
    assert idx.store.count_pending() == 0
    assert finished == ["pkg/core.py", "pkg/zeta.py", "pkg/alpha.py", "tests/test_core.py",
                        "docs/conf.py", "examples/demo.py"]
    assert len(asked) == 6  # once per page (one file a page here)


def test_the_time_left_fits_a_cost_per_text_and_per_token() -> None:
    now = [100.0]
    clock = EmbedClock(total_symbols=40, clock=lambda: now[0])
    assert clock.eta() is None
    # the first page: 20 of the 40 symbols, 30 texts to embed
    lengths = [8] * 10 + [40] * 10 + [120] * 10
    clock.page(20, lengths)

    def cost(texts: int, tokens: int) -> float:
        return 0.02 * texts + 0.001 * tokens

    for chunk in (lengths[:10], lengths[10:20], lengths[20:25]):
        clock.group(len(chunk), sum(chunk), cost(len(chunk), sum(chunk)))
    a, b = clock.cost()
    assert a == pytest.approx(0.02) and b == pytest.approx(0.001)
    # left: 5 texts of 120 tokens of this page, and 20 unread symbols at this page's rate
    # (30 texts and 1,680 tokens per 20 symbols)
    expected = cost(5, 600) + cost(30, 1680)
    assert clock.eta() == pytest.approx(expected)
    now[0] += 1.5  # it counts down between estimates, never below zero
    assert clock.eta() == pytest.approx(expected - 1.5)
    now[0] += 1000
    assert clock.eta() == 0.0


def test_the_time_left_with_one_kind_of_text_is_a_rate_of_tokens() -> None:
    clock = EmbedClock(total_symbols=10, clock=lambda: 0.0)
    clock.page(10, [50] * 10)
    clock.group(4, 200, 2.0)  # one group: no fit yet, seconds per token
    assert clock.cost() == (0.0, pytest.approx(0.01))
    assert clock.eta() == pytest.approx(3.0)
    clock.group(6, 300, 3.0)
    assert clock.eta() == 0.0


@pytest.mark.parametrize(("seconds", "said"), [
    (0.4, "about 1 s"), (7.2, "about 7 s"), (42, "about 40 s"), (58, "about 60 s"),
    (95, "about 2 min"), (3000, "about 50 min"), (3900, "about 1 h 5 min"),
])
def test_the_time_left_as_a_person_says_it(seconds: float, said: str) -> None:
    assert about(seconds) == said


def test_the_cli_progress_says_the_time_left_in_a_log(capsys) -> None:
    from codeloupe.cli.common import progress_reporter

    with progress_reporter() as progress:  # stderr is no terminal here: lines
        progress("embed", 0, 1000)
        progress("embed", 500, 1000, 42.0)
        progress("embed", 1000, 1000, 0.0)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3 and "left" not in lines[0], lines
    assert lines[1].startswith("codeloupe: embedding 500/1000 (") and lines[1].endswith(
        ", about 40 s left)"), lines
    assert lines[2].startswith("codeloupe: embedding 1000/1000 (") and "left" not in lines[2]
