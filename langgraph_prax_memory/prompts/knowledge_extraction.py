"""Knowledge extraction: the prompt that asks for a chunk's concepts, and what the model returns.

:data:`SYSTEM_PROMPT` is the system prompt (``{max_concepts}`` filled in); :data:`JSON_HINT`
is appended when the model is asked for JSON text instead of structured output. The records are
tolerant: ``"importance": "0.8"`` or ``8`` (a 1-10 scale) is coerced, an unknown relation type
becomes ``related_to``; a relation's ``evidence`` (the quote that states it) is kept on one line
and cut at :data:`MAX_RELATION_EVIDENCE_CHARS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from langgraph_prax_memory._validation import check_relation_type
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.prompts._coerce import unit

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = [
    "ConceptExtraction",
    "ExtractedConcept",
    "ExtractedRelation",
    "concept_extraction_messages",
]

#: The most characters of one relation's evidence kept from one chunk (a quote, not the chunk).
MAX_RELATION_EVIDENCE_CHARS = 300

SYSTEM_PROMPT = """You extract a knowledge graph from a document chunk.
Return the important domain concepts (named methods, models, systems, theories, datasets,
terms the text defines or relies on) and the typed relations between them.
- name: the concept as written (short, no articles)
- description: one sentence, from the text
- kind: concept | method | model | dataset | metric | person | organization | tool | term
- importance: 0.0-1.0 (how central it is to the text)
- relations: source and target are concept names from your list; type is a short snake_case
  verb such as uses, is_a, part_of, depends_on, based_on, outperforms, contains, related_to;
  evidence is the words of the text that state the relation (a short quote)
At most {max_concepts} concepts. Do not invent facts that are not in the text."""

JSON_HINT = """
Answer with ONLY a JSON object of this shape, no prose:
{"concepts": [{"name": "...", "description": "...", "kind": "concept", "importance": 0.5}],
 "relations": [{"source": "...", "target": "...", "type": "related_to", "confidence": 0.8,
                "evidence": "..."}]}"""


def concept_extraction_messages(
    text: str, *, headings: tuple[str, ...] = (), max_concepts: int = 25, json_mode: bool = False
) -> list[BaseMessage]:
    r"""The messages that ask for the concepts and relations of one chunk.

    Args:
        text: The chunk.
        headings: The section path above it (sent as ``Section: A > B``).
        max_concepts: The asked-for upper bound of concepts.
        json_mode: Append :data:`JSON_HINT` (for a model without structured output).

    Example:
        >>> concept_extraction_messages("BM25 ranks.", headings=("Search",))[1].content
        'Section: Search\n\nBM25 ranks.'
    """
    system = SYSTEM_PROMPT.format(max_concepts=max_concepts)
    if json_mode:
        system += JSON_HINT
    where = f"Section: {' > '.join(headings)}\n\n" if headings else ""
    # imported on use: the prompts load with the scratchpad, which needs no LangChain
    from langchain_core.messages import HumanMessage, SystemMessage

    return [SystemMessage(system), HumanMessage(f"{where}{text}")]


def _relation_type(value: str) -> str:

    return check_relation_type(value)


class ExtractedConcept(BaseModel):
    """A concept found in a chunk."""

    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1, max_length=512)
    description: str = ""
    kind: str = "concept"
    importance: float = 0.5

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float:
        return unit(value, 0.5)

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: Any) -> str:
        try:
            return _relation_type(str(value or "concept"))
        except MemoryValidationError:
            return "concept"

    @field_validator("description", mode="before")
    @classmethod
    def _description(cls, value: Any) -> str:
        return "" if value is None else str(value)


class ExtractedRelation(BaseModel):
    """A typed relation between two concepts of a chunk."""

    model_config = ConfigDict(extra="ignore")

    source: str = Field(min_length=1, max_length=512)
    target: str = Field(min_length=1, max_length=512)
    type: str = "related_to"
    confidence: float = 0.7
    evidence: str = ""
    """The words of the chunk that state the relation (kept on the stored relation)."""

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> str:
        try:
            return _relation_type(str(value or "related_to"))
        except MemoryValidationError:
            return "related_to"

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> float:
        return unit(value, 0.7)

    @field_validator("evidence", mode="before")
    @classmethod
    def _evidence(cls, value: Any) -> str:
        # one line, short: a quote, not the chunk (a stored relation appends each document's)
        text = "" if value is None else " ".join(str(value).split())
        return text[:MAX_RELATION_EVIDENCE_CHARS]


class ConceptExtraction(BaseModel):
    """What an extractor found in one chunk."""

    concepts: list[ExtractedConcept] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)
