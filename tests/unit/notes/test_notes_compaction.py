from __future__ import annotations

from langgraph_prax_memory.notes import (
    CompactionPlan,
    DroppedItem,
    canonical_section,
    compact_notes,
    compaction_triggers,
)

CLEAN = """\
# User Notes

name: Alice
timezone: Europe/Berlin

## Preferences
- Prefers concise answers
"""


def test_clean_file_fires_no_trigger_and_is_untouched() -> None:
    assert compaction_triggers(CLEAN) == ()
    assert compact_notes(CLEAN) == CompactionPlan(new_text=CLEAN, dropped_items=(), triggers=())


def test_trigger_size_over_4096_characters() -> None:
    body = "## Notes\n" + "".join(f"- note {i:02d} " + "z" * 60 + "\n" for i in range(50))
    exact = body + "- " + "p" * (4096 - len(body) - 3) + "\n"
    assert len(exact) == 4096 and compaction_triggers(exact) == ()
    longer = exact + "-\n"
    assert len(longer) == 4098
    assert compaction_triggers(longer) == ("too_long",)


def test_trigger_more_than_80_non_blank_lines() -> None:
    sections = "".join(
        f"## S{s}\n" + "".join(f"- s{s} item {i}\n" for i in range(15)) for s in range(5)
    )
    assert sum(1 for ln in sections.splitlines() if ln.strip()) == 80
    assert compaction_triggers(sections + "\n\n\n") == ()  # blank lines do not count
    assert compaction_triggers(sections + "## S5\n") == ("too_many_lines",)


def test_trigger_duplicated_scalar_key() -> None:
    assert compaction_triggers("timezone: UTC\nname: A\ntimezone: Europe/Paris\n") == (
        "duplicate_scalar",
    )
    # synonyms and formatting variants are the same key
    assert compaction_triggers("Time zone: UTC\n- **TZ:** Europe/Paris\n") == ("duplicate_scalar",)


def test_trigger_duplicated_bullet_in_one_section() -> None:
    text = "## Preferences\n- Likes tea\n- Likes coffee\n- likes tea.\n"
    assert compaction_triggers(text) == ("duplicate_bullet",)
    # the same bullet in two different sections is not a duplicate
    assert compaction_triggers("## Preferences\n- tea\n## Interests\n- tea\n") == ()
    # sections that canonicalise to the same name are one section
    assert compaction_triggers("## Preferences\n- tea\n## prefs\n- tea\n") == ("duplicate_bullet",)


def test_all_triggers_in_fixed_order() -> None:
    text = "timezone: A\ntimezone: B\n## X\n- dup\n- dup\n" + "".join(
        f"- line {i} " + "q" * 60 + "\n" for i in range(80)
    )
    assert compaction_triggers(text) == (
        "too_long",
        "too_many_lines",
        "duplicate_scalar",
        "duplicate_bullet",
    )


def test_compaction_literal_before_and_after() -> None:
    before = """\
# User Notes

name: Alice
timezone: America/New_York

## preferences:
- Prefers concise answers
- Likes dark mode
- prefers concise answers.

## Aliases
- NPR: National Public Radio

## Prefs
- Uses metric units
- Likes dark mode

### about me
- Lives in Lisbon
timezone: Europe/Lisbon
"""
    after = """\
# User Notes

name: Alice
timezone: Europe/Lisbon

## Preferences
- prefers concise answers.
- Uses metric units
- Likes dark mode

## Aliases
- NPR: National Public Radio

## Profile
- Lives in Lisbon
"""
    plan = compact_notes(before)
    assert plan.triggers == ("duplicate_scalar", "duplicate_bullet")
    assert plan.new_text == after
    assert plan.dropped_items == (
        DroppedItem("timezone: America/New_York", None, "stale_scalar", key="timezone"),
        DroppedItem("Prefers concise answers", "Preferences", "duplicate"),
        DroppedItem("Likes dark mode", "Preferences", "duplicate"),
    )
    # compaction is idempotent
    assert compact_notes(after).triggers == ()
    assert compact_notes(after, force=True).new_text == after


def test_repeated_identical_scalar_is_a_duplicate_not_stale() -> None:
    plan = compact_notes("timezone: UTC\ntimezone: UTC\n")
    assert plan.new_text == "timezone: UTC\n"
    assert plan.dropped_items == (DroppedItem("timezone: UTC", None, "duplicate", key="timezone"),)


def test_scalar_keeps_the_latest_line_format_at_the_first_position() -> None:
    plan = compact_notes("timezone: UTC\nname: Al\n## Profile\n- **Timezone:** Asia/Tokyo\n")
    assert plan.new_text == "- **Timezone:** Asia/Tokyo\nname: Al\n\n## Profile\n"


def test_cap_each_section_to_its_16_most_recent_items() -> None:
    before = (
        "## Preferences\n"
        + "".join(f"- preference number {i}\n" for i in range(20))
        + ("## Aliases\n" + "".join(f"- A{i}: alias {i}\n" for i in range(16)))
    )
    after = (
        "## Preferences\n"
        + "".join(f"- preference number {i}\n" for i in range(4, 20))
        + "\n## Aliases\n"
        + "".join(f"- A{i}: alias {i}\n" for i in range(16))
    )
    plan = compact_notes(before, force=True)
    assert plan.new_text == after
    assert [d.text for d in plan.dropped_items] == [f"preference number {i}" for i in range(4)]
    assert {d.reason for d in plan.dropped_items} == {"overflow"}


def test_scalars_do_not_count_against_the_cap() -> None:
    text = "## Profile\nname: A\ncity: Porto\n" + "".join(f"- fact {i}\n" for i in range(16))
    plan = compact_notes(text, force=True)
    assert plan.dropped_items == ()
    assert "name: A\ncity: Porto\n" in plan.new_text


def test_dedupe_runs_before_the_cap() -> None:
    items = [f"- item {i}\n" for i in range(16)] + ["- item 0\n"]
    plan = compact_notes("## Notes\n" + "".join(items))
    assert [d.reason for d in plan.dropped_items] == ["duplicate"]
    assert plan.new_text == "## Notes\n" + "".join(items[1:])


def test_large_file_is_cut_back() -> None:
    before = "name: Bo\n" + "".join(
        f"## Topic {s}\n" + "".join(f"- topic {s} detail {i} " + "w" * 30 + "\n" for i in range(30))
        for s in range(3)
    )
    plan = compact_notes(before)
    assert plan.triggers == ("too_long", "too_many_lines")
    assert len(plan.dropped_items) == 3 * 14
    assert sum(1 for ln in plan.new_text.splitlines() if ln.startswith("- ")) == 3 * 16
    assert "- topic 2 detail 29" in plan.new_text and "- topic 2 detail 13 " not in plan.new_text


def test_continuations_and_code_blocks_are_kept_with_their_item() -> None:
    deploy = "- Deploy:\n  1. build\n  2. ship\n"
    block = "```\n# not a heading\n```\n"
    before = "## Workflows\n" + deploy + block + deploy
    plan = compact_notes(before)
    assert plan.triggers == ("duplicate_bullet",)
    assert (
        plan.new_text
        == "## Workflows\n```\n# not a heading\n```\n- Deploy:\n  1. build\n  2. ship\n"
    )


def test_canonical_section_names() -> None:
    assert canonical_section("prefs") == "Preferences"
    assert canonical_section("**Likes & Dislikes**:") == "Preferences"
    assert canonical_section("Abbreviations") == "Aliases"
    assert canonical_section("to-do") == "Tasks"
    assert canonical_section("about   me") == "Profile"
    assert canonical_section("writing style") == "Formatting"
    assert canonical_section("reading   list:") == "Reading list"


def test_pure_and_deterministic() -> None:
    text = "timezone: A\n## p\n- x\n- x\ntimezone: B\n"
    assert compact_notes(text) == compact_notes(text)


def test_long_section_alone_is_not_a_trigger() -> None:
    text = "## Preferences\n" + "".join(f"- preference {i}\n" for i in range(20))
    assert compaction_triggers(text) == ()
    assert compact_notes(text).new_text == text
