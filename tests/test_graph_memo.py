"""The memo's index of who read what (``graph.memo``): an edit drops exactly the entries
that read a changed key, however often entries were forgotten and remembered again."""

from __future__ import annotations

import random

from codeloupe.graph.memo import Memo


def _reading(deps: set[str]) -> tuple[object, frozenset[str]]:
    return ("value", frozenset(deps))


def test_drop_forgets_exactly_the_readers_of_a_changed_key() -> None:
    memo = Memo()
    memo.remember(("a",), _reading({"x", "y"}))
    memo.remember(("b",), _reading({"y"}))
    memo.remember(("c",), _reading({"z"}))
    assert sorted(memo.drop(["y"])) == [("a",), ("b",)]
    assert list(memo.values) == [("c",)]
    assert memo.drop(["x", "y"]) == []  # (a) was forgotten already
    memo.remember(("a",), _reading({"x"}))
    assert memo.drop(["x", "x"]) == [("a",)]  # once, though it was indexed under x twice


def test_readers_stay_bounded_while_entries_come_and_go() -> None:
    """A long session: entries that read a key that never changes (a common name) are
    dropped through another key and remembered again, edit after edit. Each drop
    equals what a set of readers would give, and the list of the unchanging key's
    readers never holds much more than twice its live entries."""
    rng = random.Random(7)
    memo = Memo()
    live: dict[tuple, frozenset[str]] = {}
    for n in range(20_000):
        key = ("site", rng.randrange(300))
        deps = frozenset({"common", f"file{rng.randrange(40)}"})
        memo.remember(key, ("v", deps))
        live[key] = deps
        if n % 7 == 0:
            memo.index()  # the server indexes after each update
        if n % 50 == 0:
            changed = f"file{rng.randrange(40)}"
            # what a set of readers gives: every live entry that read the key
            # (the memo also reads stale registrations: an entry remembered again
            # without that key keeps one until the sweep, as a set of readers would)
            expected = {k for k, d in live.items() if changed in d}
            dropped = memo.drop([changed])
            assert len(dropped) == len(set(dropped))
            assert expected <= set(dropped)
            for k in dropped:
                live.pop(k, None)
            assert set(memo.values) == set(live)
    memo.index()
    readers = memo.by_dep["common"]
    assert set(readers) >= set(live)
    assert len(readers) <= max(256, 2 * len(live)) + 1
