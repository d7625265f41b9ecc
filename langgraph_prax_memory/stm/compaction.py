"""Summaries that replace the oldest half of an over-full scratchpad.

With a LangChain chat model the summary is written by the model (its temperature is the
caller's choice); without one, or when the model call fails or answers with nothing, a
deterministic concatenating summary is used instead, so compaction never blocks on a model
and never loses the compacted text.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from langgraph_prax_memory.prompts.compaction import SYSTEM_PROMPT as SYSTEM_PROMPT
from langgraph_prax_memory.prompts.compaction import compaction_messages
from langgraph_prax_memory.stm.models import COMPACTED_TAG, StmEntry

if TYPE_CHECKING:  # langchain-core is imported lazily: the scratchpad works without a model
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage

__all__ = [
    "deterministic_summary",
    "summarise",
    "asummarise",
    "summary_messages",
]

logger = logging.getLogger(__name__)

#: Longest slice of one entry's content copied into a deterministic summary (earlier
#: summaries are copied whole).
ITEM_PREVIEW_CHARS = 500


def _one_line(text: str) -> str:
    return " ".join(text.split())


def deterministic_summary(entries: Sequence[StmEntry], *, max_chars: int) -> str:
    r"""Concatenate ``entries`` (oldest first) into one bounded summary text.

    Args:
        entries: The entries being compacted, in the order to list them.
        max_chars: Upper bound of the returned text.

    Returns:
        ``"Compacted N scratchpad entries: [key] content | ..."`` cut to ``max_chars``.

    Example:
        >>> from langgraph_prax_memory.stm import StmEntry
        >>> e = StmEntry(key="k", content="hello  world", created_at="2026-01-01T00:00:00Z")
        >>> deterministic_summary([e], max_chars=100)
        'Compacted 1 scratchpad entry:\n- [k] hello world'
    """
    noun = "entry" if len(entries) == 1 else "entries"
    lines = [f"Compacted {len(entries)} scratchpad {noun}:"]
    for entry in entries:
        content = _one_line(entry.content)
        # An earlier summary is kept whole (only the overall bound applies), so rolling
        # compactions do not shorten what was already summarised.
        if COMPACTED_TAG not in entry.tags and len(content) > ITEM_PREVIEW_CHARS:
            content = content[: ITEM_PREVIEW_CHARS - 1] + "…"
        lines.append(f"- [{entry.key}] {content}")
    text = "\n".join(lines)
    if len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    return text


def summary_messages(entries: Sequence[StmEntry]) -> list[BaseMessage]:
    """The chat messages sent to the model to summarise ``entries``.

    The prompt lives in :mod:`langgraph_prax_memory.prompts.compaction`.
    """
    return compaction_messages(entries)


def _model_text(content: object) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):  # content blocks
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
        return "".join(parts).strip()
    return ""


def _finish(text: str, entries: Sequence[StmEntry], max_chars: int) -> str:
    if not text:
        logger.warning("STM compaction model returned no text; using the deterministic summary")
        return deterministic_summary(entries, max_chars=max_chars)
    if len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    return text


def summarise(
    entries: Sequence[StmEntry], model: BaseChatModel | None, *, max_chars: int
) -> tuple[str, bool]:
    """Summarise ``entries`` with ``model``, falling back to :func:`deterministic_summary`.

    Returns:
        ``(summary, used_model)``; ``used_model`` is False when the fallback was used.
    """
    if model is None:
        return deterministic_summary(entries, max_chars=max_chars), False
    try:
        reply = model.invoke(summary_messages(entries))
    except Exception:
        logger.exception("STM compaction model failed; using the deterministic summary")
        return deterministic_summary(entries, max_chars=max_chars), False
    text = _model_text(reply.content)
    return _finish(text, entries, max_chars), bool(text)


async def asummarise(
    entries: Sequence[StmEntry], model: BaseChatModel | None, *, max_chars: int
) -> tuple[str, bool]:
    """Async :func:`summarise`: awaits ``model.ainvoke``."""
    if model is None:
        return deterministic_summary(entries, max_chars=max_chars), False
    try:
        reply = await model.ainvoke(summary_messages(entries))
    except Exception:
        logger.exception("STM compaction model failed; using the deterministic summary")
        return deterministic_summary(entries, max_chars=max_chars), False
    text = _model_text(reply.content)
    return _finish(text, entries, max_chars), bool(text)
