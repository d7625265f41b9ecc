"""Structural code analysis with tree-sitter (Python, JavaScript, TypeScript).

Three tools the Prax assistant had, as plain functions returning pydantic records:

* :func:`code_structure` — classes, functions, methods, imports and decorators of one file,
  without its whole text;
* :func:`code_dependencies` — the import map of a directory, circular imports, hub files;
* :func:`code_search_ast` — definitions by name (not a text grep).

:func:`analyse_project` + :func:`module_concepts` turn a source tree into concepts and
relations for the ``codebase`` knowledge namespace (``defines``, ``imports``, ``inherits``,
``calls``). Parsers come from the maintained per-language PyPI packages
(``tree-sitter-python``, ``tree-sitter-javascript``, ``tree-sitter-typescript``).

The package's private modules: ``_models`` (the records), ``_parsing`` (one file),
``_project`` (a source tree and its concepts), ``_search`` (dependencies, AST search) and
``_sync`` (the ``codebase`` namespace kept in step).

Example:
    >>> from langgraph_prax_memory.knowledge.code import language_of
    >>> language_of("app/main.py"), language_of("web/index.tsx"), language_of("README.md")
    ('python', 'tsx', None)
"""

from langgraph_prax_memory.knowledge.code._models import (
    EXCLUDED_DIRS as EXCLUDED_DIRS,
)
from langgraph_prax_memory.knowledge.code._models import (
    LANGUAGES as LANGUAGES,
)
from langgraph_prax_memory.knowledge.code._models import (
    MAX_FILE_BYTES as MAX_FILE_BYTES,
)
from langgraph_prax_memory.knowledge.code._models import (
    ClassInfo,
    Definition,
    DependencyReport,
    FileStructure,
    FunctionInfo,
    ImportInfo,
    ModuleInfo,
    Project,
)
from langgraph_prax_memory.knowledge.code._parsing import code_structure, language_of
from langgraph_prax_memory.knowledge.code._project import analyse_project, module_concepts
from langgraph_prax_memory.knowledge.code._search import code_dependencies, code_search_ast
from langgraph_prax_memory.knowledge.code._sync import CodebaseSync, module_document, sync_codebase

__all__ = [
    "CodebaseSync",
    "module_document",
    "sync_codebase",
    "ClassInfo",
    "Definition",
    "DependencyReport",
    "FileStructure",
    "FunctionInfo",
    "ImportInfo",
    "ModuleInfo",
    "Project",
    "analyse_project",
    "code_dependencies",
    "code_search_ast",
    "code_structure",
    "language_of",
    "module_concepts",
]
