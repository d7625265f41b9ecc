"""The write stage: graph upserts, memory writes, supersession of memories, near-duplicates."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from langchain_core.runnables import RunnableConfig
from qdrant_client import models as qm

from langgraph_prax_memory._validation import to_utc, utcnow
from langgraph_prax_memory.consolidation._base import (
    _HISTORICAL,
    _NUMBER,
    _SKIPPED,
    MAX_MERGED_EVIDENCE,
    MAX_RETRY_MEMORIES,
    MAX_SPANS,
    NEAR_DUPLICATE_COSINE,
    SPANS_PROPERTY,
    _cosine,
    _State,
    _words,
    _Written,
    address,
    logger,
)
from langgraph_prax_memory.consolidation._models import (
    Batch,
    ConsolidationResult,
    Extraction,
    GraphRetry,
    InFlight,
    SourceState,
)
from langgraph_prax_memory.consolidation._smalltalk import DROP_CONFIDENCE, without_small_talk
from langgraph_prax_memory.consolidation._statements import (
    STATEMENTS_KEY,
    TENTATIVE_KEY,
    by_statement,
)
from langgraph_prax_memory.consolidation._supersede import SupersedeStage
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    EmbeddingError,
    MemoryValidationError,
    MemoryWriteError,
)
from langgraph_prax_memory.graph import DEFAULT_ENTITY_TYPE, canonical_name
from langgraph_prax_memory.retrieval import ltm_filter, validity_filter
from langgraph_prax_memory.vectors import content_hash


def _same_value(a: str, b: str) -> bool:
    """Whether one canonical name is the other plus words ("dracula" / "dracula theme")."""
    return a.startswith(b + " ") or b.startswith(a + " ")


class WriteStage(SupersedeStage):
    """The write stage: graph upserts, memory writes, supersession of memories, near-duplicates."""

    def node_graph(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        batch = state["plan"][state["index"]]
        accepted = state["accepted"]
        assert accepted is not None
        accepted = address(accepted, batch.texts, batch.times)
        st = self.states.load(user_id)
        ss = st.sources.setdefault(batch.source_key, SourceState())
        inflight = ss.inflight
        if inflight is not None and (inflight.start, inflight.end) == (batch.start, batch.end):
            logger.info(
                "graph upsert of %s[%d:%d] already landed before an interruption; not repeated",
                batch.source_key,
                batch.start,
                batch.end,
            )
            return {"result": result, "accepted": accepted}
        now = state["run_now"]
        when = min(batch.latest_time or now, now)
        timed = batch.latest_time is not None
        failed = self._write_graph(user_id, accepted, when, result, timed=timed)[0]
        ss.inflight = InFlight(start=batch.start, end=batch.end)
        if failed.size:
            # the graph was down: the writes that did not land wait in the state for the
            # next run (like vector memories), the pointer moves on and nothing is lost
            st.retry_graph.append(GraphRetry(extraction=failed, when=when))
            result.graph_queued += failed.size
        self.states.save(user_id, st)
        if failed.size:
            self._trim_graph_queue(user_id)
        return {"result": result, "accepted": accepted}

    def _upsert_graph(
        self, user_id: str, ext: Extraction, when: datetime, result: ConsolidationResult
    ) -> Extraction:
        """:meth:`_write_graph` without the "graph is down" flag."""
        return self._write_graph(user_id, ext, when, result)[0]

    def _write_graph(
        self,
        user_id: str,
        ext: Extraction,
        when: datetime,
        result: ConsolidationResult,
        *,
        timed: bool = True,
    ) -> tuple[Extraction, bool]:
        """Write one batch's graph items: the items that did not land, and "the graph is down".

        An invalid item is counted, logged and dropped (a retry would fail the same way). A
        write that fails because the graph is down or did not land is returned, and once the
        graph is known to be down the remaining items are returned untried. ``timed=False``
        (no item of the batch has a time): a relation whose edge was superseded before and
        is not current stays history unless it states a change itself (``supersedes``), as
        nothing says the statement is newer than the supersession.
        """
        graph = self.parts.graph
        vocab = graph.vocabulary
        down = False
        failed = Extraction()
        lost = False

        def call(what: str, fn: Callable[[], Any]) -> Any:
            nonlocal down, lost
            lost = False
            if down:
                result.graph_errors += 1
                lost = True
                return None
            try:
                return fn()
            except MemoryValidationError as exc:
                result.items_invalid += 1
                logger.warning("rejected an invalid extracted %s: %s", what, exc)
            except (BackendUnavailable, MemoryWriteError) as exc:
                result.graph_errors += 1
                result.errors.append(f"graph {what}: {exc}")
                logger.error("graph write of a %s failed (queued for retry): %s", what, exc)
                down = isinstance(exc, BackendUnavailable)
                lost = True
            return None

        def etype(value: str) -> str:
            return value if value in vocab.entity_types else DEFAULT_ENTITY_TYPE

        def rtype(value: str) -> str:
            return value if value in vocab.relation_types else "related_to"

        p = functools.partial

        def merge_once(ent: Any, name: str) -> Any:
            """``merge_entity`` unless every line naming it was already counted."""
            found = graph.get_entity(user_id, name)
            seen = list(found.entity.properties.get(SPANS_PROPERTY) or []) if found else []
            new = [s for s in ent.spans if s not in seen]
            if found is not None and ent.spans and not new and not ent.properties:
                return _SKIPPED
            props: dict[str, Any] = dict(ent.properties)  # the alias resolver's "aliases"
            if ent.spans:
                props[SPANS_PROPERTY] = (seen + new)[-MAX_SPANS:]
            if found is not None and not new:  # only new aliases: no new mention
                return graph.merge_entity(user_id, name, properties=props, now=when)
            return graph.merge_entity(
                user_id,
                name,
                entity_type=etype(ent.type),
                importance=ent.importance,
                properties=props or None,
                now=when,
            )

        def add_once(rel: Any, kind: str, evidence: str | None) -> Any:
            """``add_relation`` unless it is replayed or older than its edge's supersession.

            Replayed: the graph holds this evidence for the triple already. Older: the edge
            is no longer current and was superseded after this evidence.
            """
            found = graph.get_entity(user_id, rel.source, include_superseded=True)
            src, dst = canonical_name(rel.source), canonical_name(rel.target)
            same = [
                r
                for r in (found.relations if found else [])
                if r.source == src and r.target == dst and r.type == kind
            ]
            if evidence and any(
                evidence in [e.strip() for e in r.evidence.split(";")] for r in same
            ):
                return _SKIPPED
            current = [r for r in same if r.valid_until is None]
            if not current and any(
                r.valid_until is not None and r.valid_until > when for r in same
            ):
                return _HISTORICAL
            if not timed and not current and not rel.supersedes:
                # untimed: not known to be newer than the supersession of this value, or of
                # a longer name of it ("dracula" after "dracula theme" was replaced)
                closed = [
                    r
                    for r in (found.relations if found else [])
                    if r.source == src
                    and r.type == kind
                    and r.valid_until is not None
                    and r.valid_until < when
                    and (r.target == dst or _same_value(r.target, dst))
                ]
                live = {
                    r.target
                    for r in (found.relations if found else [])
                    if r.source == src and r.type == kind and r.valid_until is None
                }
                if any(r.target not in live for r in closed):
                    return _HISTORICAL
            return graph.add_relation(
                user_id,
                rel.source,
                rel.target,
                kind,
                weight=rel.weight,
                evidence=evidence,
                valid_from=rel.valid_from,
                now=when,
            )

        for ent in ext.entities:
            name = (ent.display_name or ent.name).strip()
            done = call("entity", p(merge_once, ent, name))
            if done is _SKIPPED:
                result.graph_unchanged += 1
            elif done is not None:
                result.entities_upserted += 1
            elif lost:
                failed.entities.append(ent)
        for rel in ext.relations:
            kind = rtype(rel.type)
            closing_lost = False
            if rel.supersedes:
                close = p(graph.supersede_relation, user_id, rel.source, rel.supersedes, kind)
                if call("supersession", p(close, now=when)) is not None:
                    result.relations_superseded += 1
                closing_lost = lost
                if rel.supersedes.strip().lower() == rel.target.strip().lower():
                    if closing_lost:  # "no longer likes X": the edge is only closed
                        failed.relations.append(rel)
                    continue
            evidence = (rel.evidence or "")[:2000] or None
            done = call("relation", p(add_once, rel, kind, evidence))
            if done is _SKIPPED or done is _HISTORICAL:
                if done is _SKIPPED:
                    result.graph_unchanged += 1
                else:
                    result.relations_historical += 1
                if closing_lost:
                    failed.relations.append(rel.model_copy(update={"target": rel.supersedes}))
            elif done:
                result.relations_upserted += 1
                if closing_lost:  # only the closing of the old edge is left to do
                    failed.relations.append(rel.model_copy(update={"target": rel.supersedes}))
            elif lost or closing_lost:
                # retry what did not land: the add (and the closing, if that failed too)
                failed.relations.append(
                    rel if closing_lost else rel.model_copy(update={"supersedes": None})
                )
        for ev in ext.temporal_events:
            event = p(graph.merge_temporal_event, user_id, ev.description)
            done = call(
                "event",
                p(
                    event,
                    participants=ev.participants,
                    occurred_at=ev.occurred_at,
                    importance=ev.importance,
                    now=when,
                ),
            )
            if done is not None:
                result.events_upserted += 1
            elif lost:
                failed.temporal_events.append(ev)
        for c in ext.causal_links:
            link = p(graph.add_causal_link, user_id, c.cause, c.effect)
            done = call(
                "causal link",
                p(
                    link,
                    cause_entities=c.cause_entities,
                    effect_entities=c.effect_entities,
                    importance=c.importance,
                    now=when,
                ),
            )
            if done is not None:
                result.causal_links_upserted += 1
            elif lost:
                failed.causal_links.append(c)
        return failed, down

    def node_vector(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        batch = state["plan"][state["index"]]
        accepted = state["accepted"]
        assert accepted is not None
        now = state["run_now"]
        when = min(batch.latest_time or now, now)
        sups = self._supersessions(user_id, accepted, when, batch)
        if not accepted.facts and not sups:
            return {"result": result}
        items = self._memory_items(user_id, batch, accepted, now, result) if accepted.facts else []
        items = by_statement(self.parts, items, result, drop_confidence=DROP_CONFIDENCE)
        items = without_small_talk(self.parts, items, result)
        try:
            written = self._write_memories(user_id, items, result, batch_time=when)
        except (MemoryWriteError, BackendUnavailable, EmbeddingError) as exc:
            result.memories_failed += len(items)
            result.errors.append(f"vector write: {exc}")
            logger.error(
                "vector write of %d consolidated memories of %r failed (%s); queued for retry",
                len(items),
                user_id,
                exc,
            )
            self._queue_memories(user_id, items)
            return {"result": result}
        result.memories_created += written.created
        result.memories_deduplicated += written.deduplicated
        result.memories_merged += written.merged
        retired: list[str] = []
        replaced = _replacements(items)
        if replaced:  # by id: the memories the model said a fact replaces
            try:
                retired = self._retire_replaced(user_id, replaced, written.landed, result)
            except (MemoryWriteError, BackendUnavailable, EmbeddingError) as exc:
                logger.error(
                    "retiring the memories replaced by %d fact(s) of %r failed (%s); queued "
                    "for retry",
                    len(replaced),
                    user_id,
                    exc,
                )
                result.errors.append(f"replaced memories: {exc}")
                # written again (a no-op by content) and retired by the next run's retry
                self._queue_memories(user_id, [i for i in items if i.get("_replaces")])
        judged = state.get("judged") or []
        try:  # by meaning: a new value of a single-valued attribute (docs/consolidation.md)
            replaced_pairs = self.parts.ltm.classes.replace_by_attribute(
                user_id, written.ids, never=[*judged, *written.landed, *retired]
            )
        except (MemoryWriteError, BackendUnavailable, EmbeddingError) as exc:
            logger.error("retiring replaced values of %r failed: %s", user_id, exc)
            result.errors.append(f"replaced values: {exc}")
            replaced_pairs = []
        if replaced_pairs:
            result.memories_superseded += len(replaced_pairs)
            retired = [*retired, *(old for old, _ in replaced_pairs)]
        if sups or retired:
            try:
                self._retire(
                    user_id,
                    sups,
                    written.ids,
                    result,
                    judged=judged,
                    retired=retired,
                )
            except (MemoryWriteError, BackendUnavailable, EmbeddingError) as exc:
                logger.error("marking superseded memories of %r failed: %s", user_id, exc)
                result.errors.append(f"supersession: {exc}")
        return {"result": result}

    def _queue_memories(self, user_id: str, items: list[dict[str, Any]]) -> None:
        """Keep facts whose write (or whose retiring of replaced memories) did not land."""
        st = self.states.load(user_id)
        queue = st.retry_memories + items
        if len(queue) > MAX_RETRY_MEMORIES:
            logger.error(
                "retry queue of %r is full; %d memories dropped",
                user_id,
                len(queue) - MAX_RETRY_MEMORIES,
            )
            queue = queue[-MAX_RETRY_MEMORIES:]
        st.retry_memories = queue
        self.states.save(user_id, st)

    def _memory_items(
        self,
        user_id: str,
        batch: Batch,
        ext: Extraction,
        now: datetime,
        result: ConsolidationResult,
    ) -> list[dict[str, Any]]:
        names = {e.name.lower(): e.display_name or e.name for e in ext.entities}
        for rel in ext.relations:  # endpoints the graph created on the fly
            for end in (rel.source, rel.target, rel.supersedes):
                if end and end.strip():
                    names.setdefault(end.strip().lower(), end.strip())
        wanted: list[list[str]] = []
        for fact in ext.facts:
            listed = list(fact.entities)
            if not listed:
                text = fact.content.lower()
                listed = [
                    n
                    for key, n in names.items()
                    if re.search(r"(?<!\w)" + re.escape(key) + r"(?!\w)", text)
                ]
            wanted.append(listed)
        ids: dict[str, str] = {}
        every = sorted({n for group in wanted for n in group})
        if every:
            try:
                ids = self.parts.graph.entity_ids_for(user_id, every)
            except Exception as exc:
                logger.warning("entity ids for consolidated facts unavailable: %s", exc)
        limit = self.parts.config.max_content_chars
        items: list[dict[str, Any]] = []
        for fact, group in zip(ext.facts, wanted, strict=True):
            known = self._fact_time(fact.source_index, fact.content, batch)
            created = known or now
            entity_ids = sorted({ids[n] for n in group if n in ids})
            text = fact.content.strip()
            whole = len(text) <= limit and len(fact.statements) > 1
            for start in range(0, len(text), limit):
                chunk = text[start : start + limit].strip()
                if not chunk:
                    continue
                items.append(
                    {
                        "content": chunk,
                        "importance": fact.importance,
                        "tags": list(dict.fromkeys(["consolidation", *fact.tags])),
                        "source": "consolidation",
                        "created_at": min(created, now).isoformat(),
                        "entity_ids": entity_ids,
                        "_names": list(group),
                        "_timed": known is not None,
                        **({"_replaces": list(fact.replaces_ids)} if fact.replaces_ids else {}),
                        **({STATEMENTS_KEY: list(fact.statements)} if whole else {}),
                        **(
                            {TENTATIVE_KEY: list(fact.tentative)}
                            if fact.tentative and len(text) <= limit
                            else {}
                        ),
                    }
                )
        return items

    @staticmethod
    def _fact_time(index: int | None, content: str, batch: Batch) -> datetime | None:
        if index is not None and 0 <= index < len(batch.times):
            return batch.times[index]
        words = _words(content)
        best, score = None, 0
        for text, when in zip(batch.texts, batch.times, strict=True):
            overlap = len(words & _words(text))
            if when is not None and overlap > score:
                best, score = when, overlap
        return best or batch.latest_time

    def _write_memories(
        self,
        user_id: str,
        items: list[dict[str, Any]],
        result: ConsolidationResult | None = None,
        *,
        batch_time: datetime | None = None,
    ) -> _Written:
        """Store facts addressed by their content.

        Identical content (per-user hash) is not stored again; a paraphrase of a current
        memory about the same entities (cosine ≥ :data:`NEAR_DUPLICATE_COSINE`) merges into
        it (importance kept at the higher, the new wording kept in its ``evidence``); with
        ``batch_time``, a new memory stating a fact superseded later is stored already marked.
        """
        if not items:
            return _Written()
        store = self.parts.ltm.vectors
        clean = [{k: v for k, v in i.items() if not k.startswith("_")} for i in items]
        hashes = [content_hash(user_id, str(i["content"])) for i in clean]
        existing: dict[str, str] = {}
        for point in store.scroll(
            user_id,
            flt=ltm_filter(user_id, hashes=sorted(set(hashes))),
            limit=len(hashes) * 4,
        ):
            existing.setdefault(str(point.payload.get("content_hash")), point.id)
        fresh: list[int] = []
        taken: set[str] = set()
        for i, h in enumerate(hashes):
            if h not in existing and h not in taken:
                taken.add(h)
                fresh.append(i)
        keep, merged, evidence, into = self._merge_near_duplicates(user_id, clean, fresh)
        ids = self.parts.ltm.remember_many(user_id, [clean[i] for i in keep]) if keep else []
        for i, mid in zip(keep, ids, strict=True):
            if evidence.get(i):
                store.set_payload(user_id, [mid], {"evidence": evidence[i][-MAX_MERGED_EVIDENCE:]})
        if batch_time is not None and ids:
            self._mark_historical(user_id, [items[i] for i in keep], ids, batch_time, result)
        landed = [*ids, *into, *(existing[h] for h in hashes if h in existing)]
        return _Written(
            created=len(ids),
            deduplicated=len(items) - len(fresh),
            merged=merged,
            ids=ids,
            landed=list(dict.fromkeys(landed)),
        )

    def _merge_near_duplicates(
        self, user_id: str, items: list[dict[str, Any]], fresh: list[int]
    ) -> tuple[list[int], int, dict[int, list[str]], list[str]]:
        """Near-duplicates of the fresh items, within the batch and among stored memories.

        Returns (items to write, how many merged, evidence to keep on written items, the ids
        of the stored memories merged into).
        """
        if not fresh:
            return [], 0, {}, []
        try:
            vectors = self.parts.ltm.embeddings.embed_documents(
                [str(items[i]["content"]) for i in fresh]
            )
        except EmbeddingError:
            return fresh, 0, {}, []
        store = self.parts.ltm.vectors
        current = validity_filter(ltm_filter(user_id))
        raw_only = qm.FieldCondition(key="summary_level", match=qm.MatchValue(value="raw"))
        flt = qm.Filter(must=[*(current.must or []), raw_only], must_not=current.must_not)  # type: ignore[misc]
        keep: list[int] = []
        kept_vectors: list[list[float]] = []
        evidence: dict[int, list[str]] = {}
        merged = 0
        into: list[str] = []
        for i, vector in zip(fresh, vectors, strict=True):
            item = items[i]
            ents = sorted(item.get("entity_ids") or [])
            text = str(item["content"])
            numbers = sorted(_NUMBER.findall(text))  # "project 3" is not "project 4"
            twin = next(
                (
                    k
                    for k, other in zip(keep, kept_vectors, strict=True)
                    if sorted(items[k].get("entity_ids") or []) == ents
                    and sorted(_NUMBER.findall(str(items[k]["content"]))) == numbers
                    and _cosine(vector, other) >= NEAR_DUPLICATE_COSINE
                ),
                None,
            )
            if twin is not None:
                evidence.setdefault(twin, []).append(text)
                items[twin]["importance"] = max(
                    float(items[twin].get("importance", 0.5)), float(item.get("importance", 0.5))
                )
                merged += 1
                continue
            stored = next(
                (
                    h
                    for h in store.search_dense(user_id, vector, limit=3, flt=flt)
                    if (h.score or 0.0) >= NEAR_DUPLICATE_COSINE
                    and sorted(h.payload.get("entity_ids") or []) == ents
                    and sorted(_NUMBER.findall(str(h.payload.get("content", "")))) == numbers
                ),
                None,
            )
            if stored is not None:
                kept = list(stored.payload.get("evidence") or [])
                if text not in kept:
                    kept.append(text)
                importance = max(
                    float(stored.payload.get("importance", 0.5)),
                    float(item.get("importance", 0.5)),
                )
                store.set_payload(
                    user_id,
                    [stored.id],
                    {"importance": importance, "evidence": kept[-MAX_MERGED_EVIDENCE:]},
                )
                merged += 1
                into.append(stored.id)
                continue
            keep.append(i)
            kept_vectors.append(list(vector))
        return keep, merged, evidence, into


def _replacements(items: list[dict[str, Any]]) -> list[tuple[list[str], datetime, str]]:
    """(memory ids, when, the new statement) for each item whose fact replaces memories."""
    out: list[tuple[list[str], datetime, str]] = []
    for item in items:
        ids = [str(i) for i in item.get("_replaces") or []]
        if ids:
            when = to_utc(item.get("created_at") or utcnow(), what="created_at")
            out.append((ids, when, str(item["content"])))
    return out
