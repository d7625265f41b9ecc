"""tree-sitter code analysis: structure, dependencies, AST search, codebase ingestion."""

from __future__ import annotations

from pathlib import Path

import pytest

import langgraph_prax_memory
from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.knowledge import (
    KnowledgeBase,
    code_dependencies,
    code_search_ast,
    code_structure,
)

PACKAGE = Path(langgraph_prax_memory.__file__).parent


def test_python_structure(tmp_path: Path) -> None:
    src = tmp_path / "mod.py"
    src.write_text(
        '"""Module doc."""\n'
        "import os\nimport numpy as np\nfrom .sibling import helper as h, other\n"
        "from typing import *\n\n"
        "@dataclass(frozen=True)\nclass Point(Base, mixins.Mixin):\n"
        '    """A point."""\n'
        "    @property\n    def norm(self, scale: float = 1.0) -> float:\n"
        "        return helper(self.x)\n\n"
        "async def fetch(url, *args, **kwargs):\n    return await get(url)\n"
    )
    s = code_structure(src)
    assert s.language == "python" and s.docstring == "Module doc."
    assert [(i.module, i.names, i.alias) for i in s.imports] == [
        ("os", [], None),
        ("numpy", [], "np"),
        (".sibling", ["helper as h", "other"], None),
        ("typing", ["*"], None),
    ]
    [point] = s.classes
    assert (point.name, point.bases, point.decorators, point.docstring) == (
        "Point",
        ["Base", "mixins.Mixin"],
        ["dataclass(frozen=True)"],
        "A point.",
    )
    [norm] = point.methods
    assert norm.params == ["self", "scale"] and norm.decorators == ["property"]
    assert norm.calls == ["helper"]
    [fetch] = s.functions
    assert fetch.is_async and fetch.params == ["url", "*args", "**kwargs"] and fetch.line == 14


def test_javascript_and_typescript_structure(tmp_path: Path) -> None:
    js = tmp_path / "app.js"
    js.write_text(
        'import x, { a as b } from "./util";\nconst fs = require("fs");\n'
        "/** Widget docs. */\nexport class Widget extends Base {\n"
        "  render(p) { return draw(p); }\n}\n"
        "export function main() {}\nconst arrow = async (y) => y;\n"
    )
    s = code_structure(js)
    assert [(i.module, sorted(i.names)) for i in s.imports] == [("./util", ["a", "x"]), ("fs", [])]
    [widget] = s.classes
    assert (widget.name, widget.bases, widget.docstring) == ("Widget", ["Base"], "Widget docs.")
    assert [m.name for m in widget.methods] == ["render"]
    assert [f.name for f in s.functions] == ["main", "arrow"]
    assert s.functions[1].is_async
    ts = tmp_path / "svc.ts"
    ts.write_text(
        'import type { T } from "../types";\n'
        "@Injectable()\nexport class Service extends BaseService implements I {\n"
        "  private run(a: number): string { return helper(a); }\n}\n"
        "interface Options extends Base { a: string }\n"
    )
    t = code_structure(ts)
    assert t.language == "typescript" and t.imports[0].module == "../types"
    service, options = t.classes
    assert service.decorators == ["Injectable()"] and service.bases == ["BaseService"]
    assert service.methods[0].params == ["a"]
    assert (options.kind, options.bases) == ("interface", ["Base"])
    tsx = tmp_path / "view.tsx"
    tsx.write_text("export function View() { return <div/>; }\n")
    assert [f.name for f in code_structure(tsx).functions] == ["View"]
    with pytest.raises(MemoryValidationError):
        code_structure(tmp_path / "notes.txt")


def test_dependencies_cycles_and_hubs(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\nimport requests\n")
    (pkg / "b.py").write_text("from . import c\n")
    (pkg / "c.py").write_text("from .a import thing\n")
    (pkg / "d.py").write_text("from pkg.c import x\nfrom pkg import b\n")
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.ts").write_text('import { u } from "./util";\nimport React from "react";\n')
    (web / "util.ts").write_text('import { i } from "./index";\n')
    report = code_dependencies(tmp_path)
    assert report.imports["pkg.a"] == ["pkg.b"]
    assert report.imports["pkg.b"] == ["pkg.c"]
    assert report.imports["pkg.c"] == ["pkg.a"]
    assert report.external["pkg.a"] == ["requests"]
    assert report.external["web/index"] == ["react"]
    assert ["pkg.a", "pkg.b", "pkg.c"] in report.cycles
    assert ["web/index", "web/util"] in report.cycles
    assert report.hubs[0] in (("pkg.b", 2), ("pkg.c", 2))


def test_search_ast_finds_definitions_not_text() -> None:
    hits = code_search_ast("PraxMemory", PACKAGE)
    assert ("class", "langgraph_prax_memory.memory.PraxMemory") in [
        (h.kind, h.qualified_name) for h in hits
    ]
    assert all(h.name == "PraxMemory" for h in hits)
    methods = code_search_ast("PraxMemory.recall", PACKAGE)
    assert [h.qualified_name for h in methods] == ["langgraph_prax_memory.memory.PraxMemory.recall"]
    stores = code_search_ast("*KnowledgeStore", PACKAGE)
    assert {"SQLiteKnowledgeStore", "Neo4jKnowledgeStore", "KnowledgeStore"} <= {
        h.name for h in stores
    }
    assert code_search_ast("definitely_not_defined_anywhere", PACKAGE) == []


def test_own_package_dependencies() -> None:
    report = code_dependencies(PACKAGE)
    assert "langgraph_prax_memory.ltm" in report.imports["langgraph_prax_memory.memory"]
    assert "langgraph_prax_memory.errors" in dict(report.hubs)
    assert report.errors == []


def test_codebase_ingestion_of_this_package(memory: PraxMemory) -> None:
    kb = KnowledgeBase(memory)
    result = kb.ingest_codebase("dev", PACKAGE)
    assert result.documents > 40 and result.concepts > 500 and not result.warnings
    store = kb.store
    imports = {
        r.target
        for r in store.get_relations(
            "dev",
            "codebase",
            name="langgraph_prax_memory.memory",
            direction="out",
            relation_type="imports",
        )
    }
    assert {
        "langgraph_prax_memory.ltm",
        "langgraph_prax_memory.config",
        "langgraph_prax_memory.embeddings",
        "qdrant_client",
    } <= imports
    assert "langgraph_prax_memory.memory" in kb.dependents("dev", "langgraph_prax_memory.ltm")
    assert "langgraph_prax_memory.knowledge.base" in kb.dependents(
        "dev", "langgraph_prax_memory.knowledge.okf"
    )
    cls = store.get_concept("dev", "codebase", "langgraph_prax_memory.memory.PraxMemory")
    assert cls is not None and cls.kind == "class" and cls.properties["path"] == "memory.py"
    inherits = store.get_relations(
        "dev",
        "codebase",
        name="langgraph_prax_memory.knowledge.sqlite.SQLiteKnowledgeStore",
        direction="out",
        relation_type="inherits",
    )
    assert [r.target for r in inherits] == ["langgraph_prax_memory.knowledge._store.knowledgestore"]
    calls = store.get_relations(
        "dev",
        "codebase",
        name="langgraph_prax_memory.knowledge.code._search.code_dependencies",
        direction="out",
        relation_type="calls",
    )
    assert "langgraph_prax_memory.knowledge.code._project.analyse_project" in {
        r.target for r in calls
    }
    hits = kb.search("dev", "PraxMemory", namespace="codebase", k=3)
    assert hits[0].concept.name == "langgraph_prax_memory.memory.praxmemory"
    again = kb.ingest_codebase("dev", PACKAGE)
    assert again.skipped and again.documents == 0
