from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from codeloupe.store import Store, sql_in, sql_literal


def test_sql_literals_are_escaped() -> None:
    assert sql_literal("it's") == "'it''s'"
    assert sql_in("path", ["a'b", "c"]) == "path IN ('a''b', 'c')"
    assert sql_in("path", []) == "false"


def _rows(n: int, dim: int, rng: np.random.Generator) -> list[dict]:
    rows = []
    for i in range(n):
        v = rng.random(dim).astype("float32")
        rows.append({
            "id": f"p.py::f{i}", "path": "p.py", "name": f"f{i}", "qualified_name": f"f{i}",
            "kind": "function", "language": "python", "signature": "", "doc": "", "parent": None,
            "start_line": i + 1, "start_col": 0, "end_line": i + 1, "end_col": 1,
            "content_hash": "", "embed_key": f"k{i}", "embed_text": "", "search_text": f"f{i}",
            "snippet": "", "vector": v / np.linalg.norm(v), "summary_key": f"k{i}",
            "summary_text": "", "summary_vector": v / np.linalg.norm(v),
        })
    return rows


def test_vector_index_is_built_past_the_threshold_and_still_finds_neighbours(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "idx"), "test-model", 16)
    rng = np.random.default_rng(0)
    rows = _rows(400, 16, rng)
    store.symbols.add(pa.Table.from_pylist(rows, schema=store.symbols.schema))
    assert store.count_pending() == 0 and store.count_embedded() == 400
    assert not store.ensure_vector_index(min_rows=1000)
    assert store.ensure_vector_index(min_rows=100)
    assert not store.ensure_vector_index(min_rows=100)  # once
    hits = (store.symbols.search(rows[7]["vector"], vector_column_name="vector")
            .distance_type("cosine").select(["id", "_distance"]).limit(3).to_list())
    assert hits[0]["id"] == "p.py::f7"


def test_pending_is_tracked_by_embed_text(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "idx"), "test-model", 4)
    rows = _rows(3, 4, np.random.default_rng(1))
    rows[1]["vector"] = rows[1]["summary_vector"] = None
    rows[1]["embed_text"] = "function f1"
    rows[1]["summary_key"], rows[1]["summary_text"] = "s1", "function f1 summary"
    store.symbols.add(pa.Table.from_pylist(rows, schema=store.symbols.schema))
    assert store.count_pending() == 1
    pending = store.pending().to_pylist()
    assert [(r["id"], r["summary_key"]) for r in pending] == [("p.py::f1", "s1")]
    store.cache_vectors(["k1", "s1"], np.ones((2, 4), dtype="float32") / 2)
    assert sorted(store.cached_vectors(["k1", "s1", "missing"])) == ["k1", "s1"]
    assert store.count_pending() == 1  # cached is not stored on the symbol
    store.store_vectors(["p.py::f1"], np.ones((1, 4), dtype="float32") / 2,
                        np.full((1, 4), 0.5, dtype="float32"))
    assert store.count_pending() == 0
    row = store.symbols.search().where("id = 'p.py::f1'").to_list()[0]
    assert row["summary_text"] == "" and np.allclose(row["summary_vector"], 0.5)
