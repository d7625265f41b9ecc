"""The long-term memory tools: ``memory_remember``, ``memory_recall``, ``memory_forget``."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from pydantic import BaseModel

from langgraph_prax_memory._untrusted import one_line
from langgraph_prax_memory.tools._base import MemoryTool
from langgraph_prax_memory.tools._schemas import _ForgetInput, _RecallInput, _RememberInput


class MemoryRememberTool(MemoryTool):
    """``memory_remember``: store a durable long-term memory (dense + sparse vectors)."""

    name: str = "memory_remember"
    description: str = (
        "Store a durable fact in long-term memory so it can be recalled in later "
        "conversations (preferences, decisions, facts about the user and their work). "
        "Write it as a self-contained sentence about the user."
    )
    args_schema: type[BaseModel] = _RememberInput
    requires_ltm: ClassVar[bool] = True

    def execute(self, user_id: str, args: _RememberInput) -> tuple[str, dict[str, Any]]:
        """Store the memory."""
        content, importance = args.content, args.importance
        tags = args.tags
        memory_id = self.memory.remember(
            user_id, content, importance=importance, tags=tags, source="conversation"
        )
        return (
            f"Remembered (id {memory_id}, importance {importance:g}).",
            {"memory_id": memory_id, "content": content, "importance": importance},
        )


class MemoryRecallTool(MemoryTool):
    """``memory_recall``: hybrid recall over long-term memory, best first."""

    name: str = "memory_recall"
    description: str = (
        "Search long-term memory (semantic + keyword + knowledge graph, fused). Use for "
        "'what do you know about ...', preferences, past decisions. Returns the memories "
        "relevant to the query, then the user's standing facts (preferences, identity), with ids."
    )
    args_schema: type[BaseModel] = _RecallInput
    requires_ltm: ClassVar[bool] = True

    def execute(self, user_id: str, args: _RecallInput) -> tuple[str, dict[str, Any]]:
        """Recall and describe the hits."""
        query, k = args.query, args.k
        result = self.memory.recall_detailed(
            user_id, query, k=k, include_history=args.include_history, reinforce=False
        )
        # the context block's judgement: memories below the relevance floor are left out, and
        # the user's standing facts follow the relevant ones within the profile budget
        from langgraph_prax_memory.context import reinforce_chosen, select_memories

        cfg = self.memory.config.retrieval
        floor = cfg.relevance_floor
        facts = (
            self.memory.standing_facts(user_id, query)
            if args.include_profile and cfg.profile_chars > 0
            else []
        )
        shown, profile, left_out = select_memories(
            result.hits,
            facts,
            ltm_chars=sys.maxsize,
            profile_chars=cfg.profile_chars,
            importance_weight=cfg.profile_importance_weight,
            floor=floor,
        )
        reinforce_chosen(self.memory, user_id, shown, profile, None)
        standing = {h.memory.id for h in profile}
        below = len(left_out)
        matched = len(shown) - len(profile)
        hits = [
            {
                "id": h.memory.id,
                "content": h.memory.content,
                "source": h.memory.source,
                "importance": h.memory.importance,
                "created_at": h.memory.created_at.isoformat(),
                "tags": list(h.memory.tags),
                "valid_until": h.memory.valid_until.isoformat() if h.memory.valid_until else None,
                "superseded_by": h.memory.superseded_by,
                "score": h.score,
                "relevant": h.relevant,
                "standing_fact": h.memory.id in standing,
                "ranks": dict(h.ranks),
                "explanation": h.explain(),
            }
            for h in shown
        ]
        artifact = {
            "query": query,
            "hits": hits,
            "arms": dict(result.arms),
            "errors": dict(result.errors),
            "weights": dict(result.weights),
            "below_floor": below,
        }
        if not hits:
            if below:
                return (
                    f"No memory is relevant to {query!r} ({below} weaker matches were below "
                    "the relevance floor).",
                    artifact,
                )
            return f"No memories found for {query!r}.", artifact
        if matched:
            lines = [f"{matched} memories for {query!r}:"]
        else:
            weaker = f" ({below} weaker matches were below the relevance floor)" if below else ""
            lines = [f"No memory is relevant to {query!r}{weaker}."]
        for i, (h, raw) in enumerate(zip(hits, shown, strict=True), 1):
            if i == matched + 1:
                lines.append("Standing facts about the user:")
            arms = ", ".join(f"{a} #{r}" for a, r in raw.ranks.items())
            if raw.memory.id in standing:
                arms = f"standing fact, {arms}" if arms else "standing fact"
            until = raw.memory.valid_until
            old = f"superseded {until.date().isoformat()}; " if until else ""
            lines.append(
                f"{i}. {one_line(raw.memory.content)} "
                f"[{old}id {h['id']}; {raw.memory.created_at.date().isoformat()}; "
                f"importance {raw.memory.importance:g}; relevance {raw.score:.2f}; {arms}]"
            )
        if result.errors:
            lines.append("(degraded: " + "; ".join(f"{a} arm" for a in result.errors) + " down)")
        return "\n".join(lines), artifact


class MemoryForgetTool(MemoryTool):
    """``memory_forget``: delete one long-term memory of the current user."""

    name: str = "memory_forget"
    description: str = (
        "Delete a long-term memory by id (get ids from memory_recall). Use when the user asks "
        "to forget something or a stored fact is wrong."
    )
    args_schema: type[BaseModel] = _ForgetInput
    requires_ltm: ClassVar[bool] = True

    def execute(self, user_id: str, args: _ForgetInput) -> tuple[str, dict[str, Any]]:
        """Delete the memory."""
        memory_id = args.memory_id
        deleted = self.memory.forget(user_id, memory_id)
        text = f"Forgot memory {memory_id}." if deleted else f"No memory with id {memory_id}."
        return text, {"memory_id": memory_id, "deleted": deleted}
