"""Tolerant parsing of the extraction model's answers, and reading an answer cut off.

:func:`parse_extraction` repairs almost-JSON answers, unwraps their common shapes and maps
alias keys; :func:`_scan` finds where an answer was cut off and keeps its whole items only.
:class:`~langgraph_prax_memory.consolidation._llm.LLMExtractor` (``_llm``) calls them and
re-exports the public names.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import json_repair
from pydantic import BaseModel, ValidationError

from langgraph_prax_memory.consolidation._models import (
    ExtractedCausalLink,
    ExtractedEntity,
    ExtractedEvent,
    ExtractedFact,
    ExtractedRelation,
    Extraction,
    ExtractionError,
)

__all__ = ["UNKNOWN_KEY", "extraction_from_dict", "parse_extraction"]

#: The extractor's logger (the name it had when this lived in ``_llm``).
logger = logging.getLogger("langgraph_prax_memory.consolidation._llm")


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
        # set by the pipeline, not the model
        for internal in ("replaces_ids", "statements", "tentative"):
            data.pop(internal, None)
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
