"""The people a request calls by their relation, in the profile tier; a weekday beside a routine.

"Can my father join the five-a-side on Tuesday?": the user's memories say who the father
is ("User's dad Tomás lives in Porto"), and that fact is about whom the request is about,
though it shares no word with it ("father" / "dad") and other facts match it better. The
profile tier gives the standing facts naming the person first; when the facts scored for
the request do not include the one that binds the relation, the user's standing facts are
read once more for the relation's words, every spelling of it. And a routine told in two
time zones ("every Sunday morning here, Saturday evening at home") names no Saturday: the
fact stays standing. Sentences written for these tests (not from a benchmark's data).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from langgraph_prax_memory import MemoryConfig, PraxMemory, RetrievalConfig
from langgraph_prax_memory._classes import CLASSES_KEY
from langgraph_prax_memory._when import spans_of
from langgraph_prax_memory.context import assemble_context
from langgraph_prax_memory.retrieval import relation_words
from langgraph_prax_memory.vectors._plan import payloads_plan

NOW = datetime(2026, 5, 6, 12, tzinfo=UTC)  # a Wednesday

DAD = "User's dad Tomás lives in Porto and still runs his own carpentry workshop."
OTHERS = [
    "User is allergic to penicillin.",
    "User works as a structural engineer in Leeds.",
    "User prefers short answers with bullet points.",
    "User plays five-a-side football on Tuesday nights.",
    "User is learning Japanese on Duolingo.",
    "User drives a 2015 Toyota Auris.",
    "User is vegetarian.",
    "User has a cat called Miso.",
]


def test_relation_words_give_every_spelling() -> None:
    assert relation_words("a card for my mum") == {"mother", "mum", "mom", "mam"}
    assert relation_words("for my late husband") == {"husband"}
    assert relation_words("What is the capital of Peru?") == set()


def test_a_fact_naming_whom_the_request_calls_by_relation_leads_the_profile(
    tmp_path: Path,
) -> None:
    """Fails when the fact binding "my father" is left out or ordered by relevance alone."""
    config = MemoryConfig(data_dir=tmp_path, retrieval=RetrievalConfig(profile_candidates=1))
    ask = "Can my father join the five-a-side football on Tuesday nights?"
    with PraxMemory(config) as mem:
        for i, text in enumerate([DAD, *OTHERS]):
            mem.remember("u-kin", text, created_at=NOW - timedelta(days=30 + i))
        scored = mem.standing_facts("u-kin", ask, now=NOW)
        assert DAD not in [h.memory.content for h in scored]  # not among the facts scored
        ctx = assemble_context(mem, "u-kin", ask, now=NOW)
        assert ctx.profile and ctx.profile[0].memory.content == DAD
        line = next(x for x in ctx.lines if x.hit is not None and x.hit.memory.content == DAD)
        assert "names Tomás, whom the request calls by their relation" in line.why
        # a request that calls no one by a relation is ordered as before
        other = assemble_context(mem, "u-kin", "Suggest a weekend project.", now=NOW)
        assert DAD not in [h.memory.content for h in other.profile[:1]]


def test_a_bare_weekday_beside_a_recurring_one_is_the_routine() -> None:
    said = datetime(2026, 5, 6, tzinfo=UTC)
    habit = "They video call every Sunday morning here (Saturday evening at home)."
    assert spans_of(habit, said) == []
    # marked as a date, unmarked outside brackets, or in another sentence, it stays one
    assert len(spans_of("Swims every Monday and on Saturday flies to Rome.", said)) == 1
    assert len(spans_of("I swim every Monday but Saturday I have a wedding.", said)) == 1
    assert len(spans_of("Tennis on Tuesdays; Thursday I'm meeting Ana.", said)) == 1
    assert len(spans_of("Swims every Monday. Saturday is the party.", said)) == 1


def test_an_episode_by_days_no_longer_read_is_read_again_on_upgrade(tmp_path: Path) -> None:
    """Version 6: a memory the old reading dated (an episode by "date") becomes standing."""
    config = MemoryConfig(data_dir=tmp_path)
    mem = PraxMemory(config)
    text = (
        "User's sister Ines lives in Lima; they talk every Sunday morning (Saturday night there)."
    )
    mid = mem.remember("u-up", text, created_at=NOW)
    trip = mem.remember("u-up", "User flies to Lima on Saturday.", created_at=NOW)
    store = mem.ltm.store()
    kept = dict(store.retrieve("u-up", [trip])[0].payload)
    saturday = datetime(2026, 5, 9, tzinfo=UTC).timestamp()
    old = {  # as the reading before session 13 stored it: Saturday the 9th, an episode by date
        mid: {
            "fact_class": "episode",
            "fact_kind": "plan",
            "fact_by": "date",
            "when_start": saturday,
            "when_end": saturday + 86400.0,
        }
    }
    store.client.batch_update_points(store.collection, payloads_plan("u-up", old))
    store.merge_metadata({CLASSES_KEY: 5})
    assert mem.ltm.get("u-up", mid).fact_class == "episode"  # type: ignore[union-attr]
    mem.close()
    with PraxMemory(config) as upgraded:
        upgraded.ltm.classes.upgrade_once(upgraded.ltm.store())
        got = upgraded.ltm.get("u-up", mid)
        assert got is not None and got.fact_class == "standing"
        point = upgraded.ltm.store().retrieve("u-up", [mid])[0]
        assert point.payload.get("when_start") is None
        # an episode still dated by its days is left as it was
        assert upgraded.ltm.store().retrieve("u-up", [trip])[0].payload == kept


def test_a_verb_of_a_bond_tells_the_relation_it_does_not_name() -> None:
    """ "Johan is seeing someone, Pia" answers who Johan's girlfriend is (persons reading)."""
    from langgraph_prax_memory.retrieval._persons import Person, about_other_person, asked_people

    asked = asked_people("What's the name of Johan's new girlfriend?", {"johan"})
    seeing = {"mentioned", "he's", "seeing", "someone", "pia"}
    assert not about_other_person(Person("johan"), seeing, asked, {})
    # a memory about Johan that tells no bond is still not about his girlfriend
    assert about_other_person(Person("johan"), {"works", "in", "it"}, asked, {})
