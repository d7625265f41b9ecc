"""The extract and gate stages: a batch through the extractor, then the confidence gate.

``extract`` shows the extractor the user's current memories the batch may change and keeps
only the ``replaces`` ids it was shown; a batch that fails stays in the backlog (the pointer
stays before it). ``gate`` sends what falls below the confidence threshold (and what did not
validate) to STM pending review, then resolves entities and what the batch supersedes.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.runnables import RunnableConfig

from langgraph_prax_memory.consolidation._base import (
    ConsolidatorBase,
    _State,
    logger,
)
from langgraph_prax_memory.consolidation._candidates import find_candidates, resolve_replaces
from langgraph_prax_memory.consolidation._llm import DEFAULT_MAX_CANDIDATES
from langgraph_prax_memory.consolidation._models import (
    Batch,
    BatchFailure,
    CandidateMemory,
    ConsolidationResult,
    Extraction,
    SourceState,
)
from langgraph_prax_memory.consolidation._resolve import resolve_extraction
from langgraph_prax_memory.errors import MemoryWriteError


class ExtractStage(ConsolidatorBase):
    """The extract and gate stages: the extractor's call, its failures, the confidence gate."""

    def node_extract(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        self.locks.renew(user_id, state["lock_token"] or "")
        index = state["index"]
        batch = state["plan"][index]
        result.extractor_calls += 1
        extractor: Any = self.extractor
        sees = bool(getattr(extractor, "sees_candidates", False))
        candidates: list[CandidateMemory] = []
        if sees:  # the user's current memories the batch may change (shown with short ids)
            limit = int(getattr(extractor, "max_candidates", DEFAULT_MAX_CANDIDATES))
            try:
                candidates = find_candidates(self.parts, user_id, batch.texts, limit=limit)
            except Exception as exc:
                logger.warning(
                    "current memories of %r unavailable to the extractor (%s); extracting "
                    "without them",
                    user_id,
                    exc,
                )
        try:
            if sees:
                extraction = extractor.extract(
                    batch.texts, times=batch.times, candidates=candidates
                )
            else:
                extraction = extractor.extract(batch.texts, times=batch.times)
        except Exception as exc:
            result.answers_cut += int(getattr(exc, "cut", 0) or 0)
            return self._failed(state, result, batch, exc)
        result.answers_cut += extraction.cut
        # only the short ids shown resolve (invented ids, other users' ids: ignored)
        extraction, ignored = resolve_replaces(extraction, candidates)
        if ignored:
            result.replaces_ignored += len(ignored)
            logger.warning(
                "extraction of %r named %d memory id(s) in `replaces` that were not shown to "
                "it (ignored): %s",
                user_id,
                len(ignored),
                ", ".join(sorted(set(ignored)))[:300],
            )
        # a model that states `replaces` (even []) has judged the memories it was shown:
        # the old target's name no longer retires those (see _supersede.py)
        engaged = any("replaces" in f.model_fields_set for f in extraction.facts)
        judged = [c.memory_id for c in candidates] if engaged else []
        return {
            "result": result,
            "extraction": extraction,
            "index": index,
            "candidates": candidates,
            "judged": judged,
        }

    def _failed(
        self, state: _State, result: ConsolidationResult, batch: Batch, exc: Exception
    ) -> dict[str, Any]:
        user_id = state["user_id"]
        result.batches_failed += 1
        result.errors.append(f"extract {batch.source_key}[{batch.start}:{batch.end}]: {exc}")
        st = self.states.load(user_id)
        ss = st.sources.setdefault(batch.source_key, SourceState())
        ss.failed_attempts += 1
        ss.last_error = str(exc)[:500]
        blocked = [*state.get("blocked", []), batch.source_key]
        result.failures.append(
            BatchFailure(
                source_key=batch.source_key,
                start=batch.start,
                end=batch.end,
                lines=batch.lines,
                attempts=ss.failed_attempts,
                reason=ss.last_error,
            )
        )
        # never dropped: the pointer stays before the batch, later batches of the source wait
        stuck = ss.failed_attempts >= self.max_batch_attempts
        if stuck:
            result.batches_stuck += 1
        logger.log(
            logging.ERROR if stuck else logging.WARNING,
            "extraction of batch %s[%d:%d] of %r failed (attempt %d): %s; the pointer stays "
            "before it and its %d line(s) stay in the backlog%s",
            batch.source_key,
            batch.start,
            batch.end,
            user_id,
            ss.failed_attempts,
            exc,
            batch.lines,
            " (it keeps failing: see ConsolidationResult.failures)" if stuck else "",
        )
        self.states.save(user_id, st)
        return {
            "result": result,
            "extraction": None,
            "accepted": None,
            "blocked": blocked,
            "index": state["index"] + 1,
        }

    def node_gate(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        extraction = state["extraction"]
        assert extraction is not None
        user_id = state["user_id"]
        limit = self.confidence_threshold
        accepted = Extraction(
            entities=[e for e in extraction.entities if e.confidence >= limit],
            relations=[r for r in extraction.relations if r.confidence >= limit],
            facts=[f for f in extraction.facts if f.confidence >= limit],
            temporal_events=[e for e in extraction.temporal_events if e.confidence >= limit],
            causal_links=[c for c in extraction.causal_links if c.confidence >= limit],
        )
        review: list[tuple[str, str, float]] = []
        review += [
            (f"Entity: {e.display_name or e.name} ({e.type})", "entity", e.importance)
            for e in extraction.entities
            if e.confidence < limit
        ]
        review += [
            (
                f"Relation: {r.source} {r.type} {r.target}"
                + (f" (replacing {r.supersedes})" if r.supersedes else "")
                + (f" — {r.evidence}" if r.evidence else ""),
                "relation",
                0.5,
            )
            for r in extraction.relations
            if r.confidence < limit
        ]
        shown = {c.memory_id: c.content for c in state.get("candidates") or []}
        review += [
            (
                f.content
                + "".join(f" (would replace: {shown[i]})" for i in f.replaces_ids if i in shown),
                "fact",
                f.importance,
            )
            for f in extraction.facts
            if f.confidence < limit
        ]
        review += [
            (f"Event: {e.description}", "event", e.importance)
            for e in extraction.temporal_events
            if e.confidence < limit
        ]
        review += [
            (f"Cause: {c.cause} → effect: {c.effect}", "causal_link", c.importance)
            for c in extraction.causal_links
            if c.confidence < limit
        ]
        review += [(f"Unparsed: {raw}", "unparsed", 0.5) for raw in extraction.rejected]
        if extraction.rejected:
            result.items_rejected += len(extraction.rejected)
            for raw in extraction.rejected:
                logger.warning(
                    "extracted item of %r rejected (kept for review): %s", user_id, raw[:300]
                )
        for content, kind, importance in review:
            try:
                self.parts.stm.add_pending_review(
                    user_id,
                    content[: self.parts.config.max_content_chars],
                    importance=importance,
                    tags=["consolidation", kind],
                )
                result.pending_review += 1
            except Exception as exc:
                # an item that reaches neither memory nor review would be lost: the batch
                # stays in the backlog (the retry may queue the entries before this one
                # again: a duplicate in review, never a loss)
                logger.error("could not queue a low-confidence %s for review: %s", kind, exc)
                batch = state["plan"][state["index"]]
                return self._failed(
                    state,
                    result,
                    batch,
                    MemoryWriteError(f"pending review write failed ({kind}): {exc}"),
                )
        try:  # aliases → one entity, "now X" → the old value it supersedes (_resolve.py)
            accepted = resolve_extraction(self.parts.graph, user_id, accepted)
        except Exception as exc:  # the graph is down: the batch is written unresolved
            logger.warning("entity resolution of %r skipped: %s", user_id, exc)
        # a fact that replaces a memory closes the edge that memory stated, when the model
        # left `supersedes` out of the batch's relation of that kind (_supersede.py)
        accepted = self._supersedes_from_replaces(user_id, accepted)
        return {"result": result, "accepted": accepted}
