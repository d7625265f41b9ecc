"""The scratchpad tools: ``memory_stm_write``, ``memory_stm_read``, ``memory_stm_delete``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from langgraph_prax_memory._untrusted import one_line
from langgraph_prax_memory.stm import StmEntry
from langgraph_prax_memory.tools._base import MemoryTool, _tags_text
from langgraph_prax_memory.tools._schemas import _StmDeleteInput, _StmReadInput, _StmWriteInput


def _stm_line(entry: StmEntry) -> str:
    content, tags = one_line(entry.content), _tags_text(entry.tags)
    return f"- **{one_line(entry.key)}** (importance {entry.importance:g}{tags}): {content}"


def _stm_artifact(entry: StmEntry) -> dict[str, Any]:
    return entry.to_json_dict()


class MemoryStmWriteTool(MemoryTool):
    """``memory_stm_write``: upsert a scratchpad entry (writing a key again reinforces it).

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(enabled=False, data_dir=tempfile.mkdtemp()))
        >>> MemoryStmWriteTool(memory=mem, user_id="u").invoke({"key": "k", "content": "v"})
        "Saved scratchpad entry 'k'."
    """

    name: str = "memory_stm_write"
    description: str = (
        "Write a short-term scratchpad entry (working memory for the current task or session). "
        "Writing an existing key updates it. Use for temporary notes, the current goal, "
        "intermediate results; use memory_remember for durable facts."
    )
    args_schema: type[BaseModel] = _StmWriteInput

    def execute(self, user_id: str, args: _StmWriteInput) -> tuple[str, dict[str, Any]]:
        """Write the entry."""
        entry = self.memory.stm.write(user_id, args.key, args.content, args.importance, args.tags)
        verb = "Updated" if entry.access_count else "Saved"
        return f"{verb} scratchpad entry {entry.key!r}.", {"entry": _stm_artifact(entry)}


class MemoryStmReadTool(MemoryTool):
    """``memory_stm_read``: one scratchpad entry, or all of them."""

    name: str = "memory_stm_read"
    description: str = (
        "Read the short-term scratchpad: one entry by key, or every entry when no key is given."
    )
    args_schema: type[BaseModel] = _StmReadInput

    def execute(self, user_id: str, args: _StmReadInput) -> tuple[str, dict[str, Any]]:
        """Read one entry or all."""
        key = args.key
        if key is not None:
            entry = self.memory.stm.get(user_id, key)
            if entry is None:
                return f"No scratchpad entry {key!r}.", {"entry": None}
            return _stm_line(entry), {"entry": _stm_artifact(entry)}
        entries = self.memory.stm.all(user_id)
        if not entries:
            return "The scratchpad is empty.", {"entries": []}
        noun = "entry" if len(entries) == 1 else "entries"
        text = "\n".join([f"{len(entries)} scratchpad {noun}:", *map(_stm_line, entries)])
        return text, {"entries": [_stm_artifact(e) for e in entries]}


class MemoryStmDeleteTool(MemoryTool):
    """``memory_stm_delete``: remove a scratchpad entry."""

    name: str = "memory_stm_delete"
    description: str = "Delete a short-term scratchpad entry by key (when a task is done)."
    args_schema: type[BaseModel] = _StmDeleteInput

    def execute(self, user_id: str, args: _StmDeleteInput) -> tuple[str, dict[str, Any]]:
        """Delete the entry."""
        key = args.key
        deleted = self.memory.stm.delete(user_id, key)
        text = f"Deleted scratchpad entry {key!r}." if deleted else f"No scratchpad entry {key!r}."
        return text, {"key": key, "deleted": deleted}
