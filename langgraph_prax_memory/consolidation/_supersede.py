"""The supersession stage: what an extraction supersedes, and the memories that stated it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langgraph_prax_memory.consolidation._base import (
    ConsolidatorBase,
    logger,
)
from langgraph_prax_memory.consolidation._models import (
    ConsolidationResult,
    Extraction,
)
from langgraph_prax_memory.consolidation._supersession import (
    Supersession,
    mark_superseded,
    retire,
    states_old_fact,
)
from langgraph_prax_memory.graph import canonical_name, entity_id


class SupersedeStage(ConsolidatorBase):
    """Retire the memories that state a superseded fact (history stays queryable)."""

    # -- supersession of memories ------------------------------------------------------------
    def _supersessions(self, user_id: str, ext: Extraction, when: datetime) -> list[Supersession]:
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
                    when=when,
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
    ) -> None:
        """Mark the memories stating each superseded fact; rebuild summaries that repeated it."""
        marked: list[Any] = []
        for sup in sups:
            try:
                current = [
                    e.display_name
                    for e in self.parts.graph.current_targets(user_id, sup.source, sup.kind)
                ]
            except Exception as exc:
                logger.debug("current targets unavailable: %s", exc)
                current = []
            raw, summaries = retire(self.parts, user_id, sup, exclude=exclude, new_targets=current)
            result.memories_superseded += len(raw) + len(summaries)
            marked.extend(summaries)
        if marked:
            self._rebuild_summaries(user_id, marked, result)

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
