"""``PraxMemoryMiddleware``: Prax memory for LangChain v1's ``create_agent``.

One middleware gives an agent built with :func:`langchain.agents.create_agent` what
:func:`~langgraph_prax_memory.create_agent_with_memory` wires by hand:

* **before the model** (``before_model``): the budgeted memory block for the latest user
  message (:func:`~langgraph_prax_memory.context.build_memory_context`: user notes, scratchpad,
  recalled memories above the relevance floor), computed once per user message and kept in
  the state key ``memory_context``, never in the message history;
* **around the model call** (``wrap_model_call``): that block (and a short hint on the memory
  tools) appended to the system message of this one call only, so nothing piles up across
  turns;
* **the memory tools** (the ``tools`` attribute, see :mod:`langgraph_prax_memory.tools`);
* **after the agent** (``after_agent``): the consolidation trigger (every ``consolidate_every``
  user turns of the thread, :func:`~langgraph_prax_memory.consolidation.consolidate_if_due`),
  plus any trigger of your own. A failing trigger is logged, never raised.

Whose memory: the ``user_id`` bound at construction, else the run's runtime context
(``context=...`` with a ``user_id`` field or key) or ``config["configurable"]["user_id"]``.
A run with none of them, or with two that disagree, fails with
:class:`~langgraph_prax_memory.tools.MissingUserIdError` before anything is read.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)
from langchain.agents.middleware.types import (
    ModelCallResult,
    OmitFromInput,
    PrivateStateAttr,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.types import Command

from langgraph_prax_memory._async_memory import AsyncPraxMemory
from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.context import _last_user_text, build_memory_context
from langgraph_prax_memory.errors import ConfigError, MemoryValidationError
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.tools import (
    TOOL_NAMES,
    MemoryTool,
    MissingUserIdError,
    create_memory_tools,
)

__all__ = [
    "ConsolidationTrigger",
    "PraxMemoryMiddleware",
    "PraxMemoryState",
    "resolve_run_user",
]

logger = logging.getLogger(__name__)

#: Appended to the system message when the middleware offers the memory tools.
MEMORY_TOOLS_PROMPT = """\
Store durable facts the user tells you (preferences, role, projects, decisions) with the \
memory tools: memory_remember for long-term facts (importance 0.8+ critical, 0.5 useful, 0.2 \
minor), memory_stm_write for the current task."""

#: A callable run after each completed turn (``(state)`` or ``(state, config)``), or a Runnable.
ConsolidationTrigger = Callable[..., Any] | Runnable[Any, Any]


class PraxMemoryState(AgentState[Any]):
    """The agent state plus the memory block of the current user message.

    ``memory_context`` is readable in the output (what the model was given) but not an input;
    ``memory_context_for`` (private) records which user and message it was built for.
    """

    memory_context: NotRequired[Annotated[str, OmitFromInput]]
    memory_context_for: NotRequired[Annotated[str, PrivateStateAttr]]


def _context_user(context: Any, key: str) -> Any:
    if context is None:
        return None
    if isinstance(context, Mapping):
        return context.get(key)
    return getattr(context, key, None)


def _current_config() -> RunnableConfig | None:
    try:
        return get_config()
    except RuntimeError:  # outside a runnable context (a hook called directly)
        return None


def resolve_run_user(
    bound: str | None,
    context: Any,
    config: RunnableConfig | None,
    *,
    key: str = "user_id",
) -> str:
    """The user a run acts for: the bound id, the runtime context's, or the config's.

    Every source that is set must agree; a run naming two different users is refused rather
    than guessed.

    Raises:
        MissingUserIdError: No source names a user, a source is not a string, or two
            sources disagree.
        MemoryValidationError: The id is not a usable user id (empty, too long, control
            characters).

    Example:
        >>> resolve_run_user(None, {"user_id": "alice"}, None)
        'alice'
        >>> resolve_run_user(None, None, {"configurable": {"user_id": "bob"}})
        'bob'
    """
    configurable = (config or {}).get("configurable") or {}
    sources = {
        "user_id= of the middleware": bound,
        f"the runtime context's {key!r}": _context_user(context, key),
        f"config['configurable'][{key!r}]": configurable.get(key),
    }
    given = {where: value for where, value in sources.items() if value is not None}
    for where, value in given.items():
        if not isinstance(value, str):
            raise MissingUserIdError(f"{where} must be a string, got {type(value).__name__}")
    if not given:
        raise MissingUserIdError(
            "PraxMemoryMiddleware needs to know whose memory to use: invoke the agent with "
            f"context={{{key!r}: '<user id>'}} (a context_schema with a {key!r} field) or "
            f"config={{'configurable': {{{key!r}: '<user id>'}}}}, or build the middleware "
            "with user_id=. There is no shared default user."
        )
    users = set(given.values())
    if len(users) > 1:
        named = ", ".join(f"{where} is {value!r}" for where, value in given.items())
        raise MissingUserIdError(f"the run names two users ({named}); refusing to mix memories")
    try:
        return check_user_id(users.pop())
    except MemoryValidationError as exc:
        raise MemoryValidationError(f"PraxMemoryMiddleware: {exc}") from exc


def _with_system_text(system: SystemMessage | None, text: str) -> SystemMessage:
    """``system`` with ``text`` appended as its last paragraph (or a new system message)."""
    if system is None:
        return SystemMessage(text)
    content = system.content
    if isinstance(content, str):
        joined = f"{content}\n\n{text}" if content else text
        return SystemMessage(joined, **_message_extras(system))
    blocks: list[str | dict[Any, Any]] = [*content, {"type": "text", "text": text}]
    return SystemMessage(blocks, **_message_extras(system))


def _message_extras(message: BaseMessage) -> dict[str, Any]:
    extras: dict[str, Any] = {}
    if message.additional_kwargs:
        extras["additional_kwargs"] = message.additional_kwargs
    if message.response_metadata:
        extras["response_metadata"] = message.response_metadata
    if message.id:
        extras["id"] = message.id
    return extras


def _last_human(messages: Sequence[Any]) -> HumanMessage | None:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message
    return None


def call_trigger(trigger: ConsolidationTrigger, state: Any, config: RunnableConfig) -> None:
    """Run a consolidation trigger with ``(state)`` or ``(state, config)``; log, never raise."""
    try:
        if isinstance(trigger, Runnable):
            trigger.invoke(state, config)
            return
        try:
            takes_config = len(inspect.signature(trigger).parameters) >= 2
        except (TypeError, ValueError):
            takes_config = False
        if takes_config:
            trigger(state, config)
        else:
            trigger(state)
    except Exception:  # the seed: a failed consolidation is logged and skipped
        logger.exception("consolidation trigger failed; the turn is kept, nothing is lost")


class PraxMemoryMiddleware(AgentMiddleware[PraxMemoryState, Any, Any]):
    """Prax memory as a LangChain v1 agent middleware (``create_agent(middleware=[...])``).

    Args:
        memory: The memory the agent reads and writes (an :class:`AsyncPraxMemory` is used
            through its sync face; async runs call it in a worker thread).
        user_id: Bind to one user; otherwise each run names its user through the runtime
            context (``context={"user_id": ...}`` or a ``context_schema`` with a ``user_id``
            field) or ``config["configurable"]["user_id"]``. Required one way or another.
        tools: ``True`` offers every memory tool, ``False`` none, a sequence of names just
            those (e.g. :data:`~langgraph_prax_memory.tools.STM_TOOL_NAMES`).
        tools_prompt: Appended to the system message when tools are offered (``None``: no
            hint).
        context_k: How many memories the context block recalls.
        stm_chars: Character budget of the scratchpad part of the block.
        ltm_chars: Character budget of the long-term part (relevant memories, then the
            user's standing facts; see :func:`~langgraph_prax_memory.context.assemble_context`).
        profile_chars: Character budget of the standing facts within it (``None``:
            ``config.retrieval.profile_chars``; ``0`` turns the profile tier off).
        check_model: A chat model for the optional check of memories near the relevance
            floor (``config.retrieval.llm_check``; off by default, never blocking).
        consolidate_every: Consolidate the thread after the agent once this many user turns
            are unconsolidated (``None`` turns the built-in trigger off, e.g. when a
            :class:`~langgraph_prax_memory.consolidation.ConsolidatingCheckpointer` does it).
        consolidate_in_background: Run that consolidation in a daemon thread, so the turn
            returns at once (``False``: inside the turn, for tests and scripts).
        consolidation_trigger: An extra callable or Runnable run after each turn with the
            final state (``(state)`` or ``(state, config)``).
        user_id_key: The context / ``configurable`` key holding the user id.

    Example:
        >>> from langchain.agents import create_agent
        >>> from langgraph_prax_memory import PraxMemory, PraxMemoryMiddleware
        >>> # agent = create_agent("openai:gpt-4o-mini", tools=[],
        >>> #                      middleware=[PraxMemoryMiddleware(PraxMemory())])
        >>> # agent.invoke({"messages": [("user", "I prefer polars")]},
        >>> #              config={"configurable": {"user_id": "alice"}})
    """

    state_schema = PraxMemoryState

    def __init__(
        self,
        memory: PraxMemory | AsyncPraxMemory | None = None,
        *,
        user_id: str | None = None,
        tools: bool | Sequence[str] | None = None,
        tools_prompt: str | None = MEMORY_TOOLS_PROMPT,
        context_k: int = 5,
        stm_chars: int = 1500,
        ltm_chars: int = 2000,
        profile_chars: int | None = None,
        check_model: BaseChatModel | None = None,
        consolidate_every: int | None = 5,
        consolidate_in_background: bool = True,
        consolidation_trigger: ConsolidationTrigger | None = None,
        user_id_key: str = "user_id",
    ) -> None:
        super().__init__()
        if isinstance(memory, AsyncPraxMemory):
            memory = memory.sync
        if memory is not None and not isinstance(memory, PraxMemory):
            raise ConfigError(
                "PraxMemoryMiddleware needs a PraxMemory (or None: the memory behind the "
                f"agent's PraxMemoryStore), got {type(memory).__name__}"
            )
        if tools is None:
            tools = memory is not None
        if memory is None and tools:
            raise ConfigError(
                "PraxMemoryMiddleware(tools=...) needs memory=: the memory tools are built "
                "before the agent runs, when the store's memory is not known yet"
            )
        if user_id is not None:
            user_id = check_user_id(user_id)
        if isinstance(context_k, bool) or not isinstance(context_k, int) or context_k < 1:
            raise MemoryValidationError(f"context_k must be a positive integer, not {context_k!r}")
        for name, value in (
            ("stm_chars", stm_chars),
            ("ltm_chars", ltm_chars),
            ("profile_chars", 0 if profile_chars is None else profile_chars),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise MemoryValidationError(f"{name} must be a non-negative integer, not {value!r}")
        if consolidate_every is not None and (
            isinstance(consolidate_every, bool)
            or not isinstance(consolidate_every, int)
            or consolidate_every < 1
        ):
            raise MemoryValidationError(
                f"consolidate_every must be a positive integer or None, not {consolidate_every!r}"
            )
        self.memory = memory
        self.user_id = user_id
        self.user_id_key = user_id_key
        self.context_k = context_k
        self.stm_chars = stm_chars
        self.ltm_chars = ltm_chars
        self.profile_chars = profile_chars
        self.check_model = check_model
        self.consolidate_every = consolidate_every
        self.consolidate_in_background = consolidate_in_background
        self.consolidation_trigger = consolidation_trigger
        if tools is True:
            names: Sequence[str] = TOOL_NAMES
        elif tools is False:
            names = ()
        else:
            names = list(tools)
        self.tools: list[BaseTool] = (
            create_memory_tools(memory, user_id=user_id, include=names)
            if names and memory is not None
            else []
        )
        self.tools_prompt = tools_prompt if self.tools else None
        self._due_nodes: dict[int, Callable[[dict[str, Any], RunnableConfig], dict[str, Any]]] = {}

    # -- which memory, whose memory ----------------------------------------------------------
    def memory_for(self, runtime: Any) -> PraxMemory:
        """The memory of a run: the one given, else the one behind ``runtime.store``."""
        if self.memory is not None:
            return self.memory
        from langgraph_prax_memory.store import PraxMemoryStore

        store = getattr(runtime, "store", None)
        if isinstance(store, PraxMemoryStore):
            return store.memory
        raise ConfigError(
            "PraxMemoryMiddleware() without a memory uses the agent's store, which must be a "
            f"PraxMemoryStore (got {type(store).__name__}): pass create_agent(store=...) or "
            "configure the server's store (docs/deployment.md), or give memory="
        )

    def resolve_user(self, context: Any = None, config: RunnableConfig | None = None) -> str:
        """The user of a run (see :func:`resolve_run_user`); ``config`` defaults to the run's."""
        return resolve_run_user(
            self.user_id,
            context,
            config if config is not None else _current_config(),
            key=self.user_id_key,
        )

    # -- before the model -----------------------------------------------------------------
    def before_model(self, state: PraxMemoryState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Build the memory block for the latest user message (once per message and user)."""
        user = self.resolve_user(runtime.context)
        messages = list(state.get("messages") or [])
        last = _last_human(messages)
        if last is None:
            return {"memory_context": "", "memory_context_for": ""}
        marker = f"{user}\x00{last.id or _last_user_text([last])}"
        if state.get("memory_context_for") == marker:
            return None
        text = _last_user_text([last])
        block = (
            build_memory_context(
                self.memory_for(runtime),
                user,
                text,
                k=self.context_k,
                stm_chars=self.stm_chars,
                ltm_chars=self.ltm_chars,
                profile_chars=self.profile_chars,
                check_model=self.check_model,
            )
            if text.strip()
            else ""
        )
        return {"memory_context": block, "memory_context_for": marker}

    async def abefore_model(
        self, state: PraxMemoryState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Async :meth:`before_model` (the embedded engines are sync: a worker thread)."""
        return await asyncio.to_thread(self.before_model, state, runtime)

    # -- around the model call ------------------------------------------------------------
    def _prompted(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        parts = [self.tools_prompt, request.state.get("memory_context")]
        text = "\n\n".join(p for p in parts if isinstance(p, str) and p)
        if not text:
            return request
        return request.override(system_message=_with_system_text(request.system_message, text))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelCallResult[Any]:
        """Give this one model call the memory block in its system message."""
        return handler(self._prompted(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelCallResult[Any]:
        """Async :meth:`wrap_model_call`."""
        return await handler(self._prompted(request))

    # -- the memory tools -------------------------------------------------------------------
    def _bound(self, request: ToolCallRequest) -> ToolCallRequest:
        tool = request.tool
        # this memory's tools, here or passed to create_agent(tools=...) directly
        if (
            not isinstance(tool, MemoryTool)
            or self.memory is None
            or tool.memory is not self.memory
        ):
            return request
        if tool.user_id is not None:
            return request
        runtime = request.runtime
        user = self.resolve_user(
            getattr(runtime, "context", None), getattr(runtime, "config", None)
        )
        return request.override(tool=tool.model_copy(update={"user_id": user}))

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Run a memory tool for the run's user (from the context when the config has none)."""
        return handler(self._bound(request))

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        return await handler(self._bound(request))

    # -- after the agent --------------------------------------------------------------------
    def _due(
        self, memory: PraxMemory
    ) -> Callable[[dict[str, Any], RunnableConfig], dict[str, Any]]:
        node = self._due_nodes.get(id(memory))
        if node is None:
            from langgraph_prax_memory.consolidation import consolidate_if_due

            assert self.consolidate_every is not None
            node = consolidate_if_due(
                memory.consolidator,
                every_n_turns=self.consolidate_every,
                user_id_key=self.user_id_key,
                background=self.consolidate_in_background,
            )
            self._due_nodes = {id(memory): node}
        return node

    def after_agent(self, state: PraxMemoryState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Run the consolidation trigger(s) for the run's user; failures are logged."""
        if self.consolidate_every is None and self.consolidation_trigger is None:
            return None
        config: RunnableConfig = dict(_current_config() or {})  # type: ignore[assignment]
        user = self.resolve_user(runtime.context, config)
        configurable = dict(config.get("configurable") or {})
        configurable[self.user_id_key] = user
        config["configurable"] = configurable
        if self.consolidation_trigger is not None:
            call_trigger(self.consolidation_trigger, state, config)
        if self.consolidate_every is not None:
            try:
                self._due(self.memory_for(runtime))(dict(state), config)
            except Exception:
                logger.exception("automatic consolidation of %r failed; the turn is kept", user)
        return None

    async def aafter_agent(
        self, state: PraxMemoryState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Async :meth:`after_agent` (in a worker thread)."""
        return await asyncio.to_thread(self.after_agent, state, runtime)
