"""What the extractor does with its model's answers: merge a re-ask, join halves, a deadline.

:func:`merge_reask` keeps a first answer's valid items under a re-ask's; :func:`_join` puts
the extractions of a split batch together; :class:`_Answer` is one model answer and where it
was cut; :func:`_with_deadline` waits for a model call at most so long. Used by
:class:`~langgraph_prax_memory.consolidation._llm.LLMExtractor` (``_llm``).
"""

from __future__ import annotations

import contextvars
import json
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from pydantic import BaseModel

from langgraph_prax_memory.consolidation._llm_parse import _MODELS, _Cut
from langgraph_prax_memory.consolidation._models import Extraction, ExtractionTimeout

__all__ = ["merge_reask"]

T = TypeVar("T")


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
