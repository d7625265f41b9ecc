"""LangChain's standard retriever suite against PraxMemoryRetriever (real offline model)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryRetriever

pytestmark = pytest.mark.integration

_FACTS = [
    "Alice prefers polars over pandas for large datasets.",
    "Alice is a data scientist at FinCorp.",
    "Alice trains fraud detection models with XGBoost.",
    "Alice's favourite editor is Helix.",
    "Alice runs on Sunday mornings.",
    # every memory names Alice, so her name tells none apart (docs/retrieval.md): the suite's
    # k = 3 needs three memories the question is really about
    "Alice uses Jupyter notebooks and DuckDB for data analysis.",
]
_MEMORY: PraxMemory | None = None


def _memory() -> PraxMemory:
    global _MEMORY
    if _MEMORY is None:
        data = Path(tempfile.mkdtemp(prefix="prax-retriever-"))
        _MEMORY = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=data))
        _MEMORY.remember_many("alice", [{"content": f} for f in _FACTS])
    return _MEMORY


class TestPraxMemoryRetriever(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[PraxMemoryRetriever]:
        return PraxMemoryRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memory": _memory(), "user_id": "alice", "reinforce": False}

    @property
    def retriever_query_example(self) -> str:
        return "What tools does Alice use for data work?"
