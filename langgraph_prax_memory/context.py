"""The memory-context block an agent's system prompt receives."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AnyMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig

from langgraph_prax_memory._context_lines import (
    _NOTE_WHY,
    _SCRATCH_WHY,
    ContextLine,
    _line,
    _Why,
)
from langgraph_prax_memory._context_lines import CONTEXT_TIERS as CONTEXT_TIERS
from langgraph_prax_memory._dated import dated_episodes, names_in
from langgraph_prax_memory._kin import kin_in
from langgraph_prax_memory._untrusted import quote_for_prompt
from langgraph_prax_memory._validation import to_utc, utcnow
from langgraph_prax_memory._world import asks_the_world, without_episodes
from langgraph_prax_memory.errors import BackendUnavailable, EmbeddingError, MemoryValidationError
from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.prompts.context_check import ContextJudgement, context_check_messages
from langgraph_prax_memory.retrieval import json_object, text_of
from langgraph_prax_memory.stm import StmEntry

if TYPE_CHECKING:
    from langgraph_prax_memory.memory import PraxMemory

__all__ = [
    "ContextLine",
    "MemoryContext",
    "assemble_context",
    "build_memory_context",
    "format_memories",
    "format_working_memory",
    "memory_context_node",
    "memory_pre_model_hook",
    "select_memories",
]

logger = logging.getLogger(__name__)


def format_memories(hits: Sequence[MemoryHit], *, max_chars: int = 2000) -> str:
    """``## Relevant Memories`` with ``- [source, date] content`` lines, within ``max_chars``.

    Returns an empty string when there is nothing to say. Source and content are stored text,
    rendered as quoted data (one line each, markup escaped; see ``docs/security.md``), so a
    memory cannot add a section or an instruction block to the prompt.

    Example:
        >>> format_memories([])
        ''
    """
    if not hits:
        return ""
    lines = ["## Relevant Memories"]
    used = len(lines[0])
    for hit in hits:
        m = hit.memory
        source = quote_for_prompt(m.source, max_chars=40)
        line = f"- [{source}, {m.created_at.date().isoformat()}] {quote_for_prompt(m.content)}"
        if used + 1 + len(line) > max_chars:
            break
        lines.append(line)
        used += 1 + len(line)
    return "\n".join(lines) if len(lines) > 1 else ""


def _quote_note_lines(notes: str) -> str:
    """Each selected note line as one quoted bullet (its own leading bullet kept as one)."""
    lines = []
    for raw in notes.splitlines():
        text = raw.strip()
        if text[:2] in ("- ", "* ", "+ "):
            text = text[2:]
        if text:
            lines.append("- " + quote_for_prompt(text))
    return "\n".join(lines)


def format_working_memory(entries: Sequence[StmEntry], *, max_chars: int = 1500) -> str:
    """``## Working Memory (Scratchpad)`` with ``- **key**: content`` lines, within ``max_chars``.

    Example:
        >>> format_working_memory([])
        ''
    """
    lines = ["## Working Memory (Scratchpad)"]
    used = len(lines[0])
    for entry in entries:
        line = f"- **{quote_for_prompt(entry.key)}**: {quote_for_prompt(entry.content)}"
        if used + 1 + len(line) > max_chars:
            break
        lines.append(line)
        used += 1 + len(line)
    return "\n".join(lines) if len(lines) > 1 else ""


@dataclass(frozen=True)
class MemoryContext:
    """What the agent receives for one message, tier by tier, and the rendered block.

    Attributes:
        text: The block for the system prompt (``""`` when there is nothing to say).
        notes: The user-notes lines that matched the message.
        scratchpad: The rendered scratchpad section.
        memories: The long-term memories in the block, in their order (recalled hits that
            passed the floor first, then the episodes of the dated tier, then the standing
            facts of the profile tier).
        profile: The standing facts among ``memories`` (the profile tier).
        left_out: Recalled hits below the floor (not in the block), for explanations.
        checked: How the optional model check went (``""``: not run).
        lines: Every line of the block under its section header, in order, with the rule
            that put it there (:class:`ContextLine`).
        omitted: Every recalled hit that is not in the block, with why not.
        dated: The memories among ``memories`` the dated tier gave: episodes dated in the
            days the message names, routines on those weekdays
            (``RetrievalConfig.dated_limit``; docs/context.md, "The dated tier").
    """

    text: str
    notes: str = ""
    scratchpad: str = ""
    memories: tuple[MemoryHit, ...] = ()
    profile: tuple[MemoryHit, ...] = ()
    left_out: tuple[MemoryHit, ...] = ()
    checked: str = ""
    lines: tuple[ContextLine, ...] = ()
    omitted: tuple[ContextLine, ...] = ()
    dated: tuple[MemoryHit, ...] = ()

    def explain(self) -> str:
        """Each line of the block with the rule that put it there, then each hit left out.

        Example:
            >>> MemoryContext(text="").explain()
            'nothing in the block'
        """
        out = [f"{line.text}  <- {line.tier}: {line.why}" for line in self.lines]
        if not out:
            out.append("nothing in the block")
        out.extend(f"left out: {line.text}  <- {line.why}" for line in self.omitted)
        return "\n".join(out)


#: The importance a tagged constraint carries (the seed's "critical" facts: allergies, a
#: condition, what someone cannot eat), given in the profile tier's order to a standing
#: health fact read from its text when its writer said nothing of its importance.
_CONSTRAINT_IMPORTANCE = 0.9


def _profile_weight(m: Memory) -> float:
    """A memory's importance as the profile tier orders it.

    Its own, but a standing health fact classified from its text (not by its writer's tags)
    at the neutral importance 0.5 — ``remember(text)``, ``store.put(..., {"content": ...})``
    — counts as a tagged constraint does: what could harm the person comes first, whatever
    the request (docs/context.md, "The profile tier").
    """
    if (
        m.importance == 0.5
        and m.fact_class == "standing"
        and m.fact_kind == "health"
        and m.fact_by in ("text", "grammar")
    ):
        return _CONSTRAINT_IMPORTANCE
    return m.importance


def _profile_order(
    facts: Sequence[MemoryHit], weight: float, people: Collection[str] = ()
) -> list[MemoryHit]:
    """Standing facts by calibrated relevance to the request plus ``weight`` × importance.

    Those naming ``people`` (whom the request calls by their relation to the user: "my
    mother" is Verónica) come first: they are about whom the request is about.
    """
    own = {h.memory.id: (h.score if h.relevance is None else h.relevance) for h in facts}
    return sorted(
        facts,
        key=lambda h: (
            not names_in(h.memory.content, people),
            -(own[h.memory.id] + weight * (_profile_weight(h.memory) - 0.5)),
            h.memory.id,
        ),
    )


def _model_check(
    model: BaseChatModel,
    message: str,
    uncertain: Sequence[MemoryHit],
    timeout: float,
) -> tuple[set[str] | None, str]:
    """The ids the model keeps among ``uncertain``; ``None`` when it failed or was too slow."""
    messages = context_check_messages(message, [h.memory.content for h in uncertain])
    answer: dict[str, Any] = {}

    def ask() -> None:
        try:
            answer["reply"] = model.invoke(messages)
        except Exception as exc:  # reported below; an optional assist never breaks the context
            answer["error"] = exc

    # a daemon thread: a model that never answers cannot keep the process from exiting
    worker = threading.Thread(target=ask, name="prax-context-check", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        logger.warning("context check gave no answer within %.1f s; the floor decides", timeout)
        return None, f"model check timed out after {timeout:g} s; the floor decided"
    try:
        if "error" in answer:
            raise answer["error"]
        judged = ContextJudgement.model_validate(json_object(text_of(answer["reply"].content)))
    except Exception as exc:
        logger.warning("context check failed, the floor decides: %s", exc)
        return None, f"model check failed ({type(exc).__name__}); the floor decided"
    keep = {uncertain[i].memory.id for i in judged.use if 0 <= i < len(uncertain)}
    return keep, f"model check kept {len(keep)} of {len(uncertain)} uncertain memories"


def select_memories(
    hits: Sequence[MemoryHit],
    facts: Sequence[MemoryHit],
    *,
    ltm_chars: int,
    profile_chars: int,
    importance_weight: float = 0.5,
    floor: bool = True,
    dated: Sequence[MemoryHit] = (),
    people: Collection[str] = (),
) -> tuple[list[MemoryHit], list[MemoryHit], list[MemoryHit]]:
    """The context's long-term memories: relevant hits, dated episodes, standing facts.

    Recalled hits that pass the floor (all of them with ``floor=False``) come first, by
    score; then the ``dated`` episodes not among them (the dated tier, in their order);
    then the standing facts not among them, by relevance and importance (those naming
    ``people`` first), within ``profile_chars``; the whole section stays within ``ltm_chars``.

    Returns:
        ``(memories, profile, left_out)``: what goes in the block in its order, the standing
        facts among it, and the recalled hits the floor left out.
    """
    header = len("## Relevant Memories")
    used = header
    chosen: list[MemoryHit] = []
    seen: set[str] = set()
    left_out = [h for h in hits if floor and not h.relevant]
    for hit in hits:
        if (floor and not hit.relevant) or hit.memory.id in seen:
            continue
        size = 1 + len(_line(hit))
        if used + size > ltm_chars:
            continue  # a shorter relevant hit further down may still fit
        chosen.append(hit)
        seen.add(hit.memory.id)
        used += size
    for hit in dated:
        size = 1 + len(_line(hit))
        if hit.memory.id in seen or used + size > ltm_chars:
            continue
        chosen.append(hit)
        seen.add(hit.memory.id)
        used += size
    profile: list[MemoryHit] = []
    spent = 0
    for fact in _profile_order(facts, importance_weight, people):
        if fact.memory.id in seen:
            continue
        size = 1 + len(_line(fact))
        if spent + size > profile_chars or used + size > ltm_chars:
            continue  # a shorter fact further down may still fit
        profile.append(fact)
        seen.add(fact.memory.id)
        spent += size
        used += size
    left_out = [h for h in left_out if h.memory.id not in seen]
    return chosen + profile, profile, left_out


def reinforce_chosen(
    memory: PraxMemory,
    user_id: str,
    chosen: Sequence[MemoryHit],
    profile: Sequence[MemoryHit],
    now: datetime | None,
) -> None:
    """Strengthen the recalled memories a door gave out (not those the floor left out).

    Every door recalls with ``reinforce=False`` and then calls this with what it returned:
    strengthen-on-recall means *used*, so a memory below the floor is not made stronger by
    every off-topic question, and standing facts given by the profile tier (every turn,
    whatever is asked) are not either.
    """
    standing = {h.memory.id for h in profile}
    recalled = [h.memory.id for h in chosen if h.memory.id not in standing]
    memory.ltm.reinforce_later(user_id, recalled, to_utc(now) if now is not None else utcnow())


def assemble_context(
    memory: PraxMemory,
    user_id: str,
    message: str,
    *,
    k: int = 5,
    stm_chars: int = 1500,
    ltm_chars: int = 2000,
    profile_chars: int | None = None,
    now: datetime | None = None,
    check_model: BaseChatModel | None = None,
) -> MemoryContext:
    """The context an agent receives for ``message``, tier by tier (see :class:`MemoryContext`).

    Tiers, each within its budget: the user-notes lines that match the message (at most 8
    lines / 1,200 characters), the scratchpad (``stm_chars``), and one long-term section
    (``ltm_chars``) holding the recalled memories that pass the relevance floor (calibrated
    score ≥ 0.5, see :class:`~langgraph_prax_memory.MemoryHit`) followed by the *profile
    tier*: the user's standing facts (preferences, identity, constraints, relationships:
    ``config.retrieval.profile_tags`` or importance ≥ ``profile_min_importance``), ranked
    by relevance and importance within ``profile_chars`` (default
    ``config.retrieval.profile_chars``; 0 turns the tier off). Episodic memories stay behind
    the floor, so an off-topic question injects none; standing facts are what a task request
    needs even when it shares no words with them.

    With ``config.retrieval.llm_check`` on and a ``check_model``, hits whose score lies in
    ``llm_check_band`` are kept or dropped by one batched call to that model (bounded by
    ``llm_check_timeout``; a failing or slow model leaves the floor's decision). When
    long-term memory is unavailable the notes and the scratchpad are still given.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax-ctx2"))
        >>> _ = mem.remember("u1", "User insists on MIT license.", tags=["preference"])
        >>> ctx = assemble_context(mem, "u1", "Can you help me set up a new project?")
        >>> [h.memory.content for h in ctx.profile]
        ['User insists on MIT license.']
    """
    cfg = memory.config.retrieval
    parts: list[str] = []
    notes = memory.notes.get_workspace_context(user_id, message)
    if notes:
        parts.append("## User Notes\n" + _quote_note_lines(notes))
    scratch = format_working_memory(memory.stm.all(user_id), max_chars=stm_chars)
    if scratch:
        parts.append(scratch)
    noted = parts[0].splitlines()[1:] if notes else []
    lines = [ContextLine("note", line, _NOTE_WHY) for line in noted]
    lines += [ContextLine("scratchpad", line, _SCRATCH_WHY) for line in scratch.splitlines()[1:]]
    chosen: list[MemoryHit] = []
    profile: list[MemoryHit] = []
    dated: list[MemoryHit] = []
    left_out: list[MemoryHit] = []
    omitted: list[ContextLine] = []
    checked = ""
    budget = cfg.profile_chars if profile_chars is None else profile_chars
    if memory.available:
        try:
            # only what reaches the block is strengthened (below-floor hits are not recalled)
            hits = memory.recall(user_id, message, k=k, now=now, reinforce=False)
            facts = memory.standing_facts(user_id, message, now=now) if budget > 0 else []
            people, theirs = kin_in(memory, user_id, message, facts, now) if budget else ((), [])
            facts = [*facts, *theirs]
            world = cfg.world_questions and asks_the_world(memory.ltm.classes, message, hits)
            hits = without_episodes(hits) if world else hits
            dated, spans = dated_episodes(
                memory,
                user_id,
                message,
                limit=0 if world else cfg.dated_limit,
                now=to_utc(now) if now is not None else utcnow(),
                coming_days=cfg.coming_days,
                coming_limit=cfg.coming_limit,
                companion=memory.ltm.retrieval_config.companion_cosine,
                people=people,
            )
        except (BackendUnavailable, EmbeddingError) as exc:
            logger.warning("long-term recall skipped for the context block: %s", exc)
        else:
            if cfg.llm_check and check_model is not None and cfg.relevance_floor:
                # one call judges the recalled hits and the dated tier's other episodes
                recalled = {h.memory.id for h in hits}
                extra = [h for h in dated if h.memory.id not in recalled]
                judged, checked = _checked(
                    check_model,
                    message,
                    [*hits, *extra],
                    cfg.llm_check_band,
                    cfg.llm_check_timeout,
                )
                hits = judged[: len(hits)]
                refused = {h.memory.id for h in judged if h.why.startswith("dropped by the model")}
                dated = [h for h in dated if h.memory.id not in refused]
            chosen, profile, left_out = select_memories(
                hits,
                facts,
                ltm_chars=ltm_chars,
                profile_chars=budget,
                importance_weight=cfg.profile_importance_weight,
                floor=cfg.relevance_floor,
                dated=dated,
                people=people,
            )
            in_block = {h.memory.id for h in chosen}
            passed = {h.memory.id for h in hits if h.relevant or not cfg.relevance_floor}
            dated = [h for h in dated if h.memory.id in in_block - passed]
            if chosen:
                parts.append("\n".join(["## Relevant Memories", *(_line(h) for h in chosen)]))
                reinforce_chosen(memory, user_id, chosen, profile, now)
            why = _Why(cfg, hits, facts, profile, ltm_chars, budget, cfg.relevance_floor)
            why.date(dated, spans, people)
            lines += [why.line(h) for h in chosen]
            omitted = [why.left_out(h) for h in hits if h.memory.id not in why.shown]
    return MemoryContext(
        text="\n\n".join(parts),
        notes=notes,
        scratchpad=scratch,
        memories=tuple(chosen),
        profile=tuple(profile),
        dated=tuple(dated),
        left_out=tuple(left_out),
        checked=checked,
        lines=tuple(lines),
        omitted=tuple(omitted),
    )


def _checked(
    model: BaseChatModel,
    message: str,
    hits: Sequence[MemoryHit],
    band: tuple[float, float],
    timeout: float,
) -> tuple[list[MemoryHit], str]:
    """Hits with the uncertain band decided by the model (the floor's decision on failure)."""
    low, high = band
    uncertain = [h for h in hits if low <= h.score < high]
    if not uncertain:
        return list(hits), ""
    keep, how = _model_check(model, message, uncertain, timeout)
    if keep is None:
        return list(hits), how
    out = []
    for h in hits:
        if low <= h.score < high:
            ok = h.memory.id in keep
            why = f"{'kept' if ok else 'dropped'} by the model check (score {h.score:.2f})"
            h = h.model_copy(update={"relevant": ok, "why": why})
        out.append(h)
    return out, how


def build_memory_context(
    memory: PraxMemory,
    user_id: str,
    message: str,
    *,
    k: int = 5,
    stm_chars: int = 1500,
    ltm_chars: int = 2000,
    profile_chars: int | None = None,
    now: datetime | None = None,
    check_model: BaseChatModel | None = None,
) -> str:
    """The block an agent's system prompt receives for ``message``.

    The text of :func:`assemble_context`: user notes, scratchpad and one ``## Relevant
    Memories`` section (recalled memories above the relevance floor, then the user's standing
    facts, the profile tier), each budgeted; nothing at all when there is nothing to say.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax-ctx"))
        >>> build_memory_context(mem, "nobody", "hello")
        ''
    """
    return assemble_context(
        memory,
        user_id,
        message,
        k=k,
        stm_chars=stm_chars,
        ltm_chars=ltm_chars,
        profile_chars=profile_chars,
        now=now,
        check_model=check_model,
    ).text


def _last_user_text(messages: Sequence[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            content = message.content
            if isinstance(content, str):
                return content
            return " ".join(
                p.get("text", "") if isinstance(p, dict) else str(p) for p in content
            ).strip()
    return ""


def _user_of(config: RunnableConfig | None, bound: str | None) -> str:
    user = ((config or {}).get("configurable") or {}).get("user_id") or bound
    if not user:
        raise MemoryValidationError(
            'memory context needs a user: config={"configurable": {"user_id": ...}} or user_id='
        )
    return str(user)


def memory_context_node(
    memory: PraxMemory,
    *,
    user_id: str | None = None,
    key: str = "memory_context",
    messages_key: str = "messages",
    **budget: Any,
) -> Callable[[Mapping[str, Any], RunnableConfig], dict[str, str]]:
    """A LangGraph node that puts the memory block for the latest user message in ``key``.

    The user comes from ``config["configurable"]["user_id"]`` (or ``user_id``). The block is
    written to its own state key so it never piles up in the message history; the model node
    places it in the system prompt.

    Example:
        >>> from langgraph.graph import MessagesState
        >>> class State(MessagesState):
        ...     memory_context: str
        >>> # builder.add_node("recall", memory_context_node(memory))
    """

    def node(state: Mapping[str, Any], config: RunnableConfig) -> dict[str, str]:
        message = _last_user_text(state.get(messages_key) or [])
        user = _user_of(config, user_id)
        return {key: build_memory_context(memory, user, message, **budget) if message else ""}

    return node


def memory_pre_model_hook(
    memory: PraxMemory,
    *,
    user_id: str | None = None,
    messages_key: str = "messages",
    **budget: Any,
) -> Callable[[Mapping[str, Any], RunnableConfig], dict[str, list[AnyMessage]]]:
    """A ``pre_model_hook`` for LangGraph's prebuilt agents that prepends the memory block.

    Returns ``{"llm_input_messages": [...]}``, so the block reaches the model on every turn
    without being stored in the conversation.

    Example:
        >>> # create_react_agent(model, tools, pre_model_hook=memory_pre_model_hook(memory))
    """

    def hook(state: Mapping[str, Any], config: RunnableConfig) -> dict[str, list[AnyMessage]]:
        messages = list(state.get(messages_key) or [])
        text = _last_user_text(messages)
        block = (
            build_memory_context(memory, _user_of(config, user_id), text, **budget) if text else ""
        )
        if not block:
            return {"llm_input_messages": messages}
        return {"llm_input_messages": [SystemMessage(block), *messages]}

    return hook
