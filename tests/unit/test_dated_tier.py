"""The dated tier: a request that names days gets the person's episodes dated in them.

Over a real memory (embedded Qdrant, the packaged model): memories record the days they name
when written, the context block gives the episodes in the span a request names whatever
words they share, and says so line by line; standing facts, small talk, other users and
requests that name no day are left alone; older memories get their days on upgrade.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory, RetrievalConfig
from langgraph_prax_memory._classes import CLASSES_KEY
from langgraph_prax_memory._dated import DATED_FIELDS
from langgraph_prax_memory.context import assemble_context
from langgraph_prax_memory.vectors import payloads_plan

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)  # a Monday
USER = "dated-u"

MEMORIES = {
    "kansai": ("User is flying to Kansai on 9 December for a week of meetings.", 3),
    "delegation": ("User will interpret for a delegation visiting Osaka on 11 December.", 5),
    "essay": ("User has an essay due on Friday 4 December.", 6),
    "agency": ("A new agency in Madrid wrote to the user asking for his rates.", 1),
    "rome": ("User went to Rome in October and loved the food.", 40),
    "allergy": ("User is allergic to penicillin.", 60),
    "swim": ("User swims at the lido on Tuesday mornings.", 90),
}


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("dated") / "data"))
    for key, (text, days_ago) in MEMORIES.items():
        memory.remember(USER, text, created_at=NOW - timedelta(days=days_ago), key=key)
    memory.remember("other-u", "User has a dentist appointment on 8 December.", created_at=NOW)
    yield memory
    memory.close()


def _dated(mem: PraxMemory, message: str, user: str = USER) -> dict[str, str]:
    """The episodes in the block for ``message``: those the dated tier gave, with why, and
    those already relevant (tier ``relevant``)."""
    ctx = assemble_context(mem, user, message, now=NOW)
    assert {h.memory.id for h in ctx.dated} <= {h.memory.id for h in ctx.memories}
    return {
        line.hit.memory.content: f"{line.tier}: {line.why}"
        for line in ctx.lines
        if line.hit is not None and line.hit.memory.fact_class == "episode"
    }


def test_memories_record_the_days_they_name(mem: PraxMemory) -> None:
    points = {p.payload["key"]: p.payload for p in mem.ltm.store().scroll(USER, limit=100)}
    start = datetime.fromtimestamp(points["kansai"]["when_start"], UTC)
    end = datetime.fromtimestamp(points["kansai"]["when_end"], UTC)
    assert (start.date().isoformat(), end.date().isoformat()) == ("2026-12-09", "2026-12-16")
    assert "when_start" not in points["allergy"] and "when_start" not in points["agency"]


def test_a_request_naming_days_gets_the_episodes_in_them(mem: PraxMemory) -> None:
    got = _dated(mem, "Block out my calendar for next week.")
    assert set(got) == {MEMORIES["kansai"][0], MEMORIES["delegation"][0]}
    assert all("2026-12-07..2026-12-13" in why for why in got.values() if why.startswith("dated"))
    assert any(why.startswith("dated") for why in got.values())
    # the essay is due this week, not next
    assert set(_dated(mem, "Make me a study schedule for this week.")) == {MEMORIES["essay"][0]}
    assert set(_dated(mem, "What do I need to pack for the 11th?")) >= {MEMORIES["delegation"][0]}


def test_a_past_span_gets_what_was_recorded_in_it(mem: PraxMemory) -> None:
    ctx = assemble_context(mem, USER, "Reply to the people who wrote to me yesterday.", now=NOW)
    assert MEMORIES["agency"][0] in {h.memory.content for h in ctx.memories}
    assert {h.memory.content for h in ctx.dated} <= {MEMORIES["agency"][0]}


def test_no_day_named_no_dated_line(mem: PraxMemory) -> None:
    assert _dated(mem, "What's the capital of Peru?") == {}
    assert _dated(mem, "Help me write a cover letter.") == {}


def test_standing_facts_and_other_users_stay_out(mem: PraxMemory) -> None:
    # another user's appointment on the 8th is never given; of this user's, only the
    # Tuesday swim is that day (8 December 2026 is a Tuesday)
    mine = assemble_context(mem, USER, "Am I free on 8 December?", now=NOW)
    theirs = assemble_context(mem, "other-u", "Am I free on 8 December?", now=NOW)
    assert [h.memory.user_id for h in theirs.memories] == ["other-u"]
    assert [h.memory.content for h in mine.dated] == [MEMORIES["swim"][0]]
    assert all(h.memory.user_id == USER for h in mine.memories)
    ctx = assemble_context(mem, USER, "What should I pack for next week?", now=NOW)
    assert ctx.dated
    # episodes, and standing facts only as routines on those days
    for hit in ctx.dated:
        assert hit.memory.fact_class == "episode" or hit.memory.content == MEMORIES["swim"][0]


def test_the_tier_can_be_turned_off(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path, retrieval=RetrievalConfig(dated_limit=0))
    with PraxMemory(config) as memory:
        memory.remember(USER, MEMORIES["kansai"][0], created_at=NOW - timedelta(days=3))
        assert _dated(memory, "Block out my calendar for next week.") == {}


def test_memories_classified_before_the_tier_get_their_days_on_upgrade(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path)
    memory = PraxMemory(config)
    memory.remember(USER, MEMORIES["kansai"][0], created_at=NOW - timedelta(days=3), key="k")
    store = memory.ltm.store()
    [point] = store.scroll(USER, limit=10)
    # as the release before the dated tier left it: classified, no days, version 1
    ops = payloads_plan(USER, {point.id: dict.fromkeys(DATED_FIELDS)})
    store.client.batch_update_points(store.collection, ops)
    store.merge_metadata({CLASSES_KEY: 1})
    assert store.scroll(USER, limit=10)[0].payload.get("when_start") is None
    memory.close()

    with PraxMemory(config) as upgraded:
        [again] = upgraded.ltm.store().scroll(USER, limit=10)
        assert again.payload["fact_class"] == "episode"
        assert isinstance(again.payload.get("when_start"), float)
        assert set(_dated(upgraded, "Block out my calendar for next week.")) == {
            MEMORIES["kansai"][0]
        }


def test_a_dated_statement_is_never_small_talk(mem: PraxMemory) -> None:
    """Small talk by its text that names a day is an episode; the here and now stays small talk."""
    from langgraph_prax_memory._dated import dated_fields

    said = NOW.timestamp()
    small = {"fact_class": "small_talk", "fact_by": "text", "fact_confidence": 0.8}
    essay = dated_fields({**small, "content": "essay due on Friday 4 December", "created_ts": said})
    assert (essay["fact_class"], essay["fact_kind"], essay["fact_by"]) == (
        "episode",
        "plan",
        "date",
    )
    today = dated_fields({**small, "content": "It's freezing today.", "created_ts": said})
    assert "fact_class" not in today and "when_start" in today
    tagged = {**small, "fact_by": "tags", "content": "on 4 December", "created_ts": said}
    assert "fact_class" not in dated_fields(tagged)


def test_a_routine_on_the_days_named_joins_the_tier(mem: PraxMemory) -> None:
    swim = MEMORIES["swim"][0]
    [point] = [p for p in mem.ltm.store().scroll(USER, limit=100) if p.payload["key"] == "swim"]
    assert point.payload["weekdays"] == [1] and "when_start" not in point.payload
    ctx = assemble_context(
        mem, USER, "When could I fit in a dentist appointment next week?", now=NOW
    )
    assert swim in {h.memory.content for h in ctx.dated}
    [line] = [li for li in ctx.lines if li.hit is not None and li.hit.memory.content == swim]
    assert line.tier == "dated" and line.why.startswith("a routine on a weekday of the days")
    assert "2026-12-07..2026-12-13" in line.why
    # a span of more than two weeks is not about every routine; a weekend has no Tuesday
    for message in ("What should I plan for January?", "Plan something for this weekend."):
        ctx = assemble_context(mem, USER, message, now=NOW)
        assert swim not in {h.memory.content for h in ctx.dated}


def test_a_standing_reading_that_dates_a_plan_is_an_episode() -> None:
    """A text read as standing that dates a plan or an event near when it was said is one."""
    from langgraph_prax_memory._dated import dated_fields

    said = NOW.timestamp()
    standing = {"fact_class": "standing", "fact_by": "text", "fact_confidence": 0.7}
    check_up = {
        **standing,
        "content": "Diabetes check-up on the 17th at 10:00.",
        "created_ts": said,
    }
    got = dated_fields(check_up)
    assert (got["fact_class"], got["fact_kind"], got["fact_by"]) == ("episode", "plan", "date")
    for kept in (
        "User got married in June 2019.",
        "User has been vegan since January.",
        "User's birthday is on 2 December.",
    ):
        assert "fact_class" not in dated_fields({**standing, "content": kept, "created_ts": said})
    # the caller's tags decide, whatever the text says
    tagged = {**check_up, "fact_by": "tags"}
    assert "fact_class" not in dated_fields(tagged)


def test_the_optional_model_check_judges_the_dated_episodes_too(tmp_path: Path) -> None:
    from langchain_core.messages import AIMessage

    from tests.scripted import ScriptedChatModel

    retrieval = RetrievalConfig(llm_check=True, llm_check_band=(0.0, 1.0))
    with PraxMemory(MemoryConfig(data_dir=tmp_path, retrieval=retrieval)) as memory:
        memory.remember(USER, MEMORIES["kansai"][0], created_at=NOW - timedelta(days=3))
        message = "Block out my calendar for next week."
        kept = ScriptedChatModel(script=[AIMessage('{"use": [0]}')])
        ctx = assemble_context(memory, USER, message, now=NOW, check_model=kept)
        assert [h.memory.content for h in ctx.memories] == [MEMORIES["kansai"][0]]
        dropped = ScriptedChatModel(script=[AIMessage('{"use": []}')])
        ctx = assemble_context(memory, USER, message, now=NOW, check_model=dropped)
        assert not ctx.memories and not ctx.dated and "kept 0 of 1" in ctx.checked


def test_a_request_about_the_persons_own_life_gets_their_coming_plans(tmp_path: Path) -> None:
    """No day named, but "my": the plans of the coming weeks that are near enough join."""
    with PraxMemory(MemoryConfig(data_dir=tmp_path)) as memory:
        texts = [
            "User is flying to Melbourne on 20 December to spend Christmas with her daughter.",
            "User flies to Boston on 2 February for a conference.",  # beyond the coming days
            "User went to the dentist last Tuesday.",  # past
        ]
        for text in texts:
            memory.remember(USER, text, created_at=NOW - timedelta(days=2))
        ctx = assemble_context(memory, USER, "What should I pack for my holiday?", now=NOW)
        assert [h.memory.content for h in ctx.dated] == [texts[0]]
        line = next(x for x in ctx.lines if x.hit is not None and x.hit.memory.content == texts[0])
        assert line.tier == "dated" and "the coming days" in line.why
        # a request of the person's own that the plan is not near enough to; everyone's
        # questions, which name nothing of the person's own: nothing of the diary
        for message in (
            "Rewrite my CV.",
            "How do I pack a suitcase efficiently?",
            "Tell me a fun fact.",
        ):
            assert assemble_context(memory, USER, message, now=NOW).dated == ()


def test_the_coming_days_can_be_turned_off(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path, retrieval=RetrievalConfig(coming_days=0))
    with PraxMemory(config) as memory:
        text = "User is flying to Melbourne on 20 December to spend Christmas with her daughter."
        memory.remember(USER, text, created_at=NOW - timedelta(days=2))
        ctx = assemble_context(memory, USER, "What should I pack for my holiday?", now=NOW)
        assert ctx.dated == ()


@pytest.mark.parametrize(
    "bad", [{"coming_days": -1}, {"coming_limit": -1}, {"coming_days": "soon"}]
)
def test_the_coming_days_settings_refuse_bad_values(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="coming_"):
        RetrievalConfig(**bad)  # type: ignore[arg-type]


def test_the_people_of_the_users_life_are_read_from_her_facts() -> None:
    from langgraph_prax_memory.retrieval import kin_named, user_kin

    kin = user_kin(
        [
            "My wife Kasia is a pharmacist.",
            "Dad is Kofi; mum Akosua sells yams at the market.",
            "Daughter Aoife, 12, is mad about horses.",
            "My son Tom lives in Leeds with his wife Priya.",  # Tom's wife, not the user's
            "Her brother Matías is a sound engineer.",  # a note about the user opening "Her"
            "My mother was Finnish.",  # not a name
        ]
    )
    assert {r: sorted(n) for r, n in kin.items()} == {
        "wife": ["kasia"],
        "father": ["kofi"],
        "mother": ["akosua"],
        "daughter": ["aoife"],
        "son": ["tom"],
        "brother": ["matías"],
    }
    assert kin_named("Help me choose a present for my wife.", kin) == {"kasia"}
    assert kin_named("What can I do to make my mum's flat safer?", kin) == {"akosua"}
    assert kin_named("Plan a day out for my kids.", kin) == {"aoife", "tom"}  # the kind
    assert kin_named("Write to my boss.", kin) == set()  # no name given
    assert kin_named("Help me choose a present for Kasia's sister.", kin) == set()
    two = user_kin(["My friend Ana is a nurse.", "My friend Bea runs."])
    assert kin_named("Plan a night out with my friend.", two) == set()  # which one?


def test_a_request_calling_someone_by_relation_gets_their_near_episodes(tmp_path: Path) -> None:
    """ "A present for my wife": her birthday on the 10th joins, whatever its cosine."""
    with PraxMemory(MemoryConfig(data_dir=tmp_path)) as memory:
        memory.remember(USER, "My wife Kasia works as a pharmacist in Poznan.", created_at=NOW)
        texts = {
            "birthday": ("Kasia's birthday is coming up on 10 December.", 4),
            "fall": ("Kasia slipped on the ice last week and bruised her knee.", 3),
            "old": ("Kasia went to a conference in Berlin in August.", 100),
            "van": ("The van failed its inspection last week.", 3),
        }
        for key, (text, days) in texts.items():
            memory.remember(USER, text, created_at=NOW - timedelta(days=days), key=key)
        ctx = assemble_context(memory, USER, "Help me choose a present for my wife.", now=NOW)
        dated = {h.memory.content for h in ctx.dated}
        assert texts["birthday"][0] in dated and texts["fall"][0] in dated
        assert texts["old"][0] not in dated and texts["van"][0] not in dated
        why = next(x.why for x in ctx.lines if x.hit and x.hit.memory.content == texts["fall"][0])
        assert "of Kasia, whom the request calls by their relation to the user" in why
        # one her facts give no name: no one's episodes (the birthday may still come as a
        # plan of the coming days near enough to a present); no relation: neither
        sister = assemble_context(memory, USER, "Help me choose a present for my sister.", now=NOW)
        assert texts["fall"][0] not in {h.memory.content for h in sister.dated}
        assert assemble_context(memory, USER, "Help me choose a present.", now=NOW).dated == ()


def test_a_person_is_named_with_a_capital() -> None:
    from langgraph_prax_memory._dated import names_in

    assert names_in("Kasia's birthday is on the 10th.", {"kasia"}) == {"kasia"}
    assert names_in("I will call the garage later.", {"will"}) == set()  # not Will
    assert names_in("Will's school play is on Friday.", {"will"}) == {"will"}


def test_the_diary_of_the_days_comes_before_their_routines(tmp_path: Path) -> None:
    """Session 12: an episode dated in the days asked comes before a routine on their
    weekdays, however much nearer the routine's words are to the request."""
    from langgraph_prax_memory._dated import dated_episodes

    with PraxMemory(MemoryConfig(data_dir=tmp_path)) as memory:
        gym = "User goes to the gym every Monday morning before work."
        dentist = "Dentist appointment on 7 December at 15:00."
        for text in (gym, dentist):
            memory.remember(USER, text, created_at=NOW - timedelta(days=2))
        hits, _ = dated_episodes(
            memory, USER, "What's on at the gym next Monday morning?", limit=1, now=NOW
        )
        assert [h.memory.content for h in hits] == [dentist]
        both, _ = dated_episodes(
            memory, USER, "What's on at the gym next Monday morning?", limit=2, now=NOW
        )
        assert [h.memory.content for h in both] == [dentist, gym]
