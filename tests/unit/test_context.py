from __future__ import annotations

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.context import build_memory_context


def test_full_pipeline_context_block(memory: PraxMemory) -> None:
    memory.stm.write("alice", "user_role", "data scientist at FinCorp")
    memory.stm.write("alice", "current_project", "fraud detection model using XGBoost")
    memory.remember(
        "alice",
        "User prefers polars over pandas for large datasets because of performance.",
        importance=0.8,
    )
    memory.notes.update("alice", "# Profile\ntimezone: Europe/Oslo\nname: Alice\n")
    block = build_memory_context(memory, "alice", "optimize my data pipeline for large datasets")
    assert "## Working Memory (Scratchpad)\n- **user_role**: data scientist at FinCorp" in block
    assert "- **current_project**: fraud detection model using XGBoost" in block
    assert "## Relevant Memories\n- [conversation, " in block
    assert "polars over pandas" in block


def test_nothing_relevant_emits_nothing(memory: PraxMemory) -> None:
    assert build_memory_context(memory, "nobody", "hello there") == ""


def test_budgets_bound_each_part(memory: PraxMemory) -> None:
    for i in range(30):
        memory.stm.write("alice", f"k{i}", "x" * 100)
        memory.remember("alice", f"datasets fact number {i} " + "y" * 100)
    block = build_memory_context(memory, "alice", "datasets", k=20, stm_chars=400, ltm_chars=500)
    scratch, ltm = block.split("\n\n")
    assert len(scratch) <= 400 and len(ltm) <= 500
    assert scratch.startswith("## Working Memory") and ltm.startswith("## Relevant Memories")


def test_stm_survives_ltm_outage(memory: PraxMemory, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    memory.stm.write("alice", "user_role", "data scientist")

    def down(*a: object, **k: object) -> object:
        raise ConnectionError("qdrant down")

    monkeypatch.setattr(memory.vectors.client, "query_points", down)
    block = build_memory_context(memory, "alice", "what is my role?")
    assert block == "## Working Memory (Scratchpad)\n- **user_role**: data scientist"


def test_context_node_in_a_compiled_graph(memory: PraxMemory) -> None:
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph import END, START, MessagesState, StateGraph

    from langgraph_prax_memory.context import memory_context_node

    memory.remember("alice", "Alice prefers polars over pandas for large datasets")
    seen: list[str] = []

    class State(MessagesState):
        memory_context: str

    def model(state: State) -> dict[str, list[AIMessage]]:
        seen.append(state["memory_context"])
        return {"messages": [AIMessage("ok")]}

    builder = StateGraph(State)
    builder.add_node("recall", memory_context_node(memory))
    builder.add_node("model", model)
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "model")
    builder.add_edge("model", END)
    graph = builder.compile()
    out = graph.invoke(
        {"messages": [HumanMessage("which dataframe library for large datasets?")]},
        {"configurable": {"user_id": "alice"}},
    )
    assert "polars over pandas" in seen[0]
    assert len(out["messages"]) == 2  # the block did not enter the history
    graph.invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"user_id": "bob"}})
    assert seen[1] == ""


def test_pre_model_hook_prepends_a_system_message(memory: PraxMemory) -> None:
    import pytest
    from langchain_core.messages import HumanMessage, SystemMessage

    from langgraph_prax_memory import MemoryValidationError
    from langgraph_prax_memory.context import memory_pre_model_hook

    memory.stm.write("alice", "user_role", "data scientist at FinCorp")
    hook = memory_pre_model_hook(memory)
    msgs = [HumanMessage("what is my role?")]
    out = hook({"messages": msgs}, {"configurable": {"user_id": "alice"}})["llm_input_messages"]
    assert isinstance(out[0], SystemMessage) and "data scientist at FinCorp" in str(out[0].content)
    assert out[1:] == msgs
    with pytest.raises(MemoryValidationError, match="needs a user"):
        hook({"messages": msgs}, {})
