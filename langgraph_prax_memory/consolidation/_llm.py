"""The LLM extractor and the tolerant JSON parse-and-repair path for almost-JSON answers.

The prompt, its re-ask and the records the model must return live in
:mod:`langgraph_prax_memory.prompts.extraction` (``EXTRACTION_PROMPT`` and ``REASK_PROMPT``
are re-exported here).
"""

from __future__ import annotations

import importlib
import json
import logging
import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import json_repair
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
from langgraph_prax_memory.prompts.extraction import (
    EXTRACTION_PROMPT,
    REASK_PROMPT,
    extraction_messages,
    reask_message,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "EXTRACTION_PROMPT",
    "REASK_PROMPT",
    "Extractor",
    "LLMExtractor",
    "extraction_from_dict",
    "load_chat_model",
    "merge_reask",
    "parse_extraction",
]

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
_ALIASES = {
    "entities": ("entities", "entity", "nodes"),
    "relations": ("relations", "relationships", "edges", "relation"),
    "facts": ("facts", "key_facts", "memories", "facts_list"),
    "temporal_events": ("temporal_events", "events", "temporal"),
    "causal_links": ("causal_links", "causal", "causes", "causal_relations"),
}
#: Keys a model wraps the extraction in (``{"result": {...}}``, ``{"data": [...]}``).
_WRAPPERS = ("result", "results", "data", "extraction", "output", "response", "answer", "memory")
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
#: What an item of a bare top-level list looks like, by kind (first match wins).
_ITEM_SHAPES = (
    ("relations", ("source", "target")),
    ("relations", ("from", "to")),
    ("relations", ("subject", "object")),
    ("causal_links", ("cause", "effect")),
    ("temporal_events", ("description",)),
    ("temporal_events", ("occurred_at",)),
    ("facts", ("content",)),
    ("facts", ("fact",)),
    ("entities", ("name",)),
)


def _kind_of(item: dict[str, Any]) -> str | None:
    keys = {str(k).strip().lower() for k in item}
    for kind, needed in _ITEM_SHAPES:
        if all(n in keys for n in needed):
            return kind
    return None


def _is_extraction(data: dict[str, Any]) -> bool:
    """Whether ``data`` holds extraction lists (not a single item such as a relation)."""
    for key, value in data.items():
        name = str(key).strip().lower()
        if name in _ALIASES:
            return True
        if isinstance(value, list | dict) and any(name in n for n in _ALIASES.values()):
            return True
    return False


def _unwrap(data: Any, depth: int = 0) -> dict[str, Any] | None:
    """The extraction dict inside a model's answer, whatever common shape it came in.

    Accepted: the object itself; a wrapper (``{"result": {...}}``, ``{"data": ...}``, also
    holding a JSON string); a top-level list of partial objects (merged) or of bare items
    (sorted into kinds by their keys: ``source``/``target`` → relations, ``content`` →
    facts ...). ``None`` when no extraction can be recognised.
    """
    if depth > 4:
        return None
    if isinstance(data, str):
        text = data.strip()
        if not text or text[0] not in "{[":
            return None
        return _unwrap(json_repair.loads(text), depth + 1)
    if isinstance(data, dict):
        if _is_extraction(data):
            return data
        lowered = {str(k).strip().lower(): v for k, v in data.items()}
        for key in _WRAPPERS:
            if key in lowered:
                inner = _unwrap(lowered[key], depth + 1)
                if inner is not None:
                    return inner
        if len(data) == 1:  # any single wrapper key
            return _unwrap(next(iter(data.values())), depth + 1)
        kind = _kind_of(data)
        return {kind: [data]} if kind else None
    if isinstance(data, list):
        merged: dict[str, list[Any]] = {}
        for element in data:
            if isinstance(element, dict) and _is_extraction(element):
                for key, value in element.items():
                    values = value if isinstance(value, list) else [value]
                    merged.setdefault(str(key).strip().lower(), []).extend(values)
                continue
            if isinstance(element, dict):
                kind = _kind_of(element)
            elif isinstance(element, str) and element.strip():
                kind = "facts"  # a bare list of sentences is a list of facts
            else:
                kind = None
            if kind is None:
                merged.setdefault("_unknown", []).append(element)
            else:
                merged.setdefault(kind, []).append(element)
        if not merged or set(merged) == {"_unknown"}:
            return None
        return merged
    return None


#: Prefix of a rejected entry that is a top-level key outside the schema (sent to review).
UNKNOWN_KEY = "unknown key "


def _flatten(items: list[Any]) -> Iterator[Any]:
    for element in items:
        if isinstance(element, list) and element and all(isinstance(e, dict) for e in element):
            yield from _flatten(element)
        else:
            yield element


def _merge_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose repeated keys keep every list (``{"facts": [a], "facts": [b]}``)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key not in out:
            out[key] = value
            continue
        old = out[key]
        if isinstance(old, list) or isinstance(value, list):
            out[key] = (old if isinstance(old, list) else [old]) + (
                value if isinstance(value, list) else [value]
            )
        elif isinstance(old, dict) and isinstance(value, dict):
            out[key] = [old, value]
        else:
            out[key] = value
    return out


def _load_json(body: str) -> Any:
    """The JSON value at the start of ``body``.

    Strict JSON first (repeated keys merged), else repaired by ``json_repair`` (which keeps
    only the last of repeated keys).
    """
    try:
        value, _ = json.JSONDecoder(object_pairs_hook=_merge_duplicates).raw_decode(body)
        return value
    except ValueError:
        return json_repair.loads(body)


def _coerce_items(kind: str, raw: Any) -> tuple[list[Any], list[str]]:
    """Validated items of one kind and the raw JSON of those that did not validate."""
    if raw is None:
        return [], []
    if (
        isinstance(raw, dict)
        and raw
        and all(isinstance(v, dict) for v in raw.values())
        and _MODELS[kind].model_fields.keys().isdisjoint(str(k).lower() for k in raw)
    ):
        raw = list(raw.values())  # items keyed by an id: {"f1": {...}, "f2": {...}}
    if isinstance(raw, dict | str):
        raw = [raw]
    if isinstance(raw, list):
        raw = list(_flatten(raw))  # [[{...}, {...}]]: a list wrapped once too often
    if not isinstance(raw, list):
        return [], [json.dumps(raw, default=str)[:2000]]
    model = _MODELS[kind]
    renames = _FIELD_ALIASES.get(kind, {})
    out: list[Any] = []
    rejected: list[str] = []
    for element in raw:
        if isinstance(element, str) and kind in _STRING_FIELD:
            element = {_STRING_FIELD[kind]: element}
        if not isinstance(element, dict):
            if element not in (None, "", [], {}):
                rejected.append(f"{kind}: {json.dumps(element, default=str)[:2000]}")
            continue
        data = {str(k).strip().lower(): v for k, v in element.items()}
        for old, new in renames.items():
            if old in data and new not in data:
                data[new] = data.pop(old)
        data.setdefault("confidence", None)  # unstated → UNSTATED_CONFIDENCE → review
        try:
            out.append(model.model_validate(data))
        except ValidationError as exc:
            errors = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
            )
            rejected.append(f"{kind}: {json.dumps(element, default=str)[:2000]} ({errors})")
    return out, rejected


def parse_extraction(text: str) -> Extraction:
    r"""Parse an extraction from a model's answer, leniently.

    The answer is repaired by ``json_repair`` (code fences, prose around the object,
    comments, trailing commas, unquoted keys, single quotes, Python literals, a truncated
    tail), then unwrapped from the common shapes (a top-level list, ``{"result": ...}`` /
    ``{"data": ...}`` wrappers, a JSON string inside JSON) and mapped through alias keys
    (``relationships``, ``key_facts``, ``events`` ...; ``from``/``to``). Items that do not
    validate are listed in ``Extraction.rejected`` with the reason (the pipeline sends them to
    pending review), never silently dropped. A confidence that is missing or not a number
    becomes :data:`UNSTATED_CONFIDENCE` (pending review).

    Raises:
        ExtractionError: No extraction could be recognised in the answer at all.

    Example:
        >>> answer = "Sure! ```json
    {'facts': [{'content': 'Alice likes tea', 'confidence': 0.9},],}
    ```"
        >>> parse_extraction(answer).facts[0].content
        'Alice likes tea'
    """
    if not isinstance(text, str) or not text.strip():
        raise ExtractionError("the model returned an empty answer")
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ExtractionError(f"no JSON in the model's answer: {text[:200]!r}")
    try:
        loaded = _load_json(body[start:])
    except Exception as exc:  # the repair library gave up
        raise ExtractionError(f"could not repair the model's answer: {exc}") from exc
    if loaded in ({}, []):  # "nothing worth keeping" in its shortest form
        return Extraction()
    data = _unwrap(loaded)
    if data is None:
        raise ExtractionError(
            "the answer holds no entities/relations/facts/temporal_events/causal_links: "
            f"{text[:200]!r}"
        )
    return extraction_from_dict(data)


def extraction_from_dict(data: dict[str, Any]) -> Extraction:
    """Build an :class:`Extraction` from a loose dict; invalid items land in ``rejected``."""
    if not data:
        return Extraction()
    unwrapped = _unwrap(data) if not _is_extraction(data) else data
    if unwrapped is None:
        raise ExtractionError(f"no extraction keys in {sorted(map(str, data))[:10]}")
    lowered = {str(k).strip().lower(): v for k, v in unwrapped.items()}
    found: dict[str, list[Any]] = {}
    rejected: list[str] = []
    for kind, names in _ALIASES.items():
        items: list[Any] = []
        for name in names:
            if name in lowered:
                got, bad = _coerce_items(kind, lowered[name])
                items.extend(got)
                rejected.extend(bad)
        found[kind] = items
    for element in lowered.get("_unknown", []):
        rejected.append(f"unknown: {json.dumps(element, default=str)[:2000]}")
    known = {n for names in _ALIASES.values() for n in names} | {"_unknown", "rejected"}
    for key, value in lowered.items():  # "notes", "summary" ...: kept for review, not lost
        if key not in known and value not in (None, "", [], {}):
            rejected.append(f"{UNKNOWN_KEY}{key}: {json.dumps(value, default=str)[:2000]}")
    if rejected:
        logger.warning(
            "extraction: %d item(s) of the model's answer did not validate", len(rejected)
        )
    return Extraction(**found, rejected=rejected)


def _item_key(kind: str, item: BaseModel) -> str:
    data = item.model_dump(
        include={"name", "source", "type", "target", "content", "description", "cause", "effect"}
    )
    return (
        kind
        + ":"
        + json.dumps({k: " ".join(str(v).lower().split()) for k, v in data.items()}, sort_keys=True)
    )


def merge_reask(first: Extraction, second: Extraction) -> Extraction:
    """What a re-ask leaves: the first answer's valid items, and the second's on top.

    A re-ask is asked to fix the items of ``first`` that did not validate; its answer never
    *replaces* the first one, so a valid item of the first answer is not lost when the re-ask
    omits it (or comes back empty). The first answer's rejected items stand (for review)
    unless the re-ask brought at least as many new valid items as were rejected.

    Example:
        >>> from langgraph_prax_memory.consolidation._models import ExtractedFact
        >>> first = Extraction(facts=[ExtractedFact(content="Bob uses Rust", confidence=0.9)],
        ...                    rejected=['facts: {"cont'])
        >>> out = merge_reask(first, Extraction())
        >>> [f.content for f in out.facts], out.rejected
        (['Bob uses Rust'], ['facts: {"cont'])
    """
    merged: dict[str, list[Any]] = {}
    added = 0
    for kind in _MODELS:
        seen: dict[str, Any] = {}
        for item in getattr(first, kind):
            seen.setdefault(_item_key(kind, item), item)
        for item in getattr(second, kind):
            key = _item_key(kind, item)
            if key not in seen:
                seen[key] = item
                added += 1
        merged[kind] = list(seen.values())
    fixed = added >= len(first.rejected)
    rejected = list(second.rejected) if fixed else [*first.rejected, *second.rejected]
    return Extraction(**merged, rejected=list(dict.fromkeys(rejected)))


class LLMExtractor:
    """Extraction with any LangChain chat model.

    Structured output (``with_structured_output(Extraction)``) is used when the model supports
    it; otherwise, or when the structured answer does not parse, the answer text goes through
    :func:`parse_extraction` (lenient, ``json_repair``). An unusable answer is re-asked once
    with the error. A model name is built with ``init_chat_model`` at ``temperature``
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
        return extraction_messages([text], prompt=self.prompt)

    def extract(
        self, items: Sequence[str], *, times: Sequence[datetime | None] | None = None
    ) -> Extraction:
        """Call the model; re-ask once with the error when the answer is not usable.

        An answer is re-asked when it holds no recognisable extraction, or when some of its
        items do not validate (the error says which). Items still invalid after the re-ask
        are returned in ``Extraction.rejected`` (the pipeline sends them to pending review).

        Raises:
            ExtractionError: Neither answer held an extraction (the batch stays in the
                backlog and the reason is reported on the consolidation result).
        """
        messages = self._messages(items)
        first: Extraction | None = None
        try:
            first, raw = self._ask(messages)
        except ExtractionError as exc:
            raw, error = str(getattr(exc, "raw", "")), str(exc)
        else:
            if not [r for r in first.rejected if not r.startswith(UNKNOWN_KEY)]:
                return first  # commentary under keys of its own needs no re-ask
            error = "these items did not validate: " + " | ".join(first.rejected)[:1500]
        logger.info("re-asking the extraction model once: %s", error[:300])
        retry = [
            *messages,
            ("ai", raw or "(no usable answer)"),
            reask_message(error),
        ]
        try:
            second, _ = self._ask(retry)
        except ExtractionError as exc:
            if first is not None:
                return first  # the first answer's valid items stand; the rest go to review
            raise ExtractionError(f"{error}; after a re-ask: {exc}") from exc
        if first is None:
            return second
        return merge_reask(first, second)

    def _ask(self, messages: list[tuple[str, str]]) -> tuple[Extraction, str]:
        """One model call: the extraction and the answer's raw text (for a re-ask)."""
        if self._structured is not None:
            out = self._structured.invoke(messages)
            raw = out.get("raw") if isinstance(out, dict) else None
            if raw is not None:
                # the raw tool call, not the parsed model: a missing confidence must stay
                # "unstated" (pending review), not take the model's default
                return self._from_message(raw)
            parsed = out.get("parsed") if isinstance(out, dict) else out
            if isinstance(parsed, Extraction):
                return parsed, parsed.model_dump_json()
            if isinstance(parsed, dict):
                return extraction_from_dict(parsed), json.dumps(parsed, default=str)
            raise ExtractionError("the structured model returned nothing")
        return self._from_message(self.model.invoke(messages))

    @staticmethod
    def _from_message(message: Any) -> tuple[Extraction, str]:
        if message is None:
            raise ExtractionError("the model returned nothing")
        for call in getattr(message, "tool_calls", None) or []:
            args = call.get("args") if isinstance(call, dict) else None
            if isinstance(args, dict):
                raw = json.dumps(args, default=str)
                try:
                    return extraction_from_dict(args), raw
                except ExtractionError as exc:
                    exc.raw = raw  # type: ignore[attr-defined]
                    raise
        content = getattr(message, "content", message)
        if isinstance(content, list):
            content = "".join(
                b if isinstance(b, str) else str(b.get("text", ""))
                for b in content
                if isinstance(b, str | dict)
            )
        text = str(content)
        try:
            return parse_extraction(text), text
        except ExtractionError as exc:
            exc.raw = text  # type: ignore[attr-defined]
            raise
