"""Concept extractors: a rule-based one (offline, deterministic) and one on any chat model.

Both return a :class:`ConceptExtraction` (pydantic). The LLM extractor asks the model for
structured output (``with_structured_output``) when the model supports it, and otherwise for
JSON that it parses tolerantly (code fences, prose around the object, trailing commas,
``"importance": "0.8"`` or ``8`` on a 1–10 scale). A chunk it cannot extract raises
:class:`ConceptExtractionError`; ingestion then falls back to the rule-based extractor for that
chunk and reports it (``IngestResult.extractor_fallbacks``). The LLM's prompt and the records
it must return live in :mod:`langgraph_prax_memory.prompts.knowledge_extraction` (re-exported
here).
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from typing import Any, Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ValidationError

from langgraph_prax_memory.errors import PraxMemoryError
from langgraph_prax_memory.prompts.knowledge_extraction import (
    ConceptExtraction,
    ExtractedConcept,
    ExtractedRelation,
    concept_extraction_messages,
)

__all__ = [
    "ConceptExtraction",
    "ConceptExtractionError",
    "ConceptExtractor",
    "ExtractedConcept",
    "ExtractedRelation",
    "LLMConceptExtractor",
    "RuleBasedConceptExtractor",
    "parse_extraction",
]


class ConceptExtractionError(PraxMemoryError):
    """An extractor could not turn a chunk into a :class:`ConceptExtraction`."""


@runtime_checkable
class ConceptExtractor(Protocol):
    """Anything that turns a chunk of text into concepts and relations."""

    def extract(self, text: str, *, headings: tuple[str, ...] = ()) -> ConceptExtraction:
        """Concepts and relations of one chunk (``headings``: the section path above it)."""
        ...


# ----------------------------------------------------------------------------- rule-based

_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_CODE = re.compile(r"`([^`\n]{2,60})`")
_BOLD = re.compile(r"\*\*([^*\n]{2,80})\*\*|__([^_\n]{2,80})__")
_PHRASE = re.compile(
    r"\b([A-Z][\w-]*[a-zA-Z0-9](?:\s+(?:of|for|and|the|on|in)?\s*[A-Z][\w-]*[a-zA-Z0-9])+)\b"
)
_ACRONYM = re.compile(r"\b([A-Z][A-Z0-9]{1,7}s?)\b")
_CAMEL = re.compile(r"\b([A-Z]?[a-z]+(?:[A-Z][a-z0-9]+)+|[A-Z][a-z]+[A-Z][A-Za-z0-9]+)\b")
_WORD_CAP = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{3,})\b")
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n{2,}")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_STOP_STARTS = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "in",
        "on",
        "at",
        "for",
        "of",
        "and",
        "or",
        "but",
        "if",
        "when",
        "while",
        "with",
        "we",
        "our",
        "you",
        "your",
        "they",
        "their",
        "he",
        "she",
        "his",
        "her",
        "i",
        "my",
        "there",
        "here",
        "what",
        "which",
        "who",
        "how",
        "why",
    ]
)
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bis (?:a|an|the) (?:kind|type|form) of\b|\bis an?\b|\bare\b", re.I), "is_a"),
    (re.compile(r"\bpart of\b|\bbelongs? to\b", re.I), "part_of"),
    (re.compile(r"\bdepends? on\b|\brequires?\b", re.I), "depends_on"),
    (re.compile(r"\buses?\b|\busing\b|\bemploys?\b", re.I), "uses"),
    (re.compile(r"\bextends?\b|\bbuilds? on\b|\bbased on\b|\binspired by\b", re.I), "based_on"),
    (re.compile(r"\boutperforms?\b|\bimproves? on\b|\bbeats?\b", re.I), "outperforms"),
    (re.compile(r"\bcontains?\b|\bconsists? of\b|\bincludes?\b", re.I), "contains"),
    (re.compile(r"\bcauses?\b|\bleads? to\b|\bresults? in\b", re.I), "causes"),
]
_MAX_PAIRS_PER_SENTENCE = 6


def _clean(term: str) -> str:
    term = term.strip().strip(".,;:!?()[]{}\"'")
    words = term.split()
    while words and words[0].lower() in _STOP_STARTS:
        words = words[1:]
    return " ".join(words)


class RuleBasedConceptExtractor:
    """Deterministic, offline concept extraction from text and markdown.

    Candidates: markdown headings (importance 0.7–0.8, sub-sections ``part_of`` their parent),
    ``code spans`` and **bold** terms (0.6), multi-word capitalised phrases, acronyms and
    CamelCase words (0.55), and capitalised words seen at least twice mid-sentence (0.5).
    Each concept's description is the first sentence that mentions it (a definitional
    "X is …" sentence is preferred). Two concepts in one sentence are related: ``is_a``,
    ``part_of``, ``depends_on``, ``uses``, ``based_on``, ``outperforms``, ``contains`` or
    ``causes`` when the words between them say so, else ``related_to``; the sentence is the
    relation's evidence.

    Args:
        max_concepts: The most concepts kept per chunk (the most important first).

    Example:
        >>> ex = RuleBasedConceptExtractor()
        >>> out = ex.extract("The Transformer uses Multi-Head Attention to weigh tokens.")
        >>> sorted(c.name for c in out.concepts)
        ['Multi-Head Attention', 'Transformer']
        >>> [(r.source, r.type, r.target) for r in out.relations]
        [('Transformer', 'uses', 'Multi-Head Attention')]
    """

    def __init__(self, *, max_concepts: int = 40) -> None:
        self.max_concepts = max_concepts

    def extract(self, text: str, *, headings: tuple[str, ...] = ()) -> ConceptExtraction:
        """Concepts and relations of one chunk. See the class docstring."""
        text = _LINK.sub(r"\1", text)
        found: dict[str, tuple[str, float, str]] = {}  # key -> (name, importance, kind)

        def add(raw: str, importance: float, kind: str = "concept") -> None:
            name = _clean(raw)
            if len(name) < 2 or len(name) > 80 or not any(ch.isalpha() for ch in name):
                return
            if name.lower() in _STOP_STARTS:
                return
            key = name.lower()
            prev = found.get(key)
            if prev is None or importance > prev[1]:
                found[key] = (prev[0] if prev else name, importance, kind)

        heading_lines = [h.strip() for h in _HEADING.findall(text)]
        for i, heading in enumerate(headings):
            add(heading, 0.8 if i == 0 else 0.7, "topic")
        for heading in heading_lines:
            add(heading, 0.7, "topic")
        body = _HEADING.sub("", text)
        for m in _CODE.finditer(body):
            add(m.group(1), 0.6, "term")
        for m in _BOLD.finditer(body):
            add(m.group(1) or m.group(2), 0.6)
        plain = _CODE.sub(" ", body).replace("**", "").replace("__", "")
        for m in _PHRASE.finditer(plain):
            add(m.group(1), 0.55)
        for m in _ACRONYM.finditer(plain):
            add(m.group(1), 0.55)
        for m in _CAMEL.finditer(plain):
            add(m.group(1), 0.55)
        counts = Counter(m.group(1) for m in _WORD_CAP.finditer(plain))
        for word, n in counts.items():
            if n >= 2:
                add(word, 0.5)
        # Drop single words that only occur inside a longer concept.
        keys = sorted(found, key=len, reverse=True)
        for key in keys:
            if " " not in key and any(
                key in other.split() for other in found if other != key and " " in other
            ):
                alone = re.search(rf"\b{re.escape(key)}\b", plain.lower())
                inside = sum(plain.lower().count(o) for o in found if o != key and key in o)
                if alone and plain.lower().count(key) <= inside:
                    del found[key]
        ranked = sorted(found.values(), key=lambda t: (-t[1], t[0].lower()))[: self.max_concepts]
        names = [name for name, _, _ in ranked]
        sentences = [s.strip() for s in _SENTENCES.split(plain) if s.strip()]
        concepts = [
            ExtractedConcept(
                name=name,
                description=self._describe(name, sentences),
                kind=kind,
                importance=importance,
            )
            for name, importance, kind in ranked
        ]
        relations = self._relations(names, sentences, headings, heading_lines)
        return ConceptExtraction(concepts=concepts, relations=relations)

    @staticmethod
    def _describe(name: str, sentences: list[str]) -> str:
        low = name.lower()
        mentions = [s for s in sentences if low in s.lower()]
        for s in mentions:
            if re.match(rf"\s*(?:the\s+|an?\s+)?{re.escape(low)}\s+(?:is|are|was)\b", s.lower()):
                return s[:400]
        return mentions[0][:400] if mentions else ""

    @staticmethod
    def _relations(
        names: list[str],
        sentences: list[str],
        headings: tuple[str, ...],
        heading_lines: list[str],
    ) -> list[ExtractedRelation]:
        out: dict[tuple[str, str, str], ExtractedRelation] = {}
        chain = [_clean(h) for h in (*headings, *heading_lines) if _clean(h)]
        for parent, child in itertools.pairwise(chain):
            if parent.lower() != child.lower():
                key = (child.lower(), "part_of", parent.lower())
                out[key] = ExtractedRelation(source=child, target=parent, type="part_of")
        lowered = [(n, n.lower()) for n in names]
        for sentence in sentences:
            low = sentence.lower()
            hits: list[tuple[int, str]] = []
            for name, low_name in lowered:
                m = re.search(rf"(?<!\w){re.escape(low_name)}(?!\w)", low)
                if m:
                    hits.append((m.start(), name))
            hits.sort()
            pairs = 0
            for (pos_a, a), (pos_b, b) in itertools.pairwise(hits):
                if pairs >= _MAX_PAIRS_PER_SENTENCE or a.lower() == b.lower():
                    continue
                between = sentence[pos_a + len(a) : pos_b]
                rtype = "related_to"
                for pattern, name in _PATTERNS:
                    if pattern.search(between):
                        rtype = name
                        break
                key = (a.lower(), rtype, b.lower())
                if key not in out:
                    out[key] = ExtractedRelation(
                        source=a, target=b, type=rtype, confidence=0.6, evidence=sentence
                    )
                    pairs += 1
        return list(out.values())


# ----------------------------------------------------------------------------- LLM

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _message_text(message: Any) -> str:
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
        return "".join(parts)
    return str(content)


def parse_extraction(raw: Any) -> ConceptExtraction:
    r"""Tolerantly turn a model answer (an object, a dict or text with JSON) into an extraction.

    Invalid items are dropped one by one; a reply with no JSON object at all raises
    :class:`ConceptExtractionError`.

    Example:
        >>> parse_extraction('Sure! ```json\n{"concepts": [{"name": "RRF", "importance": 9,},]}```')
        ConceptExtraction(concepts=[ExtractedConcept(name='RRF', description='', kind='concept', importance=0.9)], relations=[])
    """  # noqa: E501
    if isinstance(raw, ConceptExtraction):
        return raw
    if isinstance(raw, BaseModel) and not isinstance(raw, BaseMessage):
        raw = raw.model_dump()
    if not isinstance(raw, dict):
        text = _message_text(raw).strip()
        fenced = _FENCE.search(text)
        if fenced:
            text = fenced.group(1).strip()
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise ConceptExtractionError("the model's reply holds no JSON object")
        blob = text[start : end + 1]
        try:
            raw = json.loads(blob)
        except json.JSONDecodeError:
            try:
                raw = json.loads(_TRAILING_COMMA.sub(r"\1", blob))
            except json.JSONDecodeError as exc:
                raise ConceptExtractionError(f"the model's JSON is malformed: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConceptExtractionError("the model's JSON is not an object")
    concepts, relations = [], []
    for item in raw.get("concepts") or []:
        try:
            concepts.append(ExtractedConcept.model_validate(item))
        except ValidationError:
            continue
    for item in raw.get("relations") or []:
        try:
            relations.append(ExtractedRelation.model_validate(item))
        except ValidationError:
            continue
    return ConceptExtraction(concepts=concepts, relations=relations)


class LLMConceptExtractor:
    """Concept extraction with any LangChain chat model (use a cheap one).

    Structured output (``with_structured_output(ConceptExtraction)``) is used when the model
    supports it; otherwise (or with ``structured=False``) the model is asked for JSON and the
    reply is parsed by :func:`parse_extraction`.

    Args:
        model: A LangChain chat model.
        max_concepts: Asked-for upper bound of concepts per chunk (also enforced).
        structured: ``True``/``False`` to force a mode; ``None`` tries structured output first.

    Example:
        >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
        >>> model = FakeListChatModel(responses=['{"concepts": [{"name": "BM25"}]}'])
        >>> [c.name for c in LLMConceptExtractor(model).extract("BM25 ranks.").concepts]
        ['BM25']
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        max_concepts: int = 25,
        structured: bool | None = None,
    ) -> None:
        self.model = model
        self.max_concepts = max_concepts
        self.structured = structured
        self._structured_runnable: Any = None
        if structured is not False:
            try:
                self._structured_runnable = model.with_structured_output(ConceptExtraction)
            except (NotImplementedError, AttributeError, TypeError, ValueError):
                if structured:
                    raise
                self._structured_runnable = None

    def _messages(self, text: str, headings: tuple[str, ...], json_mode: bool) -> list[BaseMessage]:
        return concept_extraction_messages(
            text, headings=headings, max_concepts=self.max_concepts, json_mode=json_mode
        )

    def _finish(self, raw: Any) -> ConceptExtraction:
        out = parse_extraction(raw)
        concepts = sorted(out.concepts, key=lambda c: -c.importance)[: self.max_concepts]
        return ConceptExtraction(concepts=concepts, relations=out.relations)

    def extract(self, text: str, *, headings: tuple[str, ...] = ()) -> ConceptExtraction:
        """Concepts and relations of one chunk; :class:`ConceptExtractionError` on failure."""
        try:
            if self._structured_runnable is not None:
                raw = self._structured_runnable.invoke(self._messages(text, headings, False))
            else:
                raw = self.model.invoke(self._messages(text, headings, True))
        except ConceptExtractionError:
            raise
        except Exception as exc:
            raise ConceptExtractionError(
                f"the extraction model failed: {type(exc).__name__}: {exc}"
            ) from exc
        return self._finish(raw)

    async def aextract(self, text: str, *, headings: tuple[str, ...] = ()) -> ConceptExtraction:
        """The async form of :meth:`extract` (``ainvoke``)."""
        try:
            if self._structured_runnable is not None:
                raw = await self._structured_runnable.ainvoke(self._messages(text, headings, False))
            else:
                raw = await self.model.ainvoke(self._messages(text, headings, True))
        except Exception as exc:
            raise ConceptExtractionError(
                f"the extraction model failed: {type(exc).__name__}: {exc}"
            ) from exc
        return self._finish(raw)
