from __future__ import annotations

import math
import subprocess
import sys

from langgraph_prax_memory.embeddings import SparseTFEncoder, tokenize
from langgraph_prax_memory.embeddings._sparse import token_index


def test_tokenize_drops_stop_words_and_keeps_identifiers() -> None:
    assert tokenize("The error E-4012 is in the build") == ["error", "e-4012", "e", "4012", "build"]
    assert tokenize("User's preference") == ["user", "preference"]
    assert tokenize("the and of") == []


def test_indices_are_stable_31_bit_across_processes() -> None:
    idx = token_index("eigenvalue")
    assert 0 <= idx < 2**31
    code = (
        "from langgraph_prax_memory.embeddings._sparse import token_index;"
        "print(token_index('eigenvalue'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == idx


def test_augmented_log_tf_weights() -> None:
    vec = SparseTFEncoder().encode("rust rust rust rust python")
    weights = dict(zip(vec.indices, vec.values, strict=True))
    assert math.isclose(weights[token_index("rust")], 1.0)
    expected = 0.5 + 0.5 * 1.0 / (1.0 + math.log(4))
    assert math.isclose(weights[token_index("python")], expected)
    assert vec.indices == sorted(vec.indices)


def test_empty_text_gives_empty_vector() -> None:
    vec = SparseTFEncoder().embed_query("the of and")
    assert vec.indices == [] and vec.values == []


def test_bm25_scheme_weights_and_binary_queries() -> None:
    enc = SparseTFEncoder("bm25", k1=1.2, b=0.75, avg_len=4.0)
    doc = enc.encode("rust rust python go")  # 4 tokens = avg_len → norm = k1
    weights = dict(zip(doc.indices, doc.values, strict=True))
    assert math.isclose(weights[token_index("rust")], 2 * 2.2 / (2 + 1.2))
    assert math.isclose(weights[token_index("python")], 1 * 2.2 / (1 + 1.2))
    query = enc.embed_query("rust rust python")
    assert query.values == [1.0, 1.0]


def test_stemming_matches_inflections() -> None:
    enc = SparseTFEncoder(stem=True)
    assert enc.tokens("camping paintings") == ["camp", "paint"]
    assert enc.embed_query("camped").indices == enc.embed_documents(["camping"])[0].indices


def test_unknown_scheme_is_an_error() -> None:
    import pytest

    with pytest.raises(ValueError, match="unknown sparse scheme"):
        SparseTFEncoder("tfidf2")
