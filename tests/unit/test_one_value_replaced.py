"""A new value replaces the one fact it is about, never the facts it merely resembles (issue 38).

A person's profile of a score of standing facts, then one new statement: a change of a
single-valued attribute retires exactly the fact that held the old value; a statement of
something else ("User is a Labour voter", "User loves Thai food") retires nothing, however
near it comes to several of them. Before the runner-up rule (``AttributeModel.replaces``,
"stands out") each such statement retired between one and ten unrelated facts. The
sentences were written for this test, apart from the benchmarks' data.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import timedelta

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory._validation import utcnow

PROFILE = [
    "User works as a primary school teacher.",
    "User lives in Cardiff.",
    "User works at Siemens.",
    "User's girlfriend is called Maya.",
    "User is vegetarian.",
    "User has a Pixel 7.",
    "User is on EE for their mobile contract.",
    "User gets their broadband from Sky.",
    "User banks with Barclays.",
    "User's email is on Yahoo.",
    "User keeps their passwords in 1Password.",
    "User does the food shop at Morrisons.",
    "User is registered at the Hillcrest medical centre.",
    "User is a night owl.",
    "User is left-handed.",
    "User is a big Liverpool fan.",
    "User is an only child.",
    "User plays the cello.",
    "User is allergic to wasps.",
    "User speaks Portuguese.",
    "User's energy supplier is British Gas.",
]


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("one-value")))
    yield memory
    memory.close()


def _retired(
    mem: PraxMemory, user: str, news: str, profile: Sequence[str] = tuple(PROFILE)
) -> list[str]:
    then = utcnow() - timedelta(days=30)
    mem.remember_many(user, [{"content": c, "created_at": then} for c in profile])
    ids = mem.remember_many(user, [news])
    pairs = mem.ltm.classes.replace_by_attribute(user, ids)
    return sorted(mem.ltm.get(user, old).content for old, _ in pairs)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("news", "retired"),
    [
        ("User switched their phone contract to Three.",
         "User is on EE for their mobile contract."),
        ("User had Virgin Media fibre installed at home.", "User gets their broadband from Sky."),
        ("User uses Fastmail for email these days.", "User's email is on Yahoo."),
        ("User does the weekly shop at Asda now.", "User does the food shop at Morrisons."),
    ],
)  # fmt: skip
def test_a_new_value_retires_the_fact_it_replaces(mem: PraxMemory, news: str, retired: str) -> None:
    assert _retired(mem, f"u-one-{abs(hash(news))}", news) == [retired]


@pytest.mark.parametrize(
    "news",
    [
        "User is an early riser these days.",
        "User is a huge fan of Formula 1.",
        "User is a keen gardener.",
        "User is a member of the local choir.",
        "User is learning the piano.",
        "User is allergic to penicillin too.",
        "User's brother works as a plumber.",
        "User is training for a half marathon.",
        "User is a volunteer at the food bank.",
        "User is a Labour voter.",
        "User loves Thai food.",
        "User is a trained first aider.",
        "User is a Premium member of Spotify.",
    ],
)
def test_a_statement_of_something_else_retires_nothing(mem: PraxMemory, news: str) -> None:
    assert _retired(mem, f"u-else-{abs(hash(news))}", news) == []


# -- a relation ended, told of the other person (issue 38) ------------------------------------

RELATIONS = [
    "User's husband Tom does all the cooking.",
    "User's manager Priya runs the Leeds office.",
    "User's best friend is Ana.",
    "User lives in York.",
    "User is vegetarian.",
    "User plays the cello.",
    "User works at Aviva.",
]


@pytest.mark.parametrize(
    ("news", "retired"),
    [
        ("Tom moved out last month.", "User's husband Tom does all the cooking."),
        ("Tom has left and User has the flat to themselves.",
         "User's husband Tom does all the cooking."),
        ("Priya left the company on Friday.", "User's manager Priya runs the Leeds office."),
        ("Priya retired in March.", "User's manager Priya runs the Leeds office."),
    ],
)  # fmt: skip
def test_the_other_person_of_a_relation_ending_it_retires_it(
    mem: PraxMemory, news: str, retired: str
) -> None:
    """A relation ended ("Tom moved out") retires it, though the other person is the subject."""
    assert _retired(mem, f"u-end-{abs(hash(news))}", news, RELATIONS) == [retired]


@pytest.mark.parametrize(
    "news",
    [
        "Tom made a lovely curry on Sunday.",
        "Tom went to Leeds for the weekend.",
        "Priya praised User's report.",
        "Priya is on holiday until Monday.",
        "Ana moved to Berlin.",
        "Ana broke up with her boyfriend.",
        "Tom quit his job at the bank.",
    ],
)
def test_what_the_other_person_did_or_ended_of_their_own_retires_nothing(
    mem: PraxMemory, news: str
) -> None:
    """Another person's doings, and the end of something of theirs, leave the relation be."""
    assert _retired(mem, f"u-theirs-{abs(hash(news))}", news, RELATIONS) == []
