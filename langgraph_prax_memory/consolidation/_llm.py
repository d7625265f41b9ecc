"""The LLM extractor: one model call within a deadline, its re-ask, and splitting a batch.

The tolerant JSON parse-and-repair path for almost-JSON answers (and reading an answer cut
off) lives in :mod:`._llm_parse`; merging a re-ask, joining split halves and the deadline in
:mod:`._llm_answers`. Their public names (:func:`parse_extraction`,
:func:`extraction_from_dict`, :func:`merge_reask`) are re-exported here. The prompt, its
re-ask and the records the model must return live in
:mod:`langgraph_prax_memory.prompts.extraction` (``EXTRACTION_PROMPT`` and ``REASK_PROMPT``
are re-exported here).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from langgraph_prax_memory.consolidation._batching import EXTRACTION_CHAR_BUDGET
from langgraph_prax_memory.consolidation._llm_answers import (
    _added,
    _Answer,
    _drop_last_item,
    _join,
    _ran_out,
    _with_deadline,
)
from langgraph_prax_memory.consolidation._llm_answers import merge_reask as merge_reask
from langgraph_prax_memory.consolidation._llm_parse import (
    UNKNOWN_KEY,
    _Cut,
    _parse,
)
from langgraph_prax_memory.consolidation._llm_parse import (
    extraction_from_dict as extraction_from_dict,
)
from langgraph_prax_memory.consolidation._llm_parse import (
    parse_extraction as parse_extraction,
)
from langgraph_prax_memory.consolidation._models import (
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
