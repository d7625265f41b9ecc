"""EchoChatModel: the offline model of the server example and the docs, in a real agent."""

from __future__ import annotations

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from langgraph_prax_memory import PraxMemory, PraxMemoryMiddleware
from langgraph_prax_memory.chat_models import EchoChatModel


def test_it_echoes_the_question_and_the_memories_of_the_system_message() -> None:
    system = SystemMessage(
        "Be brief.\n\n## User Notes\n- likes tea\n\n## Relevant Memories\n"
        "- [user, 2026-01-02] Alice drinks green tea\n- [conversation, 2026-01-03] Alice: Oslo!\n"
        "## Working Memory (Scratchpad)\n- **task**: pack"
    )
    answer = EchoChatModel().invoke([system, HumanMessage("What do I drink?")])
    assert answer.content == (
        'You asked: "What do I drink?". I remember: Alice drinks green tea; Alice: Oslo!.'
    )
    none = EchoChatModel().invoke([SystemMessage("Be brief."), HumanMessage("Hi")])
    assert none.content == 'You asked: "Hi". I have no memories for this yet.'


def test_a_fixed_reply_and_tools_are_accepted_never_called() -> None:
    model = EchoChatModel(reply="OK.")
    assert model.bind_tools([]) is model
    answer = model.invoke([HumanMessage("anything")])
    assert isinstance(answer, AIMessage)
    assert answer.content == "OK." and answer.tool_calls == []


async def test_an_agent_with_memory_answers_from_what_was_recalled(memory: PraxMemory) -> None:
    memory.remember("alice", "Alice drinks green tea every morning", importance=0.8)
    agent = create_agent(
        EchoChatModel(), middleware=[PraxMemoryMiddleware(memory, consolidate_every=None)]
    )
    config = {"configurable": {"user_id": "alice"}}
    question = {"messages": [HumanMessage("What do I drink in the morning?")]}
    for state in (agent.invoke(question, config), await agent.ainvoke(question, config)):
        reply = state["messages"][-1]
        assert isinstance(reply, AIMessage)
        assert reply.content.startswith('You asked: "What do I drink in the morning?".')
        assert "Alice drinks green tea every morning" in reply.content
    other = agent.invoke(question, {"configurable": {"user_id": "bob"}})
    assert "green tea" not in other["messages"][-1].content
