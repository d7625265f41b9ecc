"""Local models run by fastembed: the packaged MiniLM unchanged, prefixes applied, no own ONNX."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest

from langgraph_prax_memory import ConfigError, MemoryConfig
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings, create_dense_embeddings
from langgraph_prax_memory.embeddings._catalog import PACKAGED_MODEL, find_model
from langgraph_prax_memory.embeddings._local import LocalEmbeddings
from langgraph_prax_memory.errors import ModelUnavailableError

DATA = Path(__file__).parent / "data" / "minilm_int8_vectors.json"
PACKAGE = Path(__file__).resolve().parents[2] / "langgraph_prax_memory"


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray(
        (a * b).sum(axis=-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)
    )


def test_packaged_minilm_matches_the_vectors_of_the_previous_implementation(
    tmp_path: Path,
) -> None:
    # recorded from the implementation this one replaced, before it was replaced
    expected = json.loads(DATA.read_text())
    emb = PackagedMiniLMEmbeddings(tmp_path)
    docs = np.array(emb.embed_documents(expected["texts"]))
    assert docs.shape == (5, 384)
    assert _cos(docs, np.array(expected["vectors"])).min() >= 0.999
    query = np.array(emb.embed_query(expected["texts"][1]))
    assert float(_cos(query, np.array(expected["query_vector"]))) >= 0.999


def test_queries_and_passages_get_the_models_own_prefixes(tmp_path: Path) -> None:
    plain = LocalEmbeddings(PACKAGED_MODEL, tmp_path)
    prefixed_spec = dataclasses.replace(
        PACKAGED_MODEL,
        name="minilm-prefix-test",
        query_prefix="query: ",
        passage_prefix="passage: ",
    )
    prefixed = LocalEmbeddings(prefixed_spec, tmp_path)
    text = "which theme does Alice like?"
    assert np.allclose(prefixed.embed_query(text), plain.embed_documents(["query: " + text])[0])
    assert np.allclose(
        prefixed.embed_documents([text])[0], plain.embed_documents(["passage: " + text])[0]
    )
    assert not np.allclose(prefixed.embed_query(text), plain.embed_query(text))


def test_catalog_models_are_pooled_and_prefixed_as_their_authors_say() -> None:
    bge = find_model("BAAI/bge-small-en-v1.5", required=True)
    e5 = find_model("intfloat/e5-small-v2", required=True)
    assert bge is not None and e5 is not None
    assert (bge.pooling, bge.passage_prefix) == ("cls", "")
    assert bge.query_prefix == "Represent this sentence for searching relevant passages: "
    assert (e5.pooling, e5.query_prefix, e5.passage_prefix) == ("mean", "query: ", "passage: ")
    with pytest.raises(ConfigError, match="known local models: all-MiniLM-L6-v2-int8"):
        find_model("no-such-model", required=True)


def test_catalog_models_are_built_as_local_fastembed_models(tmp_path: Path) -> None:
    # long-term memory off: the model is not required at build (tests/unit/test_model_cache.py
    # has the build-time errors), so its embedder shows what happens when one is used unpulled
    config = MemoryConfig(data_dir=tmp_path, embedding_model="e5-small-v2", enabled=False)
    emb = create_dense_embeddings(config)
    assert isinstance(emb.primary, LocalEmbeddings)
    assert emb.primary.spec.name == "e5-small-v2"
    assert emb.model_name == "e5-small-v2"
    assert emb.primary.source == "not pulled"
    with pytest.raises(ModelUnavailableError, match="prax-memory models pull e5-small-v2"):
        emb.embed_query("which theme?")  # never a hub download, never a stand-in


def test_no_hand_written_onnx_inference_is_left_in_the_package() -> None:
    pattern = re.compile(r"^\s*(import|from)\s+(onnxruntime|tokenizers)\b|InferenceSession", re.M)
    offenders = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if pattern.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_a_batch_cut_into_parts_gets_the_vectors_of_one_run(tmp_path: Path) -> None:
    # each ONNX run on one thread, a batch cut into parts side by side (issue 41): the model
    # gives every text the same vector whatever its batch and its thread count
    whole = PackagedMiniLMEmbeddings(tmp_path, threads=2, query_threads=None)
    cut = PackagedMiniLMEmbeddings(tmp_path, threads=3, query_threads=1)
    assert (whole.parts(7), cut.parts(7), cut.parts(2), cut.parts(1)) == (1, 3, 2, 1)
    texts = [f"memory {i}: " + "the user keeps notes about a project " * i for i in range(7)]
    assert np.array_equal(
        np.array(whole.embed_documents(texts)), np.array(cut.embed_documents(texts))
    )
    assert whole.embed_query("which theme?") == cut.embed_query("which theme?")
    # one text, or one run as wide as the cores: the calling thread alone
    assert PackagedMiniLMEmbeddings(tmp_path, threads=4, query_threads=2).parts(10) == 2
    assert PackagedMiniLMEmbeddings(tmp_path, threads=2, query_threads=2).parts(10) == 1


def test_the_threads_of_a_run_are_read_when_the_embedder_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    emb = create_dense_embeddings(MemoryConfig(data_dir=tmp_path, embedding_threads=4))
    assert isinstance(emb.primary, LocalEmbeddings)
    assert emb.primary.parts(10) == 4  # one thread a run by default: four runs side by side
    monkeypatch.setenv("MEMORY_EMBEDDING_QUERY_THREADS", "2")
    monkeypatch.setenv("MEMORY_EMBEDDING_THREADS", "4")
    config = MemoryConfig(data_dir=tmp_path)
    assert config.embedding_query_threads == 2
    emb = create_dense_embeddings(config)
    assert isinstance(emb.primary, LocalEmbeddings)
    assert emb.primary.parts(10) == 2


def test_a_lone_text_is_tokenized_holding_the_gil_to_the_same_vector(tmp_path: Path) -> None:
    # issue 41: fastembed's encode_batch releases the GIL, and a recall's keyword thread then
    # holds it through a whole engine call before the question's ONNX run can start; a lone
    # text goes through encode (which keeps it), to the same ids and the same vector
    emb = PackagedMiniLMEmbeddings(tmp_path)
    inner = emb._get().model
    tokenizer = inner.tokenizer
    texts = ["which theme does Alice like?", "Zoë flew to Málaga " * 120, "東京に住んでいる"]
    for text in texts:
        (alone,) = inner.tokenize([text])
        (batched,) = tokenizer.encode_batch([text])
        assert (alone.ids, alone.attention_mask) == (batched.ids, batched.attention_mask)
    assert len(inner.tokenize([texts[1]])[0].ids) == tokenizer.truncation["max_length"]
    pair = inner.tokenize(texts[:2])  # a batch is still fastembed's (padded to its longest)
    assert len(pair[0].ids) == len(pair[1].ids)
    alone_vectors = [emb.embed_query(t) for t in texts]
    assert np.array_equal(np.array(alone_vectors), np.array(emb.embed_documents(texts)))


def test_only_a_lone_text_leaves_fastembeds_batch_tokenizer(tmp_path: Path) -> None:
    # which tokenizer call each size takes (a recording wrapper around the real tokenizer)
    from langgraph_prax_memory.embeddings._local import _keep_gil_for_one

    emb = PackagedMiniLMEmbeddings(tmp_path)
    loaded = emb._get()
    real = loaded.model.tokenizer
    calls: list[tuple[str, int]] = []

    class Recording:
        def encode(self, text: str) -> object:
            calls.append(("encode", 1))
            return real.encode(text)

    class Model:  # fastembed's shape: a model holding its tokenizer and batch tokenize
        tokenizer = Recording()

        def tokenize(self, documents: list[str], **kwargs: object) -> list[object]:
            calls.append(("encode_batch", len(documents)))
            return list(real.encode_batch(documents))

    holder = type("Holder", (), {"model": Model()})()
    _keep_gil_for_one(holder)
    holder.model.tokenize(["one question"])
    holder.model.tokenize(["two", "texts"])
    assert calls == [("encode", 1), ("encode_batch", 2)]
    _keep_gil_for_one(object())  # anything else is left as it is
