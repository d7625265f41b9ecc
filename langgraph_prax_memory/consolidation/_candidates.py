"""The memories a batch may change: shown to the model, named back by short id (issue 38).

Before an extractor that ``sees_candidates`` reads a batch, the pipeline looks up the user's
*current* raw memories most similar to the batch's lines (dense, per line, plus a keyword
search over the whole batch), lists them in the prompt as ``m1``, ``m2`` ... and keeps the
map from short id to memory id. A fact of the answer names in ``replaces`` the short ids of
the memories it makes untrue; :func:`resolve_replaces` turns them back into memory ids.
Only ids that were shown resolve: an id the model invents, a malformed one, or the id of a
memory of another user (which no lookup here can return: every read is scoped by
``user_id``) is ignored and counted.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from qdrant_client import models as qm

from langgraph_prax_memory._validation import to_utc
from langgraph_prax_memory.consolidation._models import Extraction
from langgraph_prax_memory.errors import EmbeddingError
from langgraph_prax_memory.prompts.extraction import CandidateMemory
from langgraph_prax_memory.retrieval import ltm_filter, validity_filter
from langgraph_prax_memory.vectors import StoredPoint

if TYPE_CHECKING:
    from langgraph_prax_memory._parts import MemoryParts

__all__ = ["find_candidates", "resolve_replaces"]

logger = logging.getLogger(__name__)

#: Dense hits looked up per line of the batch.
PER_LINE = 4
#: Lines of a batch looked up one by one (the longest, when it has more).
MAX_LINES = 24
_SPEAKER = re.compile(r"^\s*(?:\d{4}-\d\d-\d\dT\S+\s+)?[\w .'-]{1,40}:\s+")


def _current_raw(user_id: str) -> qm.Filter:
    base = validity_filter(ltm_filter(user_id))
    raw = qm.FieldCondition(key="summary_level", match=qm.MatchValue(value="raw"))
    return qm.Filter(must=[*(base.must or []), raw], must_not=base.must_not)  # type: ignore[misc]


def find_candidates(
    parts: MemoryParts, user_id: str, texts: Sequence[str], *, limit: int
) -> list[CandidateMemory]:
    """The user's current raw memories most similar to the batch, as short-id candidates.

    Each line (its speaker prefix dropped) is searched on the dense vectors, and the whole
    batch on the keyword vectors; a memory's rank is its best score. Every search is scoped
    by ``user_id`` and reads only current (not superseded) raw memories (no summaries).

    Raises:
        BackendUnavailable: The vector store is down (the caller extracts without
            candidates).
    """
    lines = list(dict.fromkeys(_SPEAKER.sub("", t).strip() for t in texts if t.strip()))
    lines = [line for line in lines if line]
    if not lines or limit <= 0:
        return []
    if len(lines) > MAX_LINES:
        lines = sorted(lines, key=len, reverse=True)[:MAX_LINES]
    store = parts.ltm.vectors
    flt = _current_raw(user_id)
    best: dict[str, tuple[float, StoredPoint]] = {}

    def keep(point: StoredPoint, score: float) -> None:
        if point.payload.get("user_id") != user_id:  # never: the store is scoped; kept loud
            logger.error("a candidate of another user was returned and is ignored")
            return
        old = best.get(point.id)
        if old is None or score > old[0]:
            best[point.id] = (score, point)

    try:
        for line in lines:
            vector = parts.ltm.embeddings.embed_query(line)
            for point in store.search_dense(user_id, vector, limit=PER_LINE, flt=flt):
                keep(point, float(point.score or 0.0))
    except EmbeddingError as exc:
        logger.info("dense candidates of a batch unavailable: %s", exc)
    sparse = parts.ltm.sparse_encoder.embed_query(" ".join(lines))
    for rank, point in enumerate(store.search_sparse(user_id, sparse, limit=limit, flt=flt)):
        keep(point, -1.0 - rank)  # not a cosine: a keyword-only match ranks after dense ones
    ranked = sorted(best.values(), key=lambda pair: -pair[0])[:limit]
    out: list[CandidateMemory] = []
    for i, (_, point) in enumerate(ranked, start=1):
        created = point.payload.get("created_ts")
        out.append(
            CandidateMemory(
                id=f"m{i}",
                memory_id=point.id,
                content=str(point.payload.get("content", "")),
                created_at=to_utc(float(created)) if created is not None else None,
            )
        )
    return out


def resolve_replaces(
    extraction: Extraction, candidates: Sequence[CandidateMemory]
) -> tuple[Extraction, list[str]]:
    """Set each fact's ``replaces_ids`` from its ``replaces`` and the candidates shown.

    Whatever the answer put in ``replaces_ids`` is overwritten; a short id that was not shown
    is returned in the second list (ignored, for the count and the log).

    Example:
        >>> from langgraph_prax_memory.consolidation._models import ExtractedFact
        >>> shown = [CandidateMemory(id="m1", memory_id="a1", content="User lives in Lisbon.")]
        >>> fact = ExtractedFact(content="User lives in Berlin.", replaces=["m1", "m7"],
        ...                      replaces_ids=["someone-elses-id"])
        >>> out, ignored = resolve_replaces(Extraction(facts=[fact]), shown)
        >>> out.facts[0].replaces_ids, ignored
        (['a1'], ['m7'])
    """
    known = {c.id: c.memory_id for c in candidates}
    ignored: list[str] = []
    facts = []
    for fact in extraction.facts:
        ids: list[str] = []
        for short in fact.replaces:
            memory_id = known.get(short)
            if memory_id is None:
                ignored.append(short)
            elif memory_id not in ids:
                ids.append(memory_id)
        facts.append(fact.model_copy(update={"replaces_ids": ids}))
    return extraction.model_copy(update={"facts": facts}), ignored
