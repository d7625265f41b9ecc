"""Base of the memory tools: user resolution, degradation, errors, and the tool names."""

from __future__ import annotations

import asyncio
import errno
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from langchain_core.callbacks import CallbackManagerForToolRun
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ConfigDict, field_validator

from langgraph_prax_memory._async_memory import AsyncPraxMemory
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    ConfigError,
    EmbeddingError,
    MemoryValidationError,
    MemoryWriteError,
)
from langgraph_prax_memory.memory import PraxMemory

logger = logging.getLogger("langgraph_prax_memory.tools")


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
