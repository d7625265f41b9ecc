"""The memory-context block an agent's system prompt receives."""

from __future__ import annotations

from collections.abc import Sequence

from langgraph_prax_memory.models import MemoryHit

__all__ = ["format_memories"]


def format_memories(hits: Sequence[MemoryHit], *, max_chars: int = 2000) -> str:
    """``## Relevant Memories`` with ``- [source, date] content`` lines, within ``max_chars``.

    Returns an empty string when there is nothing to say.

    Example:
        >>> format_memories([])
        ''
    """
    if not hits:
        return ""
    lines = ["## Relevant Memories"]
    used = len(lines[0])
    for hit in hits:
        m = hit.memory
        line = f"- [{m.source}, {m.created_at.date().isoformat()}] {m.content.strip()}"
        if used + 1 + len(line) > max_chars:
            break
        lines.append(line)
        used += 1 + len(line)
    return "\n".join(lines) if len(lines) > 1 else ""
