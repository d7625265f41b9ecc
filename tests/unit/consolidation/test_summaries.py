"""Hierarchical summaries: daily (3-5 sentences) → weekly → global, over two weeks of runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.consolidation import Consolidator, RuleBasedExtractor, TraceLogSource
from langgraph_prax_memory.consolidation._summary import sentences
from langgraph_prax_memory.models import Memory
from tests.unit.consolidation.conftest import write_lines

USER = "alice"
MONDAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # ISO week 2026-W10
TOPICS = ["Rust", "Neovim", "Helix", "Python", "Postgres", "Docker", "Kafka"]


def _summaries(memory: PraxMemory, level: str) -> list[Memory]:
    return [m for m in memory.list_memories(USER, limit=1000) if m.summary_level == level]


def _two_weeks(memory: PraxMemory, trace: Path, consolidator: Consolidator) -> None:
    for day in range(15):
        when = MONDAY + timedelta(days=day)
        topic = TOPICS[day % len(TOPICS)]
        write_lines(
            trace,
            [
                f"{when.isoformat()} user: I decided to use {topic} for project {day}.",
                f"{(when + timedelta(minutes=1)).isoformat()} user: I work at Acme Corp.",
            ],
            mode="a",
        )
        consolidator.run(USER, TraceLogSource(trace), now=when + timedelta(hours=3))


def test_two_weeks_of_daily_runs_build_weekly_and_global_summaries(
    memory: PraxMemory, tmp_path: Path
) -> None:
    consolidator = Consolidator(memory, extractor=RuleBasedExtractor())
    _two_weeks(memory, tmp_path / "trace.log", consolidator)
    dailies = _summaries(memory, "daily")
    assert len(dailies) == 14  # every finished day
    assert all(3 <= len(sentences(m.content)) <= 5 for m in dailies)
    weeklies = sorted(_summaries(memory, "weekly"), key=lambda m: m.key)
    assert [m.key for m in weeklies] == ["weekly_summary:2026-W10", "weekly_summary:2026-W11"]
    assert "Rust" in weeklies[0].content  # built from the dailies of that week
    assert all(3 <= len(sentences(m.content)) <= 7 for m in weeklies)
    (overall,) = _summaries(memory, "global")
    assert overall.key == "global_summary" and 3 <= len(sentences(overall.content)) <= 10
    state = consolidator.state(USER)
    assert state.last_summary_week == "2026-W11"
    # a re-run on the same day replaces nothing and adds nothing
    before = len(memory.list_memories(USER, limit=1000))
    consolidator.run(USER, [], now=MONDAY + timedelta(days=14, hours=5))
    assert len(memory.list_memories(USER, limit=1000)) == before


def test_a_model_that_answers_twelve_sentences_is_bounded_to_five(
    memory: PraxMemory, tmp_path: Path
) -> None:
    twelve = " ".join(f"Sentence number {i} says something about the user." for i in range(12))
    model = FakeListChatModel(responses=[twelve])
    consolidator = Consolidator(memory, extractor=RuleBasedExtractor(), chat_model=model)
    trace = tmp_path / "trace.log"
    write_lines(trace, [f"{MONDAY.isoformat()} user: I decided to use Rust for the parser."])
    consolidator.run(USER, TraceLogSource(trace), now=MONDAY + timedelta(hours=1))
    result = consolidator.run(USER, [], now=MONDAY + timedelta(days=1))
    assert result.daily_summary is not None
    assert len(sentences(result.daily_summary)) == 5
    (daily,) = _summaries(memory, "daily")
    assert len(sentences(daily.content)) == 5


def test_superseded_facts_are_left_out_of_summaries(memory: PraxMemory, tmp_path: Path) -> None:
    consolidator = Consolidator(memory, extractor=RuleBasedExtractor())
    trace = tmp_path / "trace.log"
    write_lines(
        trace,
        [
            f"{MONDAY.isoformat()} user: I prefer dark mode in all my tools",
            f"{(MONDAY + timedelta(minutes=1)).isoformat()} user: I decided to use Rust.",
        ],
    )
    consolidator.run(USER, TraceLogSource(trace), now=MONDAY + timedelta(hours=1))
    write_lines(
        trace,
        [f"{(MONDAY + timedelta(hours=2)).isoformat()} user: I prefer light mode over dark mode"],
        mode="a",
    )
    consolidator.run(USER, TraceLogSource(trace), now=MONDAY + timedelta(hours=3))
    result = consolidator.run(USER, [], now=MONDAY + timedelta(days=1))
    assert result.daily_summary is not None
    assert "dark mode in all my tools" not in result.daily_summary
    assert "Rust" in result.daily_summary and "light mode" in result.daily_summary
