"""langchain_tests' standard suites (unit + integration) for every knowledge and code tool."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.knowledge.tools import create_knowledge_tools
from tests.fakes import HashEmbeddings

_REPO = Path(__file__).resolve().parents[3]
_SHARED: dict[str, Any] = {}


def _tools() -> dict[str, BaseTool]:
    if "tools" not in _SHARED:
        root = Path(tempfile.mkdtemp(prefix="prax-kstd-"))
        files = root / "files"
        files.mkdir()
        (files / "paper.md").write_text(
            "# Reciprocal Rank Fusion\n\nRRF combines rankings from several retrievers.\n"
        )
        mem = PraxMemory(
            MemoryConfig(qdrant_url=":memory:", data_dir=root / "data"),
            embeddings=HashEmbeddings(),
            embedding_dimension=384,
        )
        mem.graph.merge_entity("std-user", "Alice", entity_type="person")
        mem.knowledge.ingest_document("std-user", files / "paper.md", namespace="papers")
        mem.knowledge.export_namespace_okf("std-user", "papers", root / "okf" / "bundle")
        tools = create_knowledge_tools(
            mem.knowledge,
            user_id="std-user",
            files_root=files,
            okf_root=root / "okf",
            code_root=_REPO,
        )
        _SHARED["memory"] = mem
        _SHARED["tools"] = {t.name: t for t in tools}
    tools: dict[str, BaseTool] = _SHARED["tools"]
    return tools


@pytest.fixture(scope="module", autouse=True)
def _close_shared() -> Iterator[None]:
    yield
    mem = _SHARED.pop("memory", None)
    _SHARED.pop("tools", None)
    if mem is not None:
        mem.close()


class _Params:
    tool_name: str
    example: dict[str, Any]

    @property
    def tool_constructor(self) -> BaseTool:
        return _tools()[self.tool_name]

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return dict(self.example)


_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "Ingest": ("knowledge_ingest", {"source": "paper.md", "namespace": "papers"}),
    "Search": ("knowledge_search", {"query": "rank fusion", "k": 3}),
    "Namespaces": ("knowledge_namespaces", {}),
    "Connect": (
        "knowledge_connect",
        {"concept": "reciprocal rank fusion", "entity": "Alice", "namespace": "papers"},
    ),
    "ExportOkf": ("knowledge_export_okf", {"namespace": "papers", "folder": "again"}),
    "ImportOkf": ("knowledge_import_okf", {"folder": "bundle", "namespace": "imported"}),
    "CodeStructure": ("code_structure", {"path": "langgraph_prax_memory/memory.py"}),
    "CodeDependencies": ("code_dependencies", {"directory": "langgraph_prax_memory/retrieval"}),
    "CodeSearchAst": (
        "code_search_ast",
        {"name": "Recaller", "directory": "langgraph_prax_memory/retrieval"},
    ),
}

for _name, (_tool, _example) in _CASES.items():
    for _suite, _base in (("Unit", ToolsUnitTests), ("Integration", ToolsIntegrationTests)):
        _test_name = f"Test{_name}{_suite}"
        globals()[_test_name] = type(
            _test_name, (_Params, _base), {"tool_name": _tool, "example": _example}
        )


def test_every_knowledge_tool_has_a_standard_suite() -> None:
    assert {tool for tool, _ in _CASES.values()} == set(_tools())
