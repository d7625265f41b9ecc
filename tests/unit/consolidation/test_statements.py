"""Normalized statements and the small-talk filter of the rule-based path (issue 26).

The filter is written on principles (the here and now, the conversation itself, filler); the
sentences below were written apart from it, and the benchmark measures another set.
"""

from __future__ import annotations

import pytest

from langgraph_prax_memory.consolidation import RuleBasedExtractor
from langgraph_prax_memory.consolidation._normalize import state_statement, third_person
from langgraph_prax_memory.consolidation._smalltalk import is_junk, is_transient


@pytest.mark.parametrize(
    ("said", "stated"),
    [
        ("I moved to Berlin and work at Acme Corp now.",
         "User moved to Berlin and works at Acme Corp now."),
        ("I'm allergic to shellfish", "User is allergic to shellfish."),
        ("My daughter Mia starts school in September.",
         "User's daughter Mia starts school in September."),
        ("I prefer dark mode in all my tools.", "User prefers dark mode in all their tools."),
        ("I no longer like jazz.", "User no longer likes jazz."),
        ("I've been vegan since May.", "User has been vegan since May."),
        ("I think I prefer tabs over spaces.", "User thinks they prefer tabs over spaces."),
        ("I deploy on fly.io with Python 3.11.", "User deploys on fly.io with Python 3.11."),
        ("I use C++ (mostly) and watch https://x.org/a", "User uses C++ (mostly) and watches "
         "https://x.org/a."),
        ('I prefer "dark" mode', 'User prefers "dark" mode.'),
    ],
)  # fmt: skip
def test_third_person(said: str, stated: str) -> None:
    assert third_person("User", said) == stated


def test_state_statements() -> None:
    assert state_statement("lives_in", "User", "Berlin") == "User lives in Berlin."
    assert state_statement("works_at", "Carol", "Acme Corp") == "Carol works at Acme Corp."
    assert state_statement("prefers", "User", "tea") is None


def test_the_rule_path_stores_statements_never_the_turn() -> None:
    out = RuleBasedExtractor().extract(["user: I moved to Berlin and work at Acme Corp now."])
    assert [f.content for f in out.facts] == ["User lives in Berlin.", "User works at Acme Corp."]
    kinds = {(r.type, r.target, r.supersedes) for r in out.relations}
    assert ("lives_in", "Berlin", "*") in kinds and ("works_at", "Acme Corp", "*") in kinds
    more = RuleBasedExtractor().extract(["carol: I work at Northwind as a product designer."])
    assert [f.content for f in more.facts] == [
        "Carol works at Northwind.",
        "Carol works at Northwind as a product designer.",  # the sentence says more
    ]


#: Written apart from the filter (principles first, these after).
SMALL_TALK = [
    "I'm going to grab lunch.", "I'll be right back.", "I'm heading out for a bit.",
    "I just got back from a walk.", "I'm eating a sandwich right now.", "I need a coffee.",
    "I'm about to jump into a meeting.", "I'm freezing today.", "I'm at my desk right now.",
    "I just woke up.", "I'm watching the rain.", "I have to run, talk later.",
    "I'm making some tea.", "I was just thinking out loud.", "I'm stuck in traffic.",
    "I'm so sleepy this afternoon.", "I'm gonna take a quick nap.",
    "I can't believe it's Friday already!", "I'm cooking dinner tonight.",
    "I just finished my coffee.", "I got a bit distracted.", "I'm waiting for the bus.",
    "I'll check it out later.", "I'm almost done for the day.", "I forgot what I was saying.",
    "I'm reading your message now.", "I'm logging off now.", "I laughed so hard at that.",
    "I'm in a good mood today.", "I need to stretch my legs.",
]  # fmt: skip
FACTS = [
    "I'm lactose intolerant.", "My son Leo plays the violin.",
    "I work as a nurse at St. Mary's Hospital.",
    "I always take the stairs instead of the elevator.",
    "I've been learning Japanese for two years.", "I'm planning to move to Canada next year.",
    "My birthday is on March 3rd.", "I usually go climbing on Saturdays.",
    "I'm training for the Berlin marathon.", "I have two cats named Pixel and Byte.",
    "I hate cilantro.", "I drive an electric car.", "I'm diabetic.",
]  # fmt: skip


@pytest.mark.parametrize("line", SMALL_TALK)
def test_small_talk_of_the_moment_is_not_a_fact(line: str) -> None:
    assert RuleBasedExtractor().extract([f"user: {line}"]).facts == []


@pytest.mark.parametrize("line", FACTS)
def test_a_real_fact_is_kept(line: str) -> None:
    facts = RuleBasedExtractor().extract([f"user: {line}"]).facts
    assert facts and all(f.confidence >= 0.6 for f in facts)
    assert all(not f.content.startswith("user:") for f in facts)


def test_transient_principles() -> None:
    assert is_transient("I'm going to grab lunch.")  # an intent for the next minutes
    assert is_transient("I'm walking the dog at the moment.")  # the moment, named
    assert not is_transient("I walk the dog every morning.")  # a habit lasts
    assert is_transient("I had a long day.")  # a one-off event
    assert not is_transient("I'm a nurse.")  # a state
    assert is_junk("I hope you're doing well.")  # about the other side of the talk
    assert not is_junk("I switched to Neovim.", change=True)  # an event in form, a fact


def test_an_event_of_the_speakers_things_is_small_talk() -> None:
    from langgraph_prax_memory.consolidation._smalltalk import is_junk

    assert is_junk("Ugh, my coffee went cold again.")
    assert is_junk("My train was late.")
    assert not is_junk("My sister moved to Paris.")  # family and a move last
    assert not is_junk("My knee hurts when I run.")  # a present state
