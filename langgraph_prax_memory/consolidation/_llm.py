"""The LLM extractor and the tolerant JSON parse-and-repair path for almost-JSON answers.

The prompt, its re-ask and the records the model must return live in
:mod:`langgraph_prax_memory.prompts.extraction` (``EXTRACTION_PROMPT`` and ``REASK_PROMPT``
are re-exported here).
"""

from __future__ import annotations

import contextvars
import dataclasses
import importlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

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
    ExtractionTimeout,
    TruncatedAnswerError,
)
from langgraph_prax_memory.errors import ConfigError
from langgraph_prax_memory.prompts.extraction import (
    EXTRACTION_PROMPT,
    REASK_PROMPT,
    CandidateMemory,
    extraction_messages,
    reask_message,
    truncated_reask_message,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "DEFAULT_EXTRACTION_TIMEOUT",
    "DEFAULT_MAX_CANDIDATES",
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

#: Seconds one extraction (the model call, its re-ask and any split) may take by default;
#: ``MemoryConfig.consolidation_extraction_timeout`` sets it for a :class:`Consolidator`.
DEFAULT_EXTRACTION_TIMEOUT = 120.0
#: Current memories shown to the model with each batch (those most similar to its lines).
DEFAULT_MAX_CANDIDATES = 20
#: How many times a batch whose answers keep being cut off is split in halves (at most).
MAX_SPLIT_DEPTH = 3

T = TypeVar("T")


@runtime_checkable
class Extractor(Protocol):
    """Turns the items of one batch into an :class:`Extraction`.

    ``max_chars`` is the extractor's own input cap; batches are cut to exactly that, so nothing
    batched is ever truncated by the extractor. ``extract`` raises :class:`ExtractionError`
    (or any exception) when the batch could not be extracted: the batch is then counted as
    failed and the pointer does not move past it.

    An extractor with a true ``sees_candidates`` attribute is also handed the user's current
    memories most similar to the batch (``extract(..., candidates=[CandidateMemory ...])``)
    and may name, in a fact's ``replaces``, the short ids of those the fact makes untrue
    (:class:`LLMExtractor` does).
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
        merged: dict[str, Any] = {}
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
        if not isinstance(element, dict) or not element:
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
    return _parse(text)[0]


def _parse(text: str) -> tuple[Extraction, _Cut | None]:
    """:func:`parse_extraction`, and where the answer was cut off (``None``: it was not)."""
    if not isinstance(text, str) or not text.strip():
        raise ExtractionError("the model returned an empty answer")
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ExtractionError(f"no JSON in the model's answer: {text[:200]!r}")
    cut = _scan(body[start:])
    if cut is not None and not fenced and _FENCE_OPEN.search(text):
        cut = dataclasses.replace(cut, note="a code fence left open")
    source = cut.prefix if cut is not None else body[start:]
    try:
        loaded = _load_json(source) if source.strip() else {}
    except Exception as exc:  # the repair library gave up
        raise ExtractionError(f"could not repair the model's answer: {exc}") from exc
    if loaded in ({}, []):  # "nothing worth keeping" in its shortest form
        return Extraction(cut=int(cut is not None)), cut
    data = _unwrap(loaded)
    if data is None:
        raise ExtractionError(
            "the answer holds no entities/relations/facts/temporal_events/causal_links: "
            f"{text[:200]!r}"
        )
    extraction = extraction_from_dict(data)
    if cut is not None:
        extraction = extraction.model_copy(update={"cut": 1})
    return extraction, cut


# -- answers cut off before their end ------------------------------------------------------
_FENCE_OPEN = re.compile(r"```")
#: Keys of an extracted item (and their aliases): an object holding one is an item.
_ITEM_KEYS = frozenset(
    {"name", "display_name", "source", "target", "supersedes", "evidence", "content", "fact",
     "text", "description", "occurred_at", "participants", "cause", "effect", "from", "to",
     "subject", "object", "event", "confidence", "importance", "replaces"}
)  # fmt: skip
#: Keys under which a container of items (or the whole extraction) sits.
_CONTAINER_KEYS = frozenset(
    {n for names in _ALIASES.values() for n in names} | set(_WRAPPERS) | {"rejected"}
)
_DELIMITERS = frozenset(",:[]{}") | frozenset(" \t\r\n")


@dataclasses.dataclass(frozen=True)
class _Cut:
    """Where an answer was cut off: what is left of it and what was dropped."""

    prefix: str  # the answer up to the last complete item, closed again
    items: int  # items dropped because they were being written when the answer was cut
    note: str = ""
    capped: bool = False  # the provider says the answer stopped at its output cap

    def describe(self, extraction: Extraction) -> str:
        what = f"{extraction.size} complete item(s) kept"
        if self.items:
            what += ", the item being written when it was cut dropped"
        return what + (f"; {self.note}" if self.note else "")


@dataclasses.dataclass
class _Frame:
    kind: str  # "{" or "["
    slot: int  # where it starts in its parent (an object member: its key)
    in_list: bool
    key: str | None  # the key it is the value of
    keys: set[str] = dataclasses.field(default_factory=set)
    member: int | None = None  # start of the current member / element
    done: bool = False  # the current member's value is complete
    want_key: bool = True  # objects: the next string is a key
    last_key: str | None = None  # objects: the key read last


def _scan(text: str) -> _Cut | None:
    """Whether a JSON(-ish) answer ends before its root closes, and what is whole in it.

    ``None`` when the root container closes (whatever follows is prose). Otherwise the answer
    was cut off: the item being written at the cut (the outermost open object that is an
    element of a list, holds an item's key, or sits under a key that is not a container of
    items; else an unfinished element of a list) is dropped whole, never kept as a fragment
    ("User is", "User's sister"), and the rest is closed again. Tolerates what the repair
    accepts: single quotes, unquoted keys, comments, Python literals.

    Example:
        >>> cut = _scan('{"facts": [{"content": "A."}, {"content": "User is')
        >>> cut.prefix, cut.items
        ('{"facts": [{"content": "A."}]}', 1)
        >>> _scan('{"facts": []} and some prose') is None
        True
    """
    stack: list[_Frame] = []
    i, n = 0, len(text)
    opened = False
    while i < n:
        ch = text[i]
        top = stack[-1] if stack else None
        if ch in " \t\r\n":
            i += 1
            continue
        if ch == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if ch == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if ch in "{[":
            if opened and top is None:
                break  # a second value after the root: prose
            opened = True
            if top is not None and top.member is None:
                top.member = i
            slot = top.member if top is not None and top.member is not None else i
            key = top.last_key if top is not None and top.kind == "{" else None
            stack.append(_Frame(ch, slot, top is not None and top.kind == "[", key))
            i += 1
            continue
        if ch in "}]":
            if not stack:
                break
            stack.pop()
            if not stack:
                return None  # the root closed: the answer is whole
            stack[-1].done = True
            i += 1
            continue
        if top is None:
            break  # not inside JSON at all
        if ch == ",":
            top.member, top.done, top.want_key = None, False, True
            i += 1
            continue
        if ch == ":":
            top.want_key = False
            i += 1
            continue
        is_key = top.kind == "{" and top.want_key
        if top.member is None:
            top.member = i
        if ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                break  # cut inside a string
            word = text[i + 1 : j]
            i = j + 1
        else:
            j = i
            while j < n and text[j] not in _DELIMITERS:
                j += 1
            if j >= n:
                break  # cut inside a bare word or a number: it may be incomplete
            word = text[i:j]
            i = j
        if is_key:
            name = word.strip().lower()
            top.keys.add(name)
            top.last_key = name
            top.want_key = False
        else:
            top.done = True
    if not stack:
        return None if opened else _Cut(prefix="", items=0)
    item = next(
        (
            k
            for k, f in enumerate(stack)
            if f.kind == "{"
            and (
                f.in_list
                or bool(f.keys & _ITEM_KEYS)
                or (f.key is not None and f.key not in _CONTAINER_KEYS)
            )
        ),
        None,
    )
    dropped = 0
    if item is not None:
        cut_at, keep = stack[item].slot, stack[:item]
        dropped = 1
    else:
        inner = stack[-1]
        keep = stack
        if inner.member is not None and not inner.done:
            cut_at = inner.member
            dropped = int(inner.kind == "[")  # an unfinished element: a bare sentence
        else:
            cut_at = n
    prefix = text[:cut_at].rstrip()
    while prefix.endswith(","):
        prefix = prefix[:-1].rstrip()
    if not keep:
        return _Cut(prefix="", items=dropped)
    closing = "".join("}" if f.kind == "{" else "]" for f in reversed(keep))
    return _Cut(prefix=prefix + closing, items=dropped)


def extraction_from_dict(data: dict[str, Any]) -> Extraction:
    """Build an :class:`Extraction` from a loose dict; invalid items land in ``rejected``."""
    if not data:
        return Extraction()
    unwrapped = _unwrap(data) if not _is_extraction(data) else data
    if unwrapped is None:
        raise ExtractionError(f"no extraction keys in {sorted(map(str, data))[:10]}")
    lowered = {str(k).strip().lower(): v for k, v in unwrapped.items()}
    found: dict[str, Any] = {}
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
    merged: dict[str, Any] = {}
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
    return Extraction(**merged, rejected=list(dict.fromkeys(rejected)), cut=first.cut + second.cut)


def _added(first: Extraction, second: Extraction) -> int:
    """Items of ``second`` that ``first`` does not hold (compared as :func:`merge_reask` does)."""
    added = 0
    for kind in _MODELS:
        seen = {_item_key(kind, item) for item in getattr(first, kind)}
        added += sum(_item_key(kind, item) not in seen for item in getattr(second, kind))
    return added


def _join(first: Extraction, second: Extraction, offset: int) -> Extraction:
    """The extractions of two halves of a batch as one (the second's item indices shifted)."""
    facts = [
        f.model_copy(update={"source_index": f.source_index + offset})
        if f.source_index is not None
        else f
        for f in second.facts
    ]
    merged = merge_reask(first, second.model_copy(update={"facts": facts}))
    rejected = list(dict.fromkeys([*first.rejected, *second.rejected]))
    return merged.model_copy(update={"rejected": rejected})


#: ``finish_reason`` / ``stop_reason`` values of providers for an answer cut at its length cap.
_CUT_REASONS = frozenset({"length", "max_tokens", "max_output_tokens", "model_length"})


def _ran_out(message: Any) -> bool:
    """Whether the provider says the answer stopped at its output cap."""
    meta = getattr(message, "response_metadata", None) or {}
    reasons = (meta.get(k) for k in ("finish_reason", "stop_reason", "done_reason"))
    return any(isinstance(r, str) and r.lower() in _CUT_REASONS for r in reasons)


def _drop_last_item(extraction: Extraction) -> Extraction:
    """``extraction`` without its last item in answer order (a cut tool call's last item)."""
    for kind in reversed(tuple(_MODELS)):
        items = getattr(extraction, kind)
        if items:
            return extraction.model_copy(update={kind: items[:-1], "cut": 1})
    return extraction.model_copy(update={"cut": 1})


class _Answer:
    """One model answer: its extraction, its raw text, where it was cut (``None``: whole)."""

    __slots__ = ("cut", "extraction", "raw")

    def __init__(self, extraction: Extraction, raw: str, cut: _Cut | None = None) -> None:
        self.extraction, self.raw, self.cut = extraction, raw, cut


class LLMExtractor:
    """Extraction with any LangChain chat model.

    Structured output (``with_structured_output(Extraction)``) is used when the model supports
    it; otherwise, or when the structured answer does not parse, the answer text goes through
    :func:`parse_extraction` (lenient, ``json_repair``). An unusable answer is re-asked once
    with the error; an answer cut off before its end is re-asked once for a complete one (and
    a batch whose answers keep being cut is split in halves). A model name is built with
    ``init_chat_model`` at ``temperature`` (0.2 by default, the seed's "low tier, temp 0.2");
    an instance is used as configured.

    Args:
        chat_model: A ``BaseChatModel`` or an ``init_chat_model`` string
            (``"openai:gpt-4o-mini"``, ``"ollama:llama3.1"``).
        temperature: Used when building the model from a string.
        max_chars: The input cap (batches are cut to it; longer input is refused).
        structured: Force (True) or skip (False) structured output; None tries it.
        prompt: The system prompt.
        timeout: Seconds one :meth:`extract` may take, re-ask and splits included
            (:data:`DEFAULT_EXTRACTION_TIMEOUT`); after it :class:`ExtractionTimeout` is
            raised and the batch stays in the backlog. ``None``: no limit.
        max_candidates: Current memories shown with each batch so the model can say which a
            new fact replaces (:data:`DEFAULT_MAX_CANDIDATES`; 0 shows none).

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
        timeout: float | None = DEFAULT_EXTRACTION_TIMEOUT,
        max_candidates: int = DEFAULT_MAX_CANDIDATES,
    ) -> None:
        if timeout is not None and not timeout > 0:
            raise ConfigError(f"the extraction timeout must be positive seconds, not {timeout!r}")
        if max_candidates < 0:
            raise ConfigError("max_candidates must be 0 or more")
        self.model = load_chat_model(chat_model, temperature=temperature)
        self.max_chars = max_chars
        self.prompt = prompt
        self.timeout = timeout
        self.max_candidates = max_candidates
        self._structured: Any = None
        self._lock = threading.Lock()
        self._late: Future[Any] | None = None
        if structured is not False:
            try:
                self._structured = self.model.with_structured_output(Extraction, include_raw=True)
            except (NotImplementedError, AttributeError, TypeError, ValueError) as exc:
                if structured:
                    raise ConfigError(f"the chat model has no structured output: {exc}") from exc
                self._structured = None

    @property
    def sees_candidates(self) -> bool:
        """Whether the pipeline should show this extractor the user's current memories."""
        return self.max_candidates > 0

    def _messages(
        self, items: Sequence[str], candidates: Sequence[CandidateMemory] = ()
    ) -> list[tuple[str, str]]:
        text = "\n".join(items)
        if len(text) > self.max_chars:
            logger.warning(
                "extractor input of %d chars over its cap %d was cut", len(text), self.max_chars
            )
            text = text[: self.max_chars]
        shown = list(candidates)[: self.max_candidates]
        return extraction_messages([text], prompt=self.prompt, candidates=shown)

    def extract(
        self,
        items: Sequence[str],
        *,
        times: Sequence[datetime | None] | None = None,
        candidates: Sequence[CandidateMemory] = (),
    ) -> Extraction:
        """Call the model; re-ask once when the answer is not usable or was cut off.

        An answer is re-asked when it holds no recognisable extraction, or when some of its
        items do not validate (the error says which). Items still invalid after the re-ask
        are returned in ``Extraction.rejected`` (the pipeline sends them to pending review).

        An answer cut off before its end (its JSON never closes, or the provider reports its
        output cap) never yields the item being written when it was cut: it is re-asked once
        for a complete answer, which is used when it is whole and brings at least as many new
        items as were cut (a valid item, a cut one and an empty re-ask: the batch stays in
        the backlog, the cut fact with it). When the re-ask is cut off too, a batch of more
        than one item is split in halves, each extracted on its own.

        Args:
            items: The batch's lines.
            times: Their times (unused by the model; the pipeline dates facts).
            candidates: The user's current memories the batch may change, shown with their
                short ids; a fact names those it makes untrue in ``replaces``.

        Raises:
            ExtractionError: Neither answer held an extraction (the batch stays in the
                backlog and the reason is reported on the consolidation result).
            TruncatedAnswerError: The answer was cut off and the re-ask did not complete it.
            ExtractionTimeout: The model did not answer within ``timeout``.
        """
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        return self._extract(list(items), list(candidates), deadline, 0)

    def _extract(
        self,
        items: list[str],
        candidates: list[CandidateMemory],
        deadline: float | None,
        depth: int,
    ) -> Extraction:
        messages = self._messages(items, candidates)
        first: _Answer | None = None
        try:
            first = self._call(messages, deadline)
        except ExtractionTimeout:
            raise
        except ExtractionError as exc:
            raw, error = str(getattr(exc, "raw", "")), str(exc)
        else:
            if first.cut is not None:
                return self._complete(first, messages, items, candidates, deadline, depth)
            raw = first.raw
            bad = [r for r in first.extraction.rejected if not r.startswith(UNKNOWN_KEY)]
            if not bad:
                return first.extraction  # commentary under keys of its own needs no re-ask
            error = "these items did not validate: " + " | ".join(bad)[:1500]
        logger.info("re-asking the extraction model once: %s", error[:300])
        retry = [*messages, ("ai", raw or "(no usable answer)"), reask_message(error)]
        try:
            second = self._call(retry, deadline)
        except ExtractionTimeout:
            raise
        except ExtractionError as exc:
            if first is not None:
                return first.extraction  # its valid items stand; the rest go to review
            raise ExtractionError(f"{error}; after a re-ask: {exc}") from exc
        if first is None:
            if second.cut is not None:
                raise self._cut_error(second, "the re-ask of an unusable answer", cut=1)
            return second.extraction
        # a re-ask cut off still holds only whole items: the first answer was whole
        return merge_reask(first.extraction, second.extraction)

    def _complete(
        self,
        first: _Answer,
        messages: list[tuple[str, str]],
        items: list[str],
        candidates: list[CandidateMemory],
        deadline: float | None,
        depth: int,
    ) -> Extraction:
        """An answer cut off: re-ask once for a complete one, or split the batch."""
        assert first.cut is not None
        said = first.cut.describe(first.extraction)
        logger.warning("the extraction model's answer was cut off (%s); re-asking once", said)
        retry = [*messages, ("ai", first.raw), truncated_reask_message(said)]
        try:
            second = self._call(retry, deadline)
        except ExtractionTimeout:
            raise
        except ExtractionError as exc:
            raise TruncatedAnswerError(
                f"the model's answer was cut off ({said}) and the re-ask was unusable: {exc}",
            ) from exc
        if second.cut is not None:
            if (
                not (first.cut.items or second.cut.items)
                and not (first.cut.capped or second.cut.capped)
                and second.extraction.size
                and not _added(second.extraction, first.extraction)
            ):
                # the same items twice, each answer ending on a whole item with only its
                # closing brackets missing (a model that does not close its JSON)
                return merge_reask(first.extraction, second.extraction)
            if len(items) > 1 and depth < MAX_SPLIT_DEPTH:
                mid = len(items) // 2
                logger.warning(
                    "the re-ask was cut off too; extracting the batch's %d items in two halves",
                    len(items),
                )
                left = self._extract(items[:mid], candidates, deadline, depth + 1)
                right = self._extract(items[mid:], candidates, deadline, depth + 1)
                joined = _join(left, right, mid)
                return joined.model_copy(update={"cut": joined.cut + 2})
            raise self._cut_error(second, f"after an answer cut off ({said}), the re-ask", cut=2)
        got = second.extraction
        if got.size and _added(first.extraction, got) >= first.cut.items:
            return merge_reask(first.extraction, got)
        raise self._cut_error(
            second,
            f"the model's answer was cut off ({said}) and the re-ask did not complete it "
            f"({got.size} item(s), {_added(first.extraction, got)} new)",
            cut=1,
            whole=True,
        )

    @staticmethod
    def _cut_error(
        answer: _Answer, what: str, *, cut: int, whole: bool = False
    ) -> TruncatedAnswerError:
        if whole:
            error = TruncatedAnswerError(f"{what}; the batch stays in the backlog")
        else:
            assert answer.cut is not None
            said = answer.cut.describe(answer.extraction)
            error = TruncatedAnswerError(
                f"{what} was cut off ({said}); the batch stays in the backlog"
            )
        error.cut = cut
        return error

    # -- one model call, with the deadline ---------------------------------------------
    def _call(self, messages: list[tuple[str, str]], deadline: float | None) -> _Answer:
        """:meth:`_ask` within the deadline (a worker thread waited for, never killed)."""
        if deadline is None:
            return self._ask(messages)
        with self._lock:
            late = self._late
            if late is not None and not late.done():
                raise ExtractionTimeout(
                    "an earlier extraction call has not answered yet (a model that stopped "
                    "answering); the batch stays in the backlog"
                )
            self._late = None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ExtractionTimeout(
                f"the extraction took longer than {self.timeout:g} s; "
                "the batch stays in the backlog"
            )
        return _with_deadline(
            lambda: self._ask(messages), remaining, self._remember_late, self.timeout
        )

    def _remember_late(self, future: Future[Any]) -> None:
        with self._lock:
            self._late = future

    def _ask(self, messages: list[tuple[str, str]]) -> _Answer:
        """One model call: the extraction, the answer's raw text, and where it was cut."""
        if self._structured is not None:
            out = self._structured.invoke(messages)
            raw = out.get("raw") if isinstance(out, dict) else None
            if raw is not None:
                # the raw tool call, not the parsed model: a missing confidence must stay
                # "unstated" (pending review), not take the model's default
                return self._from_message(raw)
            parsed = out.get("parsed") if isinstance(out, dict) else out
            if isinstance(parsed, Extraction):
                return _Answer(parsed, parsed.model_dump_json())
            if isinstance(parsed, dict):
                return _Answer(extraction_from_dict(parsed), json.dumps(parsed, default=str))
            raise ExtractionError("the structured model returned nothing")
        return self._from_message(self.model.invoke(messages))

    @staticmethod
    def _from_message(message: Any) -> _Answer:
        if message is None:
            raise ExtractionError("the model returned nothing")
        ran_out = _ran_out(message)
        for call in getattr(message, "tool_calls", None) or []:
            args = call.get("args") if isinstance(call, dict) else None
            if isinstance(args, dict):
                raw = json.dumps(args, default=str)
                try:
                    got = extraction_from_dict(args)
                except ExtractionError as exc:
                    exc.raw = raw  # type: ignore[attr-defined]
                    raise
                if ran_out:  # the provider parsed what it had: its last item may be cut
                    capped = _Cut(prefix=raw, items=1, capped=True)
                    return _Answer(_drop_last_item(got), raw, capped)
                return _Answer(got, raw)
        texts: list[str] = []
        for call in getattr(message, "invalid_tool_calls", None) or []:
            args = call.get("args") if isinstance(call, dict) else None
            if isinstance(args, str) and args.strip():
                texts.append(args)  # arguments that did not parse: often cut off
        content = getattr(message, "content", message)
        if isinstance(content, list):
            content = "".join(
                b if isinstance(b, str) else str(b.get("text", ""))
                for b in content
                if isinstance(b, str | dict)
            )
        text = texts[0] if texts and not str(content).strip() else str(content)
        try:
            got, cut = _parse(text)
        except ExtractionError as exc:
            exc.raw = text  # type: ignore[attr-defined]
            raise
        if ran_out:
            note = "the provider reports its output cap"
            cut = dataclasses.replace(cut or _Cut(prefix=text, items=0), note=note, capped=True)
            got = got.model_copy(update={"cut": 1})
        return _Answer(got, text, cut)


def _with_deadline(
    call: Callable[[], T],
    timeout: float,
    on_late: Callable[[Future[Any]], None],
    budget: float | None,
) -> T:
    """``call()`` in a daemon thread, waited for at most ``timeout`` seconds.

    A call that outlives it is handed to ``on_late`` (it finishes, or fails, on its own) and
    :class:`ExtractionTimeout` is raised. The context (LangChain callbacks, tracing) is kept.
    """
    future: Future[Any] = Future()
    context = contextvars.copy_context()

    def work() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(context.run(call))
        except BaseException as exc:  # handed to the caller through the future
            future.set_exception(exc)

    threading.Thread(target=work, name="prax-extraction", daemon=True).start()
    try:
        result: T = future.result(timeout=timeout)
    except FutureTimeout:
        on_late(future)
        raise ExtractionTimeout(
            f"the extraction model gave no answer within {budget or timeout:g} s; "
            "the batch stays in the backlog"
        ) from None
    return result
