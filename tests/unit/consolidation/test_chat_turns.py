"""Chat as people type it: the rule path reads lower case, laughter and asides (issue 38).

The turns below were written for these tests (not taken from a benchmark's data): lower-case
pronouns, missing apostrophes, "lol" and "tbh", requests to the assistant, a pronoun that
refers back to the clause before.
"""

from __future__ import annotations

import pytest

from langgraph_prax_memory.consolidation import RuleBasedExtractor
from langgraph_prax_memory.consolidation._chat import normalize_chat
from langgraph_prax_memory.consolidation._rule_facts import with_subject
from langgraph_prax_memory.consolidation._smalltalk import is_junk
from langgraph_prax_memory.consolidation._statements import plan_statements
from langgraph_prax_memory.facts import FactClass


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("im a welder tbh", "I'm a welder"),
        ("i've got two cats lol", "I've got two cats"),
        ("ive lived here for years haha", "I've lived here for years"),
        ("id rather walk 😅", "I'd rather walk"),
        ("omg i love it!!", "I love it!!"),
        ("lol, i work nights. ugh", "I work nights."),
    ],
)  # fmt: skip
def test_the_typed_pronoun_is_read_and_particles_go(typed: str, read: str) -> None:
    assert normalize_chat(typed) == read


@pytest.mark.parametrize(
    "kept",
    [
        "my id card expired",  # a noun, not "I'd"
        "I'm ill today",  # "ill" is never read as "I'll"
        "the oh-so-quiet neighbour",  # part of a word
        "Iain lives in Inverness",  # names that open with an i
    ],
)
def test_other_words_are_left_alone(kept: str) -> None:
    assert normalize_chat(kept) == kept


def _facts(turn: str) -> list[str]:
    return [f.content for f in RuleBasedExtractor().extract([f"user: {turn}"]).facts]


@pytest.mark.parametrize(
    ("turn", "said"),
    [
        ("ugh mondays. im a pharmacist at a hospital in derby so its always busy", "pharmacist"),
        ("no pork ideas pls, im muslim, whats easy for dinner?", "muslim"),
        ("i live in galway and it rains constantly lol", "galway"),
    ],
)
def test_a_fact_typed_in_lower_case_is_extracted(turn: str, said: str) -> None:
    facts = _facts(turn)
    assert any(said in f.lower() for f in facts), facts


def test_a_sentence_keeps_its_fact_and_loses_the_moment() -> None:
    # judged whole, "all day" made the sentence the here and now: the fact was lost
    facts = _facts("honestly i need a nap, been on my feet all day, i'm a baker at a cafe in bath")
    assert any("baker" in f for f in facts), facts
    assert not any("nap" in f for f in facts), facts


@pytest.mark.parametrize(
    "line",
    [
        "tell me a fun fact about squid",
        "Can you rephrase this email for Slack",
        "so please give me the recipe in grams",
        "could u make it shorter",
    ],
)
def test_a_request_to_the_assistant_is_not_a_fact(line: str) -> None:
    assert is_junk(line)


def test_a_preference_said_with_rather_is_still_one() -> None:
    assert not is_junk("I'd rather take the train to Leeds")
    extracted = RuleBasedExtractor().extract(["user: I'm rather tired after all that, honestly"])
    assert all("preference" not in f.tags for f in extracted.facts)
    preferred = RuleBasedExtractor().extract(["user: I'd rather take the train than fly"])
    assert any("preference" in f.tags for f in preferred.facts)


@pytest.mark.parametrize(
    ("said", "with_it"),
    [
        ("forgot my keys again", "I forgot my keys again"),
        ("just had my second tea", "I just had my second tea"),
        ("finally bought a kettle", "I finally bought a kettle"),
    ],
)
def test_a_dropped_subject_before_an_adverb_or_an_irregular_past(said: str, with_it: str) -> None:
    assert with_subject(said) == with_it
    assert is_junk(with_it)  # a one-off action of the moment


STANDING = FactClass("standing", "health", 0.9)
EVENT = FactClass("episode", "event", 0.8)
CHAT = FactClass("small_talk", "small_talk", 0.9)


def test_a_clause_that_refers_back_stays_with_the_one_before() -> None:
    content = "User's GP put them on statins in March, they take them at night, the weather's grim."
    statements = [
        "User's GP put them on statins in March.",
        "User takes them at night.",
        "The weather's grim.",
    ]
    out, dropped = plan_statements(
        content, statements, [EVENT, STANDING, CHAT], drop_confidence=0.75
    )
    # "takes them at night" alone says nothing: it stays with the statins
    assert out == ["User's GP put them on statins in March, User takes them at night."]
    assert dropped == 1


def test_a_standing_clause_that_names_its_own_thing_stands_alone() -> None:
    content = "User is a nurse in Hull, the weather's grim."
    out, _ = plan_statements(
        content,
        ["User is a nurse in Hull.", "The weather's grim."],
        [FactClass("standing", "work", 0.95), EVENT],
        drop_confidence=0.75,
    )
    assert out == ["User is a nurse in Hull.", "The weather's grim."]


@pytest.mark.parametrize(
    ("turn", "said"),
    [
        ("moved the whole team over to Linear last month",
         "User moved the whole team over to Linear last month."),
        ("imported every recipe into Paprika over the weekend",
         "User imported every recipe into Paprika over the weekend."),
    ],
)  # fmt: skip
def test_a_turn_without_its_subject_is_the_speakers_statement(turn: str, said: str) -> None:
    """The subject people drop in chat is the speaker's: the turn is theirs to remember.

    Fails when the first-person check reads the turn before its subject is put back.
    """
    facts = RuleBasedExtractor().extract([f"user: {turn}"]).facts
    assert said in [f.content for f in facts]


@pytest.mark.parametrize(
    "line",
    [
        "where do I even get saffron round here",  # a wh-question without its mark
        "should I be worried about the noise from the boiler",  # an auxiliary before "I"
        "so how do people keep basil alive",
    ],
)
def test_a_question_by_its_word_order_is_not_a_fact(line: str) -> None:
    assert is_junk(line)


@pytest.mark.parametrize(
    "line",
    [
        "What I love most is sea swimming in October",  # a wh-clause as subject
        "When I was a kid I lived in Lagos with my gran",  # a wh-clause of time
    ],
)
def test_a_wh_word_followed_by_its_subject_opens_a_statement(line: str) -> None:
    assert not is_junk(line)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("i only have pasta in here rn", "I only have pasta in here right now"),
        ("exam tmrw and i havent started", "exam tomorrow and I havent started"),
        ("working late 2nite", "working late tonight"),
    ],
)  # fmt: skip
def test_time_words_as_typed_are_read(typed: str, read: str) -> None:
    assert normalize_chat(typed) == read


@pytest.mark.parametrize(
    ("said", "with_it"),
    [
        ("been a welder at the shipyard for nine years", "I've been a welder at the shipyard "
         "for nine years"),
        ("been cycling to work every day since march", "I've been cycling to work every day "
         "since march"),
        ("gonna grab a sandwich", "I'm gonna grab a sandwich"),
    ],
)  # fmt: skip
def test_a_dropped_perfect_or_intention_is_the_speakers(said: str, with_it: str) -> None:
    assert with_subject(said) == with_it


def test_an_adverb_in_ly_is_not_conjugated() -> None:
    from langgraph_prax_memory.consolidation._normalize import third_person

    assert third_person("User", "I genuinely love cold water swimming") == (
        "User genuinely loves cold water swimming."
    )
    assert third_person("User", "I fly to Oslo for work") == "User flies to Oslo for work."
    assert third_person("User", "I rely on my bike") == "User relies on their bike."


def test_a_fact_said_as_a_dropped_perfect_is_extracted() -> None:
    turn = "user: long week. been a welder at the shipyard for nine years and it never ends"
    facts = RuleBasedExtractor().extract([turn]).facts
    assert any("welder" in f.content for f in facts), [f.content for f in facts]


@pytest.mark.parametrize(
    "line",
    [
        "my neighbour has just started drilling again",  # hot news, whoever did it
        "just back from the school run",  # a dropped "I'm"
        "'sorry for the radio silence' is perfect, thanks",  # about quoted words
    ],
)
def test_the_moment_and_quoted_words_are_not_facts(line: str) -> None:
    assert is_junk(line)
