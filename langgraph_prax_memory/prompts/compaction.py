"""Scratchpad compaction: the prompt that asks for one note in place of the oldest entries.

The answer is plain text (the summary), not a structured record: there is no response model;
:mod:`langgraph_prax_memory.stm` falls back to a deterministic summary when it is empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # langchain-core is imported on use, as the scratchpad does
    from langchain_core.messages import BaseMessage

    from langgraph_prax_memory.stm.models import StmEntry

__all__ = ["compaction_messages"]

SYSTEM_PROMPT = (
    "You compact an assistant's short-term scratchpad. Summarise the entries below into one "
    "concise note that keeps every fact, decision, identifier and open question that may still "
    "matter; drop chatter and repetition. Answer with the summary text only."
)


def compaction_messages(entries: Sequence[StmEntry]) -> list[BaseMessage]:
    r"""The chat messages sent to the model to summarise ``entries``.

    Example:
        >>> from langgraph_prax_memory.stm import StmEntry
        >>> e = StmEntry(key="k", content="hi", created_at="2026-01-01T00:00:00Z")
        >>> compaction_messages([e])[1].content
        "Scratchpad entries:\n- key='k' importance=0.50 tags=- created_at=2026-01-01T00:00:00Z: hi"
    """
    from langchain_core.messages import HumanMessage, SystemMessage

    listing = "\n".join(
        f"- key={e.key!r} importance={e.importance:.2f} tags={','.join(e.tags) or '-'} "
        f"created_at={e.to_json_dict()['created_at']}: {e.content}"
        for e in entries
    )
    return [SystemMessage(SYSTEM_PROMPT), HumanMessage(f"Scratchpad entries:\n{listing}")]
