from __future__ import annotations

from pathlib import Path

import pytest

from codeloupe.config import Settings
from codeloupe.index import Index
from codeloupe.languages import UnknownLanguageError
from codeloupe.search import Searcher, SearchError, glob_to_paths, looks_like_identifier, rrf


@pytest.fixture(scope="module")
def searcher(tmp_path_factory, embedder) -> Searcher:
    from .conftest import SAMPLE_REPO, write_tree

    root = tmp_path_factory.mktemp("search") / "repo"
    write_tree(root, SAMPLE_REPO)
    index = Index(root, Settings(), embedder=embedder)
    index.update()
    return Searcher(index)


def names(resp) -> list[str]:
    return [h.qualified_name for h in resp.results]


def test_rrf_rewards_agreement() -> None:
    scores = rrf([["a", "b", "c"], ["b", "c", "a"]], k=60)
    assert max(scores, key=scores.get) == "b"
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert rrf([["x"], []], k=10) == {"x": pytest.approx(1 / 11)}


def test_glob_to_paths() -> None:
    paths = ["src/a.py", "src/pkg/b.py", "web/c.js", "a.py"]
    assert glob_to_paths("*.py", paths) == ["src/a.py", "src/pkg/b.py", "a.py"]
    assert glob_to_paths("src/**/*.py", paths) == ["src/a.py", "src/pkg/b.py"]
    assert glob_to_paths("src/*.py", paths) == ["src/a.py"]
    assert glob_to_paths("src", paths) == []  # a bare name is a file-name glob
    assert glob_to_paths("src/", paths) == ["src/a.py", "src/pkg/b.py"]
    assert glob_to_paths("web/**", paths) == ["web/c.js"]
    assert glob_to_paths("./src/*.py", paths) == ["src/a.py"]
    assert glob_to_paths("./.github/*.py", [".github/x.py", "github/x.py"]) == [".github/x.py"]


def test_identifier_detection() -> None:
    assert looks_like_identifier("Client.fetch")
    assert looks_like_identifier("parse_header")
    assert not looks_like_identifier("where do we retry uploads")


@pytest.mark.parametrize("query,first", [
    ("Client.fetch", "Client.fetch"),
    ("parse_header", "parse_header"),
    ("retryFailedUpload", "retryFailedUpload"),
    ("Cart.total_price", "Cart.total_price"),
])
def test_exact_identifier_comes_first(searcher: Searcher, query: str, first: str) -> None:
    assert names(searcher.search(query, k=5))[0] == first


@pytest.mark.parametrize("query,expected", [
    ("retry an upload that failed, with backoff", "retryFailedUpload"),
    ("put a product into the shopping basket", "Cart.add_item"),
    ("split an HTTP header line into its name and value", "parse_header"),
    ("say hello to someone", "Greeter.Greet"),
])
def test_natural_language_queries(searcher: Searcher, query: str, expected: str) -> None:
    assert expected in names(searcher.search(query, k=3))


def test_results_carry_location_and_snippet(searcher: Searcher) -> None:
    hit = searcher.search("parse_header", k=1).results[0]
    d = hit.as_dict()
    assert d["path"] == "src/shop/http.py" and d["language"] == "python"
    assert d["start_line"] == 21 and d["end_line"] == 24 and d["kind"] == "function"
    assert "def parse_header" in d["snippet"]


def test_filters(searcher: Searcher) -> None:
    go = searcher.search("greeting", k=10, lang="go")
    assert go.results and {h.language for h in go.results} == {"go"}
    src = searcher.search("client", k=20, path="src/**")
    assert src.results and all(h.path.startswith("src/") for h in src.results)
    methods = searcher.search("cart", k=20, kind="method")
    assert methods.results and {h.kind for h in methods.results} == {"method"}
    assert searcher.search("cart", k=5, path="nothing/**").results == []
    both = searcher.search("upload", k=20, lang="js,go")
    assert {h.language for h in both.results} <= {"javascript", "go"}


def test_modes_and_bad_arguments(searcher: Searcher) -> None:
    assert names(searcher.search("parse_header", k=3, mode="fts"))[0] == "parse_header"
    assert searcher.search("header parsing", k=3, mode="vector").results
    with pytest.raises(SearchError):
        searcher.search("x", mode="magic")
    with pytest.raises(UnknownLanguageError):
        searcher.search("x", lang="cobol")
    assert searcher.search("   ").results == []


def test_tolerates_query_syntax(searcher: Searcher) -> None:
    # query-language characters around a real name: the full-text half still finds it
    for q in ['"parse_header', "parse_header AND (", "parse_header:bar", "* ? ~ parse_header",
              "parse_header's"]:
        resp = searcher.search(q, k=3, mode="fts")
        assert not resp.warnings, (q, resp.warnings)
        assert [h.name for h in resp.results][:1] == ["parse_header"], q


_ = Path


class KeywordEmbedder:
    """Vectors that count three words, so which of a symbol's two texts is nearer
    to a query is known exactly."""

    model_id = "test/keywords"
    dim = 3
    max_tokens = 256
    WORDS = ("alpha", "beta", "gamma")

    def count_tokens(self, texts):
        return [len(t.split()) for t in texts]

    def embed(self, texts, progress=None):
        import numpy as np

        out = np.array([[t.lower().count(w) + 1e-3 for w in self.WORDS] for t in texts], dtype="float32")
        if progress:
            progress(len(texts))
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_query(self, text):
        return self.embed([text])[0]


def test_a_long_symbol_is_found_by_its_name_signature_and_doc(tmp_path: Path) -> None:
    from .conftest import write_tree

    body = "".join(f"    beta_{i} = beta(beta_{i - 1} if {i} else 0)\n" for i in range(30))
    write_tree(tmp_path / "repo", {
        "long.py": f'def long_one():\n    """alpha"""\n{body}    return beta_29\n',
        "short.py": 'def short_one():\n    """alpha gamma"""\n',
    })
    index = Index(tmp_path / "repo", Settings(), embedder=KeywordEmbedder())
    report = index.update()
    assert report.pending_embeddings == 0
    # The whole text of long_one is mostly "beta"; its summary (name, signature,
    # doc) is "alpha" alone, and nearer to the query than short_one is.
    resp = Searcher(index).search("alpha", k=3, mode="vector")
    assert names(resp)[:2] == ["long_one", "short_one"]
