from __future__ import annotations

import pytest

from langgraph_prax_memory import ConfigError, MemoryConfig
from langgraph_prax_memory.embeddings import ResilientEmbeddings, create_dense_embeddings
from langgraph_prax_memory.embeddings._dense import OllamaEmbeddings, PackagedMiniLMEmbeddings
from langgraph_prax_memory.errors import EmbeddingError
from tests.fakes import FailingEmbeddings, HashEmbeddings


def test_cache_avoids_re_embedding_the_same_text() -> None:
    inner = HashEmbeddings()
    emb = ResilientEmbeddings(inner, dimension=384)
    first = emb.embed_documents(["a b", "c d"])
    second = emb.embed_documents(["c d", "a b"])
    assert inner.calls == 1
    assert second == [first[1], first[0]]


def test_fallback_goes_to_a_model_of_the_same_width() -> None:
    backup = HashEmbeddings(384)
    emb = ResilientEmbeddings(FailingEmbeddings(), dimension=384, fallbacks=[backup])
    vec = emb.embed_query("dark mode")
    assert vec == backup.embed_query("dark mode")
    assert emb.last_model == "hash-384"


def test_all_providers_down_raises_embedding_error_not_zero_vectors() -> None:
    emb = ResilientEmbeddings(
        FailingEmbeddings(), dimension=384, fallbacks=[FailingEmbeddings("b")]
    )
    with pytest.raises(EmbeddingError, match="every embedding model failed"):
        emb.embed_documents(["x"])


def test_width_mismatch_is_a_config_error() -> None:
    emb = ResilientEmbeddings(HashEmbeddings(128), dimension=384)
    with pytest.raises(ConfigError, match="128-dimensional"):
        emb.embed_query("x")


def test_remote_providers_fall_back_only_to_same_width(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ollama = create_dense_embeddings(MemoryConfig(data_dir=tmp_path, embedding_provider="ollama"))
    assert isinstance(ollama.primary, OllamaEmbeddings)
    assert ollama.dimension == 768
    assert ollama.fallbacks == []  # the packaged model is 384-d: it cannot stand in for 768
    # (long-term memory off: the models need not be on disk to see how they are composed)
    local = create_dense_embeddings(
        MemoryConfig(
            data_dir=tmp_path, embedding_model="snowflake/snowflake-arctic-embed-xs", enabled=False
        )
    )
    assert local.dimension == 384
    assert [type(f) for f in local.fallbacks] == [PackagedMiniLMEmbeddings]
    # a catalog model gets no stand-in: its collection never holds another model's vectors
    bge = create_dense_embeddings(
        MemoryConfig(data_dir=tmp_path, embedding_model="BAAI/bge-small-en-v1.5", enabled=False)
    )
    assert bge.fallbacks == []


def test_ollama_down_is_an_embedding_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    emb = create_dense_embeddings(
        MemoryConfig(
            data_dir=tmp_path, embedding_provider="ollama", ollama_base_url="http://127.0.0.1:9"
        )
    )
    with pytest.raises(EmbeddingError):
        emb.embed_query("hello")


def test_custom_embeddings_need_a_dimension(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="dimension"):
        create_dense_embeddings(MemoryConfig(data_dir=tmp_path), primary=HashEmbeddings())


async def test_async_face_uses_the_same_fallback_and_cache() -> None:
    backup = HashEmbeddings(384)
    emb = ResilientEmbeddings(FailingEmbeddings(), dimension=384, fallbacks=[backup])
    vec = await emb.aembed_query("dark mode")
    assert vec == backup.embed_query("dark mode") and emb.last_model == "hash-384"
    down = ResilientEmbeddings(FailingEmbeddings(), dimension=384)
    with pytest.raises(EmbeddingError):
        await down.aembed_documents(["x"])
