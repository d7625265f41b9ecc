"""The knowledge and code LangChain tools: user scoping and confined paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.tools import BaseTool

import langgraph_prax_memory
from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.knowledge import KnowledgeBase
from langgraph_prax_memory.knowledge.tools import KNOWLEDGE_TOOL_NAMES, create_knowledge_tools

PACKAGE = Path(langgraph_prax_memory.__file__).parent


@pytest.fixture
def kb(memory: PraxMemory) -> KnowledgeBase:
    return KnowledgeBase(memory)


def _tools(kb: KnowledgeBase, tmp_path: Path, **kw: object) -> dict[str, BaseTool]:
    tools = create_knowledge_tools(
        kb, files_root=tmp_path / "files", okf_root=tmp_path / "okf", code_root=PACKAGE, **kw
    )
    return {t.name: t for t in tools}


def cfg(user: str) -> dict[str, dict[str, str]]:
    return {"configurable": {"user_id": user}}


def test_all_tools_exist_with_schemas(kb: KnowledgeBase, tmp_path: Path) -> None:
    tools = _tools(kb, tmp_path)
    assert tuple(tools) == KNOWLEDGE_TOOL_NAMES
    for tool in tools.values():
        assert tool.description and "config" not in tool.args


def test_user_comes_from_config_and_never_defaults(kb: KnowledgeBase, tmp_path: Path) -> None:
    tools = _tools(kb, tmp_path)
    ingest, search = tools["knowledge_ingest"], tools["knowledge_search"]
    out = json.loads(
        ingest.invoke(
            {"source": "The Transformer uses Multi-Head Attention.", "namespace": "papers"},
            cfg("ann"),
        )
    )
    assert out["concepts"] == 2 and out["relations"] == 1
    hits = json.loads(search.invoke({"query": "attention"}, cfg("ann")))["hits"]
    assert hits[0]["name"] == "Multi-Head Attention"
    assert json.loads(search.invoke({"query": "attention"}, cfg("ben")))["hits"] == []
    assert search.invoke({"query": "attention"}).startswith("Error: no user")
    namespaces = json.loads(tools["knowledge_namespaces"].invoke({}, cfg("ann")))
    assert namespaces == [{"namespace": "papers", "concepts": 2, "relations": 1, "documents": 1}]
    bound = _tools(kb, tmp_path, user_id="ann")
    assert json.loads(bound["knowledge_search"].invoke({"query": "transformer"}))["hits"]


def test_ingest_files_only_inside_files_root(kb: KnowledgeBase, tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    (files / "doc.md").write_text("# Vector Search\nQdrant uses HNSW graphs.\n")
    tools = _tools(kb, tmp_path)
    out = json.loads(
        tools["knowledge_ingest"].invoke({"source": "doc.md", "namespace": "docs"}, cfg("ann"))
    )
    assert out["concepts"] >= 2
    assert kb.store.get_concept("ann", "docs", "vector search") is not None
    answer = tools["knowledge_ingest"].invoke({"source": "../../etc/passwd"}, cfg("ann"))
    assert answer.startswith("Error:") and "outside" in answer


def test_connect_and_okf_round_trip_through_tools(
    kb: KnowledgeBase, memory: PraxMemory, tmp_path: Path
) -> None:
    tools = _tools(kb, tmp_path)
    tools["knowledge_ingest"].invoke(
        {"source": "Reciprocal Rank Fusion uses BM25 rankings.", "namespace": "papers"},
        cfg("ann"),
    )
    memory.graph.merge_entity("ann", "Search Project", entity_type="project")
    linked = json.loads(
        tools["knowledge_connect"].invoke(
            {"concept": "BM25", "entity": "Search Project", "namespace": "papers"}, cfg("ann")
        )
    )
    assert linked["new"] is True and linked["concepts_linked_to_entity"] == ["BM25"]
    missing = tools["knowledge_connect"].invoke(
        {"concept": "BM25", "entity": "Nobody", "namespace": "papers"}, cfg("ann")
    )
    assert missing.startswith("Error:")
    exported = json.loads(tools["knowledge_export_okf"].invoke({"namespace": "papers"}, cfg("ann")))
    assert exported["concepts"] == 2 and Path(exported["path"]).is_relative_to(tmp_path / "okf")
    imported = json.loads(
        tools["knowledge_import_okf"].invoke({"folder": "papers", "namespace": "copy"}, cfg("ann"))
    )
    assert imported["concepts"] == 2 and imported["relations"] == 1
    escape = tools["knowledge_export_okf"].invoke(
        {"namespace": "papers", "folder": "../../elsewhere"}, cfg("ann")
    )
    assert escape.startswith("Error:") and not (tmp_path / "elsewhere").exists()


def test_code_tools_are_confined_to_code_root(kb: KnowledgeBase, tmp_path: Path) -> None:
    tools = _tools(kb, tmp_path)
    structure = json.loads(tools["code_structure"].invoke({"path": "memory.py"}))
    assert "PraxMemory" in [c["name"] for c in structure["classes"]]
    deps = json.loads(tools["code_dependencies"].invoke({"directory": "knowledge"}))
    assert (
        "langgraph_prax_memory.knowledge.okf"
        in deps["imports"]["langgraph_prax_memory.knowledge.base"]
    )
    found = json.loads(tools["code_search_ast"].invoke({"name": "create_knowledge_tools"}))
    assert (
        found[0]["qualified_name"] == "langgraph_prax_memory.knowledge.tools.create_knowledge_tools"
    )
    assert tools["code_structure"].invoke({"path": "/etc/hostname"}).startswith("Error:")
    codebase = json.loads(
        tools["knowledge_ingest"].invoke(
            {"source": "knowledge", "namespace": "codebase"}, cfg("ann")
        )
    )
    assert codebase["documents"] > 5 and codebase["concepts"] > 50


def test_a_large_file_keeps_its_structure_within_the_budget(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    big = tmp_path / "code" / "big.py"
    big.parent.mkdir()
    lines = [
        f"def function_{i}(a, b):\n    return helper_{i}(a) + other_{i}(b) + third_{i}(a, b)\n"
        for i in range(130)
    ]
    big.write_text("\n".join(lines))
    tools = {t.name: t for t in create_knowledge_tools(kb, code_root=big.parent)}
    out = json.loads(tools["code_structure"].invoke({"path": "big.py"}))
    assert len(out["functions"]) == 130 and out["omitted"] == ["calls"]
    assert out["functions"][129]["name"] == "function_129"
