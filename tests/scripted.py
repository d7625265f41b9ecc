"""A scripted chat model: the only LLM double the tests use (mocks only for the LLM)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool
from pydantic import ConfigDict, Field

Step = AIMessage | Callable[[list[BaseMessage]], AIMessage]


def tool_call(name: str, call_id: str, /, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def calls(*tool_calls: dict[str, Any]) -> AIMessage:
    """An AI turn that only calls tools."""
    return AIMessage(content="", tool_calls=list(tool_calls))


class ScriptedChatModel(BaseChatModel):
    """Replies with the next scripted step and records every prompt it received.

    A step is an ``AIMessage`` or a function of the received messages returning one.
    ``bind_tools`` records the tool names and returns the model itself.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    # Steps are not validated as a union: pydantic would try a function as an AIMessage
    # (whose validator fails on it with an AttributeError, not a validation error).
    script: list[Any] = Field(default_factory=list)
    received: list[list[BaseMessage]] = Field(default_factory=list)
    bound_tools: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        self.bound_tools = [t.name if isinstance(t, BaseTool) else str(t) for t in tools]
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.received.append(list(messages))
        if not self.script:
            raise AssertionError(f"the script ran out; last prompt: {messages[-1]!r}")
        step = self.script.pop(0)
        message = step(list(messages)) if callable(step) else step
        return ChatResult(generations=[ChatGeneration(message=message)])
