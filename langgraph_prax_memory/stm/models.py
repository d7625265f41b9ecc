"""The scratchpad record, :class:`StmEntry`, and the validation of scratchpad keys."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

from langgraph_prax_memory._validation import check_unicode, to_utc
from langgraph_prax_memory.errors import MemoryValidationError

__all__ = ["StmEntry", "check_key"]

#: Longest scratchpad key accepted.
MAX_KEY_CHARS = 256
#: Tag of items that consolidation could not confirm (confidence below the gate).
PENDING_REVIEW_TAG = "pending_review"
#: Tag of the entry that replaces a compacted group of entries.
COMPACTED_TAG = "stm_compacted"


def check_key(key: object) -> str:
    """Return ``key`` if it is a valid scratchpad key, else raise.

    A key is a non-blank string of at most 256 characters without NUL, other control
    characters or lone surrogates. Keys are stored as JSON data inside ``stm.json`` and never
    become paths, so ``"../../etc/passwd"`` or ``"a/b"`` are harmless ordinary keys.

    Raises:
        MemoryValidationError: The key is not usable.
    """
    if not isinstance(key, str):
        raise MemoryValidationError(f"key must be a string, got {type(key).__name__}")
    if not key.strip():
        raise MemoryValidationError("key must not be empty or whitespace")
    if len(key) > MAX_KEY_CHARS:
        raise MemoryValidationError(
            f"key is {len(key)} characters, over the limit of {MAX_KEY_CHARS}"
        )
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in key):
        raise MemoryValidationError("key must not contain NUL or other control characters")
    return check_unicode(key, what="key")


def _format_utc(value: datetime) -> str:
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


class StmEntry(BaseModel):
    """One scratchpad entry, stored exactly as the seed's data format shows.

    ``created_at`` is serialised as an ISO-8601 UTC string with a ``Z`` suffix and whole
    seconds, e.g. ``"2026-03-15T14:30:00Z"``.

    Example:
        >>> e = StmEntry(key="user_timezone", content="America/New_York (EST/EDT)",
        ...              tags=["preference"], created_at="2026-03-15T14:30:00Z",
        ...              access_count=3, importance=0.8)
        >>> e.model_dump(mode="json")["created_at"]
        '2026-03-15T14:30:00Z'
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    key: str
    content: str
    tags: list[str] = Field(default_factory=list)
    created_at: datetime
    access_count: int = Field(0, ge=0)
    importance: float = Field(0.5, ge=0.0, le=1.0)

    @field_validator("key")
    @classmethod
    def _key(cls, value: str) -> str:
        return check_key(value)

    @field_validator("created_at", mode="before")
    @classmethod
    def _created_at(cls, value: Any) -> datetime:
        return to_utc(value, what="created_at")

    @field_serializer("created_at")
    def _ser_created_at(self, value: datetime) -> str:
        return _format_utc(value)

    def to_json_dict(self) -> dict[str, Any]:
        """The entry as the plain JSON object stored in ``stm.json``."""
        return self.model_dump(mode="json")
