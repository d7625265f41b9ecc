"""A small, forgiving parser for ``user_notes.md``.

The file is free-form Markdown written by an agent or a person. The parser recognises:

* an optional **title**: a level-1 heading that is the first non-blank line;
* **sections**: every other heading (``#`` .. ``######``); lines before the first section
  belong to the *preamble* (section ``None``);
* **scalars**: ``key: value`` lines whose key is a known profile field (``timezone``,
  ``name``, ``location`` ... see :data:`SCALAR_KEYS`, bullet or not, bold or not), and
  plain (non-bullet) ``key: value`` lines in the preamble or the ``Profile`` section;
* **items**: every other non-blank line — bullets (``-``, ``*``, ``+``, ``1.``) with their
  indented continuation lines, plain lines, and fenced code blocks as one item.

Parsing never fails and never loses a line: :func:`render` of an uncompacted document
reproduces every non-blank line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "NoteItem",
    "NotesDocument",
    "Section",
    "canonical_section",
    "normalise_item",
    "parse_notes",
    "scalar_identity",
]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)([-*+]|\d{1,3}[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_KEY_VALUE = re.compile(
    r"^[*_`]{0,2}([A-Za-z][A-Za-z0-9 _'/-]{0,31}?)\s*[*_`]{0,2}\s*:\s*[*_`]{0,2}\s*(\S.*?)\s*$"
)

#: Scalar profile keys (normalised) and the canonical key each one stands for.
SCALAR_KEYS: dict[str, str] = {
    "timezone": "timezone",
    "time_zone": "timezone",
    "tz": "timezone",
    "name": "name",
    "preferred_name": "preferred_name",
    "full_name": "full_name",
    "nickname": "nickname",
    "pronouns": "pronouns",
    "location": "location",
    "city": "city",
    "country": "country",
    "home": "location",
    "based_in": "location",
    "language": "language",
    "preferred_language": "language",
    "locale": "locale",
    "email": "email",
    "phone": "phone",
    "units": "units",
    "currency": "currency",
    "occupation": "occupation",
    "role": "role",
    "job": "role",
    "job_title": "role",
    "employer": "employer",
    "company": "employer",
    "birthday": "birthday",
}

_SECTION_NAMES: dict[str, str] = {
    **dict.fromkeys(
        [
            "profile",
            "about",
            "about me",
            "basics",
            "personal",
            "personal info",
            "identity",
            "user",
            "user info",
            "user profile",
            "facts",
            "key facts",
        ],
        "Profile",
    ),
    **dict.fromkeys(
        [
            "preferences",
            "preference",
            "prefs",
            "likes",
            "likes and dislikes",
            "user preferences",
            "general preferences",
        ],
        "Preferences",
    ),
    **dict.fromkeys(
        [
            "aliases",
            "alias",
            "abbreviations",
            "acronyms",
            "shorthand",
            "shortcuts",
            "glossary",
            "terms",
        ],
        "Aliases",
    ),
    **dict.fromkeys(
        [
            "workflows",
            "workflow",
            "processes",
            "process",
            "routines",
            "routine",
            "habits",
            "procedures",
        ],
        "Workflows",
    ),
    **dict.fromkeys(
        [
            "projects",
            "project",
            "project constraints",
            "constraints",
            "project notes",
            "current projects",
        ],
        "Projects",
    ),
    **dict.fromkeys(
        [
            "formatting",
            "format",
            "style",
            "writing style",
            "formatting preferences",
            "style preferences",
            "output format",
            "output style",
            "tone",
            "communication style",
        ],
        "Formatting",
    ),
    **dict.fromkeys(["interests", "interest", "hobbies", "topics"], "Interests"),
    **dict.fromkeys(["reminders", "reminder"], "Reminders"),
    **dict.fromkeys(["tasks", "task", "todo", "todos", "to do", "to-do", "to dos"], "Tasks"),
    **dict.fromkeys(["contacts", "people"], "Contacts"),
    **dict.fromkeys(["notes", "misc", "miscellaneous", "other", "general"], "Notes"),
}


def _norm_key(key: str) -> str:
    return re.sub(r"[\s/'-]+", "_", key.strip().lower()).strip("_")


def canonical_section(raw: str) -> str:
    """The canonical name of a section heading (``"## prefs:"`` text → ``"Preferences"``).

    Known names and their synonyms map to one spelling; any other name keeps its words,
    with whitespace collapsed, markdown emphasis and a trailing colon removed and the first
    letter capitalised.

    Example:
        >>> canonical_section("  user   PREFERENCES: ")
        'Preferences'
        >>> canonical_section("reading list")
        'Reading list'
    """
    text = re.sub(r"[*_`]", "", raw).strip().rstrip(":").strip()
    text = " ".join(text.split())
    lookup = text.lower().replace("&", "and")
    if lookup in _SECTION_NAMES:
        return _SECTION_NAMES[lookup]
    if not text:
        return "Notes"
    return text[0].upper() + text[1:]


def normalise_item(text: str) -> str:
    """The comparison form of an item: case-folded, emphasis and end punctuation removed."""
    text = re.sub(r"[*_`]", "", text).casefold()
    return " ".join(text.split()).rstrip(" .;,!")


@dataclass(frozen=True)
class NoteItem:
    """One scalar line or list item of the notes file.

    Attributes:
        kind: ``"scalar"`` (a ``key: value`` profile field) or ``"item"``.
        lines: The raw lines of the item (first line plus continuation lines).
        text: The item's text without bullet marker, continuations joined by spaces.
        section: Canonical section name, ``None`` for the preamble.
        index: Position of the item in the file (0-based, in reading order).
        key: Canonical scalar key (scalars only).
        value: Scalar value (scalars only).
        bullet: Whether the first line is a list bullet.
    """

    kind: Literal["scalar", "item"]
    lines: tuple[str, ...]
    text: str
    section: str | None
    index: int
    key: str | None = None
    value: str | None = None
    bullet: bool = False

    @property
    def one_line(self) -> str:
        """The item as one stripped line (continuation lines joined by spaces)."""
        return " ".join(line.strip() for line in self.lines if line.strip())


def scalar_identity(item: NoteItem) -> tuple[str | None, str]:
    """What makes two scalars "the same key": known keys are file-wide, others per section."""
    assert item.key is not None
    if item.key in SCALAR_KEYS.values():
        return (None, item.key)
    return (item.section, item.key)


@dataclass
class Section:
    """A heading and the items under it (the preamble has ``heading = None``)."""

    heading: str | None
    name: str | None
    items: list[NoteItem] = field(default_factory=list)


@dataclass
class NotesDocument:
    """A parsed ``user_notes.md``: optional title line and sections in file order."""

    title: str | None
    sections: list[Section]

    def items(self) -> list[NoteItem]:
        """Every item in file order."""
        return [item for section in self.sections for item in section.items]


def _scalar(text: str, section: str | None, bullet: bool) -> tuple[str, str] | None:
    match = _KEY_VALUE.match(text)
    if not match:
        return None
    key = _norm_key(match.group(1))
    value = match.group(2).strip().strip("*_`").strip()
    if not value or value.startswith("//"):  # "http://..." is not a key
        return None
    if key in SCALAR_KEYS:
        return SCALAR_KEYS[key], value
    if not bullet and section in (None, "Profile") and len(match.group(1).split()) <= 3:
        return key, value
    return None


def parse_notes(text: str) -> NotesDocument:
    r"""Parse notes text into a :class:`NotesDocument` (never raises).

    Example:
        >>> doc = parse_notes("# Notes\ntimezone: UTC\n## Prefs\n- tea, not coffee\n")
        >>> [(i.kind, i.section, i.text) for i in doc.items()]
        [('scalar', None, 'timezone: UTC'), ('item', 'Preferences', 'tea, not coffee')]
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    title: str | None = None
    sections: list[Section] = [Section(heading=None, name=None)]
    current = sections[0]
    pending: list[str] = []  # raw lines of the item being built
    pending_bullet = False
    in_fence = False
    index = 0
    first_content = True

    def flush() -> None:
        nonlocal pending, index
        if not pending:
            return
        first = pending[0]
        bullet_match = _BULLET.match(first)
        head = bullet_match.group(3) if bullet_match and not _FENCE.match(first) else first
        rest = [ln.strip() for ln in pending[1:] if ln.strip()]
        item_text = " ".join([head.strip(), *rest]).strip()
        scalar = None if len(pending) > 1 else _scalar(head.strip(), current.name, pending_bullet)
        if scalar is not None:
            key, value = scalar
            item = NoteItem(
                kind="scalar",
                lines=tuple(pending),
                text=f"{key}: {value}",
                section=current.name,
                index=index,
                key=key,
                value=value,
                bullet=pending_bullet,
            )
        else:
            item = NoteItem(
                kind="item",
                lines=tuple(pending),
                text=item_text,
                section=current.name,
                index=index,
                bullet=pending_bullet,
            )
        current.items.append(item)
        index += 1
        pending = []

    for line in lines:
        if in_fence:
            pending.append(line)
            if _FENCE.match(line):
                in_fence = False
                flush()
            continue
        if not line.strip():
            continue  # blank lines end nothing: continuation is decided by indentation
        if _FENCE.match(line):
            flush()
            pending, pending_bullet, in_fence = [line], False, True
            first_content = False
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            if first_content and len(heading.group(1)) == 1:
                title = line.strip()
            else:
                current = Section(heading=line.strip(), name=canonical_section(heading.group(2)))
                sections.append(current)
            first_content = False
            continue
        first_content = False
        indented = line[:1] in (" ", "\t")
        if indented and pending:
            pending.append(line)
            continue
        flush()
        pending = [line]
        pending_bullet = _BULLET.match(line) is not None
    flush()
    return NotesDocument(title=title, sections=sections)
