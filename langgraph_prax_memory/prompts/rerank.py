"""LLM rerank (an optional precision pass of recall): the prompt and the judge's answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["RerankJudgement", "rerank_messages"]

RERANK_PROMPT = (
    "Score how well each numbered memory answers the query, from 0 (irrelevant) to 10 "
    '(answers it). Reply as JSON: {"scores": {"0": 7, "1": 2, ...}}'
)


class RerankJudgement(BaseModel):
    """Relevance of each numbered candidate to the query, 0–10."""

    scores: dict[int, float] = Field(default_factory=dict)


def rerank_messages(query: str, candidates: Sequence[str]) -> list[BaseMessage]:
    """The messages that ask the judge to score each numbered candidate (cut to 500 chars).

    Example:
        >>> rerank_messages("editor", ["vim", "helix"])[1].content.splitlines()[-1]
        '1. helix'
    """
    listing = "\n".join(f"{i}. {c[:500]}" for i, c in enumerate(candidates))
    # imported on use: the prompts load with the scratchpad, which needs no LangChain
    from langchain_core.messages import HumanMessage, SystemMessage

    return [SystemMessage(RERANK_PROMPT), HumanMessage(f"Query: {query}\n\nMemories:\n{listing}")]
