"""A sentence of several statements, kept statement by statement (the rule-based path).

People say several things in one breath: "I'm a nurse at St Thomas' and we were two staff
down on the ward again", "ok don't laugh but after that documentary I've gone fully
plant-based". Judged whole, such a sentence takes the class of its loudest part (a standing
fact read as an episode, a diet change read as small talk and dropped). The rule-based
extractor lists the clauses of such a sentence (``ExtractedFact.statements``); here each is
judged by the memory-class classifier, the same judgement as every other door:

* a clause that is small talk (as sure as consolidation's drop bar) is left out, unless it
  names a day (``_when.names_a_day``: a dated plan or event);
* a clause that is a standing fact (as sure as the standing bar) and names the person the
  sentence is about is stored on its own, so that it is recalled, kept and replaced as the
  fact it is ("been that way since uni" elaborates the clause before: it is not);
* the other clauses stay together, in their order, as one memory;
* a clause that refers back ("... put me on metformin, I take it with breakfast") stays
  with the clause before it, whatever its class.

A sentence whose clauses are all kept and none is a standing fact is stored as it was said.

A statement the extractor could not tell from a passing moment by its words (``ExtractedFact.
tentative``: the simple past, "I had a long day", "I lost the bet") is judged here by
the memory's model: kept when the classifier reads a standing fact from its text as surely
as the standing bar, otherwise left out as small talk (:func:`tentative_to_drop`). A change
told in the past ("I switched onto the day rota") is no such statement: its verb says its
result lasts. A fact longer than ``max_content_chars`` is cut into parts and not judged.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langgraph_prax_memory._when import names_a_day
from langgraph_prax_memory.consolidation._smalltalk import names_in, small_talk_to_drop
from langgraph_prax_memory.errors import EmbeddingError
from langgraph_prax_memory.facts import (
    SMALL_TALK,
    STANDING,
    STANDING_CONFIDENCE,
    FactClass,
)

if TYPE_CHECKING:
    from langgraph_prax_memory._parts import MemoryParts
    from langgraph_prax_memory.consolidation._models import ConsolidationResult

__all__ = ["by_statement", "plan_statements", "tentative_to_drop"]

logger = logging.getLogger(__name__)

#: The key of a memory item that lists its sentence's statements (not stored).
STATEMENTS_KEY = "_statements"
#: The key of a memory item that lists its tentative statements (not stored).
TENTATIVE_KEY = "_tentative"


def _join(content: str, clauses: Sequence[str]) -> str:
    """Clauses (each a sentence of its own) joined back into one, in the case ``content`` had."""
    out: list[str] = []
    for i, clause in enumerate(clauses):
        text = clause.strip().rstrip(".!")
        if i and text[:1].isupper():
            lower = text[:1].lower() + text[1:]
            if lower.split(" ", 1)[0] in content.split():
                text = lower
        out.append(text)
    return ", ".join(out) + "."


def _subject(content: str) -> str | None:
    """Who a normalized statement is about.

    "User" where it says so, else its first name-like word ("Carol ...", a speaker's name);
    None when it opens with neither.
    """
    if re.search(r"(?<!\w)User(?!\w)", content):
        return "User"
    first = re.match(r"[A-Z][\w-]*", content.strip())
    return first.group(0) if first else None


#: A pronoun that points back at what the clause before named ("it", "them", "that").
_REFERS_BACK = re.compile(r"\b(?:it|them|that one|those|these)\b", re.I)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text[-1:] in (".", "!", "?") else text + "."


def plan_statements(
    content: str,
    statements: Sequence[str],
    classes: Sequence[FactClass | None],
    *,
    drop_confidence: float,
    drops: Sequence[bool] | None = None,
) -> tuple[list[str], int]:
    """The memories to store for one sentence, and how many of its clauses were small talk.

    Pure: ``classes`` holds the class of each statement (None: not judged, kept); ``drops``,
    when given, says which statements are small talk to leave out (consolidation's
    :func:`~langgraph_prax_memory.consolidation._smalltalk.small_talk_to_drop`), instead of
    small talk as sure as ``drop_confidence``.

    Example:
        >>> plan_statements(
        ...     "User is a nurse at St Thomas' and they were two staff down again.",
        ...     ["User is a nurse at St Thomas'.", "User was two staff down again."],
        ...     [FactClass("standing", "work", 0.97), FactClass("episode", "event", 0.8)],
        ...     drop_confidence=0.75,
        ... )
        (["User is a nurse at St Thomas'.", 'User was two staff down again.'], 0)
    """
    if len(statements) < 2 or len(classes) != len(statements):
        return [content], 0
    kept: list[tuple[str, FactClass | None]] = []
    dropped = 0
    for i, (text, found) in enumerate(zip(statements, classes, strict=True)):
        if (
            drops[i]
            if drops is not None and len(drops) == len(statements)
            else found is not None
            and found.fact_class == SMALL_TALK
            and found.confidence >= drop_confidence
            and not names_a_day(text)  # a dated plan or event is never small talk
        ):
            dropped += 1
            continue
        kept.append((text, found))
    subject = _subject(content)
    standing = {
        i
        for i, (t, c) in enumerate(kept)
        if c is not None
        and c.fact_class == STANDING
        and c.confidence >= STANDING_CONFIDENCE
        and subject is not None
        and re.search(rf"(?<!\w){re.escape(subject)}(?!\w)", t) is not None
    }
    if not dropped and not standing:
        return [content], 0
    if not kept:
        return [], dropped
    # a clause that refers back ("... metformin, I take it with breakfast") stays with the
    # clause before it: alone it says nothing
    units: list[tuple[bool, list[str]]] = []  # (opens with a standing clause, clauses)
    for i, (t, _) in enumerate(kept):
        if units and _REFERS_BACK.search(t):
            units[-1][1].append(t)
        else:
            units.append((i in standing, [t]))
    out = [_sentence(u[0]) if len(u) == 1 else _join(content, u) for alone, u in units if alone]
    rest = [t for alone, u in units if not alone for t in u]
    if not dropped and len(out) == 1 and not rest:
        return [content], 0
    if rest:
        out.append(_join(content, rest))
    return out, dropped


def tentative_to_drop(classes: Sequence[FactClass | None]) -> list[bool]:
    """Which tentative statements to leave out: those not read as a sure standing fact.

    Pure: ``classes`` are the statements' classes (None: not judged, kept). Standing by
    the text's own reading: the grammar's reading of what holds now sits at the bar itself,
    no surer than the words were. An episode is left out too: the words could not tell the
    event from the moment, and the classifier reading an event does not either ("I had a
    long meeting").

    Example:
        >>> tentative_to_drop(
        ...     [FactClass("standing", "work", 0.9), FactClass("standing", "routine", 0.4),
        ...      FactClass("episode", "event", 0.9), None]
        ... )
        [False, True, True, False]
    """
    return [
        c is not None
        and not (
            c.fact_class == STANDING and c.confidence >= STANDING_CONFIDENCE and c.by == "text"
        )
        for c in classes
    ]


def _listed(item: dict[str, Any]) -> list[str]:
    """An item's statements: those listed, or its content when it lists fewer than two."""
    statements = [str(s) for s in item.get(STATEMENTS_KEY) or ()]
    return statements if len(statements) > 1 else [str(item.get("content", ""))]


def by_statement(
    parts: MemoryParts,
    items: list[dict[str, Any]],
    result: ConsolidationResult,
    *,
    drop_confidence: float,
) -> list[dict[str, Any]]:
    """The memory items of a batch, each sentence of several statements split by class.

    Items without statements pass as they are; the others become the memories
    :func:`plan_statements` keeps (each a copy of the item with its own content and the
    names it still mentions). Clauses left out as small talk are counted in
    ``small_talk_dropped``, as are tentative statements the model does not keep
    (:func:`tentative_to_drop`). A classifier that cannot run (the model down) keeps every
    sentence whole, tentative statements included.
    """
    private = (STATEMENTS_KEY, TENTATIVE_KEY)
    listed = [i for i in items if len(i.get(STATEMENTS_KEY) or ()) > 1 or i.get(TENTATIVE_KEY)]
    if not listed:
        return [{k: v for k, v in i.items() if k not in private} for i in items]
    flat = [(item, s) for item in listed for s in _listed(item)]
    texts = [s for _, s in flat]
    tentative = [  # a statement judged by the model: the item's only one, or one it lists
        j
        for j, (item, s) in enumerate(flat)
        if item.get(TENTATIVE_KEY) and (len(_listed(item)) == 1 or s in item[TENTATIVE_KEY])
    ]
    found: list[FactClass | None]
    try:
        found = list(parts.ltm.classes.classifier().classify(texts))
    except EmbeddingError as exc:
        logger.debug("statements kept whole: %s", exc)
        found = [None] * len(texts)
    drops = small_talk_to_drop(texts, found, grammar=parts.ltm.config.class_grammar)
    gate = tentative_to_drop([found[j] for j in tentative])
    for j, drop in zip(tentative, gate, strict=True):
        drops[j] = drops[j] or drop
    out: list[dict[str, Any]] = []
    at = 0
    for item in items:
        base = {k: v for k, v in item.items() if k not in private}
        if not (len(item.get(STATEMENTS_KEY) or ()) > 1 or item.get(TENTATIVE_KEY)):
            out.append(base)
            continue
        statements = _listed(item)
        classes = found[at : at + len(statements)]
        dropping = drops[at : at + len(statements)]
        at += len(statements)
        if len(statements) == 1:
            if dropping[0]:
                result.small_talk_dropped += 1
                logger.info("not stored (a passing moment): %r", str(base["content"])[:80])
            else:
                out.append(base)
            continue
        contents, dropped = plan_statements(
            str(item["content"]),
            statements,
            classes,
            drop_confidence=drop_confidence,
            drops=dropping,
        )
        if dropped:
            result.small_talk_dropped += dropped
            logger.info(
                "%d clause(s) of %r not stored (small talk)", dropped, str(base["content"])[:80]
            )
        names = base.get("_names", [])
        out += [{**base, "content": c, "_names": names_in(c, names)} for c in contents]
    return out
