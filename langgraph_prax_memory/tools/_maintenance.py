"""The maintenance tools: ``memory_consolidate`` and ``memory_stats``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ClassVar

from langchain_core.tools import ToolException
from pydantic import BaseModel

from langgraph_prax_memory._stats import collect_stats
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.tools._base import MemoryTool, _jsonable
from langgraph_prax_memory.tools._schemas import _NoInput


def consolidation_hook(memory: PraxMemory) -> Callable[..., Any] | None:
    """The memory's consolidation entry point (``memory.consolidate``), if one is configured."""
    hook = getattr(memory, "consolidate", None)
    return hook if callable(hook) else None


#: What the model is told after a consolidation (the full result is the tool's artifact).
_CONSOLIDATION_SUMMARY = (
    "batches",
    "memories_created",
    "memories_failed",
    "entities_upserted",
    "relations_upserted",
    "pending_review",
    "pending_lines",
)


def summarise_consolidation(result: Any) -> str:
    """A one-line summary of a consolidation result (any pydantic model, dataclass or dict)."""
    data = _jsonable(result)
    if not isinstance(data, dict):
        return f"Consolidation finished: {data}."
    keys = [k for k in _CONSOLIDATION_SUMMARY if k in data] or list(data)
    numbers = [
        f"{k.replace('_', ' ')} {data[k]}"
        for k in keys
        if isinstance(data[k], int | float) and not isinstance(data[k], bool)
    ]
    return "Consolidation finished" + (": " + ", ".join(numbers) if numbers else "") + "."


class MemoryConsolidateTool(MemoryTool):
    """``memory_consolidate``: run the consolidation pipeline now for the current user."""

    name: str = "memory_consolidate"
    description: str = (
        "Consolidate recent conversation into durable memory now (extract entities, relations "
        "and facts; decay old memories). It also runs automatically every few turns."
    )
    args_schema: type[BaseModel] = _NoInput
    requires_ltm: ClassVar[bool] = True

    def execute(self, user_id: str, args: _NoInput) -> tuple[str, dict[str, Any]]:
        """Call the configured consolidation hook."""
        hook = consolidation_hook(self.memory)
        if hook is None:
            return (
                "Consolidation is not configured for this memory; nothing was run.",
                {"status": "not_configured"},
            )
        result = hook(user_id)
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            raise ToolException("memory.consolidate returned an awaitable; use a sync consolidator")
        return summarise_consolidation(result), {"status": "ok", "result": _jsonable(result)}


class MemoryStatsTool(MemoryTool):
    """``memory_stats``: counts of every layer (works without LTM, which it reports as such)."""

    name: str = "memory_stats"
    description: str = (
        "Show how much is stored for the user: scratchpad entries, notes, long-term memories "
        "and graph entities/relations."
    )
    args_schema: type[BaseModel] = _NoInput

    def execute(self, user_id: str, args: _NoInput) -> tuple[str, dict[str, Any]]:
        """Collect the counts."""
        stats = collect_stats(self.memory, user_id)
        return stats.summary(), {"stats": stats.model_dump(mode="json")}
