"""LangChain tools of the knowledge namespace and the code-structure tools.

``create_knowledge_tools(kb)`` returns ``knowledge_ingest``, ``knowledge_search``,
``knowledge_namespaces``, ``knowledge_connect``, ``knowledge_export_okf``,
``knowledge_import_okf``, ``code_structure``, ``code_dependencies`` and ``code_search_ast``.

The user is the one bound at construction (``user_id=``) or
``config["configurable"]["user_id"]`` of the run; there is no default user, and a tool called
without one answers with an error rather than touching anybody's data. File-system arguments
are confined: documents to ``files_root``, OKF bundles to ``okf_root`` (per user), code to
``code_root``; a path that resolves outside its root is refused.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool

from langgraph_prax_memory._validation import check_user_id, user_dir_name
from langgraph_prax_memory.errors import PraxMemoryError
from langgraph_prax_memory.knowledge import code as code_mod
from langgraph_prax_memory.knowledge.base import KnowledgeBase

__all__ = ["create_knowledge_tools"]

KNOWLEDGE_TOOL_NAMES = (
    "knowledge_ingest",
    "knowledge_search",
    "knowledge_namespaces",
    "knowledge_connect",
    "knowledge_export_okf",
    "knowledge_import_okf",
    "code_structure",
    "code_dependencies",
    "code_search_ast",
)
_MAX_ANSWER = 24_000


#: Detail dropped, in this order, when an answer is over budget (call lists, then docstrings).
_DROPPABLE = ("calls", "docstring")


def _without(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, key) for k, v in value.items() if k != key}
    if isinstance(value, list):
        return [_without(v, key) for v in value]
    return value


def _dump(value: Any) -> str:
    """Compact JSON within the answer budget.

    An over-long answer first loses its least useful detail (call lists, then docstrings,
    recorded under ``"omitted"``); only if it is still too long does it become a truncated text
    field. Either way it stays valid JSON.
    """

    def encode(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False, default=str, separators=(",", ":"))

    text = encode(value)
    omitted: list[str] = []
    for key in _DROPPABLE:
        if len(text) <= _MAX_ANSWER:
            break
        value = _without(value, key)
        omitted.append(key)
        text = encode({**value, "omitted": omitted} if isinstance(value, dict) else value)
    if len(text) > _MAX_ANSWER:
        return json.dumps({"truncated": True, "partial": text[: _MAX_ANSWER - 200]})
    return text


def _inside(root: Path, path: str) -> Path:
    """``path`` (relative to ``root``, or absolute) if it resolves inside ``root``."""
    candidate = Path(path).expanduser()
    full = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if not full.is_relative_to(root):
        raise PraxMemoryError(f"{path!r} is outside the allowed folder {root}")
    return full


def create_knowledge_tools(
    kb: KnowledgeBase,
    *,
    user_id: str | None = None,
    files_root: str | Path | None = None,
    okf_root: str | Path | None = None,
    code_root: str | Path | None = None,
) -> list[BaseTool]:
    """The knowledge and code tools, ready for a LangGraph ``ToolNode`` or an agent.

    Args:
        kb: The knowledge base the tools act on.
        user_id: Bind every call to this user; otherwise each run must pass
            ``config={"configurable": {"user_id": ...}}``.
        files_root: Folder ``knowledge_ingest`` may read files from (default: none — the
            tool then ingests text only).
        okf_root: Folder under which each user's OKF bundles live (default:
            ``<data_dir>/okf``; a user gets ``<okf_root>/<user>``).
        code_root: Folder the code tools may analyse (default: none — they read no files and
            ``knowledge_ingest`` takes a ``codebase`` source as text).

    Returns:
        The nine tools, named as in :data:`KNOWLEDGE_TOOL_NAMES`.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> import tempfile
        >>> config = MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp())
        >>> mem = PraxMemory(config)
        >>> tools = {t.name: t for t in create_knowledge_tools(KnowledgeBase(mem))}
        >>> cfg = {"configurable": {"user_id": "u1"}}
        >>> answer = tools["knowledge_ingest"].invoke(
        ...     {"source": "The Qdrant engine uses HNSW indexes.", "namespace": "docs"}, cfg)
        >>> ('"concepts":2' in answer, '"relations":1' in answer)
        (True, True)
        >>> "HNSW" in tools["knowledge_search"].invoke({"query": "hnsw"}, cfg)
        True
        >>> mem.close()
    """
    if user_id is not None:
        check_user_id(user_id)
    files = Path(files_root).expanduser().resolve() if files_root is not None else None
    okf_base = Path(okf_root or kb.parts.config.data_dir / "okf").expanduser().resolve()
    code_base = Path(code_root).expanduser().resolve() if code_root is not None else None

    def in_code(path: str) -> Path:
        if code_base is None:
            raise PraxMemoryError(
                "the code tools read no files until a folder is given: "
                "create_knowledge_tools(..., code_root=<folder>)"
            )
        return _inside(code_base, path)

    def who(config: RunnableConfig | None) -> str:
        if user_id is not None:
            return user_id
        uid = ((config or {}).get("configurable") or {}).get("user_id")
        if not uid:
            raise PraxMemoryError(
                "no user: bind user_id when creating the tools or pass "
                'config={"configurable": {"user_id": ...}}'
            )
        return check_user_id(uid)

    def guarded(fn: Any) -> Any:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> str:
            try:
                return str(fn(*args, **kwargs))
            except (PraxMemoryError, ValueError, OSError) as exc:
                return f"Error: {exc}"

        return run

    def knowledge_ingest(
        source: str,
        namespace: str = "uploads",
        title: str | None = None,
        config: RunnableConfig = None,  # type: ignore[assignment]
    ) -> str:
        """Ingest a document into a knowledge namespace of the world-knowledge graph.

        Namespaces: papers, docs, codebase, uploads, or your own. Concepts and relations are
        extracted and kept apart from the user's personal memory. ``source`` is the document
        text, or a file path (markdown, text, PDF) inside the allowed folder; with namespace
        'codebase' and a folder it parses the code (Python, JavaScript, TypeScript).
        """
        uid = who(config)
        target: str | Path = source
        looks_like_path = "\n" not in source and len(source) < 1024
        if namespace == "codebase" and looks_like_path and code_base is not None:
            folder = _inside(code_base, source)
            if folder.is_dir():
                return _dump(kb.ingest_codebase(uid, folder).model_dump(exclude={"document"}))
        if files is not None and looks_like_path:
            candidate = _inside(files, source)
            if candidate.is_file():
                target = candidate
        result = kb.ingest_document(uid, target, namespace, title=title)
        return _dump(result.model_dump(exclude={"document"}))

    def knowledge_search(
        query: str,
        namespace: str | None = None,
        k: int = 8,
        config: RunnableConfig = None,  # type: ignore[assignment]
    ) -> str:
        """Search the world-knowledge graph (documents, papers, code) for concepts.

        Hybrid keyword + semantic search. Use it for "what does that paper / the docs / the
        code say about X"; use memory recall for facts about the user.
        """
        uid = who(config)
        result = kb.search_detailed(uid, query, namespace=namespace, k=max(1, min(k, 50)))
        hits = [
            {
                "name": h.concept.display_name,
                "namespace": h.concept.namespace,
                "kind": h.concept.kind,
                "description": h.concept.description[:500],
                "source": h.concept.source,
                "score": round(h.score, 5),
            }
            for h in result.hits
        ]
        return _dump({"hits": hits, "arms": result.arms})

    def knowledge_namespaces(config: RunnableConfig = None) -> str:  # type: ignore[assignment]
        """List the knowledge namespaces of the user with their concept counts."""
        uid = who(config)
        return _dump([n.model_dump() for n in kb.namespaces(uid)])

    def knowledge_connect(
        concept: str,
        entity: str,
        namespace: str,
        config: RunnableConfig = None,  # type: ignore[assignment]
    ) -> str:
        """Link a knowledge concept to an entity of the user's memory.

        The entity (a person, project, topic …) is given by name or id; afterwards the
        user's notes and the research can be joined.
        """
        uid = who(config)
        new = kb.connect(uid, namespace, concept, entity)
        linked = [c.display_name for c in kb.knowledge_for_entities(uid, [entity])]
        return _dump({"linked": True, "new": new, "concepts_linked_to_entity": linked})

    def knowledge_export_okf(
        namespace: str,
        folder: str | None = None,
        config: RunnableConfig = None,  # type: ignore[assignment]
    ) -> str:
        """Export a knowledge namespace as an Open Knowledge Format bundle.

        The bundle (markdown files with YAML frontmatter) goes to a folder of the user's
        OKF area.
        """
        uid = who(config)
        root = okf_base / user_dir_name(uid)
        root.mkdir(parents=True, exist_ok=True)
        dest = _inside(root.resolve(), folder or namespace)
        out = kb.export_namespace_okf(uid, namespace, dest)
        return _dump(out.model_dump(exclude={"files"}) | {"files": len(out.files)})

    def knowledge_import_okf(
        folder: str,
        namespace: str,
        config: RunnableConfig = None,  # type: ignore[assignment]
    ) -> str:
        """Import an Open Knowledge Format bundle into a knowledge namespace.

        The bundle is read from a folder of the user's OKF area.
        """
        uid = who(config)
        root = (okf_base / user_dir_name(uid)).resolve()
        src = _inside(root, folder)
        out = kb.import_okf(uid, src, namespace)
        return _dump(out.model_dump(exclude={"concept_ids"}))

    def code_structure(path: str) -> str:
        """Classes, functions, methods, imports and decorators of one source file.

        Python, JavaScript or TypeScript, with line numbers, without its whole text.
        """
        return _dump(code_mod.code_structure(in_code(path)).model_dump())

    def code_dependencies(directory: str = ".") -> str:
        """The import map of a source folder, its circular imports and hub files.

        Hub files are the most imported modules.
        """
        report = code_mod.code_dependencies(in_code(directory))
        return _dump(report.model_dump())

    def code_search_ast(name: str, directory: str = ".") -> str:
        """Find definitions (classes, functions, methods, modules) by name or glob.

        A syntax-aware search of a source folder, not a text grep.
        """
        hits = code_mod.code_search_ast(name, in_code(directory))
        return _dump([h.model_dump() for h in hits])

    functions = [
        knowledge_ingest,
        knowledge_search,
        knowledge_namespaces,
        knowledge_connect,
        knowledge_export_okf,
        knowledge_import_okf,
        code_structure,
        code_dependencies,
        code_search_ast,
    ]
    return [StructuredTool.from_function(guarded(fn), name=fn.__name__) for fn in functions]
