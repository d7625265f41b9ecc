"""Notes of several statements, read statement by statement (the classifier's last readings).

A note strings statements with dashes, semicolons or full stops, and read whole it can hide
the one that matters: the parser takes one statement's noun for the next one's subject, or
the embedding reads a fact with its details as chatter. :func:`by_segment` asks the grammar
of each statement of a note; :func:`by_sentence` asks the classifier of each sentence of a
note it called small talk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from langgraph_prax_memory.facts._dropped import restored_subjects
from langgraph_prax_memory.facts._grammar import holds_now


class _Class(Protocol):
    """What :func:`by_sentence` reads of a class (the classifier's ``FactClass``)."""

    @property
    def fact_class(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def by(self) -> str: ...


_C = TypeVar("_C", bound=_Class)

__all__ = ["by_segment", "by_sentence"]

#: Where one sentence of a note ends and the next begins: a full stop, a question or an
#: exclamation mark before a capital.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
#: What a conversation's turn has and a note has not: a speaker ("Mel: ...") or a question or
#: an exclamation. Its sentences are read as the turn they are in (thanks and asides around
#: a fact are the turn's), not one by one.
_A_TURN = re.compile(r"^\s*[A-Za-z][\w .'@-]{0,40}?\s*:\s+|[?!]")
#: What separates the statements of a note ("ACL reconstruction in 2023 — avoids steep
#: descents, always uses poles"): a dash between spaces or a semicolon.
_SEGMENT = re.compile(r"\s+[\u2014\u2013-]\s+|;\s+")


def by_segment(
    texts: Sequence[str],
    found: Sequence[bool],
    dated: Callable[[str], bool],
    ahead: Callable[[str], bool],
    later: Callable[[str], bool],
) -> list[bool]:
    """``found``, with each note whose statements hold now read statement by statement.

    A note strings its statements with dashes or semicolons and may leave out each one's
    subject ("ACL reconstruction on the left knee in 2023 — avoids steep descents with a
    heavy pack"): read whole, the parser takes the first statement's noun for the second's
    subject. Each statement is read alone, its subject put back where it left it out
    (:func:`~._dropped.restored_subjects`); one that holds now makes the note hold. Not a
    note that names a day to come (``later``): what else it says is that episode's
    ("Flight to Lisbon next March — needs a lift to the airport"), which only the whole
    note tells.
    """
    out = list(found)
    todo = [
        (i, parts)
        for i, t in enumerate(texts)
        if not out[i]
        and len(parts := [p.strip() for p in _SEGMENT.split(t) if p.strip()]) > 1
        and not later(t)  # a day to come: the rest is that episode's ("— needs a lift")
    ]
    if not todo:
        return out
    flat = [p for _, parts in todo for p in parts]
    restored = restored_subjects([p[:1].upper() + p[1:] for p in flat])
    read = holds_now(
        [r or p for r, p in zip(restored, flat, strict=True)], dated=dated, ahead=ahead
    )
    at = 0
    for i, parts in todo:
        out[i] = any(read[at : at + len(parts)])
        at += len(parts)
    return out


def by_sentence(
    texts: Sequence[str],
    decided: list[_C],
    classify: Callable[[list[str]], list[_C]],
    *,
    small_talk: str,
    wanted: Sequence[str],
) -> list[_C]:
    """``decided``, with a note of several sentences called small talk read by sentence.

    A note may string a fact with details the classifier reads as chatter ("Lactose
    intolerant. Hard cheese ok in small amounts; milk and cream are not": small talk whole,
    "Lactose intolerant." a standing fact at 1.00). Each sentence is classified alone
    (``classify``); the first class of ``wanted`` (standing, then episode) found among them
    gives the note its class, kind and confidence, the surest sentence's; small talk in
    every sentence leaves the note small talk. Only a class read from the text (not one a
    caller's tags gave), and only a note: a conversation's turn (a speaker, a question, an
    exclamation) is read whole, its thanks and asides with it.
    """
    notes = {
        i: parts
        for i, (t, c) in enumerate(zip(texts, decided, strict=True))
        if c.fact_class == small_talk
        and c.by == "text"
        and _A_TURN.search(t) is None
        and len(parts := [p for p in _SENTENCE_BREAK.split(t.strip()) if p.strip()]) > 1
    }
    if not notes:
        return decided
    each = classify([p for parts in notes.values() for p in parts])
    out, at = list(decided), 0
    for i, parts in notes.items():
        mine = each[at : at + len(parts)]
        at += len(parts)
        for cls in wanted:
            found = [c for c in mine if c.fact_class == cls]
            if found:
                out[i] = max(found, key=lambda c: c.confidence)
                break
    return out
