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

from langgraph_prax_memory.notes._git import (
    GitUnavailableError,
    NotesDiskFullError,
    NotesGitError,
)
from langgraph_prax_memory.notes.compaction import (
    MAX_CHARS as MAX_CHARS,
)
from langgraph_prax_memory.notes.compaction import (
    MAX_NON_BLANK_LINES as MAX_NON_BLANK_LINES,
)
from langgraph_prax_memory.notes.compaction import (
    MAX_SECTION_ITEMS as MAX_SECTION_ITEMS,
)
from langgraph_prax_memory.notes.compaction import (
    CompactionPlan,
    DroppedItem,
    compact_notes,
    compaction_triggers,
)
from langgraph_prax_memory.notes.parsing import canonical_section, parse_notes
from langgraph_prax_memory.notes.promotion import (
    MAX_PROMOTIONS as MAX_PROMOTIONS,
)
from langgraph_prax_memory.notes.promotion import (
    PROMOTION_SOURCE as PROMOTION_SOURCE,
)
from langgraph_prax_memory.notes.promotion import (
    Promotion,
    classify_item,
    select_promotions,
)
from langgraph_prax_memory.notes.selection import (
    MAX_CONTEXT_CHARS as MAX_CONTEXT_CHARS,
)
from langgraph_prax_memory.notes.selection import (
    MAX_CONTEXT_LINES as MAX_CONTEXT_LINES,
)
from langgraph_prax_memory.notes.selection import (
    select_note_lines,
)
from langgraph_prax_memory.notes.store import (
    COMPACT_COMMIT_MESSAGE as COMPACT_COMMIT_MESSAGE,
)
from langgraph_prax_memory.notes.store import (
    DEFAULT_MAX_NOTES_BYTES as DEFAULT_MAX_NOTES_BYTES,
)
from langgraph_prax_memory.notes.store import (
    NOTES_FILENAME as NOTES_FILENAME,
)
from langgraph_prax_memory.notes.store import (
    UPDATE_COMMIT_MESSAGE as UPDATE_COMMIT_MESSAGE,
)
from langgraph_prax_memory.notes.store import (
    AsyncRememberSink,
    AsyncUserNotes,
    NotesUpdateResult,
    RememberSink,
    UserNotes,
)

__all__ = [
    "AsyncRememberSink",
    "AsyncUserNotes",
    "CompactionPlan",
    "DroppedItem",
    "GitUnavailableError",
    "NotesDiskFullError",
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
