"""The per-user scratchpad: ``{workspace}/memory/stm.json``, sync and async faces.

The file is a JSON list of :class:`~langgraph_prax_memory.stm.StmEntry` objects in insertion
order. Every mutation is a read-modify-write under a per-file thread lock *and* a
cross-process :class:`filelock.FileLock`, finished by an atomic replace (temporary file in
the same folder, ``fsync``, :func:`os.replace`, ``fsync`` of the folder). Reads take no lock:
the atomic replace guarantees they see a whole file.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from pydantic import ValidationError

from langgraph_prax_memory._atomic import DEFAULT_LOCK_TIMEOUT, atomic_write_text, locked
from langgraph_prax_memory._validation import (
    check_importance,
    check_tags,
    check_text,
    user_dir_name,
    utcnow,
)
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import MemoryValidationError, PraxMemoryError
from langgraph_prax_memory.stm.compaction import asummarise, summarise
from langgraph_prax_memory.stm.models import (
    COMPACTED_TAG,
    PENDING_REVIEW_TAG,
    StmEntry,
    check_key,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["AsyncScratchpadStore", "ScratchpadStore", "StmCorruptError"]

logger = logging.getLogger(__name__)

#: File name of the scratchpad inside ``{workspace}/memory/``.
STM_FILENAME = "stm.json"

_T = TypeVar("_T")
_PUT_FIELDS = frozenset({"content", "importance", "tags"})


class StmCorruptError(PraxMemoryError):
    """``stm.json`` could not be parsed; it was moved aside, never replaced by an empty one.

    Attributes:
        path: The scratchpad file that was corrupt.
        moved_to: Where the corrupt bytes now live (``stm.json.corrupt-<UTC timestamp>``).
    """

    def __init__(self, message: str, *, path: Path, moved_to: Path | None) -> None:
        super().__init__(message)
        self.path = path
        self.moved_to = moved_to


class _Corrupt(Exception):
    """Internal: the file exists but does not hold a valid entry list."""


def _now() -> datetime:
    return utcnow().replace(microsecond=0)


def _parse(raw: bytes) -> list[StmEntry]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _Corrupt(f"not valid JSON ({exc})") from exc
    if not isinstance(data, list):
        raise _Corrupt(f"expected a JSON list of entries, found {type(data).__name__}")
    entries: list[StmEntry] = []
    seen: set[str] = set()
    for index, item in enumerate(data):
        try:
            entry = StmEntry.model_validate(item)
        except ValidationError as exc:
            raise _Corrupt(f"entry {index} is invalid: {exc.errors()[0]['msg']}") from exc
        if entry.key in seen:
            raise _Corrupt(f"key {entry.key!r} appears twice")
        seen.add(entry.key)
        entries.append(entry)
    return entries


def _dump(entries: Sequence[StmEntry]) -> str:
    return json.dumps([e.to_json_dict() for e in entries], ensure_ascii=False, indent=2) + "\n"


def _by_age(entries: Sequence[StmEntry]) -> list[StmEntry]:
    # sorted() is stable, so entries created in the same second keep their file order.
    return sorted(entries, key=lambda e: e.created_at)


class ScratchpadStore:
    """Per-user short-term memory (the "Working Memory (Scratchpad)"), synchronous face.

    Entries are upserted by key; writing an existing key replaces its content and increments
    its ``access_count``. When a user holds more than ``config.stm_max_entries`` entries the
    oldest half (by ``created_at``, pending-review items excluded) is replaced by one
    summary entry tagged ``stm_compacted``, written by ``chat_model`` when given, else by a
    deterministic concatenation.

    Args:
        config: Where workspaces live (``config.users_dir``), ``stm_max_entries`` and
            ``max_content_chars``. ``MemoryConfig()`` when omitted.
        chat_model: Optional LangChain chat model used to summarise compacted entries.
        lock_timeout: Seconds to wait for another writer before raising
            :class:`~langgraph_prax_memory.errors.MemoryWriteError`.

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory.config import MemoryConfig
        >>> stm = ScratchpadStore(MemoryConfig(data_dir=tempfile.mkdtemp()))
        >>> stm.write("alice", "user_timezone", "America/New_York", importance=0.8).access_count
        0
        >>> stm.write("alice", "user_timezone", "Europe/Paris").access_count
        1
        >>> stm.read("alice", "user_timezone").content
        'Europe/Paris'
    """

    def __init__(
        self,
        config: MemoryConfig | None = None,
        *,
        chat_model: BaseChatModel | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        self.config = config if config is not None else MemoryConfig()
        self.chat_model = chat_model
        self.lock_timeout = lock_timeout

    # ------------------------------------------------------------------ paths

    @property
    def max_entries(self) -> int:
        """Entry count above which the scratchpad is compacted (``MEMORY_STM_MAX_ENTRIES``)."""
        return self.config.stm_max_entries

    def workspace(self, user_id: str) -> Path:
        """The user's workspace folder (``config.users_dir / user_dir_name(user_id)``)."""
        return self.config.users_dir / user_dir_name(user_id)

    def path(self, user_id: str) -> Path:
        """The user's scratchpad file, ``{workspace}/memory/stm.json``."""
        return self.workspace(user_id) / "memory" / STM_FILENAME

    # ------------------------------------------------------------------ reads

    @overload
    def read(self, user_id: str) -> list[StmEntry]: ...

    @overload
    def read(self, user_id: str, key: str) -> StmEntry | None: ...

    def read(self, user_id: str, key: str | None = None) -> list[StmEntry] | StmEntry | None:
        """All entries of ``user_id`` (insertion order), or the entry under ``key``.

        Raises:
            StmCorruptError: The file was corrupt (it has been moved aside).
        """
        if key is None:
            return self.all(user_id)
        return self.get(user_id, key)

    def get(self, user_id: str, key: str) -> StmEntry | None:
        """The entry under ``key``, or None. Reading does not change ``access_count``."""
        check_key(key)
        for entry in self._read_entries(user_id):
            if entry.key == key:
                return entry
        return None

    def all(self, user_id: str) -> list[StmEntry]:
        """Every entry of ``user_id`` in insertion order (each with its ``created_at``)."""
        return self._read_entries(user_id)

    def list_pending_review(self, user_id: str) -> list[StmEntry]:
        """Entries tagged ``pending_review`` (low-confidence consolidation output)."""
        return [e for e in self._read_entries(user_id) if PENDING_REVIEW_TAG in e.tags]

    # ----------------------------------------------------------------- writes

    def write(
        self,
        user_id: str,
        key: str,
        content: str,
        importance: float | None = None,
        tags: Sequence[str] | str | None = None,
    ) -> StmEntry:
        """Insert or update the entry under ``key``, then compact if the pad is over-full.

        Args:
            user_id: Owner of the scratchpad.
            key: Entry key (see :func:`~langgraph_prax_memory.stm.check_key`).
            content: Entry text (non-blank, at most ``config.max_content_chars``).
            importance: 0-1. New entries default to 0.5; an update keeps the old value
                unless one is given.
            tags: Tags of the entry. An update keeps the old tags unless some are given.

        Returns:
            The stored entry (``access_count`` incremented when the key already existed).

        Raises:
            MemoryValidationError: Bad key, content, importance or tags.
            StmCorruptError: The existing file was corrupt (moved aside; nothing written).
            MemoryWriteError: The file could not be written or locked.
        """
        entry, over = self._write(user_id, key, content, importance, tags)
        if over:
            self.compact(user_id)
        return entry

    def put(self, user_id: str, key: str, value: Mapping[str, Any]) -> StmEntry:
        """Upsert from a store-style value ``{"content", "importance" (opt.), "tags" (opt.)}``.

        This is the shape the LangGraph store adapter uses for the ``("stm", user_id)``
        namespace. Unknown fields are rejected rather than silently dropped.
        """
        if not isinstance(value, Mapping):
            raise MemoryValidationError(f"value must be a mapping, got {type(value).__name__}")
        unknown = set(value) - _PUT_FIELDS
        if unknown:
            raise MemoryValidationError(
                f"unsupported STM value fields {sorted(map(str, unknown))}; "
                f"use {sorted(_PUT_FIELDS)}"
            )
        if "content" not in value:
            raise MemoryValidationError("an STM value needs a 'content' field")
        return self.write(
            user_id, key, value["content"], value.get("importance"), value.get("tags")
        )

    def add_pending_review(
        self,
        user_id: str,
        content: str,
        *,
        key: str | None = None,
        importance: float = 0.5,
        tags: Sequence[str] | None = None,
    ) -> StmEntry:
        """Park an item for review under the ``pending_review`` tag.

        The default key is ``pending_review:<sha256 of content, 16 hex>``, so adding the same
        item twice reinforces it instead of duplicating it.
        """
        text = check_text(content, max_chars=self.config.max_content_chars)
        if key is None:
            key = "pending_review:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        all_tags = [PENDING_REVIEW_TAG, *check_tags(list(tags) if tags is not None else None)]
        return self.write(user_id, key, text, importance, all_tags)

    def delete(self, user_id: str, key: str) -> bool:
        """Remove the entry under ``key``. Returns whether it existed."""
        check_key(key)

        def change(entries: list[StmEntry]) -> tuple[list[StmEntry] | None, bool]:
            kept = [e for e in entries if e.key != key]
            return (kept, True) if len(kept) != len(entries) else (None, False)

        return self._mutate(user_id, change)

    def clear(self, user_id: str) -> int:
        """Remove every entry of ``user_id``. Returns how many there were."""

        def change(entries: list[StmEntry]) -> tuple[list[StmEntry] | None, int]:
            return ([], len(entries)) if entries else (None, 0)

        return self._mutate(user_id, change)

    def replace_all(self, user_id: str, entries: Sequence[StmEntry]) -> None:
        """Make ``entries`` the whole scratchpad of ``user_id``, exactly (an import's undo)."""
        self._mutate(user_id, lambda _old: (list(entries), None))

    def compact(self, user_id: str, *, force: bool = False) -> StmEntry | None:
        """Summarise the oldest half of the pad into one entry if it is over-full.

        The model call (if any) happens outside the locks; the result is applied only if the
        summarised entries are still unchanged, so a concurrent writer never loses data.

        Args:
            user_id: Owner of the scratchpad.
            force: Compact even when the pad is not over ``max_entries``.

        Returns:
            The new summary entry, or None when nothing was compacted.
        """
        group = self._compaction_group(user_id, force=force)
        if not group:
            return None
        summary, _ = summarise(group, self.chat_model, max_chars=self.config.max_content_chars)
        return self._apply_compaction(user_id, group, summary)

    # -------------------------------------------------------------- internals

    def _write(
        self,
        user_id: str,
        key: str,
        content: str,
        importance: float | None,
        tags: Sequence[str] | str | None,
    ) -> tuple[StmEntry, bool]:
        check_key(key)
        text = check_text(content, max_chars=self.config.max_content_chars)
        imp = check_importance(importance) if importance is not None else None
        tag_list = check_tags(tags)
        max_entries = self.max_entries

        def change(entries: list[StmEntry]) -> tuple[list[StmEntry], tuple[StmEntry, bool]]:
            for i, old in enumerate(entries):
                if old.key == key:
                    new = old.model_copy(
                        update={
                            "content": text,
                            "access_count": old.access_count + 1,
                            "importance": old.importance if imp is None else imp,
                            "tags": old.tags if tags is None else tag_list,
                        }
                    )
                    entries[i] = new
                    return entries, (new, len(entries) > max_entries)
            new = StmEntry(
                key=key,
                content=text,
                tags=tag_list,
                created_at=_now(),
                access_count=0,
                importance=0.5 if imp is None else imp,
            )
            entries.append(new)
            return entries, (new, len(entries) > max_entries)

        return self._mutate(user_id, change)

    def _compaction_group(self, user_id: str, *, force: bool) -> list[StmEntry]:
        entries = self._read_entries(user_id)
        if not force and len(entries) <= self.max_entries:
            return []
        candidates = _by_age([e for e in entries if PENDING_REVIEW_TAG not in e.tags])
        group = candidates[: len(entries) // 2]
        if len(group) < 2:
            logger.warning(
                "STM of %r has %d entries but fewer than 2 can be compacted "
                "(pending-review items are kept verbatim)",
                user_id,
                len(entries),
            )
            return []
        return group

    def _apply_compaction(
        self, user_id: str, group: Sequence[StmEntry], summary: str
    ) -> StmEntry | None:
        wanted = {e.key: e for e in group}

        def change(entries: list[StmEntry]) -> tuple[list[StmEntry] | None, StmEntry | None]:
            present = {e.key: e for e in entries if e.key in wanted}
            if present != wanted:
                logger.info(
                    "STM compaction of %r skipped: entries changed while summarising", user_id
                )
                return None, None
            stamp = utcnow().strftime("%Y%m%dT%H%M%S%fZ")
            keys = {e.key for e in entries}
            new_key, n = f"{COMPACTED_TAG}:{stamp}", 1
            while new_key in keys:
                new_key, n = f"{COMPACTED_TAG}:{stamp}-{n}", n + 1
            new = StmEntry(
                key=new_key,
                content=summary,
                tags=[COMPACTED_TAG],
                created_at=max(e.created_at for e in group),
                access_count=0,
                importance=max(e.importance for e in group),
            )
            first = min(i for i, e in enumerate(entries) if e.key in wanted)
            kept = [e for e in entries if e.key not in wanted]
            kept.insert(first, new)
            logger.info("STM of %r: compacted %d entries into %s", user_id, len(group), new_key)
            return kept, new

        return self._mutate(user_id, change)

    def _mutate(
        self,
        user_id: str,
        change: Callable[[list[StmEntry]], tuple[list[StmEntry] | None, _T]],
    ) -> _T:
        path = self.path(user_id)
        with locked(path, timeout=self.lock_timeout):
            entries = self._load_or_quarantine(path)
            new_entries, result = change(entries)
            if new_entries is not None:
                atomic_write_text(path, _dump(new_entries))
            return result

    def _read_entries(self, user_id: str) -> list[StmEntry]:
        path = self.path(user_id)
        try:
            return self._load(path)
        except _Corrupt:
            # Re-check under the locks: a concurrent process may already have handled it.
            with locked(path, timeout=self.lock_timeout):
                return self._load_or_quarantine(path)

    @staticmethod
    def _load(path: Path) -> list[StmEntry]:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return []
        return _parse(raw)

    def _load_or_quarantine(self, path: Path) -> list[StmEntry]:
        try:
            return self._load(path)
        except _Corrupt as exc:
            stamp = utcnow().strftime("%Y%m%dT%H%M%S%fZ")
            target = path.with_name(f"{path.name}.corrupt-{stamp}")
            n = 1
            while target.exists():
                target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
                n += 1
            try:
                os.replace(path, target)
            except OSError as move_exc:
                logger.error("corrupt STM file %s could not be moved aside: %s", path, move_exc)
                raise StmCorruptError(
                    f"scratchpad file {path} is corrupt ({exc}) and could not be moved aside",
                    path=path,
                    moved_to=None,
                ) from exc
            logger.error("corrupt STM file %s (%s) moved to %s", path, exc, target)
            raise StmCorruptError(
                f"scratchpad file {path} was corrupt ({exc}); it was moved to {target.name} "
                "and the scratchpad starts empty on the next write",
                path=path,
                moved_to=target,
            ) from exc


class AsyncScratchpadStore:
    """Async face of :class:`ScratchpadStore`: the same methods, awaited.

    File IO and the cross-process file lock are blocking system calls with no portable async
    equivalent, so each call runs the synchronous implementation in a worker thread
    (:func:`asyncio.to_thread`) to keep the event loop free. A compaction model, when given,
    is awaited with ``ainvoke`` on the loop itself, outside every lock.

    Args:
        config: See :class:`ScratchpadStore`.
        chat_model: See :class:`ScratchpadStore`.
        lock_timeout: See :class:`ScratchpadStore`.

    Example:
        >>> import asyncio, tempfile
        >>> from langgraph_prax_memory.config import MemoryConfig
        >>> stm = AsyncScratchpadStore(MemoryConfig(data_dir=tempfile.mkdtemp()))
        >>> asyncio.run(stm.write("bob", "task", "draft the report")).key
        'task'
    """

    def __init__(
        self,
        config: MemoryConfig | None = None,
        *,
        chat_model: BaseChatModel | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        self.sync = ScratchpadStore(config, chat_model=chat_model, lock_timeout=lock_timeout)

    @property
    def config(self) -> MemoryConfig:
        """The configuration shared with :attr:`sync`."""
        return self.sync.config

    @property
    def max_entries(self) -> int:
        """See :attr:`ScratchpadStore.max_entries`."""
        return self.sync.max_entries

    def path(self, user_id: str) -> Path:
        """See :meth:`ScratchpadStore.path`."""
        return self.sync.path(user_id)

    @overload
    async def read(self, user_id: str) -> list[StmEntry]: ...

    @overload
    async def read(self, user_id: str, key: str) -> StmEntry | None: ...

    async def read(self, user_id: str, key: str | None = None) -> list[StmEntry] | StmEntry | None:
        """See :meth:`ScratchpadStore.read`."""
        if key is None:
            return await asyncio.to_thread(self.sync.all, user_id)
        return await asyncio.to_thread(self.sync.get, user_id, key)

    async def get(self, user_id: str, key: str) -> StmEntry | None:
        """See :meth:`ScratchpadStore.get`."""
        return await asyncio.to_thread(self.sync.get, user_id, key)

    async def all(self, user_id: str) -> list[StmEntry]:
        """See :meth:`ScratchpadStore.all`."""
        return await asyncio.to_thread(self.sync.all, user_id)

    async def list_pending_review(self, user_id: str) -> list[StmEntry]:
        """See :meth:`ScratchpadStore.list_pending_review`."""
        return await asyncio.to_thread(self.sync.list_pending_review, user_id)

    async def write(
        self,
        user_id: str,
        key: str,
        content: str,
        importance: float | None = None,
        tags: Sequence[str] | str | None = None,
    ) -> StmEntry:
        """See :meth:`ScratchpadStore.write`."""
        entry, over = await asyncio.to_thread(
            self.sync._write, user_id, key, content, importance, tags
        )
        if over:
            await self.compact(user_id)
        return entry

    async def put(self, user_id: str, key: str, value: Mapping[str, Any]) -> StmEntry:
        """See :meth:`ScratchpadStore.put`."""
        if not isinstance(value, Mapping):
            raise MemoryValidationError(f"value must be a mapping, got {type(value).__name__}")
        unknown = set(value) - _PUT_FIELDS
        if unknown or "content" not in value:
            # Let the sync implementation produce the exact error message.
            return await asyncio.to_thread(self.sync.put, user_id, key, value)
        return await self.write(
            user_id, key, value["content"], value.get("importance"), value.get("tags")
        )

    async def add_pending_review(
        self,
        user_id: str,
        content: str,
        *,
        key: str | None = None,
        importance: float = 0.5,
        tags: Sequence[str] | None = None,
    ) -> StmEntry:
        """See :meth:`ScratchpadStore.add_pending_review`."""
        text = check_text(content, max_chars=self.config.max_content_chars)
        if key is None:
            key = "pending_review:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        all_tags = [PENDING_REVIEW_TAG, *check_tags(list(tags) if tags is not None else None)]
        return await self.write(user_id, key, text, importance, all_tags)

    async def delete(self, user_id: str, key: str) -> bool:
        """See :meth:`ScratchpadStore.delete`."""
        return await asyncio.to_thread(self.sync.delete, user_id, key)

    async def clear(self, user_id: str) -> int:
        """See :meth:`ScratchpadStore.clear`."""
        return await asyncio.to_thread(self.sync.clear, user_id)

    async def compact(self, user_id: str, *, force: bool = False) -> StmEntry | None:
        """See :meth:`ScratchpadStore.compact`."""
        group = await asyncio.to_thread(self.sync._compaction_group, user_id, force=force)
        if not group:
            return None
        summary, _ = await asummarise(
            group, self.sync.chat_model, max_chars=self.config.max_content_chars
        )
        return await asyncio.to_thread(self.sync._apply_compaction, user_id, group, summary)
