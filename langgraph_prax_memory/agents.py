"""Agents with memory: the memory sub-agent ("memory spoke") and a one-call agent builder.

* :func:`create_memory_agent` — a compiled LangGraph graph whose only tools are the memory
  tools, with a system prompt (:data:`MEMORY_AGENT_PROMPT`) that teaches when to use the
  scratchpad, long-term memory or the graph, and how to rate importance.
* :func:`create_delegate_memory_tool` — ``delegate_memory(task)``: lets a main agent hand a
  memory task to that sub-agent, as the Prax orchestrator does.
* :func:`create_agent_with_memory` — LangChain v1's ``create_agent`` with a
  :class:`~langgraph_prax_memory.PraxMemoryMiddleware` and one
  :class:`~langgraph_prax_memory.PraxMemory`: the LangGraph store, a checkpointer, the memory
  context in the system prompt on every turn, the memory tools (directly or through
  ``delegate_memory``), and a slot for the consolidation trigger.
* :class:`ModelRouting` — which chat model and temperature each memory component uses.

Every graph acts for the user in ``config["configurable"]["user_id"]`` (or a ``user_id``
bound at construction); there is no shared default user.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Literal

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.store.base import BaseStore
from pydantic import BaseModel, Field

from langgraph_prax_memory._async_memory import AsyncPraxMemory
from langgraph_prax_memory._routing import (
    Component,
    ModelRoute,
    ModelRouting,
    resolve_chat_model,
)
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.middleware import (
    MEMORY_TOOLS_PROMPT,
    ConsolidationTrigger,
    PraxMemoryMiddleware,
)
from langgraph_prax_memory.prompts.memory_agent import (
    DEFAULT_SYSTEM_PROMPT as DEFAULT_SYSTEM_PROMPT,
)
from langgraph_prax_memory.prompts.memory_agent import DELEGATE_HINT as _DELEGATE_HINT
from langgraph_prax_memory.prompts.memory_agent import MEMORY_AGENT_PROMPT as MEMORY_AGENT_PROMPT
from langgraph_prax_memory.store import PraxMemoryStore
from langgraph_prax_memory.tools import TOOL_NAMES, create_memory_tools

__all__ = [
    "Component",
    "ConsolidationTrigger",
    "MemoryAgentState",
    "ModelRoute",
    "ModelRouting",
    "create_agent_with_memory",
    "create_delegate_memory_tool",
    "create_memory_agent",
    "resolve_chat_model",
]

logger = logging.getLogger(__name__)

_MEMORY_TOOLS_HINT = MEMORY_TOOLS_PROMPT


class MemoryAgentState(MessagesState):
    """Messages plus the memory block computed for the current turn (never stored as a message)."""

    memory_context: str


def _model_node(
    model: Runnable[Any, BaseMessage], system_prompt: str, *, with_context: bool
) -> Callable[..., dict[str, list[BaseMessage]]]:
    def call_model(state: MemoryAgentState, config: RunnableConfig) -> dict[str, list[BaseMessage]]:
        prompt = system_prompt
        context = state.get("memory_context") if with_context else None
        if context:
            prompt = f"{prompt}\n\n{context}" if prompt else context
        messages: list[BaseMessage] = list(state["messages"])
        if prompt:
            messages = [SystemMessage(prompt), *messages]
        return {"messages": [model.invoke(messages, config)]}

    return call_model


def _bind(model: BaseChatModel, tools: Sequence[BaseTool]) -> Runnable[Any, BaseMessage]:
    if not tools:
        return model
    return model.bind_tools(list(tools))


def _graph(
    model: BaseChatModel,
    tools: Sequence[BaseTool],
    *,
    system_prompt: str,
    context_node: Callable[..., Any] | None,
    after_turn: Callable[..., Any] | None,
    checkpointer: BaseCheckpointSaver[Any] | None,
    store: BaseStore | None,
    name: str,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    builder = StateGraph(MemoryAgentState)
    builder.add_node(
        "agent", _model_node(_bind(model, tools), system_prompt, with_context=bool(context_node))
    )
    first = "agent"
    if context_node is not None:
        builder.add_node("memory_context", context_node)
        builder.add_edge("memory_context", "agent")
        first = "memory_context"
    builder.add_edge(START, first)
    done = END
    if after_turn is not None:
        builder.add_node("consolidation_trigger", after_turn)
        builder.add_edge("consolidation_trigger", END)
        done = "consolidation_trigger"
    if tools:
        builder.add_node("tools", ToolNode(list(tools)))
        builder.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: done})
        builder.add_edge("tools", "agent")
    else:
        builder.add_edge("agent", done)
    return builder.compile(checkpointer=checkpointer, store=store, name=name)


def _sync_memory(memory: PraxMemory | AsyncPraxMemory) -> PraxMemory:
    return memory.sync if isinstance(memory, AsyncPraxMemory) else memory


def create_memory_agent(
    model: str | BaseChatModel,
    memory: PraxMemory | AsyncPraxMemory,
    *,
    user_id: str | None = None,
    include: Sequence[str] | None = None,
    prompt: str = MEMORY_AGENT_PROMPT,
    temperature: float | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    name: str = "memory_agent",
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The memory sub-agent ("memory spoke"): a tool-calling graph over the memory tools.

    Args:
        model: A chat model, or an ``init_chat_model`` string (built at ``temperature``,
            0.3 — the seed's ``subagent_memory`` setting — when not given).
        memory: The memory it manages.
        user_id: Bind to one user; otherwise each run's ``config["configurable"]["user_id"]``.
        include: The tools it gets (default: every name in
            :data:`~langgraph_prax_memory.tools.TOOL_NAMES`).
        prompt: The system prompt (default :data:`MEMORY_AGENT_PROMPT`).
        temperature: Temperature for a model string.
        checkpointer: Optional checkpointer (the spoke is usually stateless per task).
        name: The graph's name.

    Example:
        >>> # agent = create_memory_agent("openai:gpt-4o-mini", memory)
        >>> # agent.invoke({"messages": [("user", "Remember I prefer dark mode")]},
        >>> #              {"configurable": {"user_id": "alice"}})
    """
    chat = resolve_chat_model(model, temperature=0.3 if temperature is None else temperature)
    tools = create_memory_tools(
        _sync_memory(memory), user_id=user_id, include=include if include else TOOL_NAMES
    )
    return _graph(
        chat,
        tools,
        system_prompt=prompt,
        context_node=None,
        after_turn=None,
        checkpointer=checkpointer,
        store=None,
        name=name,
    )


class _DelegateInput(BaseModel):
    task: str = Field(
        description="The memory task in one or two sentences, e.g. 'Remember that the user "
        "prefers polars over pandas' or 'What do we know about Project Alpha?'"
    )


def _final_text(messages: Sequence[BaseMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            text = message.text
            if text.strip():
                return text.strip()
    return "The memory agent finished without a reply."


def create_delegate_memory_tool(
    memory_agent: CompiledStateGraph[Any, Any, Any, Any],
    *,
    name: str = "delegate_memory",
) -> BaseTool:
    """``delegate_memory(task)``: run the memory sub-agent on a task and return its answer.

    The sub-agent runs with the caller's config, so it acts for the same
    ``config["configurable"]["user_id"]``. The artifact lists the memory tools it called.

    Example:
        >>> # spoke = create_memory_agent(model, memory)
        >>> # main_tools = [create_delegate_memory_tool(spoke), *my_tools]
    """

    def run(task: str, config: RunnableConfig) -> tuple[str, dict[str, Any]]:
        result = memory_agent.invoke({"messages": [HumanMessage(task)]}, config)
        messages: list[BaseMessage] = list(result["messages"])
        calls = [
            {"name": call["name"], "args": call["args"]}
            for m in messages
            if isinstance(m, AIMessage)
            for call in m.tool_calls
        ]
        return _final_text(messages), {"task": task, "tool_calls": calls}

    async def arun(task: str, config: RunnableConfig) -> tuple[str, dict[str, Any]]:
        result = await memory_agent.ainvoke({"messages": [HumanMessage(task)]}, config)
        messages: list[BaseMessage] = list(result["messages"])
        calls = [
            {"name": call["name"], "args": call["args"]}
            for m in messages
            if isinstance(m, AIMessage)
            for call in m.tool_calls
        ]
        return _final_text(messages), {"task": task, "tool_calls": calls}

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=name,
        description=(
            "Delegate a memory task to the memory specialist: remembering facts about the "
            "user, recalling what is known about something, looking up people/projects and "
            "how they relate, forgetting, or memory maintenance."
        ),
        args_schema=_DelegateInput,
        response_format="content_and_artifact",
    )


def create_agent_with_memory(
    model: str | BaseChatModel,
    tools: Sequence[BaseTool] = (),
    memory: PraxMemory | AsyncPraxMemory | None = None,
    *,
    checkpointer: BaseCheckpointSaver[Any] | Literal[False] | None = None,
    store: BaseStore | None = None,
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
    memory_tools: Literal["direct", "delegate", "none"] = "direct",
    user_id: str | None = None,
    routing: ModelRouting | None = None,
    consolidation_trigger: ConsolidationTrigger | None = None,
    consolidate_every: int | None = 5,
    consolidate_inline: bool = False,
    context_k: int = 5,
    name: str = "agent_with_memory",
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """A tool-calling agent with Prax memory wired in: store, checkpointer, context, tools.

    A thin wrapper over LangChain v1's :func:`langchain.agents.create_agent` with one
    :class:`~langgraph_prax_memory.PraxMemoryMiddleware`: before each model call the notes
    snippet, the scratchpad and the recalled memories for the latest user message (once per
    message) are appended to the system prompt of that call; the block lives in the state
    key ``memory_context`` and is never appended to the message history. The middleware
    offers the memory tools (``memory_tools="direct"``) and runs ``consolidation_trigger``
    after the agent; the turn counting of automatic consolidation stays in the
    checkpointer (``consolidate_every``). Build ``create_agent(..., middleware=[...])``
    yourself to combine memory with other middleware.

    Args:
        model: The main chat model (instance or ``init_chat_model`` string).
        tools: The agent's own tools.
        memory: The memory (a default offline :class:`PraxMemory` when omitted).
        checkpointer: Conversation persistence. ``None`` → a new ``InMemorySaver``;
            ``False`` → none (each invoke starts from its input).
        store: The LangGraph store the graph's nodes see (default: a
            :class:`~langgraph_prax_memory.PraxMemoryStore` over ``memory``).
        system_prompt: The prompt the memory block is appended to.
        memory_tools: ``"direct"`` gives the agent the memory tools, ``"delegate"`` gives it
            ``delegate_memory`` backed by the memory sub-agent, ``"none"`` neither (the
            context block still arrives every turn).
        user_id: Bind to one user; otherwise every run needs
            ``config["configurable"]["user_id"]`` (``context={"user_id": ...}`` also works
            except in ``"delegate"`` mode, whose sub-agent reads the config).
        routing: Model routing; ``routing.memory_agent`` is the sub-agent's model in
            ``"delegate"`` mode (the main model when it names none). Default: the memory's
            ``config.model_routing`` (``MEMORY_MODEL_ROUTING``).
        consolidation_trigger: Run after each completed turn (``after_agent``), with the final state
            (``(state)`` or ``(state, config)``, or a Runnable), e.g.
            :func:`~langgraph_prax_memory.consolidation.consolidate_if_due`. Its failures are
            logged, never raised.
        consolidate_every: Wrap the checkpointer in a
            :class:`~langgraph_prax_memory.consolidation.ConsolidatingCheckpointer` that
            consolidates each user's conversation every this many completed turns, in the
            background (``None`` turns it off; there is nothing to wrap without a
            checkpointer).
        consolidate_inline: Run that consolidation inside the turn instead (tests, scripts).
        context_k: How many memories the context block recalls.
        name: The graph's name.

    Example:
        >>> # agent = create_agent_with_memory("openai:gpt-4o-mini", [], PraxMemory())
        >>> # agent.invoke({"messages": [("user", "I prefer polars")]},
        >>> #              {"configurable": {"user_id": "alice", "thread_id": "1"}})
    """
    mem = _sync_memory(memory) if memory is not None else PraxMemory()
    chat = resolve_chat_model(model)
    # the memory's configured routing (MEMORY_MODEL_ROUTING) unless the call names its own
    routes = routing if routing is not None else mem.config.model_routing
    all_tools: list[BaseTool] = list(tools)
    prompt = system_prompt
    if memory_tools == "direct":
        # the user's tools first, then the memory tools (the middleware binds a run's user)
        all_tools += create_memory_tools(mem, user_id=user_id)
        prompt = f"{prompt}\n\n{_MEMORY_TOOLS_HINT}" if prompt else _MEMORY_TOOLS_HINT
    elif memory_tools == "delegate":
        spoke_model = routes.resolve("memory_agent", default=chat)
        assert spoke_model is not None
        spoke = create_memory_agent(spoke_model, mem, user_id=user_id)
        all_tools.append(create_delegate_memory_tool(spoke))
        prompt = f"{prompt}\n\n{_DELEGATE_HINT}" if prompt else _DELEGATE_HINT
    elif memory_tools != "none":
        raise ValueError(
            f"memory_tools must be 'direct', 'delegate' or 'none', not {memory_tools!r}"
        )
    saver: BaseCheckpointSaver[Any] | None
    if checkpointer is None:
        saver = InMemorySaver()
    elif checkpointer is False:
        saver = None
    else:
        saver = checkpointer
    if saver is not None and consolidate_every is not None:
        from langgraph_prax_memory.consolidation import ConsolidatingCheckpointer

        if not isinstance(saver, ConsolidatingCheckpointer):
            # the memory's own consolidator: one per-user lock for the trigger and the tool
            saver = ConsolidatingCheckpointer(
                saver, mem.consolidator, every_n_turns=consolidate_every, inline=consolidate_inline
            )
    middleware = PraxMemoryMiddleware(
        mem,
        user_id=user_id,
        tools=False,
        context_k=context_k,
        # the optional check of memories near the floor asks the agent's own model
        check_model=chat if isinstance(chat, BaseChatModel) else None,
        # the checkpointer counts the turns (it sees every thread of the user)
        consolidate_every=None,
        consolidation_trigger=consolidation_trigger,
    )
    return create_agent(
        chat,
        all_tools,
        system_prompt=prompt or None,
        middleware=[middleware],
        checkpointer=saver,
        store=store if store is not None else PraxMemoryStore(mem),
        name=name,
    )
