"""Issue 15 on the rule-based path: preference drift, entity resolution, junk, hygiene report.

Real components throughout: the SQLite graph, Qdrant's local engine, the rule-based extractor
and the pipeline; nothing is mocked.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.consolidation import Consolidator, RuleBasedExtractor, TraceLogSource
from langgraph_prax_memory.consolidation._normalize import third_person
from langgraph_prax_memory.consolidation._resolve import resolve_extraction, same_slot
from langgraph_prax_memory.consolidation._rules import SUPERSEDES_CURRENT, is_junk
from tests.unit.consolidation.conftest import NOW, write_lines

USER = "alice"


def _run(memory: PraxMemory, trace: Path, lines: list[str], *, day: int = 0) -> None:
    write_lines(trace, lines)
    Consolidator(memory).run(USER, TraceLogSource(trace), now=NOW + timedelta(days=day))


def _current(memory: PraxMemory, rtype: str = "prefers", source: str = "User") -> list[str]:
    return [e.name for e in memory.graph.current_targets(USER, source, rtype)]


def _superseded(memory: PraxMemory, target: str, rtype: str = "prefers") -> bool:
    got = memory.graph.get_entity(USER, "User", include_superseded=True)
    assert got is not None
    return any(
        r.type == rtype and r.target == target and r.valid_until is not None for r in got.relations
    )


# -- 1. preference drift -----------------------------------------------------------------------
def test_preference_drift_across_sessions_supersedes_the_old_preference(
    memory: PraxMemory, tmp_path: Path
) -> None:
    """Issue 15: "I now prefer light mode." kept dark mode current and added nothing."""
    _run(memory, tmp_path / "s1.log", ["user: I prefer dark mode in all my tools."])
    assert _current(memory) == ["dark mode"]
    _run(memory, tmp_path / "s2.log", ["user: I now prefer light mode."], day=1)
    assert _current(memory) == ["light mode"]
    assert _superseded(memory, "dark mode")


def test_a_drift_does_not_touch_preferences_of_another_slot(
    memory: PraxMemory, tmp_path: Path
) -> None:
    _run(memory, tmp_path / "s1.log", ["user: I prefer dark mode.", "user: I love Python."])
    _run(memory, tmp_path / "s2.log", ["user: These days I prefer light mode."], day=1)
    assert sorted(_current(memory)) == ["light mode", "python"]


def test_drift_within_one_batch(memory: PraxMemory, tmp_path: Path) -> None:
    _run(
        memory,
        tmp_path / "s.log",
        ["user: I drink coffee every morning.", "user: Actually I switched to tea."],
    )
    assert _current(memory) == ["tea"]
    assert _superseded(memory, "coffee")


# (old statement, change statement, old value, new value) — 14 different change patterns
DRIFTS = [
    ("I prefer dark mode.", "I now prefer light mode.", "dark mode", "light mode"),
    ("I use VS Code for everything.", "I switched to Neovim.", "vs code", "neovim"),
    ("I like jazz.", "I no longer like jazz.", "jazz", None),
    ("I live in Berlin.", "I moved to Lisbon.", "berlin", "lisbon"),
    ("I drink coffee.", "Coffee? Not anymore.", "coffee", None),
    ("I use Chrome.", "I use Firefox instead of Chrome.", "chrome", "firefox"),
    ("I prefer spaces.", "I changed my mind. I prefer tabs.", "spaces", "tabs"),
    ("I drink coffee.", "These days I drink green tea.", "coffee", "green tea"),
    ("I use Jira.", "I stopped using Jira.", "jira", None),
    ("I eat meat.", "I gave up meat.", "meat", None),
    ("I use pip.", "From now on I use uv.", "pip", "uv"),
    ("I use Trello.", "I replaced Trello with Linear.", "trello", "linear"),
    ("I use Windows.", "I moved from Windows to Linux.", "windows", "linux"),
    ("I love running.", "I used to love running.", "running", None),
]


@pytest.mark.parametrize(("before", "after", "old", "new"), DRIFTS)
def test_change_patterns_supersede_the_old_value(
    memory: PraxMemory, tmp_path: Path, before: str, after: str, old: str, new: str | None
) -> None:
    rtype = "lives_in" if old == "berlin" else "prefers"
    _run(memory, tmp_path / "s1.log", [f"user: {before}"])
    assert old in _current(memory, rtype)
    _run(memory, tmp_path / "s2.log", [f"user: {after}"], day=1)
    now = _current(memory, rtype)
    assert old not in now
    assert _superseded(memory, old, rtype)
    if new is not None:
        assert new in now


def test_unnamed_old_value_is_marked_and_resolved_only_within_its_slot() -> None:
    out = RuleBasedExtractor().extract(["user: I now prefer light mode."])
    rel = next(r for r in out.relations if r.type == "prefers")
    assert rel.supersedes == SUPERSEDES_CURRENT
    assert resolve_extraction(None, USER, out).relations[-1].supersedes is None  # no old value
    assert same_slot("dark mode", "light mode") and same_slot("VS Code", "Neovim")
    assert not same_slot("Python", "light mode")


# -- 3. entity resolution ----------------------------------------------------------------------
def test_aliases_of_one_person_merge_with_the_evidence_kept(
    memory: PraxMemory, tmp_path: Path
) -> None:
    """Issue 15: "Alice", "Alice Smith" and "Alice S." were three entities."""
    _run(memory, tmp_path / "s1.log", ["user: I had lunch with my colleague Alice Smith."])
    _run(memory, tmp_path / "s2.log", ["user: Alice S. sent me the slides about Prax."], day=1)
    _run(memory, tmp_path / "s3.log", ["user: I told Alice about the Prax demo."], day=2)
    alices = [e for e in memory.graph.search_entities(USER, "alice", limit=10)]
    assert [e.display_name for e in alices] == ["Alice Smith"]
    assert alices[0].type == "person"
    assert sorted(alices[0].properties["aliases"]) == ["Alice", "Alice S"]
    prax = memory.graph.get_entity(USER, "Prax")
    assert prax is not None
    assert {r.source for r in prax.relations if r.type == "mentioned_with"} >= {"alice smith"}


def test_a_first_name_shared_by_two_people_is_not_merged(
    memory: PraxMemory, tmp_path: Path
) -> None:
    _run(
        memory,
        tmp_path / "s1.log",
        ["user: I met my colleague Alice Smith and my friend Alice Jones."],
    )
    _run(memory, tmp_path / "s2.log", ["user: I called Alice yesterday."], day=1)
    names = sorted(e.display_name for e in memory.graph.search_entities(USER, "alice"))
    assert names == ["Alice", "Alice Jones", "Alice Smith"]


def test_type_cues_and_user_centred_relations(memory: PraxMemory, tmp_path: Path) -> None:
    """Issue 15: "My manager Tom" was a concept; no user → Sarah / user → Japan relations."""
    _run(
        memory,
        tmp_path / "s.log",
        [
            "user: My manager Tom wants the report by Friday.",
            "user: My sister Sarah lives in Osaka.",
            "user: I moved to Japan last year.",
        ],
    )
    tom = memory.graph.get_entity(USER, "Tom")
    sarah = memory.graph.get_entity(USER, "Sarah")
    japan = memory.graph.get_entity(USER, "Japan")
    assert tom is not None and tom.entity.type == "person"
    assert sarah is not None and sarah.entity.type == "person"
    assert japan is not None and japan.entity.type == "place"
    user = memory.graph.get_entity(USER, "User")
    assert user is not None
    edges = {(r.type, r.target) for r in user.relations}
    assert {("related_to", "tom"), ("related_to", "sarah"), ("lives_in", "japan")} <= edges
    assert _current(memory, "lives_in", "Sarah") == ["osaka"]
    # who is who is worth remembering in words too, not only as an edge
    stored = [m.content for m in memory.list_memories(USER)]
    assert "User's manager Tom wants the report by Friday." in stored


def test_events_with_participants(memory: PraxMemory, tmp_path: Path) -> None:
    _run(memory, tmp_path / "s.log", ["user: I met Tom at the conference on Tuesday."])
    events = memory.graph.get_events(USER, entity="Tom")
    assert len(events) == 1
    assert set(events[0].participants) >= {"user", "tom"}


# -- 4. junk and importance --------------------------------------------------------------------
SMALL_TALK = [
    "I love it!",
    "I have a question.",
    "I want to sleep.",
    "I'm so tired today.",
    "I think that's great.",
    "I agree with you.",
    "I have no idea.",
    "I'm back.",
    "I like that!",
    "I have to go now.",
    "I love this conversation!",
    "I see what you mean.",
    "I want to know more.",
    "I'm fine, thanks.",
    "I really like your idea!",
    "I hope you are well.",
    "I feel good.",
    "I'm glad to hear that.",
    "I'm not sure.",
    "I want to ask something.",
]
REAL_FACTS = [
    "I prefer dark mode in all my tools.",
    "I'm allergic to peanuts.",
    "I work at Acme Corp as a data engineer.",
    "My sister Sarah lives in Osaka.",
    "I decided to always write tests first.",
]


def test_small_talk_is_not_stored_and_real_facts_are(memory: PraxMemory, tmp_path: Path) -> None:
    """Issue 15: 200 turns of small talk with 5 facts stored 12 junk memories, some at 0.8."""
    lines: list[str] = []
    for i in range(200):
        if i % 40 == 7:
            lines.append(f"user: {REAL_FACTS[i // 40]}")
        elif i % 2:
            lines.append(f"assistant: That sounds good, tell me more ({i}).")
        else:
            lines.append(f"user: {SMALL_TALK[(i // 2) % len(SMALL_TALK)]}")
    _run(memory, tmp_path / "s.log", lines)
    stored = [m for m in memory.list_memories(USER, limit=1000) if m.summary_level == "raw"]
    contents = {m.content for m in stored}
    real = {third_person("User", f) for f in REAL_FACTS}  # stored as normalized statements
    assert real <= contents
    # "User works at Acme Corp." (the canonical statement of a real fact) is not junk
    junk = [m for m in stored if not any(m.content.rstrip(".") in r for r in real)]
    assert len(junk) <= len(stored) // 10
    assert all(m.importance < 0.8 for m in junk)


@pytest.mark.parametrize("line", SMALL_TALK)
def test_filler_is_junk(line: str) -> None:
    assert is_junk(line)
    assert RuleBasedExtractor().extract([f"user: {line}"]).facts == []


@pytest.mark.parametrize("line", [*REAL_FACTS, "I have two kids.", "I'm vegan.", "I use Rust."])
def test_real_facts_are_not_junk(line: str) -> None:
    assert not is_junk(line)


# -- 4. the hygiene report ---------------------------------------------------------------------
def test_stats_report_duplicates_junk_superseded_and_never_recalled(memory: PraxMemory) -> None:
    """Issue 15: ``PraxMemory.stats`` had no hygiene figures at all."""
    ids = memory.remember_many(
        USER,
        [
            {"content": "I prefer tea."},
            {"content": "i prefer tea"},  # the same fact, other case and punctuation
            {"content": "user: I prefer TEA!"},
            {"content": "I love it!"},
            {"content": "I have a question."},
            {"content": "I live in Berlin."},
            {"content": "I work on Prax."},
        ],
    )
    memory.vectors.set_payload(  # what consolidation does to a superseded fact
        USER, [ids[5]], {"valid_until": NOW.isoformat(), "valid_until_ts": NOW.timestamp()}
    )
    memory.remember("bob", "I love it!")  # another user's junk is not counted
    hits = memory.recall(USER, "Prax", k=1)
    assert hits
    memory.flush()  # reinforcement of the recalled memory runs in the background
    report = memory.stats(USER).hygiene
    assert report is not None
    assert report.scanned == 7
    assert report.duplicates == 2
    assert report.junk_candidates == 2
    assert report.superseded == 1
    assert report.never_recalled == 6
    assert "2 duplicates, 2 junk candidates, 1 superseded" in memory.stats(USER).summary()


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("we were broke so we moved back home", "User was broke so they moved back home."),
        ("we weren't sure about the flat", "User wasn't sure about the flat."),
        ("I think we were right", "User thinks they were right."),
        ("we are vegetarian", "User is vegetarian."),
    ],
)
def test_we_in_the_past_of_be_is_said_of_the_one_person(said: str, stored: str) -> None:
    """Fails when "we were" is stored as "User were" (session 14)."""
    assert third_person("User", said) == stored
