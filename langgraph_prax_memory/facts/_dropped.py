"""A note that drops its subject, read with the subject it dropped (pure, over the parser).

People write notes about a person without naming them: "Works nights Mon–Thu", "Drinks oat
milk in her coffee", "Keeps bees". The subject is the person the note is about. The small
parser often reads the capitalised verb that opens such a note as a plural noun ("Works
nights" as a compound noun), and the classifier, which learnt mostly whole sentences, reads
a bare fragment less surely than the sentence it stands for. :func:`restored_subjects`
gives such a note back its subject ("She works nights Mon–Thu"): the parser, given the
subject, must read the opening word as the present verb of the sentence, and no other
finite verb may head a clause of its own ("Dogs scare him" is a sentence already).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langgraph_prax_memory.facts._parser import parsed

__all__ = ["restored_subjects"]

#: A note opening with a capitalised word in -s that could be a present verb ("Works",
#: "Keeps"; not "It's", "Is": a one-letter stem is a pronoun or an auxiliary).
_OPENING = re.compile(r"^\s*([A-Z][a-z]+s)\b(?!['\u2019])")
_FINITE = frozenset(["VBZ", "VBP", "VBD", "MD"])


def restored_subjects(texts: Sequence[str], subject: str = "She") -> list[str | None]:
    """Each text with the subject its note dropped, or ``None`` when it dropped none.

    Example:
        >>> restored_subjects(["Works nights Mon-Thu", "Dogs scare him.", "User keeps bees."])
        ['She works nights Mon-Thu', None, None]
    """
    out: list[str | None] = [None] * len(texts)
    found = [(i, m) for i, t in enumerate(texts) if (m := _OPENING.match(t))]
    if not found:
        return out
    candidates = [f"{subject} {_lowered(texts[i][m.start(1) :])}" for i, m in found]
    docs = parsed(candidates)
    if docs is None:
        return out
    for (i, _), text, doc in zip(found, candidates, docs, strict=True):
        if len(doc) > 1 and _reads_as_its_verb(doc):
            out[i] = text
    return out


def _lowered(text: str) -> str:
    return text[:1].lower() + text[1:]


def _reads_as_its_verb(doc: object) -> bool:
    """Whether the word after the subject is the sentence's present verb.

    Every other finite verb must head a clause with its own subject ("thinks buses are
    fine") or be coordinated, sharing the subject ("works nights, sleeps days"); one that is
    neither ("She dogs *scare* him", "She james *works* at Aldi") says the text was a
    sentence with its own subject already.
    """
    tokens = list(doc)  # type: ignore[call-overload]
    verb = tokens[1]
    if verb.tag_ != "VBZ" or verb.dep_ != "ROOT" or tokens[0].dep_ != "nsubj":
        return False
    return all(
        t.dep_ == "conj" or any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in t.children)
        for t in tokens[2:]
        if t.tag_ in _FINITE
    )
