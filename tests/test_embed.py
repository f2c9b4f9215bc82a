from __future__ import annotations

import numpy as np

from codeloupe.embed import (
    DEFAULT_MODEL_ID,
    embed_text,
    embedding_key,
    model_identity,
    search_text,
    split_identifier,
    summary_text,
)
from codeloupe.extract import extract_text


def test_split_identifier() -> None:
    assert split_identifier("retry_failed_upload") == ["retry", "failed", "upload"]
    assert split_identifier("parseHTTPHeader") == ["parse", "http", "header"]
    assert split_identifier("Client.fetch") == ["client", "fetch"]
    assert split_identifier("HTTPServer2") == ["http", "server", "2"]
    assert split_identifier("__init__") == ["init"]
    assert split_identifier("XMLHttpRequest") == ["xml", "http", "request"]


def _symbols(source: str, lang: str = "python"):
    return {s.qualified_name: s for s in extract_text("a/b.py", source, lang).symbols}


def test_embed_text_carries_name_words_signature_doc_and_body() -> None:
    syms = _symbols('def retry_failed_upload(n: int):\n    """Try again."""\n    return n\n')
    text = embed_text(syms["retry_failed_upload"])
    assert text.startswith("function retry failed upload")
    assert "def retry_failed_upload(n: int)" in text
    assert "Try again." in text
    assert "return n" in text


def test_long_class_is_embedded_as_header_and_members() -> None:
    methods = "".join(
        f"    def method_{i}(self, value):\n" + "        x = value * 2\n" * 12 for i in range(20)
    )
    syms = _symbols(f'class Big:\n    """A big class."""\n{methods}')
    text = embed_text(syms["Big"], max_tokens=256)
    assert "members: def method_0(self, value); def method_1(self, value)" in text
    assert "x = value * 2" not in text
    small = _symbols("class Small:\n    def go(self):\n        return 1\n")
    assert "return 1" in embed_text(small["Small"])


def test_summary_of_a_long_symbol_is_its_name_signature_and_doc() -> None:
    body = "".join(f"    total += weights[{i}] * values[{i}]\n" for i in range(40))
    syms = _symbols(f'def weighted_sum(values, weights):\n    """Dot product."""\n    total = 0\n{body}'
                    "    return total\n")
    sym = syms["weighted_sum"]
    text = embed_text(sym)
    summary = summary_text(sym, text)
    assert summary == "function weighted sum\ndef weighted_sum(values, weights)\nDot product."
    short = _symbols("def one():\n    return 1\n")["one"]
    assert summary_text(short, embed_text(short)) == embed_text(short)  # one vector will do


def test_search_text_has_split_and_raw_identifiers() -> None:
    syms = _symbols("def parseHTTPHeader(line):\n    return splitLine(line)\n")
    text = search_text(syms["parseHTTPHeader"])
    assert "parseHTTPHeader" in text
    assert "parse http header" in text
    assert "split line" in text


def test_model_identity_and_cache_key() -> None:
    assert model_identity("default", backend="torch") == (DEFAULT_MODEL_ID, 384)
    assert model_identity("default", 128, "torch")[0] == DEFAULT_MODEL_ID + "@128"
    # auto (the default) runs the bundled model on onnx
    assert model_identity("default", 128)[0] == DEFAULT_MODEL_ID + "@128+onnx-int8"
    assert embedding_key("m", "text") == embedding_key("m", "text")
    assert embedding_key("m", "text") != embedding_key("n", "text")
    assert embedding_key("m", "text") != embedding_key("m", "text ")


def test_real_model_embeds_in_input_order(embedder) -> None:
    texts = ["short", "a much longer text " * 30, "retry failed upload", "short"]
    vecs = embedder.embed(texts)
    assert vecs.shape == (4, 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert np.allclose(vecs[0], vecs[3], atol=1e-5)
    alone = embedder.embed(["retry failed upload"])[0]
    assert float(alone @ vecs[2]) > 0.999
    q = embedder.embed_query("retry an upload that failed")
    sims = vecs @ q
    assert int(np.argmax(sims)) == 2
