"""What the inspector reads, through the public API, scoped by one user at a time.

Nothing here writes: recall runs with ``reinforce=False`` and the context block is built by
:func:`~langgraph_prax_memory.context.build_memory_context` over a memory whose ``recall``
never reinforces (:class:`_ReadOnlyRecall`), so looking does not change what is looked at.
The two changing operations (a pending-review decision, forgetting a user) are separate
functions, called only by the server's POST routes when changes are allowed.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from langgraph_prax_memory._validation import check_user_id, user_dir_name
from langgraph_prax_memory.consolidation import ConsolidationState, StateFile
from langgraph_prax_memory.context import MemoryContext, assemble_context
from langgraph_prax_memory.errors import MemoryValidationError, PraxMemoryError
from langgraph_prax_memory.inspector._paging import (
    SORTS,
    STATES,
    Cursor,
    MemoryPage,
    memory_page,
)
from langgraph_prax_memory.inspector._render import (
    GRAPH_NODE_CAP,
    GRAPH_RELATION_CAP,
    TIMELINE_CAP,
    GraphData,
)
from langgraph_prax_memory.stm import PENDING_REVIEW_TAG

if TYPE_CHECKING:
    from langgraph_prax_memory._forget import ForgetReceipt
    from langgraph_prax_memory.memory import PraxMemory
    from langgraph_prax_memory.models import MemoryHit
    from langgraph_prax_memory.retrieval import RecallResult
    from langgraph_prax_memory.stm import StmEntry

__all__ = [
    "SORTS",
    "STATES",
    "Cursor",
    "MemoryPage",
    "UserSummary",
    "known_users",
    "memory_page",
    "decide",
    "decision_notice",
    "playground",
]

_PLAIN_FOLDER = re.compile(r"^(?![uU]-)[A-Za-z0-9_.@-]+$")


@dataclass
class UserSummary:
    """One row of the users page (``None``: the layer could not be read)."""

    user_id: str
    memories: int | None = None
    entities: int | None = None
    relations: int | None = None
    notes_lines: int = 0
    scratchpad: int = 0
    pending_review: int = 0
    backlog: int = 0
    errors: list[str] = field(default_factory=list)


def known_users(mem: PraxMemory) -> list[str]:
    """Users with long-term memories, plus users with a (plainly named) workspace folder.

    A workspace folder of an id that is not plain (``u-<hash>``) cannot be named back to its
    user; such a user appears once they have a memory. A user whose memories were all
    deleted (forgotten) is not listed: the engine's facet keeps their value with a count of
    0 (in the deleting process and after a restart), so only counts above 0 name a user.
    """
    users: set[str] = set()
    if mem.available:
        with contextlib.suppress(PraxMemoryError):
            users.update(u for u, n in mem.vectors.facet("user_id").items() if n > 0)
    folder = mem.config.users_dir
    if folder.is_dir():
        for child in folder.iterdir():
            if child.is_dir() and _PLAIN_FOLDER.match(child.name):
                users.add(child.name)
    return sorted(users)


def read_state(mem: PraxMemory, user_id: str) -> ConsolidationState:
    """The consolidation state file, read without touching it (a fresh one when absent).

    Unlike :meth:`StateFile.load`, a corrupt file is reported, not moved aside.

    Raises:
        MemoryValidationError: The file is not a valid state.
    """
    path = StateFile(mem.config).path(user_id)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ConsolidationState()
    try:
        return ConsolidationState.model_validate(json.loads(raw.decode("utf-8")))
    except ValueError as exc:
        raise MemoryValidationError(f"consolidation state {path} is not valid: {exc}") from exc


def user_summary(mem: PraxMemory, user_id: str) -> UserSummary:
    """Counts of one user in each layer; a layer that fails is reported, not raised."""
    row = UserSummary(user_id)
    try:
        entries = mem.stm.all(user_id)
        row.scratchpad = len(entries)
        row.pending_review = sum(PENDING_REVIEW_TAG in e.tags for e in entries)
    except PraxMemoryError as exc:
        row.errors.append(f"scratchpad: {exc}")
    row.notes_lines = sum(1 for line in mem.notes.read(user_id).splitlines() if line.strip())
    if mem.available:
        try:
            row.memories = mem.count(user_id)
        except PraxMemoryError as exc:
            row.errors.append(f"memories: {exc}")
        try:
            stats = mem.graph.stats(user_id)
            row.entities, row.relations = stats.entities, stats.relations
        except PraxMemoryError as exc:
            row.errors.append(f"graph: {exc}")
    try:
        row.backlog = read_state(mem, user_id).trace_pending_lines
    except PraxMemoryError as exc:
        row.errors.append(str(exc))
    return row


class _ReadOnlyRecall:
    """A memory whose ``recall`` never reinforces: the inspector only looks.

    Everything else is the wrapped :class:`PraxMemory`'s own attribute.
    """

    def __init__(self, memory: PraxMemory, recalled: _Recalled | None = None) -> None:
        self._memory = memory
        self._recalled = recalled

    def __getattr__(self, name: str) -> Any:
        return getattr(self._memory, name)

    def recall(self, user_id: str, query: str, **kwargs: Any) -> list[MemoryHit]:
        """``recall`` without reinforcing (the hits already read for this question, if any)."""
        kwargs["reinforce"] = False
        done = self._recalled
        same = set(kwargs) <= {"k", "now", "reinforce"} and kwargs.get("now") is None
        if done is not None and same and (user_id, query, kwargs.get("k", 5)) == done.key:
            return list(done.result.hits)
        return self._memory.recall(user_id, query, **kwargs)

    @property
    def ltm(self) -> _ReadOnlyLTM:
        """The long-term memory, with the context block's reinforcement turned off."""
        return _ReadOnlyLTM(self._memory.ltm)


class _ReadOnlyLTM:
    """A long-term memory whose ``reinforce_later`` (used by the context block) does nothing."""

    def __init__(self, ltm: Any) -> None:
        self._ltm = ltm

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ltm, name)

    def reinforce_later(self, *args: Any, **kwargs: Any) -> None:
        """Looking strengthens nothing."""


@dataclass(frozen=True)
class _Recalled:
    key: tuple[str, str, int]
    result: RecallResult


def playground(
    mem: PraxMemory, user_id: str, question: str, *, k: int = 5
) -> tuple[RecallResult, MemoryContext]:
    """``recall_detailed`` and the context block for ``question``, neither writing.

    The hits are in the order :meth:`PraxMemory.recall` returns; the context is what
    :func:`~langgraph_prax_memory.context.build_memory_context` gives an agent (same ``k``,
    built from these very hits), line by line with the rule behind each line
    (:attr:`MemoryContext.lines`) and why each hit left out is not in it.
    """
    result = mem.recall_detailed(user_id, question, k=k, reinforce=False)
    looking = _ReadOnlyRecall(mem, _Recalled((user_id, question, k), result))
    return result, assemble_context(cast("PraxMemory", looking), user_id, question, k=k)


#: The graph stores' largest page: the most entities and drawn relations one read returns.
GRAPH_READ_LIMIT = 1000


def graph_data(mem: PraxMemory, user_id: str, *, cap: int = GRAPH_NODE_CAP) -> GraphData:
    """What the graph page shows of a user, and only that: a handful of capped reads.

    The ``cap`` most important entities (``top_entities``), the relations with both ends
    among them (the picture's edges, at most 1,000) and those touching them (the table's
    400, current and heaviest first), the 200 most recent events and causal links, and
    ``graph.stats`` for the totals the page shows beside each cap. Apart from those counts,
    no read grows with the size of the graph: the page of a user with 10,000 entities reads
    as many rows as the page of a user with 100 who has as many relations per entity.
    """
    if not mem.available:
        return GraphData()
    graph = mem.graph
    stats = graph.stats(user_id)
    entities = graph.top_entities(user_id, limit=max(1, min(cap, GRAPH_READ_LIMIT)))
    ids = [e.id for e in entities]
    drawn = graph.relations_among(user_id, ids, include_superseded=True, limit=GRAPH_READ_LIMIT)
    listed = graph.relations_among(
        user_id, ids, both_ends=False, include_superseded=True, limit=GRAPH_RELATION_CAP
    )
    relations = list({r.id: r for r in [*listed, *drawn]}.values())
    return GraphData(
        entities=entities,
        relations=relations,
        events=graph.get_events(user_id, limit=TIMELINE_CAP),
        links=graph.get_causal_links(user_id, limit=TIMELINE_CAP),
        counted={
            "entities": stats.entities,
            "relations": stats.relations,
            "current_relations": stats.current_relations,
            "temporal_events": stats.temporal_events,
            "causal_links": stats.causal_links,
        },
    )


def pending(mem: PraxMemory, user_id: str) -> list[StmEntry]:
    """The user's pending-review queue."""
    return mem.stm.list_pending_review(user_id)


def decide(mem: PraxMemory, user_id: str, key: str, decision: str) -> str | None:
    """Approve (store as a memory, then drop from the queue) or reject one pending item.

    Returns:
        The new memory's id (approved), ``None`` (rejected).

    Raises:
        MemoryValidationError: Not a pending-review item of ``user_id``, or an unknown
            decision; nothing changed.
        MemoryWriteError: Approving: the memory was not stored (the item stays pending).
    """
    if decision not in ("approve", "reject"):
        raise MemoryValidationError(f"decision must be approve or reject, got {decision!r}")
    entry = mem.stm.get(user_id, key)
    if entry is None or PENDING_REVIEW_TAG not in entry.tags:
        raise MemoryValidationError(f"{key!r} is not pending review for this user")
    if decision == "approve":
        tags = [t for t in entry.tags if t != PENDING_REVIEW_TAG]
        memory_id = mem.remember(
            user_id, entry.content, importance=entry.importance, tags=tags, source="review"
        )
        mem.stm.delete(user_id, key)
        return memory_id
    mem.stm.delete(user_id, key)
    return None


def decision_notice(decided: str, key: str, memory_id: str) -> str:
    """The notice shown after a decision (rebuilt from the redirect's query; ``""``: none).

    Example:
        >>> decision_notice("reject", "k1", "")
        'rejected: k1 removed from the queue'
    """
    if decided == "approve":
        return f"approved: {key} stored as memory {memory_id}"
    if decided == "reject":
        return f"rejected: {key} removed from the queue"
    return ""


def forget_user(mem: PraxMemory, user_id: str, confirm: str) -> ForgetReceipt:
    """Forget ``user_id`` everywhere once ``confirm`` repeats the id exactly.

    Raises:
        MemoryValidationError: The confirmation does not match; nothing was deleted.
    """
    if confirm != user_id:
        raise MemoryValidationError(
            "the confirmation does not match the user id; nothing was deleted"
        )
    return mem.forget_user(user_id)


def valid_user(user_id: object) -> str:
    """``user_id`` if it is a usable tenant id (and has a safe folder name), else raise."""
    user = check_user_id(user_id)
    user_dir_name(user)
    return user
