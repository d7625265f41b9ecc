"""Several PraxMemory objects of one process share the embedded engine of their folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.errors import StoreLockedError
from langgraph_prax_memory.vectors._edge import EdgeClient, open_shared_edge
from tests.fakes import HashEmbeddings


def _memory(folder: Path) -> PraxMemory:
    return PraxMemory(
        MemoryConfig(data_dir=folder), embeddings=HashEmbeddings(), embedding_dimension=384
    )


def test_two_memories_on_one_folder_share_one_engine(tmp_path: Path) -> None:
    first, second = _memory(tmp_path), _memory(tmp_path)
    first_id = first.remember("alice", "Alice drinks green tea")
    second_id = second.remember("alice", "Alice rides a blue bicycle")
    assert {first_id, second_id} <= {h.memory.id for h in first.recall("alice", "tea bicycle")}
    assert second.get("alice", first_id) is not None
    first.close()
    first.close()  # a second close of the same memory does not release the other's hold
    assert second.get("alice", second_id) is not None
    assert second.count("alice") == 2
    second.close()
    with _memory(tmp_path) as again:  # the folder was released and reopens with everything
        assert again.count("alice") == 2


def test_shared_clients_count_holders_and_release_at_the_last(tmp_path: Path) -> None:
    a = open_shared_edge(tmp_path)
    b = open_shared_edge(tmp_path / ".")
    assert a is b
    with pytest.raises(StoreLockedError, match=f"pid {os.getpid()}"):
        EdgeClient(tmp_path)  # an unshared client still cannot take a held folder
    a.close()
    assert not b._closed
    b.close()
    assert b._closed and not (tmp_path / ".lock.owner").exists()
    c = EdgeClient(tmp_path)  # released: a new client may take it
    c.close()


def test_a_locked_folder_keeps_stm_notes_and_graph_working(tmp_path: Path) -> None:
    holder = EdgeClient(tmp_path / "qdrant-edge")  # held by an unshared client
    try:
        memory = _memory(tmp_path)  # does not fail: only long-term memory waits
        memory.stm.write("bob", "goal", "ship the release")
        assert memory.stm.get("bob", "goal") is not None
        memory.notes.update("bob", "- timezone: Europe/Paris\n")
        assert "Europe/Paris" in memory.notes.read("bob")
        memory.graph.merge_entity("bob", "Paris", entity_type="topic")
        with pytest.raises(StoreLockedError, match=f"held by pid {os.getpid()}"):
            memory.remember("bob", "Bob likes jazz")
        checks = {c.name: c for c in memory.doctor()}
        assert checks["stm"].status == "ok" and checks["notes"].status == "ok"
        assert checks["vectors"].status == "fail" and "held by pid" in checks["vectors"].detail
    finally:
        holder.close()
    # once the holder is gone, the same memory opens the folder on its next call
    memory.remember("bob", "Bob likes jazz")
    assert memory.count("bob") == 1
    memory.close()
