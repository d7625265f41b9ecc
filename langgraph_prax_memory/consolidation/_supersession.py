"""Supersession of vector memories: a retired fact leaves default recall, its history stays.

When consolidation supersedes a relation (``user -[prefers]-> dark mode`` replaced by ``light
mode``), the graph closes the edge. This module finds the long-term memories that *state* the
old fact and marks them (``valid_until`` / ``superseded_by`` in the payload, through the vector
store's user-scoped payload update), so default recall and the injected context leave them
out while ``recall(include_history=True)`` / ``as_of=`` still find them.

A memory states the old fact when

* it names the old target (word-bounded, case-insensitive) or is linked to its entity id,
* it does not name the new target (``"light mode over dark mode"`` is the new fact),
* it does not name the old target only where it is denied or left behind (``no longer likes
  jazz``, ``light mode over dark mode``, ``used to love running``): that is the record of the
  change; a statement of change that *asserts* the old target ("now prefers light mode") is
  retired when that target is superseded in turn,
* and it speaks about that kind of relation (``prefer`` / ``like`` / ``use`` ... for
  ``prefers``; ``work`` ... for ``works_on``), or repeats the old edge's evidence.

Summaries are matched by the first three rules only (they paraphrase).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from qdrant_client import models as qm

from langgraph_prax_memory.consolidation._normalize import third_person
from langgraph_prax_memory.consolidation._rule_patterns import DIETS, RESTRICTIONS
from langgraph_prax_memory.errors import EmbeddingError
from langgraph_prax_memory.graph import entity_id
from langgraph_prax_memory.retrieval import ltm_filter, validity_filter
from langgraph_prax_memory.vectors import StoredPoint

if TYPE_CHECKING:
    from langgraph_prax_memory._parts import MemoryParts

__all__ = ["Supersession", "mark_superseded", "mentions", "retire", "states_old_fact"]

logger = logging.getLogger(__name__)

_WORD = re.compile(r"[a-z0-9]+")
#: Words after which a value is denied or left behind ("no longer likes jazz", "light mode
#: over dark mode", "switched from Chrome"): a statement naming the old value only there is a
#: record of the change, never the retired fact.
_DENIED = (
    r"\b(?:no longer|not|n't|never|stopped|quit|gave up|given up|used to|instead of|over|"
    r"rather than|from|broke up with|split up with|left|renamed|ditched|dropped|replaced|"
    r"anymore|any more)\b"
)


def _only_denied(text: str, old: str) -> bool:
    """Whether every mention of ``old`` in ``text`` follows a word that denies it."""
    low = text.lower()
    name = re.escape(old.strip().lower())
    spans = [m.start() for m in re.finditer(r"(?<!\w)" + name + r"(?!\w)", low)]
    if not spans:
        return False
    for start in spans:
        before = low[max(0, start - 48) : start]
        after = low[start : start + len(old) + 24]
        if not (
            re.search(_DENIED + r"(?:(?!\b(?:and|but|to)\b)[^.;!?,])*$", before)
            or re.search(r"\b(?:anymore|any more|no more)\b", after)
        ):
            return False
    return True


#: Words that show a memory speaks about the relation type (types not listed need none).
_CUES: dict[str, re.Pattern[str]] = {
    "prefers": re.compile(
        r"\b(prefer\w*|like[sd]?|lov\w+|enjoy\w*|favou?rite|fan|use[sd]?|using|into|"
        r"drink\w*|eat\w*|eats|play\w*|watch\w*|listen\w*|read\w*|rid\w+|takes?|goes|"
        rf"drive\w*|wear\w*|{DIETS}|{RESTRICTIONS}|diet)\b",
        re.I,
    ),
    "works_on": re.compile(r"\b(work\w*|build\w*|develop\w*|project|busy)\b", re.I),
    "part_of": re.compile(
        r"\b(work\w*|employ\w*|job|member|join\w*|part of|company|team|at)\b", re.I
    ),
    "interested_in": re.compile(r"\b(interest\w*|curious|learn\w*|into|fascinat\w*)\b", re.I),
    "works_at": re.compile(
        r"\b(work\w*|employ\w*|job|company|employer|office|colleague\w*|boss|hired)\b", re.I
    ),
    "lives_in": re.compile(
        r"\b(live[sd]?|living|based|home|moved|resid\w*|apartment|flat|house|neighbou?rhood)\b",
        re.I,
    ),
    "partner_of": re.compile(
        r"\b(partner|girlfriend|boyfriend|wife|husband|spouse|fianc\w*|dating|seeing|married|"
        r"engaged|together|relationship)\b",
        re.I,
    ),
}
#: Candidates considered per supersession (entity-linked scan, keyword and dense searches).
_LINKED_LIMIT = 1000
_SEARCH_LIMIT = 50


@dataclass(frozen=True)
class Supersession:
    """``source -[kind]-> old`` stopped being current at ``when`` (replaced by ``new``).

    ``new`` is ``None`` when the edge was only closed ("I no longer like jazz").
    """

    source: str
    kind: str
    old: str
    new: str | None
    when: datetime
    evidence: str | None = None


def linked_only(text: str, old: str, linked: bool) -> bool:
    """Whether the memory is about ``old`` only by its entity link (its text does not name it)."""
    return linked and not mentions(text, old)


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` (word-bounded, case-insensitive)."""
    name = name.strip().lower()
    if not name:
        return False
    return re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text.lower()) is not None


def _overlap(text: str, evidence: str | None) -> float:
    """Share of the evidence's words in ``text``.

    The evidence as said ("I drink black tea") or as the statement a fact makes of it ("User
    drinks black tea."), whichever shares more.
    """
    if not evidence:
        return 0.0
    have = set(_WORD.findall(text.lower()))
    best = 0.0
    for form in (evidence, third_person("User", evidence)):
        want = set(_WORD.findall(form.lower()))
        if want:
            best = max(best, len(want & have) / len(want))
    return best


def states_old_fact(
    text: str,
    entity_ids: Iterable[str],
    *,
    old: str,
    old_id: str | None,
    new: Sequence[str] = (),
    kind: str,
    evidence: str | None = None,
    summary: bool = False,
) -> bool:
    """Whether a memory's text states ``-[kind]-> old`` (see the module docstring).

    Example:
        >>> states_old_fact("The user prefers dark mode in all tools.", [], old="dark mode",
        ...                 old_id=None, new=["light mode"], kind="prefers")
        True
        >>> states_old_fact("I now prefer light mode over dark mode", [], old="dark mode",
        ...                 old_id=None, new=["light mode"], kind="prefers")
        False
    """
    linked = old_id is not None and old_id in set(entity_ids)
    if not (mentions(text, old) or linked):
        return False
    if any(mentions(text, n) for n in new if n and n.strip().lower() != old.strip().lower()):
        return False
    if not linked_only(text, old, linked) and _only_denied(text, old):
        return False
    if summary:
        return True
    cue = _CUES.get(kind)
    return cue is None or cue.search(text) is not None or _overlap(text, evidence) >= 0.6


def mark_superseded(
    parts: MemoryParts, user_id: str, ids: Sequence[str], until: datetime, by: str | None
) -> None:
    """Mark memories as superseded at ``until`` (top-level payload and the stored value)."""
    parts.ltm.classes.mark_superseded(user_id, ids, until, by)


def _candidates(parts: MemoryParts, user_id: str, sup: Supersession) -> dict[str, StoredPoint]:
    store = parts.ltm.vectors
    current = validity_filter(ltm_filter(user_id))
    must: list[Any] = list(current.must or [])  # type: ignore[arg-type]
    linked = qm.FieldCondition(
        key="entity_ids", match=qm.MatchAny(any=[entity_id(user_id, sup.old)])
    )
    found: dict[str, StoredPoint] = {}
    for p in store.scroll(
        user_id,
        flt=qm.Filter(must=[*must, linked], must_not=current.must_not),
        limit=_LINKED_LIMIT,
    ):
        found[p.id] = p
    query = " ".join(t for t in (sup.old, sup.evidence) if t)
    for p in store.search_sparse(
        user_id, parts.ltm.sparse_encoder.embed_query(query), limit=_SEARCH_LIMIT, flt=current
    ):
        found.setdefault(p.id, p)
    try:
        vector = parts.ltm.embeddings.embed_query(sup.evidence or sup.old)
    except EmbeddingError as exc:
        logger.debug("dense candidates for a supersession unavailable: %s", exc)
    else:
        for p in store.search_dense(user_id, vector, limit=_SEARCH_LIMIT, flt=current):
            found.setdefault(p.id, p)
    return found


def retire(
    parts: MemoryParts,
    user_id: str,
    sup: Supersession,
    *,
    exclude: Iterable[str] = (),
    new_targets: Sequence[str] = (),
    never: Iterable[str] = (),
) -> tuple[list[str], list[StoredPoint]]:
    """Mark the current memories stating ``sup``'s old fact; (raw ids, summary points).

    Only memories created at or before ``sup.when`` qualify (what was said after the change
    is not the retired fact); ``exclude`` (the batch's own new memories) is marked only when
    its time is before the change (an earlier line of the same batch); ``never`` (memories
    the extraction model was shown and judged) is not marked by name.
    Already-marked memories are not candidates, so a repeated call changes nothing.
    """
    skip = set(exclude)
    judged = set(never)
    old_id = entity_id(user_id, sup.old)
    new = [n for n in (sup.new, *new_targets) if n]
    limit = sup.when.timestamp() + 1e-6
    raw: list[str] = []
    summaries: list[StoredPoint] = []
    for pid, point in _candidates(parts, user_id, sup).items():
        payload = point.payload
        created = float(payload.get("created_ts", 0.0))
        if created > limit or (pid in skip and created >= sup.when.timestamp() - 1e-6):
            continue  # said after the change, or the batch's own memory not known to be older
        if pid in judged:
            continue  # the model saw it and did not say the change replaces it
        is_summary = payload.get("summary_level", "raw") != "raw"
        if not states_old_fact(
            str(payload.get("content", "")),
            payload.get("entity_ids") or [],
            old=sup.old,
            old_id=old_id,
            new=new,
            kind=sup.kind,
            evidence=sup.evidence,
            summary=is_summary,
        ):
            continue
        (summaries.append(point) if is_summary else raw.append(pid))
    ids = raw + [p.id for p in summaries]
    mark_superseded(parts, user_id, ids, sup.when, sup.new)
    if ids:
        logger.info(
            "supersession %s -[%s]-> %s: %d memor%s marked (valid_until %s)",
            sup.source,
            sup.kind,
            sup.old,
            len(ids),
            "y" if len(ids) == 1 else "ies",
            sup.when.isoformat(),
        )
    return raw, summaries
