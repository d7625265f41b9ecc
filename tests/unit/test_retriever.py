from __future__ import annotations

import pytest
from langchain_core.runnables import RunnableLambda

from langgraph_prax_memory import MemoryValidationError, PraxMemory, PraxMemoryRetriever


def test_user_from_config_and_k_per_call(memory: PraxMemory) -> None:
    memory.remember_many("alice", [{"content": f"alice fact {i} about tea"} for i in range(5)])
    memory.remember("bob", "bob fact about tea")
    retriever = PraxMemoryRetriever(memory=memory, k=2)
    docs = retriever.invoke("tea", {"configurable": {"user_id": "alice"}})
    assert len(docs) == 2 and all(d.metadata["user_id"] == "alice" for d in docs)
    assert set(docs[0].metadata["ranks"]) <= {"dense", "sparse", "graph"}
    assert len(retriever.invoke("tea", {"configurable": {"user_id": "alice"}}, k=4)) == 4
    bob = PraxMemoryRetriever(memory=memory, user_id="bob").invoke("tea")
    assert [d.page_content for d in bob] == ["bob fact about tea"]


def test_no_user_is_a_clear_error(memory: PraxMemory) -> None:
    with pytest.raises(MemoryValidationError, match="needs a user"):
        PraxMemoryRetriever(memory=memory).invoke("anything")


async def test_async_and_in_a_chain(memory: PraxMemory) -> None:
    memory.remember("alice", "Alice prefers polars over pandas")
    retriever = PraxMemoryRetriever(memory=memory, user_id="alice", k=1)
    docs = await retriever.ainvoke("dataframes")
    assert docs[0].page_content == "Alice prefers polars over pandas"
    chain = retriever | RunnableLambda(lambda ds: "\n".join(d.page_content for d in ds))
    assert chain.invoke("dataframes") == "Alice prefers polars over pandas"
