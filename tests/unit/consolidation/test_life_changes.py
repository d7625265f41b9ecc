"""Consolidation that understands change (issue 26): moves, jobs, partners, diets, renamed
projects supersede the old fact in the graph and in long-term memory, on the rule path and the
LLM path; facts are normalized statements; an untimed paraphrase of a superseded fact stays
history.

Real parts: the packaged MiniLM model, the embedded vector engine, the SQLite graph; only the
chat model is scripted (tests/scripted.py).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import (
    Consolidator,
    LLMExtractor,
    RuleBasedExtractor,
    TraceLogSource,
)
from langgraph_prax_memory.context import build_memory_context
from tests.scripted import ScriptedChatModel
from tests.unit.consolidation.conftest import write_lines

DAY1 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY2 = DAY1 + timedelta(days=1)
LATER = DAY1 + timedelta(days=3)
_users = (f"carol{i}" for i in itertools.count())


@pytest.fixture(scope="module")
def real_memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("life") / "data"))
    yield mem
    mem.close()


def _line(when: datetime, text: str) -> str:
    return f"{when.isoformat()} user: {text}"


def _current(memory: PraxMemory, user: str, kind: str) -> list[str]:
    return [e.name for e in memory.graph.current_targets(user, "user", kind)]


def _contents(memory: PraxMemory, user: str) -> list[str]:
    return [m.content for m in memory.list_memories(user, limit=200) if m.summary_level == "raw"]


def _scripted(*answers: dict[str, Any]) -> LLMExtractor:
    model = ScriptedChatModel(script=[AIMessage(content=json.dumps(a)) for a in answers])
    return LLMExtractor(model, structured=False)


# -- the trial: a move and a new job in one sentence -----------------------------
MOVE_BEFORE = "I live in Lisbon and work at a bakery."
MOVE_AFTER = "I moved to Berlin and work at Acme Corp now."
LLM_BEFORE = {
    "relations": [
        {"source": "User", "type": "lives_in", "target": "Lisbon", "confidence": 0.9},
        {"source": "User", "type": "works_at", "target": "bakery", "confidence": 0.9},
    ],
    "facts": [
        {"content": "User lives in Lisbon and works at a bakery.", "confidence": 0.9,
         "importance": 0.8, "entities": ["User", "Lisbon", "bakery"]},
    ],
}  # fmt: skip
LLM_AFTER = {
    "relations": [
        {"source": "User", "type": "lives_in", "target": "Berlin", "supersedes": "Lisbon",
         "confidence": 0.9},
        {"source": "User", "type": "works_at", "target": "Acme Corp", "supersedes": "bakery",
         "confidence": 0.9},
    ],
    "facts": [
        {"content": "User lives in Berlin.", "confidence": 0.9, "importance": 0.9,
         "entities": ["User", "Berlin"]},
        {"content": "User works at Acme Corp.", "confidence": 0.9, "importance": 0.9,
         "entities": ["User", "Acme Corp"]},
    ],
}  # fmt: skip


@pytest.mark.parametrize("path", ["rules", "llm"])
def test_a_move_and_a_new_job_supersede_home_and_employer(
    real_memory: PraxMemory, tmp_path: Path, path: str
) -> None:
    user = next(_users)
    trace = tmp_path / f"{user}.log"
    write_lines(trace, [_line(DAY1, MOVE_BEFORE)])
    extractor = RuleBasedExtractor() if path == "rules" else _scripted(LLM_BEFORE, LLM_AFTER)
    consolidator = Consolidator(real_memory, extractor=extractor)
    consolidator.run(user, TraceLogSource(trace), now=DAY1 + timedelta(hours=1))
    (stale,) = [m for m in real_memory.list_memories(user) if "Lisbon" in m.content]
    write_lines(trace, [_line(DAY2, MOVE_AFTER)], mode="a")
    second = consolidator.run(user, TraceLogSource(trace), now=DAY2 + timedelta(hours=1))
    assert second.relations_superseded == 2
    assert _current(real_memory, user, "lives_in") == ["berlin"]
    assert _current(real_memory, user, "works_at") == ["acme corp"]
    contents = _contents(real_memory, user)
    assert "User lives in Berlin." in contents and "User works at Acme Corp." in contents
    assert not any(re.match(r"\w+: ", c) or re.search(r"\bI\b", c) for c in contents)
    for question, new in (("where does carol work?", "Acme Corp"), ("Where do I live?", "Berlin")):
        hits = real_memory.recall(user, question, k=3, now=LATER, reinforce=False)
        assert new in hits[0].memory.content, (question, [h.memory.content for h in hits])
        assert stale.id not in {h.memory.id for h in hits}
        context = build_memory_context(real_memory, user, question, now=LATER)
        assert "Lisbon" not in context and "bakery" not in context and new in context
    history = real_memory.recall(user, "Lisbon bakery", k=5, include_history=True)
    old = [h.memory for h in history if h.memory.id == stale.id]
    assert old and old[0].valid_until is not None


# -- more changes of state on the rule path ------------------------------------------------
CHANGES = [
    ("new job", "I work at Initech.", "I got a new job at Globex.", "works_at", "globex",
     "initech", "Where do I work?"),
    ("quit job", "I work at Initech.", "I quit my job at Initech.", "works_at", None,
     "initech", "Where do I work?"),
    ("new partner", "My girlfriend Ana loves hiking.", "I'm dating Marta now.", "partner_of",
     "marta", "ana", "Who is my partner?"),
    ("break-up", "My boyfriend Leo is a chef.", "I broke up with Leo.", "partner_of", None,
     "leo", "Who is my partner?"),
    ("new diet", "I eat meat most days.", "I'm vegan now.", "prefers", "vegan", "meat",
     "What do I eat?"),
    ("renamed project", "I work on Phoenix every day.", "We renamed Phoenix to Firebird.",
     "works_on", "firebird", "phoenix", "Which project do I work on?"),
    ("based in", "I live in Porto.", "I'm based in Madrid now.", "lives_in", "madrid", "porto",
     "Where do I live?"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "before", "after", "kind", "new", "old", "question"),
    CHANGES,
    ids=[c[0] for c in CHANGES],
)
def test_rule_path_changes_of_state(
    real_memory: PraxMemory,
    tmp_path: Path,
    name: str,
    before: str,
    after: str,
    kind: str,
    new: str | None,
    old: str,
    question: str,
) -> None:
    user = next(_users)
    trace = tmp_path / f"{user}.log"
    write_lines(trace, [_line(DAY1, before)])
    consolidator = Consolidator(real_memory, extractor=RuleBasedExtractor())
    consolidator.run(user, TraceLogSource(trace), now=DAY1 + timedelta(hours=1))
    assert old in _current(real_memory, user, kind)
    stale = [m.content for m in real_memory.list_memories(user)]
    write_lines(trace, [_line(DAY2, after)], mode="a")
    consolidator.run(user, TraceLogSource(trace), now=DAY2 + timedelta(hours=1))
    current = _current(real_memory, user, kind)
    assert old not in current and (new is None or new in current), current
    context = build_memory_context(real_memory, user, question, now=LATER)
    assert not any(s in context for s in stale), context
    contents = _contents(real_memory, user)
    assert not any(c.startswith("user: ") for c in contents)
    if new is not None:
        hits = real_memory.recall(user, question, k=3, now=LATER, reinforce=False)
        assert new in hits[0].memory.content.lower(), [h.memory.content for h in hits]


QUESTION = "Do I like dark mode or light mode in my tools?"


# -- a paraphrase of a superseded fact, read after the state file is lost ------------------
def _dark_then_light(memory: PraxMemory, tmp_path: Path, extractor: Any) -> tuple[str, Path]:
    user = next(_users)
    trace = tmp_path / f"{user}.log"
    write_lines(
        trace,
        [
            _line(DAY1, "I prefer dark mode in all my tools."),
            _line(DAY2, "I now prefer light mode."),
        ],
    )
    Consolidator(memory, extractor=extractor).run(user, TraceLogSource(trace), now=DAY2)
    assert _current(memory, user, "prefers") == ["light mode"]
    context = build_memory_context(memory, user, QUESTION, now=DAY2)
    assert "light mode" in context and "dark mode in all" not in context, context
    return user, trace


PARAPHRASE = {
    "relations": [{"source": "User", "type": "prefers", "target": "dark mode",
                   "confidence": 0.9}],
    "facts": [{"content": "User likes dark mode everywhere.", "confidence": 0.9,
               "importance": 0.8, "entities": ["User", "dark mode"]}],
}  # fmt: skip


def test_an_untimed_llm_paraphrase_of_a_superseded_fact_stays_history(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    before = {
        "relations": [{"source": "User", "type": "prefers", "target": "dark mode",
                       "confidence": 0.9}],
        "facts": [{"content": "User prefers dark mode in all tools.", "confidence": 0.9,
                   "importance": 0.8, "entities": ["User", "dark mode"]}],
    }  # fmt: skip
    after = {
        "relations": [{"source": "User", "type": "prefers", "target": "light mode",
                       "supersedes": "dark mode", "confidence": 0.9}],
        "facts": [{"content": "User now prefers light mode.", "confidence": 0.9,
                   "importance": 0.9, "entities": ["User", "light mode"]}],
    }  # fmt: skip
    both = {k: before[k] + after[k] for k in before}  # one batch: both lines
    user, _ = _dark_then_light(real_memory, tmp_path, _scripted(both))
    consolidator = Consolidator(real_memory, extractor=_scripted(PARAPHRASE))
    consolidator.state_path(user).unlink(missing_ok=True)
    untimed = tmp_path / f"{user}-untimed.log"
    write_lines(untimed, ["user: I like dark mode everywhere."])
    result = consolidator.run(user, TraceLogSource(untimed), now=LATER)
    assert result.memories_created == 1  # stored, as history
    assert _current(real_memory, user, "prefers") == ["light mode"]
    hits = real_memory.recall(user, QUESTION, k=5, now=LATER, reinforce=False)
    assert not any("dark mode everywhere" in h.memory.content for h in hits)
    context = build_memory_context(real_memory, user, QUESTION, now=LATER)
    assert "dark mode everywhere" not in context and "light mode" in context
    history = real_memory.recall(user, QUESTION, k=10, include_history=True, reinforce=False)
    assert any("dark mode everywhere" in h.memory.content for h in history)


def test_an_untimed_rule_path_paraphrase_stays_history_but_a_change_back_counts(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    user, _ = _dark_then_light(real_memory, tmp_path, RuleBasedExtractor())
    consolidator = Consolidator(real_memory, extractor=RuleBasedExtractor())
    consolidator.state_path(user).unlink(missing_ok=True)
    untimed = tmp_path / f"{user}-untimed.log"
    write_lines(untimed, ["user: I like dark mode everywhere."])
    consolidator.run(user, TraceLogSource(untimed), now=LATER)
    assert _current(real_memory, user, "prefers") == ["light mode"]
    context = build_memory_context(real_memory, user, QUESTION, now=LATER)
    assert "dark mode everywhere" not in context
    # a statement of change is newer by its own words, timed or not
    write_lines(untimed, ["user: I prefer dark mode again."], mode="a")
    consolidator.run(user, TraceLogSource(untimed), now=LATER + timedelta(hours=1))
    assert _current(real_memory, user, "prefers") == ["dark mode"]
    hits = real_memory.recall(user, QUESTION, k=3, now=LATER + timedelta(hours=2))
    assert "dark mode" in hits[0].memory.content


def test_a_timed_restatement_after_the_change_is_current(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """Its time says it is newer: the rule for untimed items does not apply."""
    user, trace = _dark_then_light(real_memory, tmp_path, RuleBasedExtractor())
    write_lines(trace, [_line(LATER, "I switched from light mode to dark mode.")], mode="a")
    Consolidator(real_memory, extractor=RuleBasedExtractor()).run(
        user, TraceLogSource(trace), now=LATER + timedelta(hours=1)
    )
    assert _current(real_memory, user, "prefers") == ["dark mode"]


def test_an_untimed_paraphrase_naming_a_shorter_form_stays_history(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """ "dracula" after "the Dracula theme" was replaced: another entity, the same value."""
    user = next(_users)
    trace = tmp_path / f"{user}.log"
    write_lines(
        trace,
        [_line(DAY1, "I like the Dracula theme."), _line(DAY2, "Solarized is my new favourite.")],
    )
    consolidator = Consolidator(real_memory, extractor=RuleBasedExtractor())
    consolidator.run(user, TraceLogSource(trace), now=DAY2)
    assert _current(real_memory, user, "prefers") == ["solarized"]
    consolidator.state_path(user).unlink()
    untimed = tmp_path / f"{user}-untimed.log"
    write_lines(untimed, ["user: I really like dracula in general."])
    consolidator.run(user, TraceLogSource(untimed), now=LATER)
    assert _current(real_memory, user, "prefers") == ["solarized"]
    assert "dracula in general" not in build_memory_context(
        real_memory, user, "Which theme do I like?", now=LATER
    )
    hits = real_memory.recall(user, "Which theme do I like?", k=3, now=LATER, reinforce=False)
    assert [h.memory.content for h in hits] == ["Solarized is User's new favourite."]
    history = real_memory.recall(user, "dracula", k=5, include_history=True, reinforce=False)
    assert any("dracula in general" in h.memory.content for h in history)
