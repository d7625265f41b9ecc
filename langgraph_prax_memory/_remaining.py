"""What may still hold a forgotten user's data, given the backends (the deletion's receipt)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from langgraph_prax_memory._parts import MemoryParts
from langgraph_prax_memory._validation import user_dir_name
from langgraph_prax_memory.errors import PraxMemoryError

__all__ = ["graph_in_use", "remaining_notes", "what_remains"]

logger = logging.getLogger("langgraph_prax_memory._forget")


def graph_in_use(parts: MemoryParts) -> bool:
    """Whether the user can have a graph: LTM on, a graph built or configured, or its file."""
    return bool(
        parts.ltm.available
        or parts.graph_opened
        or parts.config.neo4j_uri
        or parts.config.graph_path.exists()
    )


def _vector_kind(parts: MemoryParts) -> tuple[str, str]:
    if not parts.ltm.available:
        return "disabled", ""
    from langgraph_prax_memory.vectors import EdgeClient, is_local_client

    try:
        client = parts.ltm.vectors.client
    except PraxMemoryError:  # not open (held by another process): say what it would be
        url = parts.config.qdrant_url
        if url and url != ":memory:":
            return "server", url
        return "edge", str(parts.config.embedded_qdrant_path)
    if isinstance(client, EdgeClient):
        return "edge", str(client.path)
    if is_local_client(client):
        return "local", str(parts.config.qdrant_path)
    return "server", str(parts.config.qdrant_url or "")


def _graph_kind(parts: MemoryParts) -> tuple[str, str]:
    if not graph_in_use(parts):
        return "unused", ""
    from langgraph_prax_memory.graph import AsyncNeo4jGraphStore, Neo4jGraphStore, SQLiteGraphStore

    graph = parts.graph
    if isinstance(graph, SQLiteGraphStore):
        return ("sqlite", graph.path) if graph.path != ":memory:" else ("memory", "")
    if isinstance(graph, Neo4jGraphStore | AsyncNeo4jGraphStore):
        return "neo4j", ""
    return "other", type(graph).__name__


def remaining_notes(
    *,
    vector: str,
    vector_where: str = "",
    graph: str,
    graph_where: str = "",
    compacted: bool,
    data_dir: str = "<data_dir>",
    kept_notes: str | None = None,
    checkpointer_threads: int | None = None,
    external_traces: list[str] | None = None,
) -> list[str]:
    """What may still hold a forgotten user's data, given the backends (pure; tested alone).

    Args:
        vector: ``"edge"``, ``"local"``, ``"server"`` or ``"disabled"``.
        vector_where: The embedded folder or the server URL.
        graph: ``"sqlite"``, ``"memory"``, ``"neo4j"``, ``"other"`` or ``"unused"``.
        graph_where: The SQLite file, or the custom backend's class name.
        compacted: Whether the owned engines were compacted after the deletion.
        data_dir: The data directory.
        kept_notes: The workspace kept on request, if notes were kept.
        checkpointer_threads: Threads of the user in the application's checkpointer.
        external_traces: Trace files outside the data directory consolidation had read.
    """
    notes: list[str] = []
    if vector == "edge" and not compacted:
        notes.append(
            f"qdrant-edge ({vector_where}): the deleted points' bytes stay in its write-ahead "
            "log and segment files until compaction; run `prax-memory forget-user --user U "
            "--compact` (or PraxMemory.compact())"
        )
    elif vector == "local":
        notes.append(
            f"qdrant-client local mode ({vector_where}): deleted points' bytes can stay in its "
            "SQLite files, which this product does not compact; export the other users and "
            "rebuild the folder, or move to qdrant-edge (the default)"
        )
    elif vector == "server":
        notes.append(
            f"Qdrant server ({vector_where}): deleted points stay in its write-ahead log and "
            "segments until its optimizer vacuums them, and in any snapshot taken before"
        )
    elif vector == "disabled":
        notes.append(
            "long-term memory is disabled (MEMORY_ENABLED=false): Qdrant was not touched, so "
            "memories stored while it was enabled are still there"
        )
    if graph == "sqlite" and not compacted:
        notes.append(
            f"SQLite graph ({graph_where}): the deleted rows' bytes stay in free pages and its "
            "write-ahead log until compaction; run `prax-memory forget-user --user U --compact`"
        )
    elif graph == "neo4j":
        notes.append(
            "Neo4j: the deletion is final for queries, but Neo4j's transaction logs keep the "
            "deleted data until they rotate out (db.tx_log.rotation.retention_policy), its store "
            "files until the space is reused, and its backups; purge those on the server"
        )
    elif graph == "other":
        notes.append(f"graph backend {graph_where}: how it erases deleted data is its own")
    if kept_notes:
        notes.append(f"notes kept on request: {kept_notes} (user_notes.md and its git history)")
    if checkpointer_threads:
        notes.append(
            f"{checkpointer_threads} conversation thread(s) of the user in the application's "
            "LangGraph checkpointer: consolidation reads them, so delete them there "
            "(checkpointer.delete_thread) or the next consolidation remembers them again"
        )
    for trace in external_traces or []:
        notes.append(f"a trace file outside the data directory that consolidation read: {trace}")
    notes.append(
        "exports the user made and copies of the data: `prax-memory export` files, OKF bundles "
        f"written outside {data_dir}/okf, backups and snapshots of {data_dir}; delete them "
        "yourself"
    )
    return notes


def _checkpointer_threads(parts: MemoryParts, user_id: str) -> int | None:
    saver = parts.checkpointer
    saver = getattr(saver, "saver", saver)  # a ConsolidatingCheckpointer wraps the real one
    if saver is None or not hasattr(saver, "list"):
        return None
    try:
        return len(
            {
                t.config.get("configurable", {}).get("thread_id")
                for t in saver.list(None, filter={"user_id": user_id})
            }
        )
    except Exception as exc:  # the application's store: best effort
        logger.debug("could not list the checkpointer's threads of %r: %s", user_id, exc)
        return None


def what_remains(
    parts: MemoryParts,
    user_id: str,
    keep_notes: bool,
    compacted: bool,
    marker: Mapping[str, Any],
) -> list[str]:
    vector, vector_where = _vector_kind(parts)
    try:
        graph, graph_where = _graph_kind(parts)
    except PraxMemoryError:
        graph, graph_where = "other", "(unavailable)"
    workspace = parts.config.users_dir / user_dir_name(user_id)
    return remaining_notes(
        vector=vector,
        vector_where=vector_where,
        graph=graph,
        graph_where=graph_where,
        compacted=compacted,
        data_dir=str(parts.config.data_dir),
        kept_notes=str(workspace) if keep_notes and workspace.exists() else None,
        checkpointer_threads=_checkpointer_threads(parts, user_id),
        external_traces=list(marker.get("external_traces") or []),
    )
