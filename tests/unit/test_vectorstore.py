"""PraxMemoryVectorStore: one user's memory as a LangChain VectorStore (real embedded Qdrant)."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import VectorStore, VectorStoreRetriever

from langgraph_prax_memory import (
    ConfigError,
    MemoryValidationError,
    PraxMemory,
    PraxMemoryVectorStore,
)


def test_add_search_get_delete_for_one_user(memory: PraxMemory) -> None:
    store = memory.as_vectorstore("alice")
    assert isinstance(store, VectorStore) and store.embeddings is memory.embeddings
    ids = store.add_texts(
        ["Alice drinks green tea", "Alice lives in Oslo"],
        [{"importance": 0.9, "tags": ["drink"]}, {"unrelated": "ignored"}],
    )
    assert len(ids) == 2
    stored = {m.content: m for m in memory.list_memories("alice")}
    assert stored["Alice drinks green tea"].importance == 0.9
    assert stored["Alice drinks green tea"].tags == ["drink"]
    assert stored["Alice lives in Oslo"].source == "vectorstore"

    docs = store.similarity_search("green tea", k=1)
    assert [d.page_content for d in docs] == ["Alice drinks green tea"]
    assert docs[0].metadata["user_id"] == "alice" and docs[0].id == ids[0]
    scored = store.similarity_search_with_score("green tea", k=2)
    assert scored[0][1] >= scored[-1][1]
    relevance = store.similarity_search_with_relevance_scores("green tea", k=2)
    assert all(0.0 <= score <= 1.0 for _, score in relevance)
    assert [d.page_content for d in store.similarity_search("tea", k=2, tags=["drink"])] == [
        "Alice drinks green tea"
    ]

    assert [d.page_content for d in store.get_by_ids([ids[1], "not-an-id"])] == [
        "Alice lives in Oslo"
    ]
    assert store.delete([ids[1]]) is True
    assert store.delete([ids[1]]) is False
    assert memory.count("alice") == 1


def test_the_view_never_crosses_users(memory: PraxMemory) -> None:
    [bob_id] = memory.as_vectorstore("bob").add_texts(["Bob's bank PIN hint is his dog"])
    alice = memory.as_vectorstore("alice")
    alice.add_texts(["Alice drinks green tea"])
    assert all(d.metadata["user_id"] == "alice" for d in alice.similarity_search("PIN dog", k=5))
    assert alice.get_by_ids([bob_id]) == []
    assert alice.delete([bob_id]) is False
    assert memory.count("bob") == 1


def test_documents_ids_retriever_and_bad_input(memory: PraxMemory) -> None:
    store = PraxMemoryVectorStore(memory, "carol")
    first = store.add_documents([Document("Carol uses Rust at work", id="rust")])
    again = store.add_documents([Document("Carol uses Rust and Go at work", id="rust")])
    assert first == again, "the same id replaces the memory"
    assert [m.content for m in memory.list_memories("carol")] == ["Carol uses Rust and Go at work"]

    retriever = store.as_retriever(search_kwargs={"k": 1})
    assert isinstance(retriever, VectorStoreRetriever)
    assert retriever.invoke("Which language?")[0].page_content.startswith("Carol uses Rust")

    with pytest.raises(MemoryValidationError):
        store.add_texts(["fine", ""])
    assert memory.count("carol") == 1, "a bad item stores nothing"
    with pytest.raises(MemoryValidationError, match="same length"):
        store.add_texts(["a", "b"], [{}])
    with pytest.raises(MemoryValidationError, match="needs ids"):
        store.delete()
    with pytest.raises(MemoryValidationError):
        PraxMemoryVectorStore(memory, "")
    with pytest.raises(ConfigError, match="memory= and user_id="):
        PraxMemoryVectorStore.from_texts(["x"], memory.embeddings)
    built = PraxMemoryVectorStore.from_texts(
        ["Dan likes chess"], memory.embeddings, memory=memory, user_id="dan"
    )
    assert built.similarity_search("chess", k=1)[0].page_content == "Dan likes chess"
