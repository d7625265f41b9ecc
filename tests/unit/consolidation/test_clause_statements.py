"""A sentence of several statements, judged statement by statement (issue 38, rule path).

People say several things in one breath; the sentences below were written for these tests
(not taken from ``benchmarks/data/changes.json``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import RuleBasedExtractor
from langgraph_prax_memory.consolidation._clauses import statement_clauses
from langgraph_prax_memory.consolidation._rule_facts import (
    with_antecedent,
    with_subject,
    with_subjects,
    with_their_request,
)
from langgraph_prax_memory.consolidation._statements import plan_statements
from langgraph_prax_memory.facts import FactClass

from .conftest import rule_path_stored


@pytest.mark.parametrize(
    ("sentence", "clauses"),
    [
        ("I teach maths at Hillcrest and honestly the kids are lovely this year",
         ["I teach maths at Hillcrest", "honestly the kids are lovely this year"]),
        ("I'm coeliac, have been since I was nine, so no bread for me",
         ["I'm coeliac", "have been since I was nine", "no bread for me"]),
        ("I cycle to work because the bus is awful",
         ["I cycle to work because the bus is awful"]),
        ("I love it", ["I love it"]),
        ("we live in Porto now; the flat is tiny but the view is great",
         ["we live in Porto now", "the flat is tiny", "the view is great"]),
    ],
)  # fmt: skip
def test_a_sentence_splits_into_its_clauses(sentence: str, clauses: list[str]) -> None:
    assert statement_clauses(sentence) == clauses


@pytest.mark.parametrize(
    ("said", "with_it"),
    [
        ("switched my energy to a green tariff", "I switched my energy to a green tariff"),
        ("got a new bike on Saturday", "I got a new bike on Saturday"),
        ("Spotted a heron by the canal", "I spotted a heron by the canal"),
        ("married for ten years now", "married for ten years now"),  # an adjective
        ("Needed is a word", "Needed is a word"),  # the sentence says something of it
        ("Ted is my neighbour", "Ted is my neighbour"),
        ("seed potatoes are in", "seed potatoes are in"),
    ],
)
def test_a_dropped_subject_is_put_back(said: str, with_it: str) -> None:
    assert with_subject(said) == with_it


STANDING = FactClass("standing", "work", 0.95)
EVENT = FactClass("episode", "event", 0.8)
CHAT = FactClass("small_talk", "small_talk", 0.9)


def test_the_plan_of_a_sentence_keeps_statements_by_class() -> None:
    content = "User teaches maths at Hillcrest, the kids are lovely this year."
    statements = ["User teaches maths at Hillcrest.", "The kids are lovely this year."]
    # a standing fact stands alone; the rest stays together
    assert plan_statements(content, statements, [STANDING, EVENT], drop_confidence=0.75) == (
        statements,
        0,
    )
    # small talk is left out (counted)
    assert plan_statements(content, statements, [EVENT, CHAT], drop_confidence=0.75) == (
        ["User teaches maths at Hillcrest."],
        1,
    )
    # nothing standing, nothing dropped: the sentence as it was said
    assert plan_statements(content, statements, [EVENT, EVENT], drop_confidence=0.75) == (
        [content],
        0,
    )
    # a standing clause that does not name the person elaborates the one before it
    elaboration = ["User is coeliac.", "Has been since they were nine."]
    assert plan_statements(
        "User is coeliac, has been since they were nine.",
        elaboration,
        [EVENT, STANDING],
        drop_confidence=0.75,
    ) == (["User is coeliac, has been since they were nine."], 0)
    # small talk the classifier is unsure of is kept
    unsure = FactClass("small_talk", "small_talk", 0.5)
    assert plan_statements(content, statements, [EVENT, unsure], drop_confidence=0.75) == (
        [content],
        0,
    )
    # not judged (the model down): kept whole
    assert plan_statements(content, statements, [None, None], drop_confidence=0.75) == (
        [content],
        0,
    )


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("clauses")))
    yield mem
    mem.close()


def _consolidate(mem: PraxMemory, tmp: Path, user: str, *turns: str) -> list[str]:
    return rule_path_stored(mem, tmp, user, turns)


def test_a_standing_fact_said_beside_a_complaint_is_stored_on_its_own(
    real: PraxMemory, tmp_path: Path
) -> None:
    stored = _consolidate(
        real,
        tmp_path,
        "u-teacher",
        "long week. I teach maths at Hillcrest and we had parents' evening till nine",
    )
    assert "User teaches maths at Hillcrest." in stored
    mine = next(m for m in real.list_memories("u-teacher") if m.content.startswith("User teaches"))
    assert mine.fact_class == "standing"


def test_a_change_said_after_an_aside_is_not_lost_as_small_talk(
    real: PraxMemory, tmp_path: Path
) -> None:
    stored = _consolidate(
        real,
        tmp_path,
        "u-coeliac",
        "promise you won't judge me but since the diagnosis I've gone completely gluten-free, "
        "no bread no pasta nothing",
    )
    assert any("gluten-free" in s for s in stored), stored


def test_a_kind_of_after_a_determiner_is_no_hedge(real: PraxMemory, tmp_path: Path) -> None:
    """ "the same kind of work" is not "I kind of ...": the fact is stored, not sent to review."""
    stored = _consolidate(
        real,
        tmp_path,
        "u-kind",
        "I start at the Royal Free on Monday, the same kind of work but nights",
    )
    assert any("Royal Free" in s for s in stored), stored
    assert not real.stm.list_pending_review("u-kind")


def test_a_models_answer_cannot_set_the_pipelines_fields() -> None:
    """``statements`` and ``replaces_ids`` are the pipeline's: an answer naming them is ignored."""
    from langgraph_prax_memory.consolidation import parse_extraction

    answer = (
        '{"facts": [{"content": "User lives in Porto.", "confidence": 0.9, '
        '"statements": ["User lives in Lisbon.", "User is vegan."], '
        '"replaces_ids": ["someone-elses-memory"]}]}'
    )
    fact = parse_extraction(answer).facts[0]
    assert fact.content == "User lives in Porto."
    assert fact.statements == [] and fact.replaces_ids == []


def test_a_clause_that_names_a_day_is_never_dropped_as_small_talk() -> None:
    content = "User teaches maths at Hillcrest, the mocks are on 14 January."
    statements = ["User teaches maths at Hillcrest.", "The mocks are on 14 January."]
    # read as small talk, yet it dates an event: kept; "this year" is the here and now
    assert plan_statements(content, statements, [EVENT, CHAT], drop_confidence=0.75) == (
        [content],
        0,
    )
    lovely = ["User teaches maths at Hillcrest.", "The kids are lovely this year."]
    assert plan_statements("x", lovely, [EVENT, CHAT], drop_confidence=0.75)[1] == 1


@pytest.mark.parametrize(
    ("said", "with_it"),
    [
        ("got coeliac disease", "I've got coeliac disease"),  # what is had: a state now
        ("got two kids under five", "I've got two kids under five"),
        ("got back from Leeds", "I got back from Leeds"),  # a particle: the past
        ("got engaged in the spring", "I got engaged in the spring"),
        ("got the keys on Monday", "I got the keys on Monday"),  # a day: an event
    ],
)  # fmt: skip
def test_a_dropped_ive_before_got_is_put_back(said: str, with_it: str) -> None:
    assert with_subject(said) == with_it


@pytest.mark.parametrize(
    ("clauses", "read"),
    [
        (["gonna make a brew", "put the radio on"],
         ["I'm gonna make a brew", "I'm gonna put the radio on"]),
        (["I'll drop the car off", "collect it at five"],
         ["I'll drop the car off", "I'll collect it at five"]),
        (["I'm going to the gym", "love it"], ["I'm going to the gym", "love it"]),
        (["I have to work late", "my sister is cooking"],
         ["I have to work late", "my sister is cooking"]),
        (["I'm vegetarian", "eat fish sometimes"], ["I'm vegetarian", "eat fish sometimes"]),
        (["I'll pick up the kids", "dinner is at six"],  # a subject of its own
         ["I'll pick up the kids", "dinner is at six"]),
    ],
)  # fmt: skip
def test_a_verb_coordinated_with_an_intention_shares_it(
    clauses: list[str], read: list[str]
) -> None:
    assert with_subjects(clauses) == read


def test_what_goes_on_a_request_without_the_speaker_stays_with_it() -> None:
    assert with_their_request(["can you compare mitosis", "meiosis like I'm 5"]) == [
        "can you compare mitosis, meiosis like I'm 5"
    ]
    assert with_their_request(["can you suggest a dish", "I'm vegetarian"]) == [
        "can you suggest a dish",
        "I'm vegetarian",
    ]


@pytest.mark.parametrize(
    ("sentence", "before", "read"),
    [
        ("had it like 3 years", "my laptop died on the train", "had my laptop like 3 years"),
        ("I bought it in 2019", "our car broke down again", "I bought our car in 2019"),
        ("had it like 3 years", "the train was late", "had it like 3 years"),  # no thing of mine
        ("it was cheap", "my laptop died", "it was cheap"),  # not the object of having
    ],
)  # fmt: skip
def test_it_is_the_thing_the_sentence_before_was_about(
    sentence: str, before: str, read: str
) -> None:
    assert with_antecedent(sentence, before) == read


def test_a_request_to_remember_keeps_its_material_and_a_day_is_no_name() -> None:
    from langgraph_prax_memory.consolidation._rule_facts import named_in_passing

    facts = (
        RuleBasedExtractor()
        .extract(["user: can you remember this: my wife's birthday is on the 3rd of March"])
        .facts
    )
    assert any("birthday" in f.content for f in facts), facts
    said = "off on Tuesday, my day off, and Sam, my nephew, is coming"
    assert [f.content for f in named_in_passing("User", said, 0)] == [
        "User's nephew is called Sam."
    ]


@pytest.mark.parametrize(
    "module",
    [
        "langgraph_prax_memory.consolidation._rule_facts",
        "langgraph_prax_memory.consolidation._clauses",
        "langgraph_prax_memory.consolidation._smalltalk",
        "langgraph_prax_memory.consolidation._normalize",
        "langgraph_prax_memory.facts._cues",
        "langgraph_prax_memory.consolidation._statements",
        "langgraph_prax_memory.consolidation._resolve",
        "langgraph_prax_memory.retrieval._persons",
    ],
)
def test_the_examples_of_the_readings_hold(module: str) -> None:
    """The docstring examples of the chat readings (session 11) are checked, not only shown."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


def test_a_guess_or_a_noun_is_no_goal_and_got_children_is_had() -> None:
    from langgraph_prax_memory.facts import states_a_goal

    assert not states_a_goal("That must have been tough for you.")
    assert not states_a_goal("Gotta be a rush, all those options.")
    assert not states_a_goal("Dairy-free is a must for me.")
    assert states_a_goal("Must book the MOT.") and states_a_goal("Gotta renew my passport.")
    assert with_subject("got children at the local school") == (
        "I've got children at the local school"
    )
