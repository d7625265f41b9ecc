r"""Quick-reference user notes: ``user_notes.md`` in a git-backed per-user workspace.

Example:
    >>> import tempfile
    >>> from langgraph_prax_memory.config import MemoryConfig
    >>> from langgraph_prax_memory.notes import UserNotes
    >>> notes = UserNotes(MemoryConfig(data_dir=tempfile.mkdtemp()))
    >>> result = notes.update("alice", "name: Alice\ntimezone: UTC\ntimezone: Europe/Paris\n")
    >>> result.triggers, result.compacted
    (('duplicate_scalar',), True)
    >>> print(notes.read("alice"), end="")
    name: Alice
    timezone: Europe/Paris
"""

from langgraph_prax_memory.notes._git import GitUnavailableError, NotesGitError
from langgraph_prax_memory.notes.compaction import (
    MAX_CHARS,
    MAX_NON_BLANK_LINES,
    MAX_SECTION_ITEMS,
    CompactionPlan,
    DroppedItem,
    compact_notes,
    compaction_triggers,
)
from langgraph_prax_memory.notes.parsing import canonical_section, parse_notes
from langgraph_prax_memory.notes.promotion import (
    MAX_PROMOTIONS,
    PROMOTION_SOURCE,
    Promotion,
    classify_item,
    select_promotions,
)
from langgraph_prax_memory.notes.retrieval import (
    MAX_CONTEXT_CHARS,
    MAX_CONTEXT_LINES,
    select_note_lines,
)
from langgraph_prax_memory.notes.store import (
    COMPACT_COMMIT_MESSAGE,
    DEFAULT_MAX_NOTES_BYTES,
    NOTES_FILENAME,
    UPDATE_COMMIT_MESSAGE,
    AsyncRememberSink,
    AsyncUserNotes,
    NotesUpdateResult,
    RememberSink,
    UserNotes,
)

__all__ = [
    "COMPACT_COMMIT_MESSAGE",
    "DEFAULT_MAX_NOTES_BYTES",
    "MAX_CHARS",
    "MAX_CONTEXT_CHARS",
    "MAX_CONTEXT_LINES",
    "MAX_NON_BLANK_LINES",
    "MAX_PROMOTIONS",
    "MAX_SECTION_ITEMS",
    "NOTES_FILENAME",
    "PROMOTION_SOURCE",
    "UPDATE_COMMIT_MESSAGE",
    "AsyncRememberSink",
    "AsyncUserNotes",
    "CompactionPlan",
    "DroppedItem",
    "GitUnavailableError",
    "NotesGitError",
    "NotesUpdateResult",
    "Promotion",
    "RememberSink",
    "UserNotes",
    "canonical_section",
    "classify_item",
    "compact_notes",
    "compaction_triggers",
    "parse_notes",
    "select_note_lines",
    "select_promotions",
]
