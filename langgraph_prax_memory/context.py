"""The memory-context block an agent's system prompt receives."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AnyMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig

from langgraph_prax_memory._untrusted import quote_for_prompt
from langgraph_prax_memory.errors import BackendUnavailable, EmbeddingError, MemoryValidationError
from langgraph_prax_memory.models import MemoryHit
from langgraph_prax_memory.stm import StmEntry

if TYPE_CHECKING:
    from langgraph_prax_memory.memory import PraxMemory

__all__ = [
    "build_memory_context",
    "format_memories",
    "format_working_memory",
    "memory_context_node",
    "memory_pre_model_hook",
]

logger = logging.getLogger(__name__)


def format_memories(hits: Sequence[MemoryHit], *, max_chars: int = 2000) -> str:
    """``## Relevant Memories`` with ``- [source, date] content`` lines, within ``max_chars``.

    Returns an empty string when there is nothing to say. Source and content are stored text,
    rendered as quoted data (one line each, markup escaped; see ``docs/security.md``), so a
    memory cannot add a section or an instruction block to the prompt.

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
        source = quote_for_prompt(m.source, max_chars=40)
        line = f"- [{source}, {m.created_at.date().isoformat()}] {quote_for_prompt(m.content)}"
        if used + 1 + len(line) > max_chars:
            break
        lines.append(line)
        used += 1 + len(line)
    return "\n".join(lines) if len(lines) > 1 else ""


def _quote_note_lines(notes: str) -> str:
    """Each selected note line as one quoted bullet (its own leading bullet kept as one)."""
    lines = []
    for raw in notes.splitlines():
        text = raw.strip()
        if text[:2] in ("- ", "* ", "+ "):
            text = text[2:]
        if text:
            lines.append("- " + quote_for_prompt(text))
    return "\n".join(lines)


def format_working_memory(entries: Sequence[StmEntry], *, max_chars: int = 1500) -> str:
    """``## Working Memory (Scratchpad)`` with ``- **key**: content`` lines, within ``max_chars``.

    Example:
        >>> format_working_memory([])
        ''
    """
    lines = ["## Working Memory (Scratchpad)"]
    used = len(lines[0])
    for entry in entries:
        line = f"- **{quote_for_prompt(entry.key)}**: {quote_for_prompt(entry.content)}"
        if used + 1 + len(line) > max_chars:
            break
        lines.append(line)
        used += 1 + len(line)
    return "\n".join(lines) if len(lines) > 1 else ""


def build_memory_context(
    memory: PraxMemory,
    user_id: str,
    message: str,
    *,
    k: int = 5,
    stm_chars: int = 1500,
    ltm_chars: int = 2000,
    now: datetime | None = None,
) -> str:
    """The block an agent's system prompt receives for ``message``.

    The user-notes snippet (deterministic, at most 8 lines / 1,200 characters), the scratchpad
    (``stm_chars``) and the recalled memories (``ltm_chars``), each budgeted separately, and
    nothing at all when nothing is relevant: recalled memories below the relevance floor
    (``config.retrieval.relevance_floor`` / ``min_cosine``; see ``MemoryHit.explain()``) are
    left out, so an off-topic question injects no memories. When long-term memory is
    unavailable the notes and the scratchpad are still given.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax-ctx"))
        >>> build_memory_context(mem, "nobody", "hello")
        ''
    """
    parts: list[str] = []
    notes = memory.notes.get_workspace_context(user_id, message)
    if notes:
        parts.append("## User Notes\n" + _quote_note_lines(notes))
    scratch = format_working_memory(memory.stm.all(user_id), max_chars=stm_chars)
    if scratch:
        parts.append(scratch)
    if memory.available:
        try:
            hits = memory.recall(user_id, message, k=k, now=now)
        except (BackendUnavailable, EmbeddingError) as exc:
            logger.warning("long-term recall skipped for the context block: %s", exc)
        else:
            if memory.config.retrieval.relevance_floor:
                hits = [h for h in hits if h.relevant]
            block = format_memories(hits, max_chars=ltm_chars)
            if block:
                parts.append(block)
    return "\n\n".join(parts)


def _last_user_text(messages: Sequence[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            content = message.content
            if isinstance(content, str):
                return content
            return " ".join(
                p.get("text", "") if isinstance(p, dict) else str(p) for p in content
            ).strip()
    return ""


def _user_of(config: RunnableConfig | None, bound: str | None) -> str:
    user = ((config or {}).get("configurable") or {}).get("user_id") or bound
    if not user:
        raise MemoryValidationError(
            'memory context needs a user: config={"configurable": {"user_id": ...}} or user_id='
        )
    return str(user)


def memory_context_node(
    memory: PraxMemory,
    *,
    user_id: str | None = None,
    key: str = "memory_context",
    messages_key: str = "messages",
    **budget: Any,
) -> Callable[[Mapping[str, Any], RunnableConfig], dict[str, str]]:
    """A LangGraph node that puts the memory block for the latest user message in ``key``.

    The user comes from ``config["configurable"]["user_id"]`` (or ``user_id``). The block is
    written to its own state key so it never piles up in the message history; the model node
    places it in the system prompt.

    Example:
        >>> from langgraph.graph import MessagesState
        >>> class State(MessagesState):
        ...     memory_context: str
        >>> # builder.add_node("recall", memory_context_node(memory))
    """

    def node(state: Mapping[str, Any], config: RunnableConfig) -> dict[str, str]:
        message = _last_user_text(state.get(messages_key) or [])
        user = _user_of(config, user_id)
        return {key: build_memory_context(memory, user, message, **budget) if message else ""}

    return node


def memory_pre_model_hook(
    memory: PraxMemory,
    *,
    user_id: str | None = None,
    messages_key: str = "messages",
    **budget: Any,
) -> Callable[[Mapping[str, Any], RunnableConfig], dict[str, list[AnyMessage]]]:
    """A ``pre_model_hook`` for LangGraph's prebuilt agents that prepends the memory block.

    Returns ``{"llm_input_messages": [...]}``, so the block reaches the model on every turn
    without being stored in the conversation.

    Example:
        >>> # create_react_agent(model, tools, pre_model_hook=memory_pre_model_hook(memory))
    """

    def hook(state: Mapping[str, Any], config: RunnableConfig) -> dict[str, list[AnyMessage]]:
        messages = list(state.get(messages_key) or [])
        text = _last_user_text(messages)
        block = (
            build_memory_context(memory, _user_of(config, user_id), text, **budget) if text else ""
        )
        if not block:
            return {"llm_input_messages": messages}
        return {"llm_input_messages": [SystemMessage(block), *messages]}

    return hook
