"""The LLM extractor and the tolerant JSON parse-and-repair path for almost-JSON answers."""

from __future__ import annotations

import ast
import importlib
import json
import logging
import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ValidationError

from langgraph_prax_memory.consolidation._batching import EXTRACTION_CHAR_BUDGET
from langgraph_prax_memory.consolidation._models import (
    ExtractedCausalLink,
    ExtractedEntity,
    ExtractedEvent,
    ExtractedFact,
    ExtractedRelation,
    Extraction,
    ExtractionError,
)
from langgraph_prax_memory.errors import ConfigError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["EXTRACTION_PROMPT", "Extractor", "LLMExtractor", "load_chat_model", "parse_extraction"]

logger = logging.getLogger(__name__)


@runtime_checkable
class Extractor(Protocol):
    """Turns the items of one batch into an :class:`Extraction`.

    ``max_chars`` is the extractor's own input cap; batches are cut to exactly that, so nothing
    batched is ever truncated by the extractor. ``extract`` raises :class:`ExtractionError`
    (or any exception) when the batch could not be extracted: the batch is then counted as
    failed and the pointer does not move past it.
    """

    max_chars: int

    def extract(
        self, items: Sequence[str], *, times: Sequence[datetime | None] | None = None
    ) -> Extraction:
        """Extract entities, relations, facts, events and causal links from ``items``."""
        ...


EXTRACTION_PROMPT = """\
You extract durable long-term memory from a conversation excerpt. Return ONE JSON object with \
these keys (use [] when there is nothing):
- "entities": [{"name", "type" (person|topic|project|tool|url|concept|organization), \
"display_name", "importance", "confidence"}]
- "relations": [{"source", "type" (works_on|interested_in|prefers|related_to|part_of|\
caused_by|mentioned_with), "target", "weight", "evidence", "confidence", "valid_from" \
(ISO date or null), "supersedes" (the OLD target this relation replaces, e.g. "dark mode" \
when the user now prefers light mode; null otherwise)}]
- "facts": [{"content" (a self-contained sentence), "importance", "confidence", \
"entities" (names it mentions)}]
- "temporal_events": [{"description", "occurred_at" (ISO datetime or null), "importance", \
"participants"}]
- "causal_links": [{"cause", "effect", "cause_entities", "effect_entities", "importance"}]
Importance (0-1): 0.8-1.0 critical preferences and decisions; 0.4-0.7 useful context; \
0.1-0.3 minor mentions. Confidence (0-1): how sure you are the item is true and durable.
Only include what the excerpt supports. Answer with JSON only."""


def load_chat_model(model: BaseChatModel | str, *, temperature: float = 0.2) -> BaseChatModel:
    """A chat model instance, or one built with ``init_chat_model("provider:model")``."""
    if not isinstance(model, str):
        return model
    init_chat_model: Any = None
    for module in ("langchain.chat_models", "langchain_classic.chat_models"):
        try:
            init_chat_model = importlib.import_module(module).init_chat_model
            break
        except (ImportError, AttributeError):
            continue
    if init_chat_model is None:
        raise ConfigError(
            f"a model name ({model!r}) needs the 'langchain' package for init_chat_model; "
            "pass a chat model instance instead"
        )
    built: BaseChatModel = init_chat_model(model, temperature=temperature)
    return built


# -- tolerant parsing ---------------------------------------------------------------------
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_LINE_COMMENT = re.compile(r"(?m)^\s*//.*$|(?<=[,{\[\s])//[^\n\"]*$")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_UNQUOTED_KEY = re.compile(r"([{,]\s*)([A-Za-z_][\w-]*)\s*:")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_ALIASES = {
    "entities": ("entities", "entity", "nodes"),
    "relations": ("relations", "relationships", "edges", "relation"),
    "facts": ("facts", "key_facts", "memories", "facts_list"),
    "temporal_events": ("temporal_events", "events", "temporal"),
    "causal_links": ("causal_links", "causal", "causes", "causal_relations"),
}
_MODELS: dict[str, type[BaseModel]] = {
    "entities": ExtractedEntity,
    "relations": ExtractedRelation,
    "facts": ExtractedFact,
    "temporal_events": ExtractedEvent,
    "causal_links": ExtractedCausalLink,
}
_FIELD_ALIASES = {
    "relations": {
        "relation": "type",
        "relation_type": "type",
        "from": "source",
        "to": "target",
        "subject": "source",
        "object": "target",
    },
    "facts": {"fact": "content", "text": "content"},
    "temporal_events": {"event": "description", "when": "occurred_at", "date": "occurred_at"},
}
_STRING_FIELD = {
    "entities": "name",
    "facts": "content",
    "temporal_events": "description",
}


def _candidates(text: str) -> list[str]:
    """The outermost ``{...}`` and, for a truncated answer, everything from the first ``{``."""
    start = text.find("{")
    if start < 0:
        return []
    end = text.rfind("}")
    whole = text[start : end + 1] if end > start else ""
    tail = text[start:]
    return [c for c in (whole, tail) if c]


def _weight(data: Any) -> int:
    if not isinstance(data, dict):
        return -1
    return sum(len(v) if isinstance(v, list) else 1 for v in data.values())


def _close_brackets(text: str) -> str:
    """Append the closers a truncated answer is missing (strings are respected)."""
    stack: list[str] = []
    in_str = False
    escape = False
    for ch in text:
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
    if in_str:
        text += '"'
    text = re.sub(r",\s*$", "", text.rstrip())
    return text + "".join(reversed(stack))


def _loads(candidate: str) -> Any:
    attempts = [candidate]
    fixed = _BLOCK_COMMENT.sub("", candidate)
    fixed = _LINE_COMMENT.sub("", fixed)
    fixed = _TRAILING_COMMA.sub(r"\1", fixed)
    attempts.append(fixed)
    quoted = _UNQUOTED_KEY.sub(r'\1"\2":', fixed)
    for py, js in _PY_LITERALS.items():
        quoted = re.sub(rf"(?<![\w\"]){py}(?![\w\"])", js, quoted)
    attempts.append(quoted)
    attempts.append(_TRAILING_COMMA.sub(r"\1", _close_brackets(quoted)))
    for attempt in attempts:
        try:
            return json.loads(attempt)
        except json.JSONDecodeError:
            continue
    # Python-style dicts with single quotes: a literal, never code.
    pyish = _TRAILING_COMMA.sub(r"\1", _close_brackets(quoted))
    for js, py in (("true", "True"), ("false", "False"), ("null", "None")):
        pyish = re.sub(rf"(?<![\w'\"]){js}(?![\w'\"])", py, pyish)
    try:
        return ast.literal_eval(pyish)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _coerce_items(kind: str, raw: Any) -> tuple[list[Any], int]:
    if raw is None:
        return [], 0
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        return [], 1
    model = _MODELS[kind]
    renames = _FIELD_ALIASES.get(kind, {})
    out: list[Any] = []
    dropped = 0
    for element in raw:
        if isinstance(element, str) and kind in _STRING_FIELD:
            element = {_STRING_FIELD[kind]: element}
        if not isinstance(element, dict):
            dropped += 1
            continue
        data = dict(element)
        for old, new in renames.items():
            if old in data and new not in data:
                data[new] = data.pop(old)
        try:
            out.append(model.model_validate(data))
        except ValidationError:
            dropped += 1
    return out, dropped


def parse_extraction(text: str) -> Extraction:
    r"""Parse an extraction from a model's answer, repairing almost-JSON.

    Handles code fences, prose around the object, comments, trailing commas, unquoted keys,
    Python literals and single quotes, a truncated tail, alias keys (``relationships``,
    ``key_facts`` ...) and bare strings for entities / facts. Items that still do not validate
    are dropped one by one (logged), never the whole batch.

    Raises:
        ExtractionError: No JSON object could be recovered at all.

    Example:
        >>> answer = "Sure! ```json\n{'facts': ['Alice likes tea',],}\n```"
        >>> parse_extraction(answer).facts[0].content
        'Alice likes tea'
    """
    if not isinstance(text, str) or not text.strip():
        raise ExtractionError("the model returned an empty answer")
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    candidates = _candidates(body)
    if not candidates:
        raise ExtractionError(f"no JSON object in the model's answer: {text[:200]!r}")
    data = max((_loads(c) for c in candidates), key=_weight)
    if not isinstance(data, dict):
        raise ExtractionError(f"could not repair the model's answer into JSON: {text[:200]!r}")
    return extraction_from_dict(data)


def extraction_from_dict(data: dict[str, Any]) -> Extraction:
    """Build an :class:`Extraction` from a loose dict, dropping items that do not validate."""
    lowered = {str(k).strip().lower(): v for k, v in data.items()}
    found: dict[str, list[Any]] = {}
    dropped = 0
    for kind, names in _ALIASES.items():
        raw = next((lowered[n] for n in names if n in lowered), None)
        items, bad = _coerce_items(kind, raw)
        found[kind] = items
        dropped += bad
    if dropped:
        logger.warning("extraction: dropped %d malformed item(s) from the model's answer", dropped)
    return Extraction(**found)


class LLMExtractor:
    """Extraction with any LangChain chat model.

    Structured output (``with_structured_output(Extraction)``) is used when the model supports
    it; otherwise, or when the structured answer does not parse, the answer text goes through
    :func:`parse_extraction`. A model name is built with ``init_chat_model`` at ``temperature``
    (0.2 by default, the seed's "low tier, temp 0.2"); an instance is used as configured.

    Args:
        chat_model: A ``BaseChatModel`` or an ``init_chat_model`` string
            (``"openai:gpt-4o-mini"``, ``"ollama:llama3.1"``).
        temperature: Used when building the model from a string.
        max_chars: The input cap (batches are cut to it; longer input is refused).
        structured: Force (True) or skip (False) structured output; None tries it.
        prompt: The system prompt.

    Example:
        >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
        >>> fake = FakeListChatModel(responses=['{"facts": [{"content": "Bob uses Rust"}]}'])
        >>> LLMExtractor(fake, structured=False).extract(["Bob: I use Rust"]).facts[0].content
        'Bob uses Rust'
    """

    def __init__(
        self,
        chat_model: BaseChatModel | str,
        *,
        temperature: float = 0.2,
        max_chars: int = EXTRACTION_CHAR_BUDGET,
        structured: bool | None = None,
        prompt: str = EXTRACTION_PROMPT,
    ) -> None:
        self.model = load_chat_model(chat_model, temperature=temperature)
        self.max_chars = max_chars
        self.prompt = prompt
        self._structured: Any = None
        if structured is not False:
            try:
                self._structured = self.model.with_structured_output(Extraction, include_raw=True)
            except (NotImplementedError, AttributeError, TypeError, ValueError) as exc:
                if structured:
                    raise ConfigError(f"the chat model has no structured output: {exc}") from exc
                self._structured = None

    def _messages(self, items: Sequence[str]) -> list[tuple[str, str]]:
        text = "\n".join(items)
        if len(text) > self.max_chars:
            logger.warning(
                "extractor input of %d chars over its cap %d was cut", len(text), self.max_chars
            )
            text = text[: self.max_chars]
        return [("system", self.prompt), ("human", f"Conversation excerpt:\n{text}")]

    def extract(
        self, items: Sequence[str], *, times: Sequence[datetime | None] | None = None
    ) -> Extraction:
        """Call the model once and return what it extracted.

        Raises:
            ExtractionError: The answer could not be parsed even after repair.
        """
        messages = self._messages(items)
        if self._structured is not None:
            out = self._structured.invoke(messages)
            parsed = out.get("parsed") if isinstance(out, dict) else out
            if isinstance(parsed, Extraction):
                return parsed
            if isinstance(parsed, dict):
                return extraction_from_dict(parsed)
            raw = out.get("raw") if isinstance(out, dict) else None
            return self._from_message(raw)
        return self._from_message(self.model.invoke(messages))

    @staticmethod
    def _from_message(message: Any) -> Extraction:
        if message is None:
            raise ExtractionError("the model returned nothing")
        for call in getattr(message, "tool_calls", None) or []:
            args = call.get("args") if isinstance(call, dict) else None
            if isinstance(args, dict):
                return extraction_from_dict(args)
        content = getattr(message, "content", message)
        if isinstance(content, list):
            content = "".join(
                b if isinstance(b, str) else str(b.get("text", ""))
                for b in content
                if isinstance(b, str | dict)
            )
        return parse_extraction(str(content))
