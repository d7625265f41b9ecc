"""Consolidation's extraction: the prompt, its re-ask and the records the model must return.

The extraction records follow the seed's shapes (entities, relations, facts, temporal events,
causal links, each with a confidence) and are deliberately tolerant: a local model that returns
``"importance": "0.8"`` or ``1.3`` is coerced and clamped rather than losing the batch.

:data:`EXTRACTION_PROMPT` is the system prompt (``LLMExtractor(prompt=...)`` replaces it);
:data:`REASK_PROMPT` is sent once, with the error, when an answer is not usable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from langgraph_prax_memory.prompts._coerce import optional_time, unit

__all__ = [
    "CandidateMemory",
    "ExtractedCausalLink",
    "ExtractedEntity",
    "ExtractedEvent",
    "ExtractedFact",
    "ExtractedRelation",
    "Extraction",
    "extraction_messages",
    "reask_message",
    "truncated_reask_message",
]

EXTRACTION_PROMPT = """\
You extract durable long-term memory from a conversation excerpt. Return ONE JSON object with \
these keys (use [] when there is nothing):
- "entities": [{"name", "type" (person|topic|project|tool|url|concept|organization), \
"display_name", "importance", "confidence"}]
- "relations": [{"source", "type" (works_on|interested_in|prefers|related_to|part_of|\
caused_by|mentioned_with|lives_in|works_at|partner_of), "target", "weight", "evidence", \
"confidence", "valid_from" (ISO date or null), "supersedes" (the OLD target this relation \
replaces, e.g. "dark mode" when the user now prefers light mode, "Lisbon" when they moved \
to Berlin; the target itself when it only ended, e.g. "no longer likes jazz"; null otherwise)}]
- "facts": [{"content" (a self-contained third-person statement of the current state, e.g. \
"User lives in Berlin." - never the raw turn), "importance", "confidence", \
"entities" (names it mentions), "tags" (for a standing fact about the user, one of \
preference, profile, identity, constraint, relationship; [] for anything else), \
"replaces" (the ids of the listed current memories this fact makes untrue, e.g. ["m2"] \
for "User lives in Berlin." when m2 is "User lives in Lisbon."; a fact that records the \
change itself, e.g. "User broke up with Leo.", replaces the memory of the old state too; \
[] when it only adds to what they say, e.g. another hobby or language, or when nothing \
listed is affected)}]
- "temporal_events": [{"description", "occurred_at" (ISO datetime or null), "importance", \
"participants"}]
- "causal_links": [{"cause", "effect", "cause_entities", "effect_entities", "importance"}]
Importance (0-1): 0.8-1.0 critical preferences and decisions; 0.4-0.7 useful context; \
0.1-0.3 minor mentions. Confidence (0-1): how sure you are the item is true and durable.
Only include what the excerpt supports. Answer with JSON only."""

REASK_PROMPT = (
    "Your previous answer could not be used: {error}\n"
    "Answer again with ONE JSON object and nothing else, with the keys entities, relations, "
    "facts, temporal_events and causal_links (lists; [] when empty); give every item a "
    "numeric confidence between 0 and 1."
)

#: Sent once when an answer was cut off before its end (the model ran out of output).
TRUNCATED_REASK_PROMPT = (
    "Your previous answer was cut off before its end ({error}). Answer again with ONE "
    "complete JSON object and nothing else: every item, including those of your previous "
    "answer, each in fewer words, with the keys entities, relations, facts, temporal_events "
    "and causal_links (lists; [] when empty)."
)

#: Heads the list of the user's current memories shown with the excerpt.
CANDIDATES_HEADER = (
    "Current memories of this user that the excerpt may change (id: memory). Say in a "
    'fact\'s "replaces" which of them it makes untrue; use only these ids:'
)

#: Confidence of an item built in Python without one (the rule-based extractor always states
#: one; this default is for programmatic construction only).
DEFAULT_CONFIDENCE = 0.7
#: Confidence given to an item whose model answer states none, or one that is not a number
#: (``"low"``, ``"high"``): below every gate, so it goes to pending review, never to memory.
UNSTATED_CONFIDENCE = 0.0


class CandidateMemory(BaseModel):
    """A current memory of the user shown with the excerpt, under a short id (``m1``...).

    The model names it in a fact's ``replaces`` when the fact makes it untrue; the pipeline
    maps the short id back to ``memory_id`` (ids it did not show are ignored).
    """

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="the short id shown to the model: m1, m2 ...")
    memory_id: str = Field(description="the memory's id in the store (never shown)")
    content: str
    created_at: datetime | None = None

    def line(self) -> str:
        """How the memory is listed in the prompt: ``m1: User lives in Lisbon. (2026-03-02)``."""
        text = " ".join(self.content.split())
        if len(text) > 300:
            text = text[:299].rstrip() + "…"
        since = f" ({self.created_at.date().isoformat()})" if self.created_at else ""
        return f"{self.id}: {text}{since}"


def extraction_messages(
    items: Sequence[str],
    *,
    prompt: str = EXTRACTION_PROMPT,
    candidates: Sequence[CandidateMemory] = (),
) -> list[tuple[str, str]]:
    r"""The messages that ask for the extraction of ``items`` (one conversation excerpt).

    Args:
        items: The batch's lines, already cut to the extractor's input cap.
        prompt: The system prompt.
        candidates: The user's current memories the excerpt may change, listed after it
            with their short ids (none: the message is the excerpt alone).

    Example:
        >>> extraction_messages(["alice: I use Rust"])[1]
        ('human', 'Conversation excerpt:\nalice: I use Rust')
        >>> old = CandidateMemory(id="m1", memory_id="9f2c", content="Alice uses Go.")
        >>> human = extraction_messages(["alice: I use Rust now"], candidates=[old])[1][1]
        >>> human.splitlines()[:2], human.splitlines()[-1]
        (['Conversation excerpt:', 'alice: I use Rust now'], 'm1: Alice uses Go.')
    """
    text = "\n".join(items)
    human = f"Conversation excerpt:\n{text}"
    if candidates:
        listed = "\n".join(c.line() for c in candidates)
        human += f"\n\n{CANDIDATES_HEADER}\n{listed}"
    return [("system", prompt), ("human", human)]


def reask_message(error: str) -> tuple[str, str]:
    """The follow-up message sent once when an answer was not usable, quoting ``error``.

    Example:
        >>> reask_message("no JSON")[1].splitlines()[0]
        'Your previous answer could not be used: no JSON'
    """
    return ("human", REASK_PROMPT.format(error=error))


def truncated_reask_message(error: str) -> tuple[str, str]:
    """The follow-up message sent once when an answer was cut off, saying where.

    Example:
        >>> truncated_reask_message("2 complete items, then an item cut")[1][:48]
        'Your previous answer was cut off before its end '
    """
    return ("human", TRUNCATED_REASK_PROMPT.format(error=error))


class _Item(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    confidence: float = Field(
        default=DEFAULT_CONFIDENCE, description="0-1: how sure the extractor is"
    )

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> float:
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                return UNSTATED_CONFIDENCE  # "low" / "high" is not a number: review it
        return unit(value, UNSTATED_CONFIDENCE)


class ExtractedEntity(_Item):
    """A person, project, tool, topic ... mentioned in the batch."""

    name: str = Field(min_length=1, description="the entity's name as written")
    type: str = Field(
        default="concept", description="person|topic|project|tool|url|concept|organization"
    )
    display_name: str | None = None
    importance: float = Field(
        default=0.3, description="0.8-1 critical, 0.4-0.7 useful, 0.1-0.3 minor"
    )
    spans: SkipJsonSchema[list[str]] = Field(
        default_factory=list,
        description="hashes of the trace lines that mention it (set by the pipeline): a "
        "replayed line does not count as a new mention",
    )
    properties: SkipJsonSchema[dict[str, Any]] = Field(
        default_factory=dict,
        description="merged into the graph entity's properties (the alias resolver of "
        "_resolve.py records the other names it was mentioned by: 'aliases')",
    )

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float:
        return unit(value, 0.3)

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> str:
        return str(value or "concept").strip().lower() or "concept"


class ExtractedRelation(_Item):
    """A typed edge ``source -[type]-> target``.

    ``supersedes`` names the *old target* of the same ``source -[type]->`` edge that this one
    replaces ("now prefers light mode" supersedes "dark mode"). When it equals ``target`` the
    edge is only closed ("no longer likes jazz").
    """

    source: str = Field(min_length=1)
    type: str = Field(
        default="related_to", description="works_on|interested_in|prefers|related_to|..."
    )
    target: str = Field(min_length=1)
    weight: float = 1.0
    evidence: str | None = None
    valid_from: datetime | None = None
    supersedes: str | None = None

    @field_validator("weight", mode="before")
    @classmethod
    def _weight(cls, value: Any) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            return 1.0
        return number if math.isfinite(number) and number > 0 else 1.0

    @field_validator("valid_from", mode="before")
    @classmethod
    def _valid_from(cls, value: Any) -> datetime | None:
        return optional_time(value)

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> str:
        return str(value or "related_to").strip().lower().replace(" ", "_") or "related_to"

    @field_validator("supersedes", "evidence", mode="before")
    @classmethod
    def _opt_text(cls, value: Any) -> str | None:
        if value is None or isinstance(value, bool):
            return None
        text = str(value).strip()
        return text or None


class ExtractedFact(_Item):
    """A durable statement worth remembering (becomes a long-term memory)."""

    content: str = Field(min_length=1)
    importance: float = Field(
        default=0.5, description="0.8-1 critical, 0.4-0.7 useful, 0.1-0.3 minor"
    )
    entities: list[str] = Field(default_factory=list, description="entity names it mentions")
    tags: list[str] = Field(default_factory=list)
    replaces: list[str] = Field(
        default_factory=list,
        description="ids of the listed current memories this fact makes untrue (m1, m2 ...)",
    )
    source_index: int | None = Field(
        None, description="index of the batch item the fact came from (for its timestamp)"
    )
    replaces_ids: SkipJsonSchema[list[str]] = Field(
        default_factory=list,
        description="the store ids of the memories in `replaces` (set by the pipeline from "
        "the memories it showed; anything else the answer holds here is overwritten)",
    )
    statements: SkipJsonSchema[list[str]] = Field(
        default_factory=list,
        description="the statements of `content`, one per clause, each on its own (set by "
        "the rule-based extractor for a sentence of several clauses; consolidation keeps "
        "those that are not small talk and stores a standing fact among them on its own)",
    )
    tentative: SkipJsonSchema[list[str]] = Field(
        default_factory=list,
        description="the statements of `content` (or `content` itself) the rule-based "
        "extractor could not tell from a passing moment by their words (a simple past, being "
        "somewhere): consolidation keeps them when the memory's classifier reads a standing "
        "fact",
    )

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float:
        return unit(value, 0.5)

    @field_validator("entities", "tags", mode="before")
    @classmethod
    def _names(cls, value: Any) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple | set):
            value = [value]
        return [str(v).strip() for v in value if str(v).strip()]

    @field_validator("replaces", mode="before")
    @classmethod
    def _ids(cls, value: Any) -> list[str]:
        """Short ids as the model wrote them (``"m2"``, ``["m1", "[m3]"]``), normalised."""
        out: list[str] = []
        for raw in cls._names(value):
            short = raw.strip().strip("[]()\"'`").strip().lower()
            if short and short not in out:
                out.append(short)
        return out


class ExtractedEvent(_Item):
    """Something that happened at a moment, and who took part."""

    description: str = Field(min_length=1)
    occurred_at: datetime | None = None
    importance: float = 0.5
    participants: list[str] = Field(default_factory=list)

    @field_validator("occurred_at", mode="before")
    @classmethod
    def _occurred(cls, value: Any) -> datetime | None:
        return optional_time(value)

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float:
        return unit(value, 0.5)

    @field_validator("participants", mode="before")
    @classmethod
    def _names(cls, value: Any) -> list[str]:
        return ExtractedFact._names(value)


class ExtractedCausalLink(_Item):
    """``cause`` led to ``effect``; the entities on each side are linked to the link node."""

    cause: str = Field(min_length=1)
    effect: str = Field(min_length=1)
    cause_entities: list[str] = Field(default_factory=list)
    effect_entities: list[str] = Field(default_factory=list)
    importance: float = 0.5

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float:
        return unit(value, 0.5)

    @field_validator("cause_entities", "effect_entities", mode="before")
    @classmethod
    def _names(cls, value: Any) -> list[str]:
        return ExtractedFact._names(value)


class Extraction(BaseModel):
    """Everything an extractor found in one batch.

    Example:
        >>> Extraction(facts=[{"content": "Alice prefers dark mode", "importance": 0.8}]).size
        1
    """

    model_config = ConfigDict(extra="ignore")

    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)
    facts: list[ExtractedFact] = Field(default_factory=list)
    temporal_events: list[ExtractedEvent] = Field(default_factory=list)
    causal_links: list[ExtractedCausalLink] = Field(default_factory=list)
    rejected: SkipJsonSchema[list[str]] = Field(
        default_factory=list,
        description="items of the model's answer that did not validate even after a re-ask "
        "(their raw JSON): they go to pending review instead of being lost",
    )
    cut: SkipJsonSchema[int] = Field(
        default=0,
        description="model answers behind this extraction that were cut off before their "
        "end: the item being written when it was cut is never returned (no fragment), and "
        "the extractor re-asks",
    )

    @property
    def size(self) -> int:
        """Number of extracted items of every kind."""
        return (
            len(self.entities)
            + len(self.relations)
            + len(self.facts)
            + len(self.temporal_events)
            + len(self.causal_links)
        )
