"""A statement the rule path cannot tell from a passing moment by its words (issue 38).

"I had a long meeting", "I lost the bet" and "I swapped my landline for a mobile
plan" are all the simple past. The rule-based extractor used to drop all three as small talk
of the moment, losing the change. Now the speaker's past of a verb of changing, to something,
keeps its statement (its result lasts), and a statement transient by its verb's aspect alone
is kept *tentatively*: consolidation stores it only when the memory's classifier reads a
standing fact from its text as surely as the standing bar. The sentences
were written for these tests (not taken from a benchmark's data).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import RuleBasedExtractor
from langgraph_prax_memory.consolidation._smalltalk import is_junk, junk_reason
from langgraph_prax_memory.consolidation._statements import tentative_to_drop
from langgraph_prax_memory.facts import FactClass

from .conftest import NOW, rule_path_stored


@pytest.mark.parametrize(
    ("said", "why"),
    [
        ("I had a long meeting with the auditors", "aspect"),
        ("I lost the bet with Dave", "aspect"),
        ("I swapped my landline for a mobile-only plan", None),  # a change, to something
        ("I ported my number to Lebara last month", None),
        ("I changed my shirt before dinner", "aspect"),  # changed to nothing: no change
        ("My train was cancelled so I was late", "aspect"),  # not the speaker's change
        ("I'm at the airport", "junk"),  # being somewhere: the moment
        ("I'm back from the shops", "junk"),
        ("I just woke up", "junk"),
        ("I'm going to grab lunch", "junk"),
        ("I'm a pharmacist", None),
    ],
)
def test_why_a_statement_reads_as_the_moment(said: str, why: str | None) -> None:
    assert junk_reason(said) == why
    assert is_junk(said) == (why is not None)  # the hygiene report's reading is unchanged


def test_a_tentative_statement_is_kept_only_as_a_sure_standing_fact() -> None:
    classes = [
        FactClass("standing", "work", 0.8),
        FactClass("standing", "possession", 0.5),  # under the standing bar
        FactClass("episode", "event", 0.95),
        FactClass("standing", "routine", 0.6, "grammar"),  # the grammar's reading: at the bar
        None,  # not judged (the model down): kept
    ]
    assert tentative_to_drop(classes) == [False, True, True, True, False]


def test_the_extractor_lists_what_it_keeps_tentatively() -> None:
    out = RuleBasedExtractor().extract(["user: I lost the bet with Dave about the election"])
    assert out.facts, "the bet was dropped as small talk"
    fact = out.facts[0]
    assert "bet" in fact.content
    assert any("bet" in t for t in fact.tentative)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[PraxMemory]:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"))
    yield memory
    memory.close()


def _stored(mem: PraxMemory, tmp_path: Path, user: str, lines: list[str]) -> list[str]:
    return rule_path_stored(mem, tmp_path, user, lines, now=NOW)


def test_consolidation_keeps_a_change_told_in_the_past(mem: PraxMemory, tmp_path: Path) -> None:
    """Fails when a change told in the past is dropped as the moment."""
    stored = _stored(
        mem,
        tmp_path,
        "ana",
        [
            "switched onto the early shift at the bakery, 5am to 1pm, four days a week",
            "I swapped my landline for a mobile-only plan with Three",
        ],
    )
    assert any("early shift at the bakery" in s for s in stored), stored
    assert any("mobile-only plan" in s for s in stored), stored


def test_consolidation_leaves_out_a_moment_told_in_the_past(
    mem: PraxMemory, tmp_path: Path
) -> None:
    """Fails when a tentative statement is stored whatever the model reads."""
    stored = _stored(
        mem,
        tmp_path,
        "ben",
        [
            "I left my umbrella on the train again",
            "I'm at the airport",
            "I'm on the bus",
            "I'm allergic to kiwi fruit",
        ],
    )
    assert not any(w in s for s in stored for w in ("umbrella", "airport", "bus")), stored
    assert any("kiwi" in s for s in stored), stored


def test_consolidation_stores_no_reaction_to_the_conversation(
    mem: PraxMemory, tmp_path: Path
) -> None:
    """Fails when a reaction to options shown or a prediction of news is stored (session 14).

    Turns written for this test, none from a benchmark: liking a name the assistant proposed
    or the second of its options, and guessing how someone will take what was just said,
    among two facts that must be kept.
    """
    stored = _stored(
        mem,
        tmp_path,
        "reactions",
        [
            "ooh i like 'Harbour Lights', that one's perfect",
            "yes I like the second option better",
            "my boss is going to kill me when he sees this",
            "my sister will freak out when she hears",
            "I work nights at the sorting office",
            "we adopted a greyhound called Pip last year",
        ],
    )
    text = " ".join(stored).lower()
    assert "sorting office" in text and "greyhound" in text, stored
    for junk in ("harbour lights", "second option", "kill", "freak"):
        assert junk not in text, stored


def test_chat_spelling_of_contractions_is_read_as_the_contraction() -> None:
    """Fails when "im"/"ive"/"dont" typed without apostrophes escape the readings of "I'm"."""
    assert junk_reason("im eating my lunch") == junk_reason("I'm eating my lunch") == "junk"
    assert junk_reason("ive been staring at this screen") == "junk"
    assert junk_reason("im a nurse") is None
    from langgraph_prax_memory.consolidation._smalltalk import _with_apostrophes

    assert _with_apostrophes("Jony Ive's design, IM me") == "Jony Ive's design, IM me"
    assert junk_reason("i dont eat pork") is None


def test_a_clause_without_its_predicate_is_the_conversations() -> None:
    """Fails when a clause ending on its auxiliary ("every time I don't") is kept."""
    for said in ("and every time i dont", "we did", "I will", "I'm not"):
        assert junk_reason(said) == "junk", said
    for fact in (
        "I can't eat gluten",
        "I love cooking and my husband does too",
        "I go to the gym whenever I can",  # (review) a clause that ends on "I can"
        "I visit my mum in Leeds as often as I can",
        "I'd move to Spain if I could",
    ):
        assert junk_reason(fact) is None, fact


def test_so_after_a_copula_is_a_degree_not_a_new_clause(mem: PraxMemory, tmp_path: Path) -> None:
    """Fails when "im so full ..." is cut at "so" and its second half kept as a fact."""
    from langgraph_prax_memory.consolidation._clauses import statement_clauses

    assert statement_clauses("im so full from lunch and i need a nap") == [
        "im so full from lunch",
        "i need a nap",
    ]
    assert statement_clauses("I'm a nurse so I work nights") == ["I'm a nurse", "I work nights"]
    stored = _stored(
        mem,
        tmp_path,
        "degree",
        ["im so full from lunch i cant even think about food tbh", "I'm a nurse so I work nights"],
    )
    text = " ".join(stored).lower()
    assert "nurse" in text and "food" not in text, stored


def test_hypotheticals_wishes_questions_and_requests_typed_as_chat() -> None:
    """Fails when what would be, a wish of the moment, a question typed without its mark or
    help asked for as a need is kept as a fact (session 16; sentences written for this test).
    """
    for said in (
        "if I had more time id learn the cello",  # a condition, then the conditional mood
        "if rent was cheaper we would move closer to town",
        "even if I won the lottery I'd still work",
        "honestly I'd rather be in bed",  # a wish of the moment
        "tbh id rather be anywhere but here",
        "wish I was still on holiday",
        "whats the quickest route to the coast",  # a question without its mark
        "hows the weather looking for tomorrow",
        "WHATS the time difference with Lagos",
        "is there a shortcut for this",
        "are there any vegan options nearby",
        "i need help with my essay intro",  # help asked for, for the task at hand
        "I could use a hand with this budget",
    ):
        assert junk_reason(said) == "junk", said
    for fact in (
        "if I drink coffee after 3 I can't sleep",  # a condition of the body: every time
        "if I eat shellfish my lips swell",
        "If my ID card expires I can't fly home",  # "my id" is no "I'd"
        "I'd move to Spain if I could",
        "I'd rather take the bus than drive",  # a preference, weighed against another
        "I'd rather be a teacher than a lawyer",
        "I need help with the stairs since my hip operation",  # a need that lasts
        "thats my brother's flat in Bristol",  # "thats" spelt out, still a statement
        "I'm a nurse and my husband is a pilot",
        # (review) a condition of now with a modal: what happens every time
        "If I eat peanuts I could die",
        "if I miss a dose of my meds I might have a seizure",
        "If I'm working late I'd usually get a takeaway",  # a habit
        "If I had to pick a favourite, it'd be Thai food",  # a choice, told
        # (review) how the person wants to be treated, for good; a standing wish
        "I'd rather be called Sam",
        "I'd rather be contacted by email",
        "I'd rather be home by 9 on weeknights",
        # (review) help with a part of life, or told with why: a need that lasts
        "I need help with my insulin injections",
        "I need help with my reading because I'm dyslexic",
        "If I lose my work id I can't get into the building",
    ):
        assert junk_reason(fact) != "junk", fact  # kept (a bare need: for the model to judge)


def test_a_condition_and_its_conditional_main_clause_are_one_hypothetical(
    mem: PraxMemory, tmp_path: Path
) -> None:
    """Fails when a comma splits a hypothetical and its main clause is kept alone as a plan
    ("if money was no object, I would buy a castle" had stored "User would buy a castle").
    """
    stored = _stored(
        mem,
        tmp_path,
        "cond",
        [
            "if money were no issue, I would buy a farmhouse in Wales, honestly",
            "if it's dry out, I walk the dog along the canal",
            "I'm a physiotherapist in Hull",
        ],
    )
    text = " ".join(stored).lower()
    assert "farmhouse" not in text, stored
    assert "walk" in text and "physiotherapist" in text, stored
