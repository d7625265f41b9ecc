"""Memory classes and attributes on a long-term memory: classify, upgrade, replace.

:class:`MemoryClasses` is the long-term memory's service for issues 37 and 38: every memory
written gets its class (standing fact, episode, small talk) and keyword terms
(:meth:`MemoryClasses.annotate`), memories written before classes existed get theirs
(:meth:`MemoryClasses.upgrade`), and a newer value of a single-valued attribute retires the
older ones (:meth:`MemoryClasses.replace_by_attribute`). The models themselves live in
:mod:`langgraph_prax_memory.facts`.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from qdrant_client.http import models

from langgraph_prax_memory._dated import DATED_FIELDS, dated_fields
from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._validation import check_user_id, to_utc
from langgraph_prax_memory.errors import BackendUnavailable, ConfigError, MemoryWriteError
from langgraph_prax_memory.facts import (
    CLASS_FIELDS,
    EPISODE,
    SMALL_TALK,
    STANDING,
    AttributeModel,
    FactClass,
    FactClassifier,
    QuestionReader,
    Reading,
    Statement,
    resolve_class,
    without_speaker,
)
from langgraph_prax_memory.retrieval import (
    HISTORY_FIELD,
    ltm_filter,
    validity_filter,
)
from langgraph_prax_memory.vectors import QdrantVectorStore, payloads_plan, user_filter


class _LongTermMemory(Protocol):
    """What the service reads of its long-term memory (no import cycle with ``ltm``)."""

    @property
    def dense(self) -> Any: ...

    @property
    def sparse(self) -> Any: ...

    @property
    def config(self) -> Any: ...

    @property
    def retrieval_config(self) -> Any: ...

    def store(self) -> QdrantVectorStore: ...


__all__ = ["CLASSES_KEY", "CLASSES_VERSION", "MemoryClasses"]

logger = logging.getLogger(__name__)
_CHUNK = 256
#: The payload fields of the days a memory names (:func:`dated_fields`).
_DATED_KEYS = ("when_start", "when_end", "weekdays")
#: Collection metadata key recording that every memory has its class (:meth:`upgrade`).
CLASSES_KEY = "prax_fact_classes"
#: 2: memories also record the days they name (the dated tier); 3: a memory the text reading
#: called an episode or small talk is read again for a main clause that holds now (the grammar);
#: 4: read again as the grammar reads since session 9 (a note without its subject, a name the
#: parser never saw, a time months ahead dating its clause only); 5: the days each memory
#: names read again (session 12: ranges, a day in its month or week, next week's weekday);
#: 6: a bare weekday in brackets after a recurring one is the routine's (session 13), and an
#: episode by days no longer read is read again as a text; 7: a weekday is read in the tense of
#: its own clause (session 14), so an episode by its days is a plan or an event as read now
CLASSES_VERSION = 7


def _dated(payload: dict[str, Any]) -> bool:
    """Whether a stored memory records days it names."""
    return payload.get("when_start") is not None


def _term_text(payload: dict[str, Any]) -> str:
    """The text a memory's ``terms`` come from: its indexed text less its speaker labels.

    A conversation turn's label ("Melanie: ...") and its context's say who spoke, not what
    the memory says: counted, each speaker of a conversation would seem to be in (nearly)
    every memory, and their names would read as what the memories share.
    """
    raw = payload.get("value")
    context = raw.get("context") if isinstance(raw, dict) else None
    content = without_speaker(str(payload.get("content", "")))
    if isinstance(context, str) and context:
        return f"{without_speaker(context)}\n{content}"
    return content


def _statement(
    payload: dict[str, Any],
    reading: Reading | None,
    *,
    change: bool = False,
    their_end: bool = False,
) -> Statement:
    """A stored memory as the attribute model weighs a replacement."""
    return Statement(
        text=str(payload.get("content", "")),
        reading=reading,
        fact_class=payload.get("fact_class"),
        kind=payload.get("fact_kind"),
        terms=frozenset(payload.get("terms") or ()),
        change=change,
        their_end=their_end,
    )


def _kind_by_days(payload: Mapping[str, Any], fields: Mapping[str, Any]) -> str | None:
    """The kind an episode classed by its days has as its days are read now, if it changed.

    A plan when its days end after it was said, else an event (:func:`dated_fields`).
    """
    if payload.get("fact_by") != "date" or payload.get("fact_class") != EPISODE:
        return None
    end, said = fields.get("when_end"), payload.get("created_ts")
    if not isinstance(end, (int, float)) or not isinstance(said, (int, float)):
        return None
    kind = "plan" if end > said else "event"
    return kind if kind != payload.get("fact_kind") else None


class MemoryClasses:
    """The class, attribute and replacement service of one long-term memory.

    Args:
        ltm: The long-term memory (its store, encoders and settings are read when used).

    Example:
        >>> from langgraph_prax_memory import PraxMemory  # doctest: +SKIP
        >>> mem = PraxMemory()  # doctest: +SKIP
        >>> clf = mem.ltm.classes.classifier()  # doctest: +SKIP
        >>> clf.classify(["User is vegan."])[0].fact_class  # doctest: +SKIP
        'standing'
    """

    def __init__(self, ltm: _LongTermMemory) -> None:
        self.ltm = ltm
        self._lock = threading.Lock()
        self._facts: FactClassifier | None = None
        self._attributes: AttributeModel | None = None
        self._questions: QuestionReader | None = None
        self._upgraded = False
        self._upgrading = threading.Lock()

    def upgrade_once(self, store: QdrantVectorStore) -> None:
        """:meth:`upgrade` the first time a process uses the store (again after a failure)."""
        if self._upgraded:
            return
        with self._upgrading:
            if self._upgraded:
                return
            try:
                self.upgrade(store)
            except (BackendUnavailable, MemoryWriteError, ConfigError) as exc:
                # again on the next call (a collection of another model: after its migration)
                logger.warning("memory classes not assigned yet: %s", exc)
            else:
                self._upgraded = True

    def classifier(self) -> FactClassifier:
        """The class classifier on the memory's embedding model (built on first use)."""
        with self._lock:
            if self._facts is None:
                dense = self.ltm.dense
                self._facts = FactClassifier(
                    dense.embed_documents, dense.model_name, grammar=self.ltm.config.class_grammar
                )
            return self._facts

    def questions(self) -> QuestionReader:
        """The reader of questions of the world on the memory's model (built on first use)."""
        with self._lock:
            if self._questions is None:
                dense = self.ltm.dense
                self._questions = QuestionReader(dense.embed_query, dense.model_name)
            return self._questions

    def attributes(self) -> AttributeModel:
        """The attribute reader on the memory's model (built on first use; issue 38)."""
        if self._attributes is None:
            floor = self.ltm.retrieval_config.min_cosine  # the model's floor
            with self._lock:
                if self._attributes is None:
                    self._attributes = AttributeModel(
                        self.ltm.dense.embed_documents,
                        floor,
                        self.ltm.sparse.tokens,
                        self.ltm.retrieval_config.unrelated_cosine,
                    )
        return self._attributes

    def replace_by_attribute(
        self,
        user_id: str,
        ids: Sequence[str],
        *,
        candidates: int = 20,
        never: Iterable[str] = (),
    ) -> list[tuple[str, str]]:
        """Retire the older memories whose value a newer one replaces; ``(old, new)`` pairs.

        For each memory of ``ids`` (not small talk, not a plan, not stored as history
        already), the user's current standing memories nearest to it and written before it
        are weighed by :meth:`~langgraph_prax_memory.facts.AttributeModel.replaces`: the same
        single-valued attribute of the person (home, employer, partner, diet...; by the
        attribute's templates) with another value, or — for an attribute no template names —
        a standing fact or a change event near enough to be about the same thing, naming no
        name in common. Those retired are marked superseded at the new memory's creation
        time (they stay in history: ``recall(include_history=True)``). A memory that *ends* a
        value ("broke up with Sam", "quit the job at Initech", "our cat Pip died") retires
        the older ones stating that value (any value, when it names none) and stays current
        itself. An addition to a many-valued attribute (a hobby, a language) retires nothing;
        summaries are left to the summary pass. ``never``: memories not to retire (those an
        extraction model was shown and judged, those the batch's facts landed on). Calling it
        again changes nothing.
        """
        check_user_id(user_id)
        if not ids:
            return []
        store = self.ltm.store()
        model = self.attributes()
        current = validity_filter(ltm_filter(user_id))
        new_points = store.scroll(
            user_id,
            flt=user_filter(user_id, models.HasIdCondition(has_id=list(ids))),
            limit=len(ids),
            with_vector=True,
        )
        new_points = [p for p in new_points if p.extras.get("vector") is not None]
        readings = model.read(
            [str(p.payload.get("content", "")) for p in new_points],
            [p.extras["vector"] for p in new_points],
        )
        batch = set(ids) | set(never)
        retired: list[tuple[str, str]] = []
        changes = model.changes([p.extras["vector"] for p in new_points])
        their = model.their_ends([str(p.payload.get("content", "")) for p in new_points])
        for point, reading, change, end in zip(new_points, readings, changes, their, strict=True):
            new = _statement(point.payload, reading, change=change, their_end=end)
            if new.fact_class == SMALL_TALK or new.kind == "plan":
                continue  # small talk and plans change nothing
            if point.payload.get(HISTORY_FIELD) is not None:
                continue  # stored as history already (a later fact replaced it)
            when = float(point.payload.get("created_ts", 0.0))
            near = [
                c
                for c in store.search_dense(
                    user_id,
                    point.extras["vector"],
                    limit=candidates,
                    flt=current,
                    with_vector=True,
                )
                if c.payload.get("fact_class") == STANDING
                and c.id not in batch
                and c.extras.get("vector") is not None
                and float(c.payload.get("created_ts", 0.0)) < when
                and c.payload.get("summary_level", "raw") == "raw"
                and c.payload.get(HISTORY_FIELD) is None
            ]
            theirs = model.read(
                [str(c.payload.get("content", "")) for c in near],
                [c.extras["vector"] for c in near],
            )
            scores = [float(c.score or 0.0) for c in near]
            others = model.runner_ups([str(c.payload.get("content", "")) for c in near], scores)
            victims = [
                cand.id
                for cand, r, score, other in zip(near, theirs, scores, others, strict=True)
                if model.replaces(new, _statement(cand.payload, r), score, other)
            ]
            if victims:
                until = to_utc(when)
                self.mark_superseded(user_id, victims, until, str(point.payload.get("content")))
                retired += [(v, point.id) for v in victims]
                logger.info(
                    "%s replaced %d memor%s of %s (valid_until %s)",
                    point.id,
                    len(victims),
                    "y" if len(victims) == 1 else "ies",
                    reading.attribute if reading else "an attribute no template names",
                    until.isoformat(),
                )
        return retired

    def mark_superseded(
        self, user_id: str, ids: Sequence[str], until: datetime, by: str | None
    ) -> None:
        """Mark memories superseded at ``until`` (top-level payload and the stored value)."""
        if not ids:
            return
        top: dict[str, Any] = {
            "valid_until": until.isoformat(),
            HISTORY_FIELD: until.timestamp(),
        }
        value: dict[str, Any] = {"valid_until": until.isoformat()}
        if by:
            top["superseded_by"] = by
            value["superseded_by"] = by
        store = self.ltm.store()
        store.set_payload(user_id, list(ids), top)
        store.set_payload(user_id, list(ids), value, key="value")

    def annotate(
        self,
        payloads: Sequence[dict[str, Any]],
        dense: Sequence[Sequence[float] | None] | None,
    ) -> None:
        """Add each memory's class and its distinct keyword terms to its payload, in place.

        The class (``fact_class``, ``fact_kind``, ``fact_by``, ``fact_confidence``) comes
        from the caller's tags or importance when they say it, else from the memory's text
        and its dense vector (:func:`~langgraph_prax_memory.facts.resolve_class`). The terms
        (the sparse encoder's tokens of the indexed text) let recall weigh each word of a
        question by how many of the user's memories hold it. Points without text are left
        alone.
        """
        cfg = self.ltm.config.retrieval
        todo = [i for i, p in enumerate(payloads) if str(p.get("content") or "").strip()]
        if not todo:
            return
        vectors = [dense[i] if dense else None for i in todo]
        found = self.classifier().classify([str(payloads[i]["content"]) for i in todo], vectors)
        for i, text_class in zip(todo, found, strict=True):
            payload = payloads[i]
            raw = payload.get("value")
            value: dict[str, Any] = raw if isinstance(raw, dict) else {}
            fact = resolve_class(
                text_class,
                {"tags": payload.get("tags"), "importance": value.get("importance")},
                profile_tags=cfg.profile_tags,
                min_importance=cfg.profile_min_importance,
            )
            if payload.get("summary_level", "raw") != "raw":  # what happened over a period
                fact = FactClass(EPISODE, "event", 1.0, "summary")
            if fact is not None:
                payload.update(fact.payload())
            payload.update(dated_fields(payload))
            payload["terms"] = sorted(set(self.ltm.sparse.tokens(_term_text(payload))))

    def reclassify(self, user_id: str, vectors: Mapping[str, Sequence[float]]) -> int:
        """Classify again, with their new dense vectors, the memories classified from cues.

        Memories stored while the model was down were classified from their cues alone;
        ``reembed`` calls this with the vectors it added. Returns how many were classified.
        """
        store = self.ltm.store()
        points = [
            p for p in store.retrieve(user_id, list(vectors)) if p.payload.get("fact_by") == "cues"
        ]
        if not points:
            return 0
        # the text decides again (the tags and importance still first)
        return self._classify_stored(store, user_id, points, [vectors[p.id] for p in points])

    def _classify_stored(
        self,
        store: QdrantVectorStore,
        user_id: str,
        points: Sequence[Any],
        vectors: Sequence[Sequence[float] | None],
    ) -> int:
        """Classify stored points afresh and write their class and terms back.

        One request, each operation pinned to ``user_id``; returns how many were written.
        """
        fields = (*CLASS_FIELDS, *DATED_FIELDS, "terms")
        payloads = [{k: v for k, v in p.payload.items() if k not in fields} for p in points]
        self.annotate(payloads, vectors)
        updates = {
            p.id: {f: new[f] for f in fields if f in new}
            for p, new in zip(points, payloads, strict=True)
            if any(f in new for f in fields)
        }
        ops = payloads_plan(user_id, updates)
        if ops:
            write = functools.partial(store.client.batch_update_points, store.collection, ops)
            store.run_write("class update", write)
        return len(updates)

    def _date_stored(self, store: QdrantVectorStore, user_id: str) -> int:
        """Record the days each classified memory of ``user_id`` names, as read now.

        Memories classified before the dated tier existed (``CLASSES_VERSION`` 2) get
        ``when_start`` / ``when_end`` when their text names a day; those dated before the
        reading of session 12 (version 5: "from 10 to 17 March" was two days, "next
        Thursday" said on a Wednesday the next day) are dated again. Only memories whose
        days change are written (a day no longer read is cleared); returns how many.
        """
        classified = models.IsEmptyCondition(is_empty=models.PayloadField(key="fact_class"))
        updates: dict[str, dict[str, Any]] = {}
        for p in store.scroll(
            user_id, flt=user_filter(user_id, must_not=[classified]), limit=10**9
        ):
            fields = dated_fields(p.payload)
            days = {k: fields.get(k) for k in _DATED_KEYS}
            kind = _kind_by_days(p.payload, fields)
            if kind is not None:
                fields["fact_kind"] = kind  # version 7: "fitted it on Tuesday" was a plan
            if days != {k: p.payload.get(k) for k in _DATED_KEYS} or set(fields) - set(days):
                updates[p.id] = {**days, **fields}

        ops = payloads_plan(user_id, updates)
        if ops:
            write = functools.partial(store.client.batch_update_points, store.collection, ops)
            store.run_write("dated update", write)
        return len(updates)

    def _reread_stored(self, store: QdrantVectorStore, user_id: str) -> int:
        """Read again the memories the text reading did not call standing (versions 4 and 6).

        Memories classified before the grammar of what holds now (docs/context.md, "Memory
        classes", step 5), or before its latest reading, keep their class unless the reading
        now makes them standing (by the grammar, or by the text read with the subject a note
        dropped); only those are written. Returns how many were.
        """
        if not self.ltm.config.class_grammar:
            return 0
        by_text = models.FieldCondition(key="fact_by", match=models.MatchAny(any=["text", "date"]))
        standing = models.FieldCondition(key="fact_class", match=models.MatchValue(value=STANDING))
        points = store.scroll(
            user_id,
            flt=user_filter(user_id, by_text, must_not=[standing]),
            limit=10**9,
            with_vector=True,
        )
        # an episode by its days whose days are no longer read (version 6: "every Sunday
        # here (Saturday evening there)" named no Saturday) is read again as a text
        points = [p for p in points if p.payload.get("fact_by") == "text" or not _dated(p.payload)]
        updates: dict[str, dict[str, Any]] = {}
        for start in range(0, len(points), _CHUNK):
            chunk = points[start : start + _CHUNK]
            texts = [str(p.payload.get("content") or "") for p in chunk]
            found = self.classifier().classify(texts, [p.extras.get("vector") for p in chunk])
            for point, fact in zip(chunk, found, strict=True):
                if fact.fact_class != STANDING:
                    continue
                # dated as at its writing: a plan near then stays an episode (read with now)
                payload = {**point.payload, **fact.payload()}
                payload.update(dated_fields(payload))
                if payload.get("fact_class") == STANDING:
                    updates[point.id] = {f: payload[f] for f in CLASS_FIELDS}
        ops = payloads_plan(user_id, updates)
        if ops:
            write = functools.partial(store.client.batch_update_points, store.collection, ops)
            store.run_write("class update", write)
        return len(updates)

    def upgrade(
        self, store: QdrantVectorStore | None = None, *, progress: ProgressCallback | None = None
    ) -> int:
        """Give every memory written before classes existed its class and keyword terms.

        The migration of issue 37 (docs/context.md, "Memory classes"): each user's points
        without a ``fact_class`` are classified from their text and stored dense vector
        (:meth:`annotate`; the caller's tags and importance count as at write time), those
        classified before the dated tier record the days they name, those the text reading
        did not call standing are read again for the grammar of what holds now, then the
        collection
        records :data:`CLASSES_VERSION` so later opens skip the scan. An
        interrupted run resumes where it stopped (only unclassified points are read).
        ``progress(done, None, "memories")`` is told after each user.

        Returns:
            How many memories were classified.
        """
        store = store or self.ltm.store()
        store.ensure_collection()
        if store.metadata().get(CLASSES_KEY) == CLASSES_VERSION:
            return 0
        done = 0
        unclassified = models.IsEmptyCondition(is_empty=models.PayloadField(key="fact_class"))
        for user in sorted(store.facet("user_id")):
            points = store.scroll(
                user, flt=user_filter(user, unclassified), limit=10**9, with_vector=True
            )
            for start in range(0, len(points), _CHUNK):
                chunk = points[start : start + _CHUNK]
                vecs = [p.extras.get("vector") for p in chunk]
                done += self._classify_stored(store, user, chunk, vecs)
            self._date_stored(store, user)
            self._reread_stored(store, user)
            notify(progress, done, None, "memories")
        store.merge_metadata({CLASSES_KEY: CLASSES_VERSION})
        if done:
            logger.info("memory classes: %d memories written before classes classified", done)
        return done
