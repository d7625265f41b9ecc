from __future__ import annotations

import pytest

from langgraph_prax_memory.notes import (
    MAX_PROMOTIONS,
    DroppedItem,
    Promotion,
    classify_item,
    compact_notes,
    select_promotions,
)


def overflow(text: str, section: str | None) -> DroppedItem:
    return DroppedItem(text=text, section=section, reason="overflow")


@pytest.mark.parametrize(
    ("text", "section", "tag"),
    [
        ("Prefers short answers with examples", "Preferences", "preference"),
        ("Always run the linters before committing", "Workflows", "workflow"),
        ("NPR: National Public Radio", "Aliases", "alias"),
        ("Use British spelling in documents", "Formatting", "formatting"),
        ("Falcon must stay on Python 3.12", "Projects", "project"),
        # keyword classification outside the named sections
        ("Prefers answers in bullet points", "Notes", "formatting"),
        ("Squash commits before merging a pull request", None, "workflow"),
        ("The billing repo must not use ORMs", "Work", "project"),
        ("Dislikes being asked the same question twice", "Misc", "preference"),
        ("SRE = site reliability engineering", "Misc", "alias"),
    ],
)
def test_durable_items_are_promoted_with_their_tag(text: str, section: str, tag: str) -> None:
    assert classify_item(overflow(text, section)) == tag


@pytest.mark.parametrize(
    ("item", "why"),
    [
        (DroppedItem("Prefers tea", "Preferences", "duplicate"), "duplicate"),
        (DroppedItem("timezone: UTC", None, "stale_scalar", key="timezone"), "stale scalar"),
        (overflow("Call the plumber about the sink", "Reminders"), "reminder section"),
        (overflow("Renew the passport", "Tasks"), "task section"),
        (overflow("[ ] email Bob the contract draft", "Preferences"), "checkbox task"),
        (overflow("Remind me to water the plants", "Preferences"), "reminder wording"),
        (overflow("Prefers window seats on the 2026-05-01 flight", "Preferences"), "iso date"),
        (overflow("Likes the restaurant we went to on March 3", "Preferences"), "month date"),
        (overflow("Wants a summary next week", "Preferences"), "relative date"),
        (overflow("Meeting prep at 3pm", "Workflows"), "clock time"),
        (overflow("ok", "Preferences"), "junk"),
        (overflow("tea", "Preferences"), "junk"),
        (overflow("https://example.com/x", "Preferences"), "bare url"),
        (overflow("X: y", "Aliases"), "junk alias"),
        (overflow("The sky was grey", "Notes"), "no durable signal"),
    ],
)
def test_non_durable_items_are_never_promoted(item: DroppedItem, why: str) -> None:
    assert classify_item(item) is None, why


def test_promotion_shape_source_and_dedupe() -> None:
    dropped = [
        overflow("Prefers short answers with examples", "Preferences"),
        overflow("prefers short answers with examples.", "Preferences"),
        overflow("NPR: National Public Radio", "Aliases"),
        overflow("Untagged item", None),
    ]
    assert select_promotions(dropped) == [
        Promotion("Preferences: Prefers short answers with examples", ("preference",), 0.7),
        Promotion("Aliases: NPR: National Public Radio", ("alias",), 0.7),
    ]


def test_at_most_ten_promotions_in_file_order() -> None:
    dropped = [overflow(f"Prefers option number {i} for layouts", "Preferences") for i in range(25)]
    promoted = select_promotions(dropped)
    assert len(promoted) == MAX_PROMOTIONS == 10
    assert [p.content for p in promoted] == [
        f"Preferences: Prefers option number {i} for layouts" for i in range(10)
    ]


def test_end_to_end_from_compaction() -> None:
    notes = (
        "timezone: UTC\n"
        "## Preferences\n"
        + "".join(f"- Prefers layout variant {i} for dashboards\n" for i in range(18))
        + "## Reminders\n"
        + "".join(f"- Pay invoice number {i}\n" for i in range(18))
        + "timezone: Europe/Rome\n"
    )
    plan = compact_notes(notes)
    reasons = [(d.reason, d.section) for d in plan.dropped_items]
    assert (
        reasons
        == [("stale_scalar", None)]
        + [("overflow", "Preferences")] * 2
        + [("overflow", "Reminders")] * 2
    )
    promoted = select_promotions(plan.dropped_items)
    assert [p.content for p in promoted] == [
        "Preferences: Prefers layout variant 0 for dashboards",
        "Preferences: Prefers layout variant 1 for dashboards",
    ]
