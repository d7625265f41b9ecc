"""The quick-reference notes tools: ``user_notes_read`` and ``user_notes_update``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from langgraph_prax_memory.tools._base import MemoryTool
from langgraph_prax_memory.tools._schemas import _NoInput, _NotesUpdateInput


class UserNotesReadTool(MemoryTool):
    """``user_notes_read``: the whole quick-reference ``user_notes.md``."""

    name: str = "user_notes_read"
    description: str = (
        "Read the user's quick-reference notes (timezone, name, durable preferences, aliases). "
        "Use when the user asks broadly what you know about their preferences."
    )
    args_schema: type[BaseModel] = _NoInput

    def execute(self, user_id: str, args: _NoInput) -> tuple[str, dict[str, Any]]:
        """Read the file."""
        content = self.memory.notes.read(user_id)
        return (content if content.strip() else "The user notes are empty."), {"content": content}


class UserNotesUpdateTool(MemoryTool):
    """``user_notes_update``: replace ``user_notes.md`` (git-committed; compacted if needed)."""

    name: str = "user_notes_update"
    description: str = (
        "Replace the user's quick-reference notes with new full content. Keep only "
        "high-signal, durable facts (timezone, name, preferences, aliases)."
    )
    args_schema: type[BaseModel] = _NotesUpdateInput

    def execute(self, user_id: str, args: _NotesUpdateInput) -> tuple[str, dict[str, Any]]:
        """Write, commit, compact and promote."""
        result = self.memory.notes.update(user_id, args.content)
        text = "Updated the user notes."
        if result.raw_commit is None:
            text = "The user notes were already up to date."
        if result.compacted:
            text += f" Compacted ({', '.join(result.triggers)})."
        if result.promoted:
            text += f" {len(result.promoted)} dropped items were kept in long-term memory."
        if result.warnings:
            text += " " + " ".join(result.warnings)
        artifact = {
            "content": result.content,
            "raw_commit": result.raw_commit,
            "compaction_commit": result.compaction_commit,
            "triggers": list(result.triggers),
            "promoted": [p.content for p in result.promoted],
            "warnings": list(result.warnings),
        }
        return text, artifact
