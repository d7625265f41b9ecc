"""Forgetting a user everywhere: ordered, resumable, and honest about what is left.

A deletion runs in a fixed order: first the backends that can fail (the Qdrant memories, the
knowledge concept vectors, the knowledge graph, the memory graph), then the local files (the
scratchpad, the consolidation state, ``trace.log``, the OKF bundles, and unless notes are
kept the whole workspace). An outage part-way therefore leaves a user whose local data is
still there, never one that looks deleted while their memories are still recalled.

Before the first step a small marker records the deletion,
``<data_dir>/pending-deletions/<user folder>.json`` (the user id, the options, what was
removed so far; none of the user's text). It is rewritten after every step and removed when
the deletion (and the compaction, if asked for) is complete. While it exists the deletion
resumes: calling ``forget_user`` / ``delete_user`` again for the user, or opening a
:class:`~langgraph_prax_memory.PraxMemory` on the data directory, runs every step again
(each is idempotent) and adds what it removes to the receipt.

A consolidation of the user that is running when the deletion starts could write what it
extracted after the stores were emptied, so the deletion first takes the user's consolidation
lock (the one :class:`~langgraph_prax_memory.consolidation.Consolidator` runs under, in this
process and across processes): it waits for a running consolidation to finish (up to
``CONSOLIDATION_WAIT`` seconds; the deletion is then recorded and raises
:class:`~langgraph_prax_memory.errors.DeletionIncomplete` with nothing deleted), and a
consolidation asked for meanwhile waits for the deletion, then finds no trace of the user.

Deleted data leaves every API at once, but engines keep deleted bytes on disk until they
rewrite their files: :func:`compact_stores` rewrites those the product owns (qdrant-edge
collections, the SQLite graph). The receipt's ``remaining`` lists what stays beyond that.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph_prax_memory._atomic import atomic_write_text, locked
from langgraph_prax_memory._parts import MemoryParts
from langgraph_prax_memory._remaining import graph_in_use, what_remains
from langgraph_prax_memory._validation import check_user_id, user_dir_name, utcnow
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    DeletionIncomplete,
    MemoryWriteError,
    PraxMemoryError,
)

if TYPE_CHECKING:
    from langgraph_prax_memory.knowledge import KnowledgeStore

__all__ = [
    "CONSOLIDATION_WAIT",
    "MARKER_FORMAT",
    "PENDING_DIR",
    "STEPS",
    "ForgetReceipt",
    "compact_stores",
    "forget",
    "pending_deletions",
    "resume_pending",
]

logger = logging.getLogger(__name__)

#: Seconds a deletion waits for a running consolidation of the user to finish.
CONSOLIDATION_WAIT = 120.0
#: Folder of pending-deletion markers, under ``data_dir``.
PENDING_DIR = "pending-deletions"
MARKER_FORMAT = "prax-pending-deletion"
_MARKER_VERSION = 1

#: The steps of a deletion, in order, with what each one deletes.
STEPS: dict[str, str] = {
    "memories": "long-term memories (Qdrant)",
    "knowledge_vectors": "knowledge concept vectors (Qdrant)",
    "knowledge": "knowledge graph (concepts, documents, relations)",
    "graph": "memory graph (entities, relations, events, causal links)",
    "scratchpad": "scratchpad (memory/stm.json)",
    "consolidation": "consolidation state (the workspace's memory/ folder)",
    "trace_log": "trace.log",
    "okf": "OKF bundles (okf/<user>)",
    "workspace": "workspace folder (user_notes.md and its git history)",
}


@dataclass
class ForgetReceipt:
    """What forgetting a user did, and what stays.

    Attributes:
        user_id: The user forgotten.
        removed: Counts removed per kind (over every attempt of a resumed deletion).
        remaining: Where the user's data may still be: deleted bytes awaiting compaction,
            and what is outside the product's reach (Neo4j transaction logs, exports).
        compacted: What was compacted (rewritten without deleted bytes), if asked for.
    """

    user_id: str
    removed: dict[str, int] = field(default_factory=dict)
    remaining: list[str] = field(default_factory=list)
    compacted: list[str] = field(default_factory=list)


def _marker_path(parts: MemoryParts, user_id: str) -> Path:
    return parts.config.data_dir / PENDING_DIR / f"{user_dir_name(user_id)}.json"


def _load_marker(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        logger.error("pending-deletion marker %s is unreadable (%s); ignoring it", path, exc)
        return None
    if not isinstance(data, dict) or data.get("format") != MARKER_FORMAT:
        logger.error("%s is not a pending-deletion marker; ignoring it", path)
        return None
    return data


def pending_deletions(parts: MemoryParts) -> list[dict[str, Any]]:
    """The deletions recorded as unfinished under ``memory``'s data directory."""
    folder = parts.config.data_dir / PENDING_DIR
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.json")):
        marker = _load_marker(path)
        if marker is not None and isinstance(marker.get("user_id"), str):
            found.append(marker)
    return found


def resume_pending(
    parts: MemoryParts,
    knowledge: Callable[[], KnowledgeStore] | None = None,
) -> dict[str, ForgetReceipt]:
    """Resume every unfinished deletion (at open); the receipts of those that completed.

    A deletion that fails again stays recorded and is logged, never raised: opening a
    memory must not fail because a backend is still down. The memory keeps the receipts,
    so that a ``forget_user`` of the same user right after (``prax-memory forget-user`` run
    again opens the memory first) reports everything the deletion removed.
    """
    done: dict[str, ForgetReceipt] = {}
    for marker in pending_deletions(parts):
        user_id = marker["user_id"]
        try:
            done[user_id] = forget(
                parts,
                user_id,
                keep_notes=bool(marker.get("keep_notes")),
                compact=bool(marker.get("compact")),
                knowledge=knowledge,
                wait=0.0,  # a consolidation running elsewhere: resume at the next open
            )
        except PraxMemoryError as exc:
            logger.warning("resuming the deletion of user %r failed again: %s", user_id, exc)
            continue
        logger.info("resumed and completed the deletion of user %r", user_id)
    return done


def forget(
    parts: MemoryParts,
    user_id: str,
    *,
    keep_notes: bool = False,
    compact: bool = False,
    knowledge: Callable[[], KnowledgeStore] | None = None,
    resumed: dict[str, ForgetReceipt] | None = None,
    wait: float = CONSOLIDATION_WAIT,
) -> ForgetReceipt:
    """Delete every trace of ``user_id`` the product holds; see the module docstring.

    Args:
        parts: The parts of the memory whose stores to delete from
            (:meth:`PraxMemory.forget_user` is the public entry point).
        user_id: The user to forget.
        keep_notes: Keep the workspace (``user_notes.md`` and its git history); everything
            else of the user in it (scratchpad, consolidation state, ``trace.log``) goes.
        compact: Then rewrite the engines' files so no deleted byte remains
            (:func:`compact_stores`).
        knowledge: Gives the knowledge store to delete from (default: one on the graph).
        resumed: Receipts of the deletions completed when the memory was opened (the one
            of ``user_id`` is taken from it, so its counts are reported).
        wait: Seconds to wait for a running consolidation of the user to finish.

    Returns:
        The receipt: counts removed, what was compacted, what remains.

    Raises:
        MemoryValidationError: ``user_id`` is invalid; nothing was deleted.
        DeletionIncomplete: A step failed, or a consolidation of the user still ran after
            ``wait`` seconds; what it names is still to delete, and the deletion resumes on
            the next call or the next open.
    """
    check_user_id(user_id)
    path = _marker_path(parts, user_id)
    previous = _load_marker(path) or {}
    done_at_open = (resumed or {}).pop(user_id, None)
    if done_at_open is not None and not previous:  # completed when the memory was opened
        previous = {"removed": done_at_open.removed}
    marker: dict[str, Any] = {
        "format": MARKER_FORMAT,
        "version": _MARKER_VERSION,
        "user_id": user_id,
        "keep_notes": keep_notes,
        "compact": compact or bool(previous.get("compact")),
        "started_at": previous.get("started_at") or utcnow().isoformat(),
        "attempts": int(previous.get("attempts", 0)) + 1,
        "removed": dict(previous.get("removed") or {}),
        "done": [],
        "external_traces": list(previous.get("external_traces") or []),
    }
    _save_marker(path, marker)
    steps = _steps(parts, user_id, keep_notes, marker["external_traces"], knowledge)
    with _no_consolidation(parts, user_id, wait) as busy:
        if busy is not None:
            raise _incomplete(parts, user_id, marker, path, busy, [*steps])
        return _run_steps(parts, user_id, marker, path, steps, done_at_open)


@contextlib.contextmanager
def _no_consolidation(
    parts: MemoryParts, user_id: str, wait: float
) -> Iterator[TimeoutError | None]:
    """Hold the user's consolidation lock; yields the error when it could not be had.

    The lock file lives in the user's workspace (``memory/consolidation.lock``). A user without
    a workspace has no ``trace.log`` to consolidate and no lock to take, and none is made for
    them (the deletion must not leave a folder named after the user behind).
    """
    from langgraph_prax_memory.consolidation import user_run_lock

    if not (parts.config.users_dir / user_dir_name(user_id)).is_dir():
        yield None
        return
    locks = user_run_lock(parts.config)
    token = locks.acquire(user_id, timeout=0.0)
    if token is None and wait > 0:
        logger.warning(
            "a consolidation of user %r is running; the deletion waits for it (up to %.0f s)",
            user_id,
            wait,
        )
        token = locks.acquire(user_id, timeout=wait)
    if token is None:
        yield TimeoutError(f"a consolidation of the user was still running after {wait:.0f} s")
        return
    try:
        yield None
    finally:
        locks.release(user_id, token)


def _run_steps(
    parts: MemoryParts,
    user_id: str,
    marker: dict[str, Any],
    path: Path,
    steps: Mapping[str, Callable[[], dict[str, int]]],
    done_at_open: ForgetReceipt | None,
) -> ForgetReceipt:
    removed: dict[str, int] = marker["removed"]
    keep_notes = bool(marker["keep_notes"])
    for name, step in steps.items():
        try:
            counts = step()
        except (PraxMemoryError, OSError) as exc:
            marker["last_error"] = f"{name}: {exc}"
            _save_marker(path, marker, quiet=True)
            left = [*steps][len(marker["done"]) :]
            raise _incomplete(parts, user_id, marker, path, exc, left) from exc
        for key, value in counts.items():
            removed[key] = removed.get(key, 0) + value
        marker["done"].append(name)
        _save_marker(path, marker, quiet=True)
    compacted: list[str] = list(done_at_open.compacted) if done_at_open is not None else []
    if marker["compact"]:
        try:
            compacted = compact_stores(parts)
        except (PraxMemoryError, OSError) as exc:
            marker["last_error"] = f"compaction: {exc}"
            _save_marker(path, marker, quiet=True)
            left = ["compaction (the deleted bytes are still on disk)"]
            raise _incomplete(parts, user_id, marker, path, exc, left) from exc
    _remove_marker(path)
    return ForgetReceipt(
        user_id=user_id,
        removed=dict(removed),
        remaining=what_remains(parts, user_id, keep_notes, bool(compacted), marker),
        compacted=compacted,
    )


def _incomplete(
    parts: MemoryParts,
    user_id: str,
    marker: Mapping[str, Any],
    path: Path,
    exc: BaseException,
    left: list[str],
) -> DeletionIncomplete:
    described = [STEPS.get(step, step) for step in left]
    return DeletionIncomplete(
        f"deleting user {user_id!r} is incomplete: {exc}. Still to delete: "
        f"{'; '.join(described)}. The deletion is recorded in {path} and resumes when "
        "`prax-memory forget-user` runs again for this user, or when the memory is next "
        "opened on this data directory.",
        user_id=user_id,
        removed=dict(marker["removed"]),
        left=described,
        remaining=what_remains(parts, user_id, bool(marker["keep_notes"]), False, marker),
        marker=path,
    )


def _save_marker(path: Path, marker: Mapping[str, Any], *, quiet: bool = False) -> None:
    """Write the marker; the first write must land (no deletion without a record)."""
    try:
        atomic_write_text(path, json.dumps(marker, indent=1, sort_keys=True) + "\n")
    except MemoryWriteError:
        if not quiet:
            raise
        logger.warning("could not update the pending-deletion marker %s", path)


def _remove_marker(path: Path) -> None:
    path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        path.parent.rmdir()  # only when empty


# ----------------------------------------------------------------------- the steps


def _steps(
    parts: MemoryParts,
    user_id: str,
    keep_notes: bool,
    external_traces: list[str],
    knowledge_store: Callable[[], KnowledgeStore] | None,
) -> dict[str, Callable[[], dict[str, int]]]:
    config = parts.config
    workspace = config.users_dir / user_dir_name(user_id)
    existed = workspace.exists()  # before any step: clearing the scratchpad makes its lock file
    graph_used = graph_in_use(parts)

    def memories() -> dict[str, int]:
        if not parts.ltm.available:
            return {}
        return {"memories": parts.ltm.vectors.delete_user(user_id)}

    def knowledge_vectors() -> dict[str, int]:
        if not parts.ltm.available:
            return {}
        from langgraph_prax_memory.knowledge.vectors import KNOWLEDGE_COLLECTION
        from langgraph_prax_memory.vectors import QdrantVectorStore, existing_dimension

        client = parts.ltm.vectors.client
        try:
            exists = client.collection_exists(KNOWLEDGE_COLLECTION)
            # the collection's own width, not the embedder's: a deletion must still complete
            # after the embedding model changed
            width = (
                existing_dimension(client.get_collection(KNOWLEDGE_COLLECTION)) if exists else None
            )
        except Exception as exc:
            raise BackendUnavailable(f"Qdrant is not usable: {exc}") from exc
        if not exists:
            return {}
        shared: dict[str, Any] = {}
        breaker = getattr(parts.ltm.vectors, "breaker", None)
        if breaker is not None:  # one circuit breaker per Qdrant server
            shared["breaker"] = breaker
        store = QdrantVectorStore(
            client,
            collection=KNOWLEDGE_COLLECTION,
            dimension=width or parts.ltm.embeddings.dimension,
            **shared,
        )
        return {"knowledge_vectors": store.delete_user(user_id)}

    def knowledge() -> dict[str, int]:
        if not graph_used:
            return {}
        if knowledge_store is not None:
            store = knowledge_store()
        else:
            from langgraph_prax_memory.knowledge import create_knowledge_store

            store = create_knowledge_store(parts.graph)
        stats = store.delete_user(user_id)
        return {f"knowledge_{k}": v for k, v in _ints(stats.model_dump()).items()}

    def graph() -> dict[str, int]:
        if not graph_used:
            return {}
        gone = parts.graph.delete_user(user_id)
        return {
            "entities": gone.entities,
            "relations": gone.relations,
            "temporal_events": gone.temporal_events,
            "causal_links": gone.causal_links,
        }

    def scratchpad() -> dict[str, int]:
        from langgraph_prax_memory.stm import StmCorruptError

        try:
            return {"stm_entries": parts.stm.clear(user_id)}
        except StmCorruptError:  # moved aside inside memory/, which the next step removes
            return {"stm_entries": 0}

    def consolidation() -> dict[str, int]:
        from langgraph_prax_memory.consolidation import LOCK_FILENAME, StateFile

        states = StateFile(config)
        state = states.path(user_id)
        if state.exists():
            own = str(workspace / "trace.log")
            for source in states.load(user_id).sources.values():
                ref = source.ref.get("path") if source.kind == "trace_log" else None
                if ref and ref != own and ref not in external_traces:
                    external_traces.append(ref)
        count = int(state.exists())
        folder = state.parent
        if folder.exists():
            for entry in folder.iterdir():
                if entry.name == LOCK_FILENAME:
                    continue  # held by this deletion; the workspace step removes it last
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty
        return {"consolidation_state": count}

    def trace_log() -> dict[str, int]:
        trace = workspace / "trace.log"
        count = int(trace.exists())
        trace.unlink(missing_ok=True)
        return {"trace_log": count}

    def okf() -> dict[str, int]:
        bundles = config.data_dir / "okf" / user_dir_name(user_id)
        if not bundles.exists():
            return {}
        count = sum(1 for p in bundles.rglob("*") if p.is_file())
        shutil.rmtree(bundles)
        return {"okf_files": count}

    def workspace_folder() -> dict[str, int]:
        doomed = workspace.with_name(f".{workspace.name}.deleting")
        if doomed.exists():  # an earlier attempt renamed it, then stopped
            shutil.rmtree(doomed)
        if keep_notes and not existed and workspace.exists():
            made = [p for p in workspace.rglob("*") if p.is_file()]
            if all(p.suffix == ".lock" for p in made):  # only what the deletion made itself
                shutil.rmtree(workspace)
        if keep_notes or not workspace.exists():
            return {"notes_lines": 0, "workspace_files": 0}
        # Under the notes lock, a notes update of the user running meanwhile finishes first
        # (git writing into the folder while it goes would stop the deletion half-way). The
        # folder is renamed away in one step, then removed: an update waiting for the lock in
        # another process (re-creating the lock file as it polls) then finds no folder, makes
        # a new workspace and writes there, instead of stopping the removal.
        with locked(parts.notes.path(user_id), timeout=parts.notes.lock_timeout):
            if not workspace.exists():
                return {"notes_lines": 0, "workspace_files": 0}
            notes = parts.notes.read(user_id)
            counts = {
                "notes_lines": sum(1 for line in notes.splitlines() if line.strip()),
                "workspace_files": sum(1 for p in workspace.rglob("*") if p.is_file()),
            }
            os.rename(workspace, doomed)
        shutil.rmtree(doomed)
        return counts

    return {
        "memories": memories,
        "knowledge_vectors": knowledge_vectors,
        "knowledge": knowledge,
        "graph": graph,
        "scratchpad": scratchpad,
        "consolidation": consolidation,
        "trace_log": trace_log,
        "okf": okf,
        "workspace": workspace_folder,
    }


def _ints(values: Mapping[str, object]) -> dict[str, int]:
    return {
        str(k): int(v) for k, v in values.items() if isinstance(v, int) and not isinstance(v, bool)
    }


# ----------------------------------------------------------------------- compaction


def compact_stores(parts: MemoryParts) -> list[str]:
    """Rewrite the files of the engines the product owns, without any deleted byte.

    Every qdrant-edge collection of the memory's embedded folder is rebuilt from its live
    points (see :meth:`~langgraph_prax_memory.vectors._edge.EdgeClient.compact`), and the
    SQLite graph file is vacuumed with its write-ahead log emptied. A Qdrant server, the
    local mode and Neo4j are not compacted from here (the receipt says so).

    Returns:
        What was compacted.

    Raises:
        BackendUnavailable: An engine could not be compacted (nothing of it was lost).
    """
    from langgraph_prax_memory.graph import SQLiteGraphStore
    from langgraph_prax_memory.vectors import EdgeClient

    done: list[str] = []
    if parts.ltm.available:
        client = parts.ltm.vectors.client
        if isinstance(client, EdgeClient):
            for name in client.collection_names():
                try:
                    client.compact(name)
                except (RuntimeError, ValueError, OSError) as exc:
                    raise BackendUnavailable(
                        f"qdrant-edge compaction of {name!r} failed: {exc}"
                    ) from exc
                done.append(f"qdrant-edge collection {name}")
    if graph_in_use(parts):
        graph = parts.graph
        if isinstance(graph, SQLiteGraphStore) and graph.path != ":memory:":
            graph.compact()
            done.append(f"SQLite graph {graph.path}")
    return done
