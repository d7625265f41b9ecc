"""Graph writes that fail while the graph is down are queued and land on a later run."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory._portable import graph_entities, graph_relations
from langgraph_prax_memory.consolidation import Consolidator, TraceLogSource
from langgraph_prax_memory.errors import BackendUnavailable, MemoryWriteError
from tests.unit.consolidation.conftest import NOW, write_lines

USER = "alice"
LINES = [
    "user: I work on Project Phoenix with Sarah.",
    "user: I prefer dark mode in all my tools.",
    "user: I use Neovim and Docker every day.",
]
WRITES = (
    "merge_entity",
    "add_relation",
    "supersede_relation",
    "merge_temporal_event",
    "add_causal_link",
)


def _relations(memory: Any, user: str) -> list[tuple[Any, ...]]:
    found = graph_relations(memory, user, graph_entities(memory, user), include_superseded=True)
    return sorted((r.source, r.type, r.target, r.weight, r.valid_until is None) for r in found)


def _graph_snapshot(consolidator: Consolidator) -> tuple[Any, ...]:
    stats = consolidator.parts.graph.stats(USER)
    relations = _relations(consolidator.parts, USER)
    return stats.entities, stats.relations, stats.temporal_events, relations


def _break_graph(monkeypatch: pytest.MonkeyPatch, graph: Any, *, after: int = 0) -> list[str]:
    """Make every graph write raise BackendUnavailable after ``after`` successful ones."""
    calls: list[str] = []
    for name in WRITES:
        original = getattr(graph, name)

        def broken(*args: Any, _name: str = name, _orig: Any = original, **kw: Any) -> Any:
            calls.append(_name)
            if len(calls) > after:
                raise BackendUnavailable("Neo4j unavailable: injected outage")
            return _orig(*args, **kw)

        monkeypatch.setattr(graph, name, broken)
    return calls


def test_graph_writes_made_while_the_graph_is_down_are_not_lost(
    memory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the reference: the same trace consolidated with a healthy graph
    healthy_dir = tmp_path / "healthy.log"
    write_lines(healthy_dir, LINES)
    reference = Consolidator(memory, extractor=None)
    reference.run("bob", TraceLogSource(healthy_dir), now=NOW)
    graph = memory.graph
    expected = graph.stats("bob")
    assert expected.entities > 0 and expected.relations > 0

    trace = tmp_path / "trace.log"
    write_lines(trace, LINES)
    consolidator = Consolidator(memory, extractor=None)
    _break_graph(monkeypatch, graph, after=2)  # two writes land, then the graph goes down
    down = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert down.graph_errors > 0 and down.graph_queued > 0
    assert down.graph_pending == down.graph_queued
    assert consolidator.state(USER).retry_graph  # persisted in the state file
    assert down.memories_created > 0  # vectors landed; the pointer moved on
    monkeypatch.undo()

    # still down at the next run: nothing is dropped, the queue waits
    _break_graph(monkeypatch, graph)
    again = consolidator.run(USER, TraceLogSource(trace), now=NOW + timedelta(minutes=5))
    assert again.graph_retried == 0 and again.graph_pending == down.graph_pending
    monkeypatch.undo()

    back = consolidator.run(USER, TraceLogSource(trace), now=NOW + timedelta(minutes=10))
    assert back.graph_retried == down.graph_queued and back.graph_pending == 0
    assert consolidator.state(USER).retry_graph == []
    got = graph.stats(USER)
    assert (got.entities, got.relations, got.temporal_events) == (
        expected.entities,
        expected.relations,
        expected.temporal_events,
    )
    # nothing applied twice (weights), nothing missing
    assert _relations(memory, USER) == _relations(memory, "bob") != []
    # and a further run changes nothing
    before = _graph_snapshot(consolidator)
    consolidator.run(USER, TraceLogSource(trace), now=NOW + timedelta(minutes=20))
    assert _graph_snapshot(consolidator) == before


def test_a_failed_supersession_is_retried_without_repeating_the_new_edge(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph_prax_memory.consolidation import ConsolidationResult, Extraction

    graph = memory.graph
    graph.add_relation(USER, "user", "dark mode", "prefers", now=NOW)
    ext = Extraction.model_validate(
        {
            "relations": [
                {
                    "source": "user",
                    "type": "prefers",
                    "target": "light mode",
                    "supersedes": "dark mode",
                }
            ]
        }
    )
    consolidator = Consolidator(memory, extractor=None)
    result = ConsolidationResult(user_id=USER, started_at=NOW)

    def down(*a: Any, **k: Any) -> Any:  # one write did not land; the graph is still up
        raise MemoryWriteError("the supersession did not land")

    monkeypatch.setattr(graph, "supersede_relation", down)
    failed = consolidator._upsert_graph(USER, ext, NOW, result)
    monkeypatch.undo()
    assert result.relations_upserted == 1  # the new edge landed
    assert [(r.target, r.supersedes) for r in failed.relations] == [("dark mode", "dark mode")]
    again = consolidator._upsert_graph(USER, failed, NOW, result)
    assert again.size == 0 and result.relations_superseded == 1
    current = {t.name for t in graph.current_targets(USER, "user", "prefers")}
    assert current == {"light mode"}
    weights = [r[3] for r in _relations(memory, USER) if r[2] == "light mode"]
    assert weights == [1.0]  # the new edge was not added a second time


def test_a_write_refused_by_a_graph_that_is_up_cannot_block_the_queue(
    memory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph_prax_memory.consolidation import ConsolidationResult, Extraction
    from langgraph_prax_memory.consolidation._models import GraphRetry
    from langgraph_prax_memory.consolidation._pipeline import MAX_BATCH_ATTEMPTS

    consolidator = Consolidator(memory, extractor=None)
    poison = Extraction.model_validate({"entities": [{"name": "Poison", "type": "topic"}]})
    good = Extraction.model_validate({"entities": [{"name": "Good", "type": "topic"}]})
    st = consolidator.state(USER)
    st.retry_graph = [
        GraphRetry(extraction=poison, when=NOW),
        GraphRetry(extraction=good, when=NOW),
    ]
    consolidator.states.save(USER, st)
    original = memory.graph.merge_entity

    def refuse(user: str, name: str, *a: Any, **k: Any) -> Any:
        if name == "Poison":
            raise MemoryWriteError("refused")
        return original(user, name, *a, **k)

    monkeypatch.setattr(memory.graph, "merge_entity", refuse)
    for _ in range(MAX_BATCH_ATTEMPTS):
        result = ConsolidationResult(user_id=USER, started_at=NOW)
        consolidator._retry_graph(USER, consolidator.state(USER), result)
    assert memory.graph.get_entity(USER, "Good") is not None  # not blocked behind the poison
    assert consolidator.state(USER).retry_graph == []  # dropped after its attempts, loudly
    assert any("dropped" in e for e in result.errors)
