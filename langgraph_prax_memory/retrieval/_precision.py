"""Optional precision passes (off by default): query expansion and LLM rerank.

Both degrade to the plain order when the model is missing or fails: retrieval never breaks
because an assist model did. Their prompts and answer models live in
:mod:`langgraph_prax_memory.prompts.expansion` and :mod:`langgraph_prax_memory.prompts.rerank`.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from langgraph_prax_memory.prompts.expansion import QueryVariants, expansion_messages
from langgraph_prax_memory.prompts.rerank import RerankJudgement, rerank_messages

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["QueryVariants", "RerankJudgement", "expand_query", "rerank_order"]

logger = logging.getLogger(__name__)


def text_of(content: Any) -> str:
    """The text of a chat reply's content (a string or a list of parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def json_object(text: str) -> Any:
    """The first JSON object in ``text`` (a model reply may wrap it in prose or a fence)."""
    match = re.search(r"\{.*\}", text, re.S)
    if not match:
        raise ValueError("no JSON object in the model's reply")
    return json.loads(match.group(0))


def expand_query(model: BaseChatModel | None, query: str, n: int) -> list[str]:
    """Up to ``n`` + 1 variants of ``query``; ``[]`` when there is no model or it fails."""
    if model is None:
        return []
    messages = expansion_messages(query, n)
    try:
        reply = model.invoke(messages)
        parsed = QueryVariants.model_validate(json_object(text_of(reply.content)))
    except (ValidationError, ValueError, json.JSONDecodeError) as exc:
        logger.warning("query expansion ignored an unusable reply: %s", exc)
        return []
    except Exception as exc:  # the assist model is optional: never fail retrieval
        logger.warning("query expansion failed, using the plain query: %s", exc)
        return []
    out = [v.strip() for v in parsed.variants if isinstance(v, str) and v.strip()]
    return [v for v in out if v != query][: n + 1]


def rerank_order(model: BaseChatModel | None, query: str, candidates: Sequence[str]) -> list[int]:
    """Indices of ``candidates`` best first by an LLM judge; the given order on any failure.

    Candidates the judge did not score keep their relative order after the scored ones.
    """
    plain = list(range(len(candidates)))
    if model is None or len(candidates) < 2:
        return plain
    messages = rerank_messages(query, candidates)
    try:
        reply = model.invoke(messages)
        judged = RerankJudgement.model_validate(json_object(text_of(reply.content)))
    except Exception as exc:
        logger.warning("rerank failed, keeping the fused order: %s", exc)
        return plain
    scores = {i: s for i, s in judged.scores.items() if 0 <= i < len(candidates)}
    return sorted(plain, key=lambda i: (-scores.get(i, float("-inf")), i))
