"""What the rule-based extractor stores of a sentence, and the changes of state it reads.

``sentence_facts``: the facts of one sentence as normalized third-person statements (a state
relation's canonical sentence, the sentence itself when it says more); ``life_change``: a new
job, a job left, a partner, a break-up, a diet, a renamed project.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from langgraph_prax_memory.consolidation._models import (
    ExtractedEntity,
    ExtractedFact,
    ExtractedRelation,
)
from langgraph_prax_memory.consolidation._normalize import state_statement, third_person
from langgraph_prax_memory.consolidation._rule_patterns import (
    _BREAK_UP,
    _CONTEXT,
    _CRITICAL,
    _DIET,
    _FIRST_PERSON,
    _HEDGE,
    _LEFT_JOB,
    _NEW_JOB,
    _PARTNER,
    _PREFERENCE,
    _RENAMED,
    _WORD,
    SUPERSEDES_CURRENT,
    _clean_object,
    _terms,
)
from langgraph_prax_memory.consolidation._smalltalk import _GENERIC, is_junk

#: The standing-fact tag (the context's profile tier, docs/context.md) of each state relation.
STATE_TAGS = {
    "lives_in": "profile",
    "works_at": "profile",
    "partner_of": "relationship",
    "prefers": "preference",
}
_ALLERGY = re.compile(r"\b(?:allergic|allergy|intoleran\w*|can't eat|cannot eat)\b", re.I)

__all__ = ["life_change", "sentence_facts"]

#: Words of a state statement's sentence that its canonical form already says ("I moved to
#: Berlin and work at Acme Corp now" is "User lives in Berlin." and "User works at Acme Corp.").
_STATE_WORDS = frozenset(
    _terms(
        "live lives living lived moved move moving relocated relocating based settled work "
        "works working job new got started start joined landed took position role current "
        "currently recently finally city town partner girlfriend boyfriend wife husband "
        "dating seeing"
    )
)


def life_change(
    sentence: str,
    obj: Callable[..., str | None],
    rel: Callable[..., None],
    *,
    change: bool,
) -> bool | None:
    """A renamed project, a break-up, a job left or started, a partner, a diet.

    Adds the relation through ``rel`` and returns True; None when nothing matched.
    """
    hit = _RENAMED.search(sentence)
    if hit is not None:
        old = _clean_object(hit.group("old") or hit.group("old2") or "")
        new_raw = _clean_object(hit.group("new") or hit.group("new2") or "")
        new = obj(new_raw, "project") if new_raw else None
        if old and new:
            obj(old, "project")
            rel("works_on", new, old)
            return True
    hit = _BREAK_UP.search(sentence)
    if hit is not None:
        old = obj(_clean_object(hit.group("old") or hit.group("old2") or ""), "person")
        if old:
            rel("partner_of", old, old)
            return True
    hit = _LEFT_JOB.search(sentence)
    if hit is not None:
        old = obj(_clean_object(hit.group("old")), "organization")
        if old:
            rel("works_at", old, old)
            return True
    hit = _NEW_JOB.search(sentence)
    if hit is not None:
        new = obj(_clean_object(hit.group("obj")), "organization")
        if new:
            rel("works_at", new, SUPERSEDES_CURRENT)
            return True
    hit = _PARTNER.search(sentence)
    if hit is not None:
        new = obj(_clean_object(hit.group("obj")), "person")
        if new:
            moved_on = change or hit.group("new_word") is not None or bool(hit.group("verb"))
            rel("partner_of", new, SUPERSEDES_CURRENT if moved_on else None)
            return True
    hit = _DIET.search(sentence)
    if hit is not None:
        new = obj(hit.group("new").lower(), "topic")
        if new:
            rel("prefers", new, SUPERSEDES_CURRENT)
            return True
    return None


def sentence_facts(
    who: str,
    sentence: str,
    named: Sequence[ExtractedEntity],
    index: int,
    *,
    stated: Sequence[ExtractedRelation],
    whole: bool,
) -> list[ExtractedFact]:
    """The facts of one sentence, as normalized third-person statements.

    A state relation ("I moved to Berlin", "I work at Acme Corp now") gives its canonical
    sentence ("User lives in Berlin.", "User works at Acme Corp."); the sentence itself is
    kept (in the third person) when ``whole``: some clause of it states more than that.
    """
    changed = any(r.supersedes for r in stated)
    subject = who[:1].upper() + who[1:]
    out: list[ExtractedFact] = []
    for r in stated:
        if r.supersedes is not None and r.supersedes.strip().lower() == r.target.lower():
            continue  # a closing states no new value
        text = state_statement(r.type, subject, r.target)
        if text is None or r.confidence < 0.6:
            continue
        out.append(
            ExtractedFact(
                content=text,
                importance=0.9 if changed else 0.7,
                confidence=r.confidence,
                entities=[who, r.target],
                tags=[STATE_TAGS.get(r.type, "profile")],
                source_index=index,
            )
        )
    if out and not whole:  # the statements say it all unless the sentence says more
        said = {w.lower().strip("'’.-") for f in out for w in _WORD.findall(f.content)}
        rest = [
            w
            for w in (t.lower().strip("'’.-") for t in _WORD.findall(sentence))
            if w and w not in said and w not in _GENERIC and w not in _STATE_WORDS
        ]
        whole = bool(rest)
    if whole or not out:
        fact = _fact(subject, sentence, named, index, changed=changed)
        if fact is not None and fact.content not in {f.content for f in out}:
            out.append(fact)
    return out


_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:]|\s[-–—])\s+")


def _without_trailing_question(sentence: str) -> str:
    """A statement with a question tacked on loses only the question.

    "we moved to Leith, any tips?": the clauses before the last break are kept when they
    hold at least three words.

    Example:
        >>> _without_trailing_question("I moved to Leith last month, any tips for the bus?")
        'I moved to Leith last month.'
        >>> _without_trailing_question("Do you know a good dentist?")
        'Do you know a good dentist?'
    """
    if not sentence.rstrip().endswith("?"):
        return sentence
    parts = _CLAUSE_BREAK.split(sentence.rstrip())
    if len(parts) < 2:
        return sentence
    head = ", ".join(p.strip() for p in parts[:-1] if p.strip()).rstrip(" ,;:")
    if len(re.findall(r"\w+", head)) < 3 or head.endswith("?"):
        return sentence
    return head + "."


def _fact(
    subject: str,
    sentence: str,
    named: Sequence[ExtractedEntity],
    index: int,
    *,
    changed: bool = False,
) -> ExtractedFact | None:
    sentence = _without_trailing_question(sentence)
    if sentence.endswith("?") or len(re.findall(r"\w+", sentence)) < 3:
        return None  # "I'm diabetic." is three words
    if not _FIRST_PERSON.search(sentence) and not changed:
        return None
    if is_junk(sentence, entities=[e.name for e in named if e.type != "person"], change=changed):
        return None
    tags: list[str] = []
    if changed or _CRITICAL.search(sentence):
        importance = 0.9
        if _ALLERGY.search(sentence):
            tags = ["constraint"]
    elif _PREFERENCE.search(sentence):
        importance = 0.8
        tags = ["preference"]
    elif _CONTEXT.search(sentence):
        importance = 0.55
    elif _FIRST_PERSON.search(sentence):
        importance = 0.45  # something about the speaker that is not small talk
    else:
        return None
    confidence = 0.45 if _HEDGE.search(sentence) else 0.8
    return ExtractedFact(
        content=third_person(subject, sentence),
        importance=importance,
        tags=tags,
        confidence=confidence,
        entities=[e.name for e in named],
        source_index=index,
    )
