"""The supersession stage: what an extraction supersedes, and the memories that stated it.

Two ways a memory is retired (marked superseded, kept in history):

* **by id** (issue 38): a fact of the batch names in ``replaces`` the memories it makes
  untrue among those the model was shown (:mod:`._candidates`);
* **by name**: a relation ``supersedes`` an old target, and a memory names that target
  (:func:`._supersession.retire`). When the model answered ``replaces`` it has judged the
  memories it was shown, so this applies only to the others; it never retires the batch's
  own facts stated at or after the change (the record of the change stays current).

Either way the summaries built from a retired memory are rebuilt (:mod:`._maintain`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from langgraph_prax_memory._validation import to_utc
from langgraph_prax_memory.consolidation._base import (
    ConsolidatorBase,
    _norm,
    logger,
)
from langgraph_prax_memory.consolidation._models import (
    Batch,
    ConsolidationResult,
    ExtractedRelation,
    Extraction,
)
from langgraph_prax_memory.consolidation._supersession import (
    Supersession,
    mark_superseded,
    retire,
    states_old_fact,
)
from langgraph_prax_memory.graph import canonical_name, entity_id

_TAG = re.compile(r"\s*\[(\d{4}-\d\d-\d\d \d\d:\d\d)\]$")


class SupersedeStage(ConsolidatorBase):
    """Retire the memories that state a superseded fact (history stays queryable)."""

    # -- supersession of memories ------------------------------------------------------------
    @staticmethod
    def _relation_time(rel: ExtractedRelation, batch: Batch | None, default: datetime) -> datetime:
        """When the change happened: the time of the line stating it (``default``: unknown).

        The batch's latest time is not it: a fact of an earlier line of the batch may state
        the old value, a fact of the same or a later line (the record of the change, "User
        broke up with Leo.") never does.
        """
        evidence = rel.evidence or ""
        tag = _TAG.search(evidence)
        said = _norm(_TAG.sub("", evidence)).lower()
        if batch is not None and said:
            for text, when in zip(batch.texts, batch.times, strict=False):
                if when is not None and said in _norm(text).lower():
                    return min(when, default)
        if tag is not None:
            return min(to_utc(tag.group(1).replace(" ", "T") + ":00+00:00"), default)
        return default

    def _supersessions(
        self, user_id: str, ext: Extraction, when: datetime, batch: Batch | None = None
    ) -> list[Supersession]:
        """The batch's superseding relations, with the old edge's evidence when known."""
        vocab = self.parts.graph.vocabulary
        out: list[Supersession] = []
        for rel in ext.relations:
            if not rel.supersedes:
                continue
            kind = rel.type if rel.type in vocab.relation_types else "related_to"
            closing = rel.supersedes.strip().lower() == rel.target.strip().lower()
            evidence = None
            try:
                found = self.parts.graph.get_entity(user_id, rel.source, include_superseded=True)
                old = canonical_name(rel.supersedes)
                for r in found.relations if found else []:
                    if r.target == old and r.type == kind and r.evidence:
                        first = r.evidence.split(";")[0].strip()
                        evidence = re.sub(r"\s*\[[^\]]*\]$", "", first)  # the time tag
                        break
            except Exception as exc:  # the graph is down: match on the names alone
                logger.debug("old evidence of a supersession unavailable: %s", exc)
            out.append(
                Supersession(
                    source=rel.source,
                    kind=kind,
                    old=rel.supersedes,
                    new=None if closing else rel.target,
                    when=self._relation_time(rel, batch, when),
                    evidence=evidence,
                )
            )
        return out

    def _retire(
        self,
        user_id: str,
        sups: Sequence[Supersession],
        exclude: Sequence[str],
        result: ConsolidationResult,
        *,
        judged: Iterable[str] = (),
        retired: Sequence[str] = (),
    ) -> None:
        """Mark the memories stating each superseded fact; rebuild summaries that repeated it.

        ``judged``: memories the model was shown and judged (it answered ``replaces``):
        never retired by name. ``retired``: raw memories already retired by id in this batch
        (their summaries are rebuilt with the others).
        """
        marked: list[Any] = []
        raw_ids: list[str] = list(retired)
        for sup in sups:
            try:
                current = [
                    e.display_name
                    for e in self.parts.graph.current_targets(user_id, sup.source, sup.kind)
                ]
            except Exception as exc:
                logger.debug("current targets unavailable: %s", exc)
                current = []
            raw, summaries = retire(
                self.parts, user_id, sup, exclude=exclude, new_targets=current, never=judged
            )
            result.memories_superseded += len(raw) + len(summaries)
            marked.extend(summaries)
            raw_ids.extend(raw)
        if marked or raw_ids:
            self._rebuild_summaries(user_id, marked, result, retired=raw_ids)

    def _retire_replaced(
        self,
        user_id: str,
        replaced: Sequence[tuple[Sequence[str], datetime, str]],
        own: Iterable[str],
        result: ConsolidationResult,
    ) -> list[str]:
        """Retire the memories facts named in ``replaces``: (ids, when, the new statement).

        Only the user's own current raw memories qualify (read through the user-scoped
        store), created at or before the change, and never a memory the batch's facts
        landed on (``own``: a new fact that deduplicated or merged into it). Returns the ids
        marked.

        Raises:
            BackendUnavailable: The vector store is down (nothing was marked).
        """
        skip = set(own)
        wanted = sorted({i for ids, _, _ in replaced for i in ids} - skip)
        if not wanted:
            return []
        points = {p.id: p for p in self.parts.ltm.vectors.retrieve(user_id, wanted)}
        done: list[str] = []
        for ids, until, by in replaced:
            mark: list[str] = []
            for mid in ids:
                point = points.get(mid)
                if point is None or mid in skip or mid in done or mid in mark:
                    continue  # not this user's, gone, the batch's own, or marked already
                payload = point.payload
                if payload.get("valid_until") is not None:
                    continue  # history already
                if payload.get("summary_level", "raw") != "raw":
                    continue
                created = float(payload.get("created_ts", 0.0))
                if created > until.timestamp() + 1e-6:
                    logger.info(
                        "memory %s of %r is newer than the fact said to replace it; kept",
                        mid,
                        user_id,
                    )
                    continue
                mark.append(mid)
            if mark:
                mark_superseded(self.parts, user_id, mark, until, by[:500])
                logger.info(
                    "%d memor%s of %r replaced by %r (valid_until %s)",
                    len(mark),
                    "y" if len(mark) == 1 else "ies",
                    user_id,
                    by[:120],
                    until.isoformat(),
                )
                done.extend(mark)
        result.memories_superseded += len(done)
        return done

    def _supersedes_from_replaces(self, user_id: str, ext: Extraction) -> Extraction:
        """Close the edge a replaced memory stated when the batch's relation did not say so.

        For a relation of the batch without ``supersedes``, a current target of the same
        ``source -[type]->`` edge (other than the new one) that a memory replaced by a fact
        of the batch states (named or linked, in words of that kind of relation) becomes its
        ``supersedes``. A batch that only adds (a new hobby) replaces no memory: nothing.
        """
        wanted = sorted({i for f in ext.facts for i in f.replaces_ids})
        if not wanted or not any(not r.supersedes for r in ext.relations):
            return ext
        graph = self.parts.graph
        try:
            points = self.parts.ltm.vectors.retrieve(user_id, wanted)
        except Exception as exc:
            logger.debug("replaced memories unavailable: %s", exc)
            return ext
        if not points:
            return ext
        vocab = graph.vocabulary
        relations: list[ExtractedRelation] = []
        changed = False
        for rel in ext.relations:
            if rel.supersedes:
                relations.append(rel)
                continue
            kind = rel.type if rel.type in vocab.relation_types else "related_to"
            try:
                current = graph.current_targets(user_id, rel.source, kind)
            except Exception as exc:
                logger.debug("current targets unavailable: %s", exc)
                relations.append(rel)
                continue
            new = canonical_name(rel.target)
            old = next(
                (
                    e.display_name
                    for e in current
                    if canonical_name(e.name) != new
                    and any(
                        states_old_fact(
                            str(p.payload.get("content", "")),
                            p.payload.get("entity_ids") or [],
                            old=e.display_name,
                            old_id=entity_id(user_id, e.name),
                            new=[rel.target],
                            kind=kind,
                        )
                        for p in points
                    )
                ),
                None,
            )
            if old is not None:
                logger.info(
                    "%s -[%s]-> %s supersedes %r (a memory stating it was replaced)",
                    rel.source,
                    kind,
                    rel.target,
                    old,
                )
                rel = rel.model_copy(update={"supersedes": old})
                changed = True
            relations.append(rel)
        return ext.model_copy(update={"relations": relations}) if changed else ext

    def _closed_longer_names(self, user_id: str, key: str) -> list[Any]:
        """Superseded edges to a longer name of ``key`` ("dracula theme" for "dracula")."""
        graph = self.parts.graph
        out: list[Any] = []
        try:
            for ent in graph.search_entities(user_id, key, limit=5):
                name = canonical_name(ent.name)
                if not name.startswith(key + " "):
                    continue
                found = graph.get_entity(user_id, name, include_superseded=True)
                out += [
                    r
                    for r in (found.relations if found else [])
                    if r.target == name and r.valid_until is not None
                ]
        except Exception as exc:
            logger.debug("longer names of %r unavailable: %s", key, exc)
        return out

    def _mark_historical(
        self,
        user_id: str,
        items: Sequence[dict[str, Any]],
        ids: Sequence[str],
        batch_time: datetime,
        result: ConsolidationResult | None,
    ) -> None:
        """Mark new memories that state a fact superseded *after* the evidence they come from.

        Re-reading an old session (a replay, a lost state file) must not make its superseded
        facts current again: the temporal order of the evidence wins, not the order of
        processing. An item without a time of its own (an untimed trace) is not known to be
        newer than any supersession: it is history when it states a fact superseded before
        this batch that is not current again ("User likes dark mode everywhere." after dark
        mode was replaced by light mode).
        """
        graph = self.parts.graph
        closed: dict[str, list[Any]] = {}
        for item, mid in zip(items, ids, strict=False):
            for name in item.get("_names") or []:
                if name not in closed:
                    try:
                        found = graph.get_entity(user_id, name, include_superseded=True)
                    except Exception as exc:
                        logger.debug("superseded edges of %r unavailable: %s", name, exc)
                        found = None
                    key = canonical_name(name)
                    closed[name] = [
                        r
                        for r in (found.relations if found else [])
                        if r.target == key and r.valid_until is not None
                    ]
                    if not closed[name] and not item.get("_timed", True):
                        closed[name] = self._closed_longer_names(user_id, key)
                timed = bool(item.get("_timed", True))
                later = [
                    r
                    for r in closed[name]
                    if r.valid_until > batch_time or (not timed and r.valid_until < batch_time)
                ]
                for rel in later:
                    try:
                        targets = graph.current_targets(user_id, rel.source, rel.type)
                        current = [e.display_name for e in targets]
                    except Exception:
                        current = []
                    if not timed and canonical_name(name) in {canonical_name(c) for c in current}:
                        continue  # stated again as current (a change back): not history
                    if states_old_fact(
                        str(item["content"]),
                        item.get("entity_ids") or [],
                        old=name,
                        old_id=entity_id(user_id, name),
                        new=current,
                        kind=rel.type,
                        evidence=rel.evidence,
                    ):
                        mark_superseded(
                            self.parts,
                            user_id,
                            [mid],
                            rel.valid_until,
                            current[0] if current else None,
                        )
                        if result is not None:
                            result.memories_superseded += 1
                        break
                else:
                    continue
                break
