"""Memory that stays current: supersession end to end, idempotent replays, near-duplicates.

Real components throughout: the packaged MiniLM model, the embedded vector engine, the SQLite
graph; only the chat model is scripted.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.consolidation import (
    Consolidator,
    LLMExtractor,
    RuleBasedExtractor,
    TraceLogSource,
)
from langgraph_prax_memory.context import build_memory_context
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.tools import create_memory_tools
from tests.unit.consolidation.conftest import ScriptedToolModel, write_lines

USER = "alice"
DAY1 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY2 = DAY1 + timedelta(days=1)
DAY3 = DAY1 + timedelta(days=2)
QUESTION = "Do I prefer light mode or dark mode in my tools?"

SESSION1 = {
    "entities": [
        {"name": "User", "type": "person", "confidence": 0.9},
        {"name": "dark mode", "type": "concept", "confidence": 0.9},
        {"name": "Prax", "type": "project", "confidence": 0.9},
    ],
    "relations": [
        {
            "source": "User",
            "type": "prefers",
            "target": "dark mode",
            "evidence": "I prefer dark mode in all my tools",
            "confidence": 0.9,
        }
    ],
    "facts": [
        {
            "content": "The user prefers dark mode in all tools.",
            "importance": 0.8,
            "confidence": 0.9,
            "entities": ["User", "dark mode"],
        },
        {
            "content": "The user works on the Prax project.",
            "importance": 0.6,
            "confidence": 0.9,
            "entities": ["User", "Prax"],
        },
    ],
}
SESSION2 = {
    "entities": [
        {"name": "User", "type": "person", "confidence": 0.9},
        {"name": "light mode", "type": "concept", "confidence": 0.9},
    ],
    "relations": [
        {
            "source": "User",
            "type": "prefers",
            "target": "light mode",
            "supersedes": "dark mode",
            "evidence": "I now prefer light mode",
            "confidence": 0.9,
        }
    ],
    "facts": [
        {
            "content": "The user now prefers light mode.",
            "importance": 0.8,
            "confidence": 0.9,
            "entities": ["User", "light mode"],
        }
    ],
}


@pytest.fixture
def real_memory(tmp_path: Path) -> Iterator[PraxMemory]:
    """The packaged embedding model (dense similarity matters here), embedded engine on disk."""
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"))
    yield mem
    mem.close()


def _llm(*answers: dict[str, Any]) -> LLMExtractor:
    return LLMExtractor(ScriptedToolModel(answers=list(answers)))


def _two_sessions(memory: PraxMemory, tmp_path: Path) -> Any:
    """Session 1 on day 1, a summary run on day 2 (day 1's summary), session 2 on day 3."""
    s1, s2 = tmp_path / "s1.log", tmp_path / "s2.log"
    write_lines(
        s1,
        [
            "2026-03-02T09:00:00+00:00 user: I prefer dark mode in all my tools",
            "2026-03-02T09:01:00+00:00 user: I work on the Prax project",
        ],
    )
    write_lines(s2, ["2026-03-04T09:00:00+00:00 user: I now prefer light mode."])
    consolidator = Consolidator(memory, extractor=_llm(SESSION1, SESSION2))
    first = consolidator.run(USER, TraceLogSource(s1), now=DAY1 + timedelta(hours=1))
    assert first.memories_created == 2
    summary_run = consolidator.run(USER, [], now=DAY2)  # day 1 is summarised, dark mode in it
    assert summary_run.daily_summary_days and "dark mode" in (summary_run.daily_summary or "")
    second = consolidator.run(USER, TraceLogSource(s2), now=DAY3 + timedelta(hours=1))
    assert second.relations_superseded == 1
    return second


def _contents(hits: Any) -> list[str]:
    return [h.memory.content for h in hits]


def test_llm_supersession_retires_the_old_memory_and_its_summary(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    second = _two_sessions(real_memory, tmp_path)
    hits = real_memory.recall(USER, QUESTION, k=3, now=DAY3 + timedelta(hours=2))
    assert hits[0].memory.content == "The user now prefers light mode."
    assert not any("dark mode" in c for c in _contents(hits))
    context = build_memory_context(real_memory, USER, QUESTION, now=DAY3 + timedelta(hours=2))
    assert "light mode" in context and "dark mode" not in context
    # day 1's summary was rebuilt from what is still current there (the Prax fact)
    day1 = [m for m in real_memory.list_memories(USER) if m.key == "daily_summary:2026-03-02"]
    assert len(day1) == 1 and "Prax" in day1[0].content and "dark mode" not in day1[0].content
    # history stays queryable
    history = real_memory.recall(USER, QUESTION, k=5, include_history=True, reinforce=False)
    old = [h.memory for h in history if h.memory.content.startswith("The user prefers dark")]
    assert old and "light mode" in (old[0].superseded_by or "")
    assert old[0].valid_until is not None and old[0].valid_until >= DAY3
    then = real_memory.recall(USER, QUESTION, k=3, as_of=DAY1 + timedelta(hours=2))
    assert then[0].memory.content == "The user prefers dark mode in all tools."
    assert "The user now prefers light mode." not in _contents(then)
    with pytest.raises(MemoryValidationError):
        real_memory.recall(USER, QUESTION, include_history=True, as_of=DAY1)
    assert second.memories_superseded == 2  # the fact and day 1's summary


def test_the_store_and_the_tools_see_current_facts_and_history_on_request(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    _two_sessions(real_memory, tmp_path)
    store = PraxMemoryStore(real_memory)
    found = [i.value["content"] for i in store.search(("memories", USER), query=QUESTION)]
    assert found[0] == "The user now prefers light mode."
    assert not any("prefers dark mode" in c for c in found)
    with_history = store.search(
        ("memories", USER), query=QUESTION, filter={"$include_history": True}, limit=10
    )
    old = [i for i in with_history if i.value["content"].startswith("The user prefers dark")]
    assert old and "light mode" in old[0].value["superseded_by"]
    tools = {t.name: t for t in create_memory_tools(real_memory, user_id=USER)}
    recall = tools["memory_recall"]
    assert "prefers dark mode" not in recall.invoke({"query": QUESTION, "k": 5})
    assert "prefers dark mode" in recall.invoke(
        {"query": QUESTION, "k": 5, "include_history": True}
    )
    lookup = tools["memory_entity_lookup"]
    assert "dark mode" not in lookup.invoke({"name": "User"})
    assert "dark mode" in lookup.invoke({"name": "User", "include_history": True})


def test_rule_based_supersession_leaves_recall_and_context(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    trace = tmp_path / "trace.log"
    write_lines(trace, ["2026-03-02T09:00:00+00:00 user: I prefer dark mode in all my tools"])
    consolidator = Consolidator(real_memory, extractor=RuleBasedExtractor())
    consolidator.run(USER, TraceLogSource(trace), now=DAY1 + timedelta(hours=1))
    (old,) = [m for m in real_memory.list_memories(USER) if "dark mode in all" in m.content]
    write_lines(
        trace, ["2026-03-03T09:00:00+00:00 user: I prefer light mode over dark mode"], mode="a"
    )
    second = consolidator.run(USER, TraceLogSource(trace), now=DAY2 + timedelta(hours=1))
    hits = real_memory.recall(USER, QUESTION, k=3, now=DAY2 + timedelta(hours=2))
    assert "light mode over dark mode" in hits[0].memory.content
    assert old.id not in {h.memory.id for h in hits}
    context = build_memory_context(real_memory, USER, QUESTION, now=DAY2 + timedelta(hours=2))
    assert "dark mode in all my tools" not in context
    history = real_memory.recall(USER, QUESTION, k=5, include_history=True, reinforce=False)
    assert old.id in {h.memory.id for h in history}
    assert second.memories_superseded >= 1


def _snapshot(memory: PraxMemory) -> dict[str, Any]:
    graph = memory.graph
    user = graph.get_entity(USER, "user", include_superseded=True)
    assert user is not None
    entities = {}
    for name in ("user", "dark mode", "light mode", "prax"):
        found = graph.get_entity(USER, name)
        if found is not None:
            entities[name] = found.entity.mention_count
    return {
        "memories": sorted((m.content, m.importance) for m in memory.list_memories(USER)),
        "stats": graph.stats(USER).model_dump(),
        "edges": sorted((r.source, r.type, r.target, r.weight) for r in user.relations),
        "current": sorted(r.target for r in user.relations if r.valid_until is None),
        "mentions": entities,
    }


def test_replay_without_the_state_file_changes_nothing_rule_path(
    memory: PraxMemory, tmp_path: Path
) -> None:
    trace = tmp_path / "trace.log"
    write_lines(
        trace,
        [
            "2026-03-02T09:00:00+00:00 user: I prefer dark mode in all my tools",
            "2026-03-02T09:01:00+00:00 user: I work on Prax with Alice.",
        ],
    )
    consolidator = Consolidator(memory, extractor=RuleBasedExtractor())
    consolidator.run(USER, TraceLogSource(trace), now=DAY1 + timedelta(hours=1))
    write_lines(
        trace,
        [
            "2026-03-03T09:00:00+00:00 user: I prefer light mode over dark mode",
            "2026-03-03T09:01:00+00:00 user: I still work on Prax every day.",
        ],
        mode="a",
    )
    consolidator.run(USER, TraceLogSource(trace), now=DAY2 + timedelta(hours=1))
    before = _snapshot(memory)
    assert "light mode" in before["current"] and "dark mode" not in before["current"]
    for attempt in range(2):  # replay the whole trace twice, the state file gone each time
        consolidator.state_path(USER).unlink()
        again = consolidator.run(
            USER, TraceLogSource(trace), now=DAY2 + timedelta(hours=2 + attempt)
        )
        assert again.batches >= 1 and again.memories_created == 0
        assert again.entities_upserted == 0 and again.relations_upserted == 0
        assert _snapshot(memory) == before


def test_an_old_session_read_alone_does_not_make_its_superseded_fact_current(
    memory: PraxMemory, tmp_path: Path
) -> None:
    s1, s2 = tmp_path / "s1.log", tmp_path / "s2.log"
    write_lines(s1, ["2026-03-02T09:00:00+00:00 user: I prefer dark mode in all my tools"])
    write_lines(s2, ["2026-03-03T09:00:00+00:00 user: I prefer light mode over dark mode"])
    consolidator = Consolidator(memory, extractor=RuleBasedExtractor())
    consolidator.run(USER, TraceLogSource(s1), now=DAY1 + timedelta(hours=1))
    consolidator.run(USER, TraceLogSource(s2), now=DAY2 + timedelta(hours=1))
    before = _snapshot(memory)
    consolidator.state_path(USER).unlink()
    again = consolidator.run(USER, TraceLogSource(s1), now=DAY3)  # the old session, alone
    assert again.batches == 1
    after = _snapshot(memory)
    assert after == before
    assert [e.name for e in memory.graph.current_targets(USER, "user", "prefers")] == ["light mode"]
    hits = memory.recall(USER, "dark mode tools", k=5, reinforce=False)
    assert not any("dark mode in all my tools" in h.memory.content for h in hits)


def test_a_paraphrase_read_after_the_change_is_stored_as_history(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """The model re-reads session 1 after session 2 and words the old fact differently."""
    _two_sessions(real_memory, tmp_path)
    paraphrase = {
        "facts": [
            {
                "content": "User likes dark mode for every tool.",
                "importance": 0.8,
                "confidence": 0.9,
                "entities": ["User", "dark mode"],
            }
        ]
    }
    old = tmp_path / "s1.log"
    consolidator = Consolidator(real_memory, extractor=_llm(paraphrase))
    consolidator.state_path(USER).unlink()
    consolidator.run(USER, TraceLogSource(old), now=DAY3 + timedelta(hours=3))
    hits = real_memory.recall(USER, QUESTION, k=3, now=DAY3 + timedelta(hours=4))
    assert hits[0].memory.content == "The user now prefers light mode."
    assert not any("dark mode" in c for c in _contents(hits))


def test_near_duplicate_facts_merge_and_keep_their_evidence(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    trace = tmp_path / "trace.log"
    write_lines(trace, ["2026-03-02T09:00:00+00:00 user: dark mode everywhere please"])

    def fact(content: str, importance: float) -> dict[str, Any]:
        return {
            "entities": [{"name": "dark mode", "confidence": 0.9}],
            "facts": [
                {
                    "content": content,
                    "importance": importance,
                    "confidence": 0.9,
                    "entities": ["dark mode"],
                }
            ],
        }

    consolidator = Consolidator(
        real_memory,
        extractor=_llm(
            fact("The user prefers dark mode in all tools.", 0.6),
            fact("User prefers dark mode in every tool.", 0.9),
            fact("The user prefers light mode in all tools.", 0.8),
        ),
    )
    consolidator.run(USER, TraceLogSource(trace), now=DAY1 + timedelta(hours=1))
    consolidator.state_path(USER).unlink()
    merged = consolidator.run(USER, TraceLogSource(trace), now=DAY1 + timedelta(hours=2))
    (kept,) = [p for p in real_memory.vectors.scroll(USER) if "dark mode" in p.payload["content"]]
    assert kept.payload["content"] == "The user prefers dark mode in all tools."
    assert kept.payload["evidence"] == ["User prefers dark mode in every tool."]
    assert kept.payload["importance"] == 0.9
    assert (merged.memories_created, merged.memories_merged) == (0, 1)
    consolidator.state_path(USER).unlink()
    other = consolidator.run(USER, TraceLogSource(trace), now=DAY1 + timedelta(hours=3))
    assert other.memories_created == 1  # a contradiction (cosine 0.88) is not a paraphrase
