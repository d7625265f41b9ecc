"""Deterministic compaction of ``user_notes.md`` (a pure function: no IO, no model).

Compaction runs only when a trigger fires (:func:`compaction_triggers`):

* ``too_long``: more than 4,096 characters;
* ``too_many_lines``: more than 80 non-blank lines;
* ``duplicate_scalar``: a scalar key such as ``timezone:`` appears twice;
* ``duplicate_bullet``: the same item appears twice in one section.

When it runs it keeps the latest value of every scalar key (at the place the key first
appeared), removes repeated items (keeping the most recent copy), canonicalises section
names (merging sections that mean the same thing) and keeps only the 16 most recent items
(the last ones in the file) of each section. Everything it removes is reported as a
:class:`DroppedItem`, so the caller can promote what deserves it to long-term memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from langgraph_prax_memory.notes.parsing import (
    NoteItem,
    NotesDocument,
    Section,
    normalise_item,
    parse_notes,
    scalar_identity,
)

__all__ = [
    "CompactionPlan",
    "DroppedItem",
    "compact_notes",
    "compaction_triggers",
    "render_notes",
]

#: A file longer than this (characters) is compacted.
MAX_CHARS = 4096
#: A file with more non-blank lines than this is compacted.
MAX_NON_BLANK_LINES = 80
#: Items kept per section by compaction (the most recent ones).
MAX_SECTION_ITEMS = 16

TRIGGER_TOO_LONG = "too_long"
TRIGGER_TOO_MANY_LINES = "too_many_lines"
TRIGGER_DUPLICATE_SCALAR = "duplicate_scalar"
TRIGGER_DUPLICATE_BULLET = "duplicate_bullet"

DropReason = Literal["duplicate", "stale_scalar", "overflow"]


@dataclass(frozen=True)
class DroppedItem:
    """A line compaction removed from the live file (it stays in git history).

    Attributes:
        text: The item text without bullet marker (``"timezone: UTC"`` for scalars).
        section: Canonical section it was in (``None`` for the preamble).
        reason: ``"duplicate"`` (an identical item or scalar value was kept),
            ``"stale_scalar"`` (a newer value of the same key was kept) or ``"overflow"``
            (the section held more than 16 items and this was one of the oldest).
        key: The scalar key, for scalars.
    """

    text: str
    section: str | None
    reason: DropReason
    key: str | None = None


@dataclass(frozen=True)
class CompactionPlan:
    """What compaction would make of a notes text.

    Attributes:
        new_text: The compacted text (the input unchanged when no trigger fired).
        dropped_items: Everything removed, in file order.
        triggers: The triggers that fired, in the fixed order too_long, too_many_lines,
            duplicate_scalar, duplicate_bullet; empty when compaction was not needed.
    """

    new_text: str
    dropped_items: tuple[DroppedItem, ...]
    triggers: tuple[str, ...]


def _merged_sections(doc: NotesDocument) -> list[Section]:
    merged: dict[str | None, Section] = {}
    for section in doc.sections:
        target = merged.get(section.name)
        if target is None:
            heading = None if section.name is None else f"## {section.name}"
            target = merged[section.name] = Section(heading=heading, name=section.name)
        target.items.extend(section.items)
    return list(merged.values())


def _has_duplicate_scalar(doc: NotesDocument) -> bool:
    seen: set[tuple[str | None, str]] = set()
    for item in doc.items():
        if item.kind == "scalar":
            ident = scalar_identity(item)
            if ident in seen:
                return True
            seen.add(ident)
    return False


def _has_duplicate_bullet(sections: list[Section]) -> bool:
    for section in sections:
        seen: set[str] = set()
        for item in section.items:
            if item.kind != "item":
                continue
            norm = normalise_item(item.text)
            if norm in seen:
                return True
            seen.add(norm)
    return False


def compaction_triggers(text: str) -> tuple[str, ...]:
    r"""The compaction triggers that ``text`` fires (empty when it is fine as it is).

    Example:
        >>> compaction_triggers("timezone: UTC\ntimezone: Europe/Paris\n")
        ('duplicate_scalar',)
    """
    doc = parse_notes(text)
    triggers: list[str] = []
    if len(text) > MAX_CHARS:
        triggers.append(TRIGGER_TOO_LONG)
    if sum(1 for line in text.splitlines() if line.strip()) > MAX_NON_BLANK_LINES:
        triggers.append(TRIGGER_TOO_MANY_LINES)
    if _has_duplicate_scalar(doc):
        triggers.append(TRIGGER_DUPLICATE_SCALAR)
    if _has_duplicate_bullet(_merged_sections(doc)):
        triggers.append(TRIGGER_DUPLICATE_BULLET)
    return tuple(triggers)


def render_notes(title: str | None, sections: list[Section]) -> str:
    """Render a title and sections back to Markdown (blank line between blocks)."""
    blocks: list[str] = []
    if title:
        blocks.append(title)
    for section in sections:
        lines = [line.rstrip() for item in section.items for line in item.lines]
        if section.heading is None:
            if lines:
                blocks.append("\n".join(lines))
            continue
        blocks.append("\n".join([section.heading, *lines]))
    return "\n\n".join(blocks) + "\n" if blocks else ""


def compact_notes(text: str, *, force: bool = False) -> CompactionPlan:
    r"""Plan the compaction of a notes text (pure: same input, same plan).

    Args:
        text: The full ``user_notes.md`` content.
        force: Compact even when no trigger fires.

    Returns:
        The plan: new text, dropped items and the triggers that fired. With no trigger (and
        ``force`` false) the new text is ``text`` itself and nothing is dropped.

    Example:
        >>> plan = compact_notes("timezone: UTC\n## prefs\n- tea\n- tea\ntimezone: CET\n")
        >>> print(plan.new_text, end="")
        timezone: CET
        <BLANKLINE>
        ## Preferences
        - tea
        >>> [(d.reason, d.text) for d in plan.dropped_items]
        [('stale_scalar', 'timezone: UTC'), ('duplicate', 'tea')]
    """
    triggers = compaction_triggers(text)
    if not triggers and not force:
        return CompactionPlan(new_text=text, dropped_items=(), triggers=())
    doc = parse_notes(text)
    sections = _merged_sections(doc)
    dropped: dict[int, DroppedItem] = {}  # by item index, so the report is in file order

    # 1. Scalars: the last occurrence's line wins, shown where the key first appeared.
    last: dict[tuple[str | None, str], NoteItem] = {}
    for item in doc.items():
        if item.kind == "scalar":
            last[scalar_identity(item)] = item
    placed: set[tuple[str | None, str]] = set()
    for section in sections:
        kept: list[NoteItem] = []
        for item in section.items:
            if item.kind != "scalar":
                kept.append(item)
                continue
            ident = scalar_identity(item)
            winner = last[ident]
            if item is not winner:
                same = normalise_item(item.value or "") == normalise_item(winner.value or "")
                dropped[item.index] = DroppedItem(
                    text=item.text,
                    section=item.section,
                    reason="duplicate" if same else "stale_scalar",
                    key=item.key,
                )
            if ident not in placed:
                placed.add(ident)
                kept.append(winner)
        section.items = kept

    # 2. Items: the most recent copy of a repeated item wins, in its own place.
    for section in sections:
        latest: dict[str, int] = {}
        for item in section.items:
            if item.kind == "item":
                latest[normalise_item(item.text)] = item.index
        kept = []
        for item in section.items:
            if item.kind == "item" and latest[normalise_item(item.text)] != item.index:
                dropped[item.index] = DroppedItem(
                    text=item.text, section=section.name, reason="duplicate"
                )
                continue
            kept.append(item)
        section.items = kept

    # 3. Cap each section to its most recent items (scalars do not count).
    for section in sections:
        items = [item for item in section.items if item.kind == "item"]
        excess = len(items) - MAX_SECTION_ITEMS
        if excess <= 0:
            continue
        oldest = {item.index for item in items[:excess]}
        for item in items[:excess]:
            dropped[item.index] = DroppedItem(
                text=item.text, section=section.name, reason="overflow"
            )
        section.items = [item for item in section.items if item.index not in oldest]

    new_text = render_notes(doc.title, sections)
    ordered = tuple(dropped[i] for i in sorted(dropped))
    return CompactionPlan(new_text=new_text, dropped_items=ordered, triggers=triggers)
