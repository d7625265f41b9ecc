"""``EchoChatModel``: an offline chat model for examples, docs and demos (no key, no network).

It is not a language model. It answers every call with the user's last message and the
memories the agent was given (the ``## Relevant Memories`` lines that
:class:`~langgraph_prax_memory.PraxMemoryMiddleware` or
:func:`~langgraph_prax_memory.context.build_memory_context` put in the system message), so a
recipe can show memory reaching the model before any API key exists. It never calls a tool.
Swap in a real model (``init_chat_model("openai:gpt-4o-mini")``, any LangChain chat model)
when you have one; nothing else changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult

__all__ = ["EchoChatModel"]

_MEMORY_HEADER = "## Relevant Memories"


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(
        part if isinstance(part, str) else str(part.get("text", ""))
        for part in content
        if isinstance(part, str) or part.get("type") == "text"
    )


def _memory_lines(system: str) -> list[str]:
    """The ``- [...] content`` lines under ``## Relevant Memories``, without their bullets."""
    lines: list[str] = []
    inside = False
    for raw in system.splitlines():
        line = raw.strip()
        if line.startswith("## "):
            inside = line == _MEMORY_HEADER
            continue
        if inside and line.startswith("- "):
            item = line[2:]
            if item.startswith("[") and "] " in item:
                item = item.split("] ", 1)[1]
            lines.append(item)
    return lines


class EchoChatModel(BaseChatModel):
    r"""An offline chat model that echoes the question and the memories it received.

    ``reply`` fixes the answer instead (e.g. ``"OK."``). ``bind_tools`` accepts any tools and
    returns the model itself; it never calls them.

    Example:
        >>> from langchain_core.messages import HumanMessage, SystemMessage
        >>> model = EchoChatModel()
        >>> model.invoke(
        ...     [
        ...         SystemMessage("## Relevant Memories\n- [user, 2026-01-02] Alice drinks tea"),
        ...         HumanMessage("What do I drink?"),
        ...     ]
        ... ).content
        'You asked: "What do I drink?". I remember: Alice drinks tea.'
    """

    reply: str | None = None
    """A fixed answer for every call; ``None`` echoes the question and the memories."""

    @property
    def _llm_type(self) -> str:
        return "prax-echo"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> EchoChatModel:  # type: ignore[override]
        """Accept the agent's tools (never called) and return this model."""
        return self

    def _answer(self, messages: Sequence[BaseMessage]) -> str:
        if self.reply is not None:
            return self.reply
        question = next(
            (_text(m) for m in reversed(messages) if isinstance(m, HumanMessage)), ""
        ).strip()
        systems = [_text(m) for m in messages if isinstance(m, SystemMessage)]
        memories = [line for text in systems for line in _memory_lines(text)]
        said = f'You asked: "{question}".' if question else "Hello."
        if not memories:
            return f"{said} I have no memories for this yet."
        return f"{said} I remember: {'; '.join(memories)}."

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = AIMessage(content=self._answer(messages))
        return ChatResult(generations=[ChatGeneration(message=message)])
