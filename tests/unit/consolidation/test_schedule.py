"""Time-based consolidation (``MEMORY_CONSOLIDATION_INTERVAL``) besides every N turns.

A real compiled graph and checkpointer; the clock is injected.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import (
    ConsolidatingCheckpointer,
    Consolidator,
    consolidate_if_due,
)
from tests.fakes import HashEmbeddings
from tests.unit.consolidation.test_triggers import SAYINGS, build, user_facts

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def test_pending_turns_are_consolidated_once_the_interval_has_passed(memory: PraxMemory) -> None:
    clock = Clock()
    saver = ConsolidatingCheckpointer(
        InMemorySaver(), memory, every_n_turns=5, inline=True, interval=600, clock=clock
    )
    graph = build(saver)
    config = {"configurable": {"thread_id": "s1", "user_id": "gina"}}
    for text in SAYINGS[:2]:
        graph.invoke({"messages": [HumanMessage(text)]}, config)
        clock.now += timedelta(minutes=1)
    assert user_facts(memory, "gina") == [] and saver.turns("gina") == 2
    clock.now = T0 + timedelta(minutes=11)  # 10 minutes after the first counted turn
    graph.invoke({"messages": [HumanMessage(SAYINGS[2])]}, config)
    assert "User always writes tests first." in user_facts(memory, "gina")
    assert saver.turns("gina") == 0
    clock.now += timedelta(minutes=1)  # the interval restarts at the consolidation
    graph.invoke({"messages": [HumanMessage(SAYINGS[3])]}, config)
    assert "User loves sourdough baking on weekends." not in user_facts(memory, "gina")
    saver.close()


def test_run_due_consolidates_idle_users_whose_interval_passed(memory: PraxMemory) -> None:
    clock = Clock()
    saver = ConsolidatingCheckpointer(
        InMemorySaver(),
        memory,
        inline=True,
        interval=timedelta(minutes=5),
        clock=clock,
        timer=False,
    )
    graph = build(saver)
    graph.invoke(
        {"messages": [HumanMessage(SAYINGS[0])]},
        {"configurable": {"thread_id": "a", "user_id": "ann"}},
    )
    assert saver.run_due() == []  # not yet
    clock.now += timedelta(minutes=6)
    assert saver.run_due() == ["ann"]
    assert "User prefers dark mode in every editor." in user_facts(memory, "ann")
    assert saver.run_due() == []  # nothing pending any more
    saver.close()


def test_the_interval_comes_from_the_configuration(tmp_path: object) -> None:
    for seconds, expected in ((120, timedelta(seconds=120)), (0, None)):
        config = MemoryConfig(
            qdrant_url=":memory:", data_dir=f"{tmp_path}/{seconds}", consolidation_interval=seconds
        )
        mem = PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)
        try:
            saver = ConsolidatingCheckpointer(InMemorySaver(), mem)
            assert saver.interval == expected
            assert saver.timer is (expected is not None)
            saver.close()
        finally:
            mem.close()


def test_the_background_timer_fires_without_a_new_turn(memory: PraxMemory) -> None:
    saver = ConsolidatingCheckpointer(InMemorySaver(), memory, interval=0.2)
    graph = build(saver)
    graph.invoke(
        {"messages": [HumanMessage(SAYINGS[4])]},
        {"configurable": {"thread_id": "b", "user_id": "bo"}},
    )
    deadline = time.monotonic() + 20
    while "bo" not in saver.last_results and time.monotonic() < deadline:
        time.sleep(0.05)
    saver.flush()
    assert "User decided to use Rust for the CLI." in user_facts(memory, "bo")
    saver.close()
    assert saver._timer_thread is not None and not saver._timer_thread.is_alive()


def test_consolidate_if_due_node_is_due_by_time(memory: PraxMemory) -> None:
    clock = Clock()
    consolidator = Consolidator(memory)
    consolidator.run("gina", [], now=T0)  # the last run: T0
    node = consolidate_if_due(consolidator, every_n_turns=5, interval=900, clock=clock)
    graph = build(InMemorySaver(), node)
    config = {"configurable": {"thread_id": "n1", "user_id": "gina"}}
    clock.now = T0 + timedelta(minutes=5)
    graph.invoke({"messages": [HumanMessage(SAYINGS[0])]}, config)
    assert user_facts(memory, "gina") == []
    clock.now = T0 + timedelta(minutes=16)
    graph.invoke({"messages": [HumanMessage(SAYINGS[1])]}, config)
    assert "User prefers dark mode in every editor." in user_facts(memory, "gina")
