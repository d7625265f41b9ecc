"""Daily summaries: 3-5 sentences about a day's memories, by a model or by rules."""

from __future__ import annotations

import logging
import re
from collections import Counter
from datetime import date
from typing import TYPE_CHECKING

from langgraph_prax_memory.models import Memory

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["SUMMARY_PROMPT", "rule_based_summary", "summarise_day"]

logger = logging.getLogger(__name__)

SUMMARY_PROMPT = (
    "Summarise what was learned about the user on {day} in 3-5 plain sentences. Keep "
    "preferences, decisions and plans; drop chit-chat. Memories, most important first:\n{items}"
)
_CAPS = re.compile(r"\b[A-Z][a-zA-Z]{2,}\b")
_SPEAKER = re.compile(r"^\s*[\w .'-]{1,40}:\s+")
_MAX_SENTENCE = 220


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _MAX_SENTENCE:
        text = text[: _MAX_SENTENCE - 1].rsplit(" ", 1)[0] + "…"
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def rule_based_summary(day: date, memories: list[Memory]) -> str:
    """A deterministic 2-5 sentence summary: an overview plus the most important memories.

    Example:
        >>> from datetime import UTC, datetime
        >>> m = Memory(id="1", user_id="u", content="user: I prefer tea", importance=0.8,
        ...            created_at=datetime(2026, 3, 1, tzinfo=UTC),
        ...            last_accessed=datetime(2026, 3, 1, tzinfo=UTC))
        >>> rule_based_summary(date(2026, 3, 1), [m])
        'On 2026-03-01, 1 memory was consolidated. user: I prefer tea.'
    """
    ranked = sorted(memories, key=lambda m: (-m.importance, m.created_at))
    words: Counter[str] = Counter()
    for mem in memories:
        words.update(w for w in _CAPS.findall(_SPEAKER.sub("", mem.content)) if w.lower() != "user")
    topics = [w for w, _ in words.most_common(3)]
    count = len(memories)
    noun = "memory was" if count == 1 else "memories were"
    head = f"On {day.isoformat()}, {count} {noun} consolidated"
    head += f", mostly about {', '.join(topics)}." if topics and count > 1 else "."
    return " ".join([head, *(_sentence(m.content) for m in ranked[:4])])


def summarise_day(day: date, memories: list[Memory], chat_model: BaseChatModel | None) -> str:
    """The day's summary: the model's when it answers, else :func:`rule_based_summary`."""
    if chat_model is not None and memories:
        ranked = sorted(memories, key=lambda m: (-m.importance, m.created_at))[:40]
        items = "\n".join(f"- {m.content[:500]}" for m in ranked)
        try:
            answer = chat_model.invoke(SUMMARY_PROMPT.format(day=day.isoformat(), items=items))
            text = answer.content if isinstance(answer.content, str) else ""
            if text.strip():
                return text.strip()
            logger.warning("daily summary model answered with nothing; using the rule-based one")
        except Exception as exc:
            logger.warning("daily summary model failed (%s); using the rule-based one", exc)
    return rule_based_summary(day, memories)
