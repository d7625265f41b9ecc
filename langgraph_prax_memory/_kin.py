"""The people a request calls by their relation to the user, and the standing facts naming them.

"Help me write something to my mother": the user's memories say who the mother is ("User's
mum Verónica lives in Valparaíso"), and what they say of Verónica is what the request is
about. The names come from the user's standing facts (:func:`~langgraph_prax_memory.
retrieval.user_kin`, one name to a relation); when the facts scored for the request do not
give one — the fact that binds the relation may share no word with it ("mother" / "mum")
— the user's standing facts are read once more for the relation's words, every spelling of
it (:func:`~langgraph_prax_memory.retrieval.relation_words`), and those naming the person
join the profile tier's candidates. The context block orders the facts that name them first
(docs/context.md, "The profile tier").
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from langgraph_prax_memory._dated import names_in
from langgraph_prax_memory.errors import BackendUnavailable, EmbeddingError
from langgraph_prax_memory.facts import subject_of
from langgraph_prax_memory.models import MemoryHit
from langgraph_prax_memory.retrieval import kin_named, relation_words, user_kin

__all__ = ["kin_in", "named_kin"]

logger = logging.getLogger(__name__)


class _Facts(Protocol):
    """What the reading needs of a memory (``PraxMemory``; no import of the facade here)."""

    def standing_facts(
        self, user_id: str, query: str, *, k: int | None = ..., now: datetime | None = ...
    ) -> list[MemoryHit]: ...


_MY = re.compile(r"\b(?:my|our)\b", re.I)


def named_kin(message: str, facts: Sequence[MemoryHit]) -> set[str]:
    """The names of the people ``message`` calls by their relation to the user ("my wife").

    As the user's standing facts ``facts`` give them (one name to a relation); the user's
    own name is the subject most of them open with, when a third of them do.
    """
    if not _MY.search(message) or not facts:
        return set()
    contents = [h.memory.content for h in facts]
    subjects = [s for c in contents if (s := subject_of(c)) is not None]
    owner = None
    if subjects:
        top, count = Counter(subjects).most_common(1)[0]
        owner = top if count * 3 >= len(contents) else None
    return kin_named(message, user_kin(contents, owner))


def kin_in(
    memory: _Facts,
    user_id: str,
    message: str,
    facts: Sequence[MemoryHit],
    now: datetime | None = None,
) -> tuple[set[str], list[MemoryHit]]:
    """``(names, more facts)``: whom ``message`` calls by relation, and facts naming them.

    ``facts`` are the user's standing facts scored for the message; ``more`` the standing
    facts outside them that name one of the people, read for the relation's words when
    ``facts`` name no one (one more scoring of the user's standing facts, only then; a
    scoring that fails leaves ``more`` empty and the block as it was).
    """
    words = relation_words(message)
    if not words:
        return set(), []
    people = named_kin(message, facts)
    if people:
        return people, []
    seen = {h.memory.id for h in facts}
    try:
        read = memory.standing_facts(user_id, " ".join(sorted(words)), now=now)
    except (BackendUnavailable, EmbeddingError) as exc:  # the block keeps what it has
        logger.warning("the facts of whom the request calls by relation were not read: %s", exc)
        return people, []
    more = [h for h in read if h.memory.id not in seen]
    people = named_kin(message, [*facts, *more])
    return people, [h for h in more if names_in(h.memory.content, people)]
