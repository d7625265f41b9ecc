"""Query expansion (an optional precision pass of recall): the prompt and the model's answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["QueryVariants", "expansion_messages"]

EXPANSION_PROMPT = (
    "Rewrite the user's memory-search query as {n} short alternative phrasings, and add one "
    "plausible sentence that a stored memory answering it might contain. Reply as JSON: "
    '{{"variants": ["...", "..."]}}'
)


class QueryVariants(BaseModel):
    """Paraphrases of a query, and optionally a hypothetical answer (HyDE)."""

    variants: list[str] = Field(default_factory=list)


def expansion_messages(query: str, n: int) -> list[BaseMessage]:
    """The messages that ask for ``n`` paraphrases of ``query`` and one hypothetical answer.

    Example:
        >>> expansion_messages("which editor?", 2)[0].content.split(" as ")[1][:21]
        '2 short alternative p'
    """
    # imported on use: the prompts load with the scratchpad, which needs no LangChain
    from langchain_core.messages import HumanMessage, SystemMessage

    return [SystemMessage(EXPANSION_PROMPT.format(n=n)), HumanMessage(query)]
