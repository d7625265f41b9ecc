"""Rendering of the scratchpad as the "Working Memory (Scratchpad)" prompt block."""

from __future__ import annotations

from collections.abc import Sequence

from langgraph_prax_memory.stm.models import StmEntry

__all__ = ["format_scratchpad"]

SCRATCHPAD_TITLE = "Working Memory (Scratchpad)"


def format_scratchpad(entries: Sequence[StmEntry], *, max_chars: int | None = None) -> str:
    """Render ``entries`` as the scratchpad block injected into the system prompt.

    Entries keep their order; each line shows key, content (whitespace collapsed),
    importance and tags. An empty scratchpad renders as ``""`` (nothing is injected).

    Args:
        entries: Entries to render, typically ``ScratchpadStore.all(user_id)``.
        max_chars: Optional bound of the whole block; lines that do not fit are left out
            and counted in a final ``(+N more)`` line.

    Example:
        >>> e = StmEntry(key="tz", content="Europe/Paris", tags=["preference"],
        ...              created_at="2026-03-15T14:30:00Z", importance=0.8)
        >>> print(format_scratchpad([e]))
        Working Memory (Scratchpad):
        - [tz] Europe/Paris (importance 0.80; tags: preference)
    """
    if not entries:
        return ""
    lines = [f"{SCRATCHPAD_TITLE}:"]
    used = len(lines[0])
    left_out = 0
    for entry in entries:
        tags = f"; tags: {', '.join(entry.tags)}" if entry.tags else ""
        content = " ".join(entry.content.split())
        line = f"- [{entry.key}] {content} (importance {entry.importance:.2f}{tags})"
        if max_chars is not None and used + 1 + len(line) > max_chars - 16:
            left_out += 1
            continue
        lines.append(line)
        used += 1 + len(line)
    if left_out:
        lines.append(f"(+{left_out} more)")
    return "\n".join(lines)
