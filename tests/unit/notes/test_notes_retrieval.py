from __future__ import annotations

from pathlib import Path

import pytest

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.notes import UserNotes, select_note_lines

NOTES = """\
# User Notes

name: Alice Example
timezone: America/New_York
location: Brooklyn, NY

## Preferences
- Prefers concise answers without emojis
- Likes dark mode in every app
- Uses metric units for cooking

## Aliases
- NPR: National Public Radio
- K8s: Kubernetes cluster at work

## Formatting
- Use British spelling in documents

## Projects
- Project Falcon: the billing service rewrite, Python 3.12 only
"""


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # timezone is boosted for reminder / time / schedule questions
        ("remind me to stretch at 5pm", ["timezone: America/New_York"]),
        ("schedule a call with Bob", ["timezone: America/New_York"]),
        ("what time is it?", ["timezone: America/New_York"]),
        # name for greetings and who-am-I
        ("hello!", ["name: Alice Example"]),
        ("who am I?", ["name: Alice Example"]),
        # location for weather
        ("what's the weather like", ["location: Brooklyn, NY"]),
        # exact alias
        ("play NPR please", ["- NPR: National Public Radio"]),
        # plain word overlap
        ("switch to dark mode", ["- Likes dark mode in every app"]),
        (
            "tell me about project falcon",
            ["- Project Falcon: the billing service rewrite, Python 3.12 only"],
        ),
        # writing requests boost the Formatting section
        ("draft a letter to my landlord", ["- Use British spelling in documents"]),
    ],
)
def test_retrieval_picks_the_relevant_lines(message: str, expected: list[str]) -> None:
    assert select_note_lines(NOTES, message) == expected


@pytest.mark.parametrize("message", ["what is 2+2", "", "   ", "ok thanks", "the of and"])
def test_nothing_relevant_gives_nothing(message: str) -> None:
    assert select_note_lines(NOTES, message) == []


def test_empty_notes_give_nothing() -> None:
    assert select_note_lines("", "remind me at 5pm") == []
    assert select_note_lines("# Title only\n", "remind me at 5pm") == []


def test_all_caps_alias_matches_case_sensitively() -> None:
    notes = (
        "## Aliases\n- NPR: National Public Radio\n- npr-tool: a lowercase CLI\n- Npr is a dog\n"
    )
    assert select_note_lines(notes, "stream NPR") == ["- NPR: National Public Radio"]
    # a lower-case word is matched case-insensitively as usual
    assert select_note_lines(notes, "stream npr") == [
        "- NPR: National Public Radio",
        "- npr-tool: a lowercase CLI",
        "- Npr is a dog",
    ]
    # an alias that is not in the notes matches nothing
    assert select_note_lines(notes, "open the BBC") == []


def test_alias_inside_a_longer_word_does_not_match() -> None:
    notes = "- NPRX is a different thing\n- see NPR.org for news\n"
    assert select_note_lines(notes, "NPR") == ["- see NPR.org for news"]


def test_shouted_message_still_matches() -> None:
    assert select_note_lines(NOTES, "WHAT IS MY TIMEZONE") == ["timezone: America/New_York"]


def test_latest_scalar_value_only() -> None:
    notes = "timezone: UTC\nname: Al\n## Misc\n- likes tea\ntimezone: Europe/Lisbon\n"
    assert select_note_lines(notes, "remind me tomorrow") == ["timezone: Europe/Lisbon"]


def test_section_name_matches_its_items() -> None:
    assert select_note_lines(NOTES, "what are my preferences?") == [
        "- Prefers concise answers without emojis",
        "- Likes dark mode in every app",
        "- Uses metric units for cooking",
    ]


def _big_notes(n: int, width: int = 40) -> str:
    lines = ["## Coffee"]
    lines += [f"- coffee fact {i:02d} " + "x" * width for i in range(n)]
    return "\n".join(lines) + "\n"


def test_at_most_eight_lines() -> None:
    notes = _big_notes(20)
    lines = select_note_lines(notes, "coffee")
    assert len(lines) == 8
    # ties keep file order
    assert lines == [f"- coffee fact {i:02d} " + "x" * 40 for i in range(8)]


def test_at_most_1200_characters() -> None:
    notes = _big_notes(8, width=300)  # ~320-char lines
    lines = select_note_lines(notes, "coffee")
    joined = "\n".join(lines)
    assert len(joined) <= 1200
    assert len(lines) == 3  # 3 * 320 + 2 newlines fits, a 4th does not


def test_single_oversized_line_is_truncated_to_the_budget() -> None:
    notes = "- coffee " + "y" * 5000 + "\n"
    (line,) = select_note_lines(notes, "coffee")
    assert len(line) == 1200 and line.endswith("…")


def test_best_lines_win_then_file_order() -> None:
    notes = "\n".join(
        [f"- filler about tea number {i}" for i in range(10)]
        + ["- green tea with jasmine, my favourite", "- jasmine rice for dinner"]
    )
    lines = select_note_lines(notes, "green tea jasmine")
    assert lines[0] == "- filler about tea number 0"
    assert "- green tea with jasmine, my favourite" in lines
    assert "- jasmine rice for dinner" in lines
    assert len(lines) == 8
    # emitted in file order
    order = [notes.splitlines().index(line) for line in lines]
    assert order == sorted(order)


def test_deterministic() -> None:
    runs = {tuple(select_note_lines(NOTES, "remind me about NPR and dark mode")) for _ in range(20)}
    assert len(runs) == 1
    (lines,) = runs
    assert lines == (
        "timezone: America/New_York",
        "- Likes dark mode in every app",
        "- NPR: National Public Radio",
    )


def test_multiline_item_is_one_line() -> None:
    notes = "## Workflows\n- Before merging:\n  run the linters\n  and the tests\n"
    assert select_note_lines(notes, "merging") == [
        "- Before merging: run the linters and the tests"
    ]


def test_get_workspace_context_joins_lines(tmp_path: Path) -> None:
    notes = UserNotes(MemoryConfig(data_dir=tmp_path))
    assert notes.get_workspace_context("alice", "hello") == ""  # no file yet
    notes.path("alice").parent.mkdir(parents=True)
    notes.path("alice").write_text(NOTES)
    assert notes.get_workspace_context("alice", "remind me about NPR") == (
        "timezone: America/New_York\n- NPR: National Public Radio"
    )
    assert notes.get_workspace_context("alice", "what is 2+2") == ""
    with pytest.raises(MemoryValidationError):
        notes.get_workspace_context("alice", None)  # type: ignore[arg-type]


def test_huge_message_is_bounded() -> None:
    message = "coffee " * 100_000
    assert select_note_lines(_big_notes(3), message) != []
