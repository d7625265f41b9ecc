"""langchain_tests' standard suites (unit + integration) for every memory tool."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.tools import (
    MemoryConsolidateTool,
    MemoryEntityLookupTool,
    MemoryForgetTool,
    MemoryGraphQueryTool,
    MemoryRecallTool,
    MemoryRememberTool,
    MemoryStatsTool,
    MemoryStmDeleteTool,
    MemoryStmReadTool,
    MemoryStmWriteTool,
    UserNotesReadTool,
    UserNotesUpdateTool,
)
from tests.fakes import HashEmbeddings

_SHARED: dict[str, PraxMemory] = {}


def _memory() -> PraxMemory:
    if "memory" not in _SHARED:
        cfg = MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp(prefix="prax-std-"))
        mem = PraxMemory(cfg, embeddings=HashEmbeddings(), embedding_dimension=384)
        mem.remember("std-user", "User prefers dark mode in all tools", importance=0.8)
        mem.graph.add_relation("std-user", "Project Alpha", "Rust", "related_to")
        _SHARED["memory"] = mem
    return _SHARED["memory"]


@pytest.fixture(scope="module", autouse=True)
def _close_shared() -> Iterator[None]:
    yield
    mem = _SHARED.pop("memory", None)
    if mem is not None:
        mem.close()


class _Params:
    cls: type[BaseTool]
    example: dict[str, Any]

    @property
    def tool_constructor(self) -> type[BaseTool]:
        return self.cls

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return {"memory": _memory(), "user_id": "std-user"}

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return dict(self.example)


_CASES: dict[str, tuple[type[BaseTool], dict[str, Any]]] = {
    "StmWrite": (
        MemoryStmWriteTool,
        {"key": "current_project", "content": "fraud detection with XGBoost"},
    ),
    "StmRead": (MemoryStmReadTool, {"key": "current_project"}),
    "StmDelete": (MemoryStmDeleteTool, {"key": "obsolete"}),
    "Remember": (
        MemoryRememberTool,
        {"content": "User prefers polars over pandas", "importance": 0.7, "tags": "tools"},
    ),
    "Recall": (MemoryRecallTool, {"query": "dark mode", "k": 3}),
    "Forget": (MemoryForgetTool, {"memory_id": "00000000-0000-0000-0000-000000000000"}),
    "EntityLookup": (MemoryEntityLookupTool, {"name": "Project Alpha"}),
    "GraphQuery": (MemoryGraphQueryTool, {"question": "How are Project Alpha and Rust connected?"}),
    "Consolidate": (MemoryConsolidateTool, {}),
    "Stats": (MemoryStatsTool, {}),
    "NotesRead": (UserNotesReadTool, {}),
    "NotesUpdate": (UserNotesUpdateTool, {"content": "timezone: Europe/Paris\n"}),
}

# One ToolsUnitTests and one ToolsIntegrationTests class per tool (the suites refuse to be mixed).
for _name, (_cls, _example) in _CASES.items():
    for _suite, _base in (("Unit", ToolsUnitTests), ("Integration", ToolsIntegrationTests)):
        _test_name = f"Test{_name}{_suite}"
        globals()[_test_name] = type(
            _test_name, (_Params, _base), {"cls": _cls, "example": _example}
        )
