"""Build the memory tools by name, and a LangGraph ``ToolNode`` running them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from langchain_core.tools import BaseTool
from langgraph.prebuilt import ToolNode

from langgraph_prax_memory._async_memory import AsyncPraxMemory
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.tools._base import (
    TOOL_NAMES,
    MemoryTool,
    MissingUserIdError,
)
from langgraph_prax_memory.tools._graph import MemoryEntityLookupTool, MemoryGraphQueryTool
from langgraph_prax_memory.tools._ltm import MemoryForgetTool, MemoryRecallTool, MemoryRememberTool
from langgraph_prax_memory.tools._maintenance import MemoryConsolidateTool, MemoryStatsTool
from langgraph_prax_memory.tools._notes import UserNotesReadTool, UserNotesUpdateTool
from langgraph_prax_memory.tools._stm import (
    MemoryStmDeleteTool,
    MemoryStmReadTool,
    MemoryStmWriteTool,
)

_TOOL_CLASSES: dict[str, Callable[..., MemoryTool]] = {
    "memory_stm_write": MemoryStmWriteTool,
    "memory_stm_read": MemoryStmReadTool,
    "memory_stm_delete": MemoryStmDeleteTool,
    "memory_remember": MemoryRememberTool,
    "memory_recall": MemoryRecallTool,
    "memory_forget": MemoryForgetTool,
    "memory_entity_lookup": MemoryEntityLookupTool,
    "memory_graph_query": MemoryGraphQueryTool,
    "memory_consolidate": MemoryConsolidateTool,
    "memory_stats": MemoryStatsTool,
    "user_notes_read": UserNotesReadTool,
    "user_notes_update": UserNotesUpdateTool,
}


def create_memory_tools(
    memory: PraxMemory | AsyncPraxMemory,
    *,
    user_id: str | None = None,
    include: Iterable[str] | None = None,
    knowledge: bool = False,
    files_root: str | Path | None = None,
    okf_root: str | Path | None = None,
    code_root: str | Path | None = None,
) -> list[BaseTool]:
    """Build the memory tools (all twelve by default, in :data:`TOOL_NAMES` order).

    Args:
        memory: The memory the tools act on.
        user_id: Bind every tool to this user. Leave it out in a multi-user graph: each call
            then uses ``config["configurable"]["user_id"]`` of its run.
        include: Only these tool names (e.g. :data:`STM_TOOL_NAMES`), in the order given.
        knowledge: Add the knowledge and code tools (``knowledge_ingest``,
            ``knowledge_search``, ... ``code_search_ast``) over ``memory.knowledge``.
        files_root: Folder the knowledge tools may ingest files from.
        okf_root: Folder OKF bundles are exported to and imported from.
        code_root: Folder the code tools may read.

    Raises:
        ValueError: ``include`` names a tool that does not exist.

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp()))
        >>> [t.name for t in create_memory_tools(mem, include=["memory_recall"])]
        ['memory_recall']
    """
    names = list(TOOL_NAMES if include is None else include)
    unknown = [n for n in names if n not in _TOOL_CLASSES]
    if unknown:
        raise ValueError(f"unknown memory tool(s) {unknown}; choose from {list(TOOL_NAMES)}")
    if user_id is not None and (not isinstance(user_id, str) or not user_id.strip()):
        raise MissingUserIdError("user_id, when given, must be a non-empty string")
    if isinstance(memory, AsyncPraxMemory):
        memory = memory.sync
    tools: list[BaseTool] = [
        _TOOL_CLASSES[n](memory=memory, user_id=user_id) for n in dict.fromkeys(names)
    ]
    if knowledge:
        from langgraph_prax_memory.knowledge.tools import create_knowledge_tools

        tools += create_knowledge_tools(
            memory.knowledge,
            user_id=user_id,
            files_root=files_root,
            okf_root=okf_root,
            code_root=code_root,
        )
    return tools


def create_memory_tool_node(
    memory: PraxMemory | AsyncPraxMemory,
    *,
    user_id: str | None = None,
    include: Iterable[str] | None = None,
    extra_tools: Sequence[BaseTool] = (),
    name: str = "tools",
) -> ToolNode:
    """A LangGraph ``ToolNode`` running the memory tools (and ``extra_tools``).

    The node passes the run's config to every tool, so ``config["configurable"]["user_id"]``
    selects the user when ``user_id`` is not bound.

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp()))
        >>> node = create_memory_tool_node(mem)
        >>> sorted(node.tools_by_name)[:2]
        ['memory_consolidate', 'memory_entity_lookup']
    """
    tools = [*create_memory_tools(memory, user_id=user_id, include=include), *extra_tools]
    return ToolNode(tools, name=name)
