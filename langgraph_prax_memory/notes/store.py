"""``user_notes.md``: read, retrieve, update (+ git commit), compact and promote.

The notes file lives at the root of the user's workspace
(``config.users_dir / user_dir_name(user_id)``), which is its own git repository. An
update writes the whole file atomically and commits it ("Update user notes"); when a
compaction trigger fires it then writes and commits the compacted file ("Compact user
notes"), so the raw version is always one commit back. Items compaction dropped are offered
to long-term memory through an injected ``remember`` callable; any failure there is logged
and never fails the update.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import shutil
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from langgraph_prax_memory._atomic import (
    DEFAULT_LOCK_TIMEOUT,
    atomic_write_text,
    disk_write_error,
    locked,
)
from langgraph_prax_memory._validation import user_dir_name
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import MemoryValidationError, MemoryWriteError
from langgraph_prax_memory.notes._git import NotesGitError, WorkspaceRepo, resolve_git
from langgraph_prax_memory.notes.compaction import DroppedItem, compact_notes
from langgraph_prax_memory.notes.promotion import PROMOTION_SOURCE, Promotion, select_promotions
from langgraph_prax_memory.notes.selection import select_note_lines

__all__ = [
    "AsyncRememberSink",
    "AsyncUserNotes",
    "NotesUpdateResult",
    "RememberSink",
    "UserNotes",
]

logger = logging.getLogger(__name__)

NOTES_FILENAME = "user_notes.md"
#: Largest accepted notes content, in UTF-8 bytes (64 KiB). The live file is meant to be a
#: few KB; anything this large is almost certainly a mistake (a pasted document).
DEFAULT_MAX_NOTES_BYTES = 64 * 1024
UPDATE_COMMIT_MESSAGE = "Update user notes"
COMPACT_COMMIT_MESSAGE = "Compact user notes"
RECOVER_COMMIT_MESSAGE = "Record user notes changed outside an update"


class RememberSink(Protocol):
    """Where promoted notes go: the memory's ``remember`` (wired by the facade)."""

    def __call__(
        self, user_id: str, content: str, /, *, importance: float, tags: list[str], source: str
    ) -> object:
        """Store ``content`` as a long-term memory of ``user_id``."""


class AsyncRememberSink(Protocol):
    """Async variant of :class:`RememberSink` (e.g. the facade's ``aremember``)."""

    def __call__(
        self, user_id: str, content: str, /, *, importance: float, tags: list[str], source: str
    ) -> Awaitable[object]:
        """Store ``content`` as a long-term memory of ``user_id``."""


@dataclass(frozen=True)
class NotesUpdateResult:
    """What :meth:`UserNotes.update` did.

    Attributes:
        path: The notes file.
        content: The live file content after the update (compacted or raw).
        raw_commit: Commit id of "Update user notes" (None when the content was unchanged).
        compaction_commit: Commit id of "Compact user notes" (None when not compacted).
        triggers: The compaction triggers that fired.
        dropped_items: Items compaction removed (recoverable from ``raw_commit``).
        promotions: The dropped items selected for long-term memory.
        promoted: The promotions that long-term memory accepted.
        warnings: Why something was skipped (no LTM, LTM failure, compaction failure).
    """

    path: Path
    content: str
    raw_commit: str | None
    compaction_commit: str | None = None
    triggers: tuple[str, ...] = ()
    dropped_items: tuple[DroppedItem, ...] = ()
    promotions: tuple[Promotion, ...] = ()
    promoted: tuple[Promotion, ...] = ()
    warnings: tuple[str, ...] = field(default=())

    @property
    def compacted(self) -> bool:
        """Whether a "Compact user notes" commit was made."""
        return self.compaction_commit is not None


def check_notes_content(content: object, max_bytes: int) -> str:
    """``content`` as the notes text an update would write, or raise (nothing is touched).

    Str or UTF-8 bytes, no NUL character, at most ``max_bytes`` UTF-8 bytes.

    Raises:
        MemoryValidationError: The content is refused.
    """
    if isinstance(content, bytes | bytearray):
        try:
            content = bytes(content).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MemoryValidationError(f"user notes must be valid UTF-8: {exc}") from exc
    if not isinstance(content, str):
        raise MemoryValidationError(f"user notes must be a string, got {type(content).__name__}")
    try:
        size = len(content.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise MemoryValidationError(f"user notes must be valid UTF-8: {exc}") from exc
    if "\x00" in content:
        raise MemoryValidationError("user notes must not contain NUL characters")
    if size > max_bytes:
        raise MemoryValidationError(
            f"user notes are {size} bytes, over the limit of {max_bytes} bytes; keep the "
            "quick-reference file short and store long material as memories or knowledge"
        )
    return content


class UserNotes:
    r"""Quick-reference user notes backed by a git repository per user (synchronous face).

    Args:
        config: Where workspaces live (``config.users_dir``). ``MemoryConfig()`` if omitted.
        remember: Optional long-term memory sink for promotions, called as
            ``remember(user_id, content, importance=..., tags=[...],
            source="user_notes_compaction")``. None skips promotion (logged).
        git_executable: The git program (default ``"git"`` on ``PATH``).
        max_bytes: Largest accepted update, in UTF-8 bytes (default 64 KiB).
        lock_timeout: Seconds to wait for a concurrent update of the same user.

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory.config import MemoryConfig
        >>> notes = UserNotes(MemoryConfig(data_dir=tempfile.mkdtemp()))
        >>> _ = notes.update("alice", "timezone: Europe/Berlin\n## Aliases\n- NPR: radio\n")
        >>> notes.get_workspace_context("alice", "remind me at 9am")
        'timezone: Europe/Berlin'
        >>> notes.get_workspace_context("alice", "what is 2+2")
        ''
    """

    def __init__(
        self,
        config: MemoryConfig | None = None,
        *,
        remember: RememberSink | None = None,
        git_executable: str | None = None,
        max_bytes: int = DEFAULT_MAX_NOTES_BYTES,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        if max_bytes <= 0:
            raise ValueError("max_bytes must be positive")
        self.config = config if config is not None else MemoryConfig()
        self.remember = remember
        self.git_executable = git_executable
        self.max_bytes = max_bytes
        self.lock_timeout = lock_timeout

    def workspace(self, user_id: str) -> Path:
        """The user's workspace folder, the root of the notes git repository."""
        return self.config.users_dir / user_dir_name(user_id)

    def path(self, user_id: str) -> Path:
        """The user's notes file, ``{workspace}/user_notes.md``."""
        return self.workspace(user_id) / NOTES_FILENAME

    def read(self, user_id: str) -> str:
        """The whole notes file (``""`` when the user has none yet).

        Example:
            >>> import tempfile
            >>> from langgraph_prax_memory.config import MemoryConfig
            >>> UserNotes(MemoryConfig(data_dir=tempfile.mkdtemp())).read("nobody")
            ''
        """
        try:
            return self.path(user_id).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def get_workspace_context(self, user_id: str, user_input: str) -> str:
        """The note lines relevant to ``user_input`` (at most 8 lines / 1,200 characters).

        Deterministic and model-free; see
        :func:`~langgraph_prax_memory.notes.select_note_lines`. Returns ``""`` when no line
        is relevant, so nothing is injected.
        """
        if not isinstance(user_input, str):
            raise MemoryValidationError(
                f"user_input must be a string, got {type(user_input).__name__}"
            )
        return "\n".join(select_note_lines(self.read(user_id), user_input))

    def update(self, user_id: str, content: str | bytes) -> NotesUpdateResult:
        """Replace the notes with ``content``, commit, compact if needed, promote.

        Steps: validate (str or UTF-8 bytes, no NUL, at most ``max_bytes``) and find git —
        both before anything is touched; write the raw content atomically and commit
        "Update user notes"; if a compaction trigger fires, write the compacted file and
        commit "Compact user notes"; offer the dropped durable items to ``remember``.

        Args:
            user_id: Owner of the notes.
            content: The complete new file content.

        Returns:
            What happened, including triggers, dropped items and promotions.

        Raises:
            MemoryValidationError: Bad content; nothing was touched.
            GitUnavailableError: No git executable; nothing was touched.
            NotesGitError: A git command failed; the previous file content was restored.
            MemoryWriteError: The file could not be written or locked.
        """
        result = self._update_files(user_id, content)
        return self._promote(user_id, result)

    # ------------------------------------------------------------- internals

    def _after_raw_commit(self, user_id: str) -> None:
        """Fault-injection point between the raw commit and compaction (no-op).

        Tests override it in a subprocess to kill the process exactly there.
        """

    def _update_files(self, user_id: str, content: str | bytes) -> NotesUpdateResult:
        text = check_notes_content(content, self.max_bytes)
        git = resolve_git(self.git_executable)
        path = self.path(user_id)
        repo = WorkspaceRepo(path.parent, git)
        warnings: list[str] = []
        with locked(path, timeout=self.lock_timeout):
            repo.ensure()
            _drop_previous(path)  # left by a process killed mid-update: see _keep_previous
            if path.exists() and repo.is_dirty(NOTES_FILENAME):
                repo.commit_file(NOTES_FILENAME, RECOVER_COMMIT_MESSAGE)
                logger.warning("committed uncommitted changes of %s before updating", path)
            _keep_previous(path)
            try:
                atomic_write_text(path, text)
                raw_commit = repo.commit_file(NOTES_FILENAME, UPDATE_COMMIT_MESSAGE)
            except BaseException:
                _put_back(path, repo)
                raise
            _drop_previous(path)
            self._after_raw_commit(user_id)

            plan = compact_notes(text)
            if not plan.triggers or plan.new_text == text:
                return NotesUpdateResult(
                    path=path, content=text, raw_commit=raw_commit, triggers=plan.triggers
                )
            try:
                _keep_previous(path)
                try:
                    atomic_write_text(path, plan.new_text)
                    compaction_commit = repo.commit_file(NOTES_FILENAME, COMPACT_COMMIT_MESSAGE)
                except BaseException:
                    _put_back(path, repo)
                    raise
            except (NotesGitError, MemoryWriteError) as exc:
                # the raw update landed (and is acknowledged): only the compaction is skipped
                logger.exception("compaction commit of %s failed; keeping the raw notes", path)
                warnings.append(f"compaction not committed: {exc}")
                return NotesUpdateResult(
                    path=path,
                    content=text,
                    raw_commit=raw_commit,
                    triggers=plan.triggers,
                    warnings=tuple(warnings),
                )
            _drop_previous(path)
        logger.info(
            "compacted %s (%s): %d items dropped",
            path,
            ", ".join(plan.triggers),
            len(plan.dropped_items),
        )
        return NotesUpdateResult(
            path=path,
            content=plan.new_text,
            raw_commit=raw_commit,
            compaction_commit=compaction_commit,
            triggers=plan.triggers,
            dropped_items=plan.dropped_items,
            promotions=tuple(select_promotions(plan.dropped_items)),
        )

    def _promote(self, user_id: str, result: NotesUpdateResult) -> NotesUpdateResult:
        if not result.promotions:
            return result
        if self.remember is None:
            return _skipped(result, "no long-term memory configured; promotion skipped")
        promoted: list[Promotion] = []
        for promotion in result.promotions:
            try:
                outcome = self.remember(
                    user_id,
                    promotion.content,
                    importance=promotion.importance,
                    tags=list(promotion.tags),
                    source=PROMOTION_SOURCE,
                )
                if inspect.isawaitable(outcome):
                    if inspect.iscoroutine(outcome):
                        outcome.close()
                    raise TypeError("remember returned an awaitable; use AsyncUserNotes")
            except Exception as exc:
                return _skipped(result, _failure(exc), promoted)
            promoted.append(promotion)
        return replace(result, promoted=tuple(promoted))


def _previous(path: Path) -> tuple[Path, Path]:
    """The names under which :func:`_keep_previous` keeps the file an update replaces."""
    return path.with_name(f".{path.name}.previous.tmp"), path.with_name(f".{path.name}.none.tmp")


def _keep_previous(path: Path) -> None:
    """Keep the file about to be replaced, so that a failed update can put it back.

    The copy is a hard link (no data written, so it works on a full disk) and the put-back a
    rename (:func:`_put_back`): the text of an update that raised never stays in the file,
    where a read would return it and the next update commit it. When there is no file yet,
    an empty marker says so. Both names end in ``.tmp``, which git ignores here.

    Raises:
        MemoryWriteError: Neither could be made; nothing was changed.
    """
    kept, none = _previous(path)
    _drop_previous(path)
    try:
        if not path.exists():
            none.touch()
            return
        try:
            os.link(path, kept)
        except OSError:  # a file system without hard links: a copy (it needs space)
            shutil.copyfile(path, kept)
    except OSError as exc:
        _drop_previous(path)
        raise disk_write_error(
            f"cannot keep the previous notes {path} aside before updating them",
            exc,
            "nothing was changed",
        ) from exc


def _put_back(path: Path, repo: WorkspaceRepo) -> None:
    """Undo an update that failed: the previous file back in place, nothing left staged."""
    kept, none = _previous(path)
    try:
        if kept.exists():
            os.replace(kept, path)
        elif none.exists():
            path.unlink(missing_ok=True)
        none.unlink(missing_ok=True)
    except OSError:
        logger.exception(
            "could not put %s back after a failed update; it may hold the text of that "
            "update until the next one",
            path,
        )
        return
    with contextlib.suppress(NotesGitError):  # best effort: a full disk may refuse it too
        repo.run("reset", "-q", "--", NOTES_FILENAME, check=False)


def _drop_previous(path: Path) -> None:
    for kept in _previous(path):
        with contextlib.suppress(FileNotFoundError):
            kept.unlink()


def _failure(exc: Exception) -> str:
    return f"long-term memory promotion stopped ({type(exc).__name__}: {exc})"


def _skipped(
    result: NotesUpdateResult, why: str, promoted: list[Promotion] | None = None
) -> NotesUpdateResult:
    done = tuple(promoted or ())
    logger.warning(
        "%s: %d of %d dropped notes items not promoted; they stay in git history",
        why,
        len(result.promotions) - len(done),
        len(result.promotions),
    )
    return replace(result, promoted=done, warnings=(*result.warnings, why))


class AsyncUserNotes:
    r"""Async face of :class:`UserNotes`: the same methods, awaited.

    Git runs as a subprocess and the notes lock is a blocking file lock, so the file and git
    work runs in a worker thread (:func:`asyncio.to_thread`); an async ``remember`` (e.g.
    the facade's ``aremember``) is awaited on the event loop, a sync one is called in a
    thread.

    Args:
        config: See :class:`UserNotes`.
        remember: A sync or async long-term memory sink (see :class:`UserNotes`).
        git_executable: See :class:`UserNotes`.
        max_bytes: See :class:`UserNotes`.
        lock_timeout: See :class:`UserNotes`.

    Example:
        >>> import asyncio, tempfile
        >>> from langgraph_prax_memory.config import MemoryConfig
        >>> notes = AsyncUserNotes(MemoryConfig(data_dir=tempfile.mkdtemp()))
        >>> _ = asyncio.run(notes.update("bob", "name: Bob\n"))
        >>> asyncio.run(notes.get_workspace_context("bob", "hello!"))
        'name: Bob'
    """

    def __init__(
        self,
        config: MemoryConfig | None = None,
        *,
        remember: RememberSink | AsyncRememberSink | None = None,
        git_executable: str | None = None,
        max_bytes: int = DEFAULT_MAX_NOTES_BYTES,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        self.sync = UserNotes(
            config, git_executable=git_executable, max_bytes=max_bytes, lock_timeout=lock_timeout
        )
        self.remember = remember

    def path(self, user_id: str) -> Path:
        """See :meth:`UserNotes.path`."""
        return self.sync.path(user_id)

    async def read(self, user_id: str) -> str:
        """See :meth:`UserNotes.read`."""
        return await asyncio.to_thread(self.sync.read, user_id)

    async def get_workspace_context(self, user_id: str, user_input: str) -> str:
        """See :meth:`UserNotes.get_workspace_context`."""
        return await asyncio.to_thread(self.sync.get_workspace_context, user_id, user_input)

    async def update(self, user_id: str, content: str | bytes) -> NotesUpdateResult:
        """See :meth:`UserNotes.update`."""
        result = await asyncio.to_thread(self.sync._update_files, user_id, content)
        if not result.promotions:
            return result
        if self.remember is None:
            return _skipped(result, "no long-term memory configured; promotion skipped")
        promoted: list[Promotion] = []
        for promotion in result.promotions:
            try:
                outcome = await asyncio.to_thread(
                    self.remember,
                    user_id,
                    promotion.content,
                    importance=promotion.importance,
                    tags=list(promotion.tags),
                    source=PROMOTION_SOURCE,
                )
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:
                return _skipped(result, _failure(exc), promoted)
            promoted.append(promotion)
        return replace(result, promoted=tuple(promoted))
