"""A question of the world gets no episode or small talk of the person's (the context block).

"Who invented the bicycle?" meets "User restored a 1970s racing bike" by its words, and
"Why does spring officially start on 20 or 21 March?" names days of the person's diary: a
good assistant answers both from what it knows, with the person's standing facts at hand
(they shape any answer) but not their plans, events and small talk. :func:`asks_the_world`
reads the request (``facts.QuestionReader``: the question's own embedding, a classifier
trained on requests written for it; never a request in the first person, nor one naming
someone or something the recalled memories call by name); :func:`without_episodes` leaves
the recalled episodes and small talk out, each saying why. docs/context.md, "A question of
the world".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Protocol

from langgraph_prax_memory._when import names_a_day
from langgraph_prax_memory.facts import EPISODE, SMALL_TALK, QuestionReader
from langgraph_prax_memory.models import MemoryHit

__all__ = ["WORLD_WHY", "asks_the_world", "without_episodes"]

logger = logging.getLogger(__name__)

#: Why a recalled episode or small talk is left out of the block of a question of the world.
WORLD_WHY = "not a standing fact, and the request asks about the world, not the user's life"


_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'\u2019-]+")


class _Classes(Protocol):
    def questions(self) -> QuestionReader: ...


def names_held(message: str, contents: Sequence[str]) -> list[str]:
    """The names ``message`` calls that the memories' ``contents`` hold too ("Lena").

    A capitalised word not opening a sentence, found capitalised in a memory; a day
    ("Easter", "May") is no name.

    Example:
        >>> names_held("When does Lena defend her thesis in May?", ["Lena defends on 5 May."])
        ['Lena']
    """
    words = {w.removesuffix("'s").removesuffix("\u2019s") for w in _CAPITALISED.findall(message)}
    held = [w for w in sorted(words) if any(w in c for c in contents)]
    return [w for w in held if not names_a_day(f"in {w}")]


def asks_the_world(classes: _Classes, message: str, hits: Sequence[MemoryHit]) -> bool:
    """Whether ``message`` asks about the world rather than the person's life.

    ``False`` when the reader cannot answer (the embedding model down, its weights
    unreadable): the block is then what it was before the reader, never lost.
    """
    names = names_held(message, [h.memory.content for h in hits])
    try:
        return classes.questions().of_the_world(message, names)
    except Exception as exc:  # a judgement that adds to the block, never one it rests on
        logger.warning("question reader unavailable, read as the person's: %s", exc)
        return False


def without_episodes(hits: Sequence[MemoryHit]) -> list[MemoryHit]:
    """``hits`` with each episode or small talk that passed the floor left out (it says why)."""
    return [
        h.model_copy(update={"relevant": False, "why": f"{h.why}, but {WORLD_WHY}"})
        if h.relevant and h.memory.fact_class in (EPISODE, SMALL_TALK)
        else h
        for h in hits
    ]
