"""The memory tools of the Prax memory spoke, and a ``ToolNode`` factory.

Ten memory tools with the seed's names and meanings, plus the two user-notes tools:

============================  ==============================================================
``memory_stm_write``          upsert a scratchpad entry (key, content, importance, tags)
``memory_stm_read``           one scratchpad entry, or the whole scratchpad
``memory_stm_delete``         remove a scratchpad entry
``memory_remember``           store a durable long-term memory (content, importance, tags)
``memory_recall``             hybrid recall (dense + sparse + graph, fused by weighted RRF)
``memory_forget``             delete one long-term memory by id
``memory_entity_lookup``      an entity and all its current relations
``memory_graph_query``        a question over the graph: phrases → entities → neighbourhood
``memory_consolidate``        run consolidation now (when a consolidator is configured)
``memory_stats``              counts of every layer for the current user
``user_notes_read``           the whole ``user_notes.md``
``user_notes_update``         replace ``user_notes.md`` (git-committed, compacted if needed)
============================  ==============================================================

**Whose memory.** Every tool acts for exactly one user: the ``user_id`` bound when the tool
was built, else ``config["configurable"]["user_id"]`` of the run (LangGraph's convention).
With neither, the call raises :class:`MissingUserIdError`; there is no shared default user.
A bound id that disagrees with the run's id is refused the same way.

**What they return.** A concise string for the model and a JSON-ready ``dict`` artifact for
programs (``response_format="content_and_artifact"``): invoked with a ``ToolCall`` a tool
returns a ``ToolMessage`` whose ``artifact`` holds the structured result.

**Degradation.** When long-term memory is off (``MEMORY_ENABLED=false``) or a backend is
unreachable, the long-term and graph tools answer ``"Memory system not available."`` (artifact
``{"status": "unavailable"}``); the scratchpad and notes tools keep working. Bad input (an
empty content, an importance of 3) comes back to the model as an error message it can fix, and
so does a disk that refuses a file (read-only, full, no permission): a
:class:`~langgraph_prax_memory.errors.MemoryWriteError` message naming the file, never a raw
``OSError``.

Example:
    >>> import tempfile
    >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
    >>> memory = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp()))
    >>> tools = {t.name: t for t in create_memory_tools(memory, user_id="alice")}
    >>> tools["memory_stm_write"].invoke({"key": "goal", "content": "ship the CLI"})
    "Saved scratchpad entry 'goal'."
    >>> print(tools["memory_stm_read"].invoke({}))
    1 scratchpad entry:
    - **goal** (importance 0.5): ship the CLI
"""

from __future__ import annotations

import asyncio
import errno
import inspect
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from langchain_core.callbacks import CallbackManagerForToolRun
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException
from langgraph.prebuilt import ToolNode
from pydantic import BaseModel, ConfigDict, Field, field_validator

from langgraph_prax_memory._async_memory import AsyncPraxMemory
from langgraph_prax_memory._graph_query import answer_graph_question, describe_relation
from langgraph_prax_memory._stats import collect_stats
from langgraph_prax_memory._untrusted import one_line
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    ConfigError,
    EmbeddingError,
    MemoryValidationError,
    MemoryWriteError,
)
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.stm import StmEntry

__all__ = [
    "MemoryConsolidateTool",
    "MemoryEntityLookupTool",
    "MemoryForgetTool",
    "MemoryGraphQueryTool",
    "MemoryRecallTool",
    "MemoryRememberTool",
    "MemoryStatsTool",
    "MemoryStmDeleteTool",
    "MemoryStmReadTool",
    "MemoryStmWriteTool",
    "MemoryTool",
    "MissingUserIdError",
    "UserNotesReadTool",
    "UserNotesUpdateTool",
    "create_memory_tool_node",
    "create_memory_tools",
    "resolve_user_id",
]

logger = logging.getLogger(__name__)

#: What a long-term tool answers when LTM is disabled or unreachable (the seed's wording).
NOT_AVAILABLE = "Memory system not available."

#: The seed's ten memory tools, in the seed's order.
MEMORY_TOOL_NAMES: tuple[str, ...] = (
    "memory_stm_write",
    "memory_stm_read",
    "memory_stm_delete",
    "memory_remember",
    "memory_recall",
    "memory_forget",
    "memory_entity_lookup",
    "memory_graph_query",
    "memory_consolidate",
    "memory_stats",
)
#: Scratchpad tools (work without long-term memory).
STM_TOOL_NAMES: tuple[str, ...] = MEMORY_TOOL_NAMES[:3]
#: Tools that need long-term memory (vectors or graph).
LTM_TOOL_NAMES: tuple[str, ...] = MEMORY_TOOL_NAMES[3:9]
#: The quick-reference notes tools (work without long-term memory).
USER_NOTES_TOOL_NAMES: tuple[str, ...] = ("user_notes_read", "user_notes_update")
#: Every tool :func:`create_memory_tools` can build.
TOOL_NAMES: tuple[str, ...] = MEMORY_TOOL_NAMES + USER_NOTES_TOOL_NAMES

_MAX_RECALL_K = 20


class MissingUserIdError(ConfigError):
    """A memory tool was called without knowing whose memory to use (or with two answers)."""


def resolve_user_id(config: RunnableConfig | None, bound: str | None, *, tool: str) -> str:
    """The user a tool call acts for: the bound id, else ``config["configurable"]["user_id"]``.

    Raises:
        MissingUserIdError: Neither is set, or both are set and disagree.

    Example:
        >>> resolve_user_id({"configurable": {"user_id": "alice"}}, None, tool="memory_recall")
        'alice'
        >>> resolve_user_id(None, "bob", tool="memory_recall")
        'bob'
    """
    configurable = (config or {}).get("configurable") or {}
    from_config = configurable.get("user_id")
    if from_config is not None and not isinstance(from_config, str):
        raise MissingUserIdError(
            f"{tool}: config['configurable']['user_id'] must be a string, "
            f"got {type(from_config).__name__}"
        )
    if bound is not None and from_config is not None and bound != from_config:
        raise MissingUserIdError(
            f"{tool} is bound to user {bound!r} but the run is for user {from_config!r}; "
            "refusing to mix users' memories"
        )
    user_id = bound if bound is not None else from_config
    if not user_id or not user_id.strip():
        raise MissingUserIdError(
            f"{tool} needs to know whose memory to use: invoke the graph with "
            "config={'configurable': {'user_id': '<user id>'}} or bind one with "
            "create_memory_tools(memory, user_id='<user id>'). There is no shared default user."
        )
    return user_id


def _tags_text(tags: Sequence[str]) -> str:
    return f", tags: {', '.join(tags)}" if tags else ""


def _stm_line(entry: StmEntry) -> str:
    content, tags = one_line(entry.content), _tags_text(entry.tags)
    return f"- **{one_line(entry.key)}** (importance {entry.importance:g}{tags}): {content}"


def _stm_artifact(entry: StmEntry) -> dict[str, Any]:
    return entry.to_json_dict()


def _disk_error(tool: str, exc: OSError, data_dir: Path) -> MemoryWriteError:
    """A clear error for a file the disk refused (read-only, full, no permission, ...)."""
    code = errno.errorcode.get(exc.errno, "") if exc.errno else ""
    reason = f"{code}: {exc.strerror}" if code and exc.strerror else (exc.strerror or str(exc))
    where = f" on {exc.filename}" if exc.filename else ""
    return MemoryWriteError(
        f"{tool} failed: the disk refused the operation ({reason}{where}). Check that the "
        f"data directory {data_dir} (MEMORY_DATA_DIR) is writable and has free space."
    )


def _unavailable(reason: str | None = None) -> tuple[str, dict[str, Any]]:
    text = NOT_AVAILABLE if not reason else f"{NOT_AVAILABLE[:-1]}: {reason}"
    return text, {"status": "unavailable", "reason": reason or "long-term memory is disabled"}


class MemoryTool(BaseTool):
    """Base of the memory tools: user resolution, degradation and error reporting.

    Subclasses set ``name``, ``description``, ``args_schema`` and implement :meth:`execute`.
    Tools are synchronous underneath (the facade is); ``ainvoke`` runs them in a worker thread.

    Args:
        memory: The memory to act on (an :class:`AsyncPraxMemory` is unwrapped to its sync face).
        user_id: Bind the tool to one user; otherwise the run's
            ``config["configurable"]["user_id"]`` is used.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: PraxMemory
    user_id: str | None = None
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: bool | str | Callable[[ToolException], str] | None = True

    #: Whether the tool needs long-term memory (vectors or graph).
    requires_ltm: ClassVar[bool] = False

    @field_validator("memory", mode="before")
    @classmethod
    def _unwrap_async(cls, value: Any) -> Any:
        return value.sync if isinstance(value, AsyncPraxMemory) else value

    def execute(self, user_id: str, args: Any) -> tuple[str, dict[str, Any]]:
        """Do the work for ``user_id`` with the validated ``args``; return ``(text, artifact)``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement execute")

    def _call(self, config: RunnableConfig | None, kwargs: dict[str, Any]) -> tuple[str, Any]:
        user_id = resolve_user_id(config, self.user_id, tool=self.name)
        if self.requires_ltm and not self.memory.available:
            return _unavailable()
        try:
            text, artifact = self.execute(user_id, self._parse(kwargs))
        except BackendUnavailable as exc:
            logger.warning("%s for %s: backend unavailable: %s", self.name, user_id, exc)
            if self.requires_ltm:
                return _unavailable(str(exc))
            raise ToolException(f"{self.name} failed: {exc}") from exc
        except (MemoryValidationError, MemoryWriteError, EmbeddingError) as exc:
            raise ToolException(str(exc)) from exc
        except OSError as exc:  # read-only disk, EACCES, ENOSPC, a file where a folder goes
            error = _disk_error(self.name, exc, self.memory.config.data_dir)
            logger.warning("%s for %s: %s", self.name, user_id, error)
            raise ToolException(str(error)) from error
        return text, {"user_id": user_id, **artifact}

    def _parse(self, kwargs: dict[str, Any]) -> BaseModel:
        schema = self.args_schema
        if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            raise TypeError(f"{self.name}: args_schema must be a pydantic model")
        return schema.model_validate(kwargs)

    def _run(
        self,
        config: RunnableConfig,
        run_manager: CallbackManagerForToolRun | None = None,
        **kwargs: Any,
    ) -> tuple[str, Any]:
        return self._call(config, kwargs)

    async def _arun(self, config: RunnableConfig, **kwargs: Any) -> tuple[str, Any]:
        kwargs.pop("run_manager", None)
        return await asyncio.to_thread(self._call, config, kwargs)


# --------------------------------------------------------------------------- STM


class _StmWriteInput(BaseModel):
    key: str = Field(description="Short identifier, e.g. 'current_project' or 'user_timezone'.")
    content: str = Field(description="What to keep in working memory.")
    importance: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="0.8+ critical, 0.5 useful, 0.2 minor. New entries default to 0.5; "
        "an update keeps the old value unless given.",
    )
    tags: list[str] | str | None = Field(
        None,
        description="Tags, as a list or a comma-separated string ('task,deadline'). "
        "An update keeps the old tags unless given.",
    )


class MemoryStmWriteTool(MemoryTool):
    """``memory_stm_write``: upsert a scratchpad entry (writing a key again reinforces it).

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(enabled=False, data_dir=tempfile.mkdtemp()))
        >>> MemoryStmWriteTool(memory=mem, user_id="u").invoke({"key": "k", "content": "v"})
        "Saved scratchpad entry 'k'."
    """

    name: str = "memory_stm_write"
    description: str = (
        "Write a short-term scratchpad entry (working memory for the current task or session). "
        "Writing an existing key updates it. Use for temporary notes, the current goal, "
        "intermediate results; use memory_remember for durable facts."
    )
    args_schema: type[BaseModel] = _StmWriteInput

    def execute(self, user_id: str, args: _StmWriteInput) -> tuple[str, dict[str, Any]]:
        """Write the entry."""
        entry = self.memory.stm.write(user_id, args.key, args.content, args.importance, args.tags)
        verb = "Updated" if entry.access_count else "Saved"
        return f"{verb} scratchpad entry {entry.key!r}.", {"entry": _stm_artifact(entry)}


class _StmReadInput(BaseModel):
    key: str | None = Field(None, description="Entry to read; omit to read the whole scratchpad.")


class MemoryStmReadTool(MemoryTool):
    """``memory_stm_read``: one scratchpad entry, or all of them."""

    name: str = "memory_stm_read"
    description: str = (
        "Read the short-term scratchpad: one entry by key, or every entry when no key is given."
    )
    args_schema: type[BaseModel] = _StmReadInput

    def execute(self, user_id: str, args: _StmReadInput) -> tuple[str, dict[str, Any]]:
        """Read one entry or all."""
        key = args.key
        if key is not None:
            entry = self.memory.stm.get(user_id, key)
            if entry is None:
                return f"No scratchpad entry {key!r}.", {"entry": None}
            return _stm_line(entry), {"entry": _stm_artifact(entry)}
        entries = self.memory.stm.all(user_id)
        if not entries:
            return "The scratchpad is empty.", {"entries": []}
        noun = "entry" if len(entries) == 1 else "entries"
        text = "\n".join([f"{len(entries)} scratchpad {noun}:", *map(_stm_line, entries)])
        return text, {"entries": [_stm_artifact(e) for e in entries]}


class _StmDeleteInput(BaseModel):
    key: str = Field(description="The scratchpad entry to remove.")


class MemoryStmDeleteTool(MemoryTool):
    """``memory_stm_delete``: remove a scratchpad entry."""

    name: str = "memory_stm_delete"
    description: str = "Delete a short-term scratchpad entry by key (when a task is done)."
    args_schema: type[BaseModel] = _StmDeleteInput

    def execute(self, user_id: str, args: _StmDeleteInput) -> tuple[str, dict[str, Any]]:
        """Delete the entry."""
        key = args.key
        deleted = self.memory.stm.delete(user_id, key)
        text = f"Deleted scratchpad entry {key!r}." if deleted else f"No scratchpad entry {key!r}."
        return text, {"key": key, "deleted": deleted}


# --------------------------------------------------------------------------- LTM


class _RememberInput(BaseModel):
    content: str = Field(
        description="A self-contained fact, e.g. 'User prefers dark mode in all tools'."
    )
    importance: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="0.8-1.0 critical (core preferences, key decisions), 0.4-0.7 useful "
        "(recurring topics, context), 0.1-0.3 minor (tangential mentions).",
    )
    tags: list[str] | str | None = Field(
        None, description="Tags, as a list or a comma-separated string ('preference,ui')."
    )


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


class _RecallInput(BaseModel):
    query: str = Field(description="What to look for, in natural language or exact keywords.")
    k: int = Field(5, ge=1, le=_MAX_RECALL_K, description="How many memories to return.")
    include_history: bool = Field(
        False,
        description="Also return superseded facts (what the user used to prefer), marked.",
    )


class MemoryRecallTool(MemoryTool):
    """``memory_recall``: hybrid recall over long-term memory, best first."""

    name: str = "memory_recall"
    description: str = (
        "Search long-term memory (semantic + keyword + knowledge graph, fused). Use for "
        "'what do you know about ...', preferences, past decisions. Returns memories with ids."
    )
    args_schema: type[BaseModel] = _RecallInput
    requires_ltm: ClassVar[bool] = True

    def execute(self, user_id: str, args: _RecallInput) -> tuple[str, dict[str, Any]]:
        """Recall and describe the hits."""
        query, k = args.query, args.k
        result = self.memory.recall_detailed(
            user_id, query, k=k, include_history=args.include_history
        )
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
                "ranks": dict(h.ranks),
                "explanation": h.explain(),
            }
            for h in result.hits
        ]
        artifact = {
            "query": query,
            "hits": hits,
            "arms": dict(result.arms),
            "errors": dict(result.errors),
            "weights": dict(result.weights),
        }
        if not hits:
            return f"No memories found for {query!r}.", artifact
        lines = [f"{len(hits)} memories for {query!r}:"]
        for i, (h, raw) in enumerate(zip(hits, result.hits, strict=True), 1):
            arms = ", ".join(f"{a} #{r}" for a, r in raw.ranks.items())
            until = raw.memory.valid_until
            old = f"superseded {until.date().isoformat()}; " if until else ""
            lines.append(
                f"{i}. {one_line(raw.memory.content)} "
                f"[{old}id {h['id']}; {raw.memory.created_at.date().isoformat()}; "
                f"importance {raw.memory.importance:g}; {arms}]"
            )
        if result.errors:
            lines.append("(degraded: " + "; ".join(f"{a} arm" for a in result.errors) + " down)")
        return "\n".join(lines), artifact


class _ForgetInput(BaseModel):
    memory_id: str = Field(description="The id of the memory to delete (from memory_recall).")


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


# ------------------------------------------------------------------------- graph


class _EntityInput(BaseModel):
    name: str = Field(description="The entity's name, e.g. 'Project Alpha' or 'Alice'.")
    include_history: bool = Field(
        False, description="Also list superseded relations (with the date they ended)."
    )


class MemoryEntityLookupTool(MemoryTool):
    """``memory_entity_lookup``: an entity, all its current relations and recent events."""

    name: str = "memory_entity_lookup"
    description: str = (
        "Look up a person, project, tool or topic in the memory graph: returns the entity "
        "and all its current relations. Use with memory_recall for 'what do you know about X'."
    )
    args_schema: type[BaseModel] = _EntityInput
    requires_ltm: ClassVar[bool] = True

    def execute(self, user_id: str, args: _EntityInput) -> tuple[str, dict[str, Any]]:
        """Look the entity up (or suggest similar names)."""
        name = args.name
        graph = self.memory.graph
        found = graph.get_entity(user_id, name, include_superseded=args.include_history)
        if found is None:
            similar = graph.search_entities(user_id, name, limit=5)
            artifact: dict[str, Any] = {
                "entity": None,
                "suggestions": [e.display_name for e in similar],
            }
            if similar:
                names = ", ".join(e.display_name for e in similar)
                return f"No entity named {name!r}. Similar: {names}.", artifact
            return f"No entity named {name!r} in memory.", artifact
        ent = found.entity
        events = graph.get_events(user_id, entity=ent.name, limit=5)
        lines = [
            f"{ent.display_name} ({ent.type}; importance {ent.importance:.2f}; mentioned "
            f"{ent.mention_count}×; last seen {ent.last_seen.date().isoformat()})"
        ]
        if found.relations:
            lines.append("Relations:")
            lines.extend(f"- {describe_relation(r)}" for r in found.relations)
        else:
            lines.append("No current relations.")
        if events:
            lines.append("Events:")
            lines.extend(
                f"- {ev.occurred_at.date().isoformat()}: {ev.description}" for ev in events
            )
        artifact = {
            "entity": ent.model_dump(mode="json"),
            "relations": [r.model_dump(mode="json") for r in found.relations],
            "events": [e.model_dump(mode="json") for e in events],
        }
        return "\n".join(lines), artifact


class _GraphQueryInput(BaseModel):
    question: str = Field(
        description="A question about how things are related, e.g. "
        "'How are quantum computing and my research project connected?'"
    )


class MemoryGraphQueryTool(MemoryTool):
    """``memory_graph_query``: answer a question from the graph (no generated Cypher)."""

    name: str = "memory_graph_query"
    description: str = (
        "Ask the memory graph how people, projects, tools and topics are connected. The "
        "question's key phrases are matched to entities and their neighbourhood is returned."
    )
    args_schema: type[BaseModel] = _GraphQueryInput
    requires_ltm: ClassVar[bool] = True

    def execute(self, user_id: str, args: _GraphQueryInput) -> tuple[str, dict[str, Any]]:
        """Answer from the graph."""
        question = args.question
        if not question.strip():
            raise MemoryValidationError("question must not be empty")
        answer = answer_graph_question(self.memory.graph, user_id, question)
        artifact = {
            "question": question,
            "phrases": answer.phrases,
            "entities": [e.model_dump(mode="json") for e in answer.entities],
            "connections": [r.model_dump(mode="json") for r in answer.connections],
            "bridges": [list(b) for b in answer.bridges],
            "relations": [r.model_dump(mode="json") for r in answer.relations],
        }
        return answer.to_text(), artifact


# ------------------------------------------------------------------- maintenance


class _NoInput(BaseModel):
    pass


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if hasattr(value, "__dataclass_fields__"):
        return {k: _jsonable(getattr(value, k)) for k in value.__dataclass_fields__}
    return str(value)


def consolidation_hook(memory: PraxMemory) -> Callable[..., Any] | None:
    """The memory's consolidation entry point (``memory.consolidate``), if one is configured."""
    hook = getattr(memory, "consolidate", None)
    return hook if callable(hook) else None


#: What the model is told after a consolidation (the full result is the tool's artifact).
_CONSOLIDATION_SUMMARY = (
    "batches",
    "memories_created",
    "memories_failed",
    "entities_upserted",
    "relations_upserted",
    "pending_review",
    "pending_lines",
)


def summarise_consolidation(result: Any) -> str:
    """A one-line summary of a consolidation result (any pydantic model, dataclass or dict)."""
    data = _jsonable(result)
    if not isinstance(data, dict):
        return f"Consolidation finished: {data}."
    keys = [k for k in _CONSOLIDATION_SUMMARY if k in data] or list(data)
    numbers = [
        f"{k.replace('_', ' ')} {data[k]}"
        for k in keys
        if isinstance(data[k], int | float) and not isinstance(data[k], bool)
    ]
    return "Consolidation finished" + (": " + ", ".join(numbers) if numbers else "") + "."


class MemoryConsolidateTool(MemoryTool):
    """``memory_consolidate``: run the consolidation pipeline now for the current user."""

    name: str = "memory_consolidate"
    description: str = (
        "Consolidate recent conversation into durable memory now (extract entities, relations "
        "and facts; decay old memories). It also runs automatically every few turns."
    )
    args_schema: type[BaseModel] = _NoInput
    requires_ltm: ClassVar[bool] = True

    def execute(self, user_id: str, args: _NoInput) -> tuple[str, dict[str, Any]]:
        """Call the configured consolidation hook."""
        hook = consolidation_hook(self.memory)
        if hook is None:
            return (
                "Consolidation is not configured for this memory; nothing was run.",
                {"status": "not_configured"},
            )
        result = hook(user_id)
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            raise ToolException("memory.consolidate returned an awaitable; use a sync consolidator")
        return summarise_consolidation(result), {"status": "ok", "result": _jsonable(result)}


class MemoryStatsTool(MemoryTool):
    """``memory_stats``: counts of every layer (works without LTM, which it reports as such)."""

    name: str = "memory_stats"
    description: str = (
        "Show how much is stored for the user: scratchpad entries, notes, long-term memories "
        "and graph entities/relations."
    )
    args_schema: type[BaseModel] = _NoInput

    def execute(self, user_id: str, args: _NoInput) -> tuple[str, dict[str, Any]]:
        """Collect the counts."""
        stats = collect_stats(self.memory, user_id)
        return stats.summary(), {"stats": stats.model_dump(mode="json")}


# ------------------------------------------------------------------------- notes


class UserNotesReadTool(MemoryTool):
    """``user_notes_read``: the whole quick-reference ``user_notes.md``."""

    name: str = "user_notes_read"
    description: str = (
        "Read the user's quick-reference notes (timezone, name, durable preferences, aliases). "
        "Use when the user asks broadly what you know about their preferences."
    )
    args_schema: type[BaseModel] = _NoInput

    def execute(self, user_id: str, args: _NoInput) -> tuple[str, dict[str, Any]]:
        """Read the file."""
        content = self.memory.notes.read(user_id)
        return (content if content.strip() else "The user notes are empty."), {"content": content}


class _NotesUpdateInput(BaseModel):
    content: str = Field(
        description="The COMPLETE new content of user_notes.md (read it first and edit); "
        "short lines such as 'timezone: Europe/Paris' and '## Preferences' bullet lists."
    )


class UserNotesUpdateTool(MemoryTool):
    """``user_notes_update``: replace ``user_notes.md`` (git-committed; compacted if needed)."""

    name: str = "user_notes_update"
    description: str = (
        "Replace the user's quick-reference notes with new full content. Keep only "
        "high-signal, durable facts (timezone, name, preferences, aliases)."
    )
    args_schema: type[BaseModel] = _NotesUpdateInput

    def execute(self, user_id: str, args: _NotesUpdateInput) -> tuple[str, dict[str, Any]]:
        """Write, commit, compact and promote."""
        result = self.memory.notes.update(user_id, args.content)
        text = "Updated the user notes."
        if result.raw_commit is None:
            text = "The user notes were already up to date."
        if result.compacted:
            text += f" Compacted ({', '.join(result.triggers)})."
        if result.promoted:
            text += f" {len(result.promoted)} dropped items were kept in long-term memory."
        if result.warnings:
            text += " " + " ".join(result.warnings)
        artifact = {
            "content": result.content,
            "raw_commit": result.raw_commit,
            "compaction_commit": result.compaction_commit,
            "triggers": list(result.triggers),
            "promoted": [p.content for p in result.promoted],
            "warnings": list(result.warnings),
        }
        return text, artifact


_TOOL_CLASSES: dict[str, Callable[..., MemoryTool]] = {
    "memory_stm_write": MemoryStmWriteTool,
    "memory_stm_read": MemoryStmReadTool,
    "memory_stm_delete": MemoryStmDeleteTool,
    "memory_remember": MemoryRememberTool,
    "memory_recall": MemoryRecallTool,
    "memory_forget": MemoryForgetTool,
    "memory_entity_lookup": MemoryEntityLookupTool,
    "memory_graph_query": MemoryGraphQueryTool,
    "memory_consolidate": MemoryConsolidateTool,
    "memory_stats": MemoryStatsTool,
    "user_notes_read": UserNotesReadTool,
    "user_notes_update": UserNotesUpdateTool,
}


def create_memory_tools(
    memory: PraxMemory | AsyncPraxMemory,
    *,
    user_id: str | None = None,
    include: Iterable[str] | None = None,
    knowledge: bool = False,
    files_root: str | Path | None = None,
    okf_root: str | Path | None = None,
    code_root: str | Path | None = None,
) -> list[BaseTool]:
    """Build the memory tools (all twelve by default, in :data:`TOOL_NAMES` order).

    Args:
        memory: The memory the tools act on.
        user_id: Bind every tool to this user. Leave it out in a multi-user graph: each call
            then uses ``config["configurable"]["user_id"]`` of its run.
        include: Only these tool names (e.g. :data:`STM_TOOL_NAMES`), in the order given.
        knowledge: Add the knowledge and code tools (``knowledge_ingest``,
            ``knowledge_search``, ... ``code_search_ast``) over ``memory.knowledge``.
        files_root: Folder the knowledge tools may ingest files from.
        okf_root: Folder OKF bundles are exported to and imported from.
        code_root: Folder the code tools may read.

    Raises:
        ValueError: ``include`` names a tool that does not exist.

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp()))
        >>> [t.name for t in create_memory_tools(mem, include=["memory_recall"])]
        ['memory_recall']
    """
    names = list(TOOL_NAMES if include is None else include)
    unknown = [n for n in names if n not in _TOOL_CLASSES]
    if unknown:
        raise ValueError(f"unknown memory tool(s) {unknown}; choose from {list(TOOL_NAMES)}")
    if user_id is not None and (not isinstance(user_id, str) or not user_id.strip()):
        raise MissingUserIdError("user_id, when given, must be a non-empty string")
    if isinstance(memory, AsyncPraxMemory):
        memory = memory.sync
    tools: list[BaseTool] = [
        _TOOL_CLASSES[n](memory=memory, user_id=user_id) for n in dict.fromkeys(names)
    ]
    if knowledge:
        from langgraph_prax_memory.knowledge.tools import create_knowledge_tools

        tools += create_knowledge_tools(
            memory.knowledge,
            user_id=user_id,
            files_root=files_root,
            okf_root=okf_root,
            code_root=code_root,
        )
    return tools


def create_memory_tool_node(
    memory: PraxMemory | AsyncPraxMemory,
    *,
    user_id: str | None = None,
    include: Iterable[str] | None = None,
    extra_tools: Sequence[BaseTool] = (),
    name: str = "tools",
) -> ToolNode:
    """A LangGraph ``ToolNode`` running the memory tools (and ``extra_tools``).

    The node passes the run's config to every tool, so ``config["configurable"]["user_id"]``
    selects the user when ``user_id`` is not bound.

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp()))
        >>> node = create_memory_tool_node(mem)
        >>> sorted(node.tools_by_name)[:2]
        ['memory_consolidate', 'memory_entity_lookup']
    """
    tools = [*create_memory_tools(memory, user_id=user_id, include=include), *extra_tools]
    return ToolNode(tools, name=name)
