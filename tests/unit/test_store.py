from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from langgraph.store.base import PutOp

from langgraph_prax_memory import MemoryConfig, MemoryValidationError, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.errors import StoreLockedError
from tests.fakes import HashEmbeddings


@pytest.fixture
def store(memory: PraxMemory) -> Iterator[PraxMemoryStore]:
    yield PraxMemoryStore(memory)


def test_memories_namespace_is_the_users_ltm(store: PraxMemoryStore) -> None:
    store.put(("memories", "alice"), "k1", {"content": "Alice is vegetarian", "importance": 0.9})
    hits = store.memory.recall("alice", "vegetarian")
    assert hits[0].memory.key == "k1" and hits[0].memory.importance == 0.9
    mid = store.memory.remember("alice", "Alice runs marathons")
    keys = {i.key for i in store.search(("memories", "alice"))}
    assert "k1" in keys and store.memory.get("alice", mid) is not None
    assert len(keys) == 2


def test_reads_that_name_no_user_see_the_shared_tenant_only(store: PraxMemoryStore) -> None:
    store.put(("memories", "alice"), "k", {"content": "alice's secret"})
    store.put(("memories",), "faq", {"content": "office opens at nine"})
    assert [i.key for i in store.search(("memories",))] == ["faq"]
    assert [i.key for i in store.search(())] == ["faq"]
    assert [i.key for i in store.search(("memories",), query="secret")] == ["faq"]
    assert store.list_namespaces() == [("memories",)]
    assert store.list_namespaces(prefix=("memories", "alice")) == [("memories", "alice")]


def test_same_text_two_users_never_cross(store: PraxMemoryStore) -> None:
    store.put(("memories", "alice"), "k", {"content": "my bank PIN is 4321"})
    store.put(("memories", "bob"), "k", {"content": "my bank PIN is 4321"})
    for user in ("alice", "bob"):
        hits = store.search(("memories", user), query="bank PIN")
        assert [h.namespace for h in hits] == [("memories", user)]
    assert store.memory.count("alice") == 1


@pytest.mark.parametrize(
    ("namespace", "key", "value", "match"),
    [
        (("memories", ""), "k", {"content": "x"}, "empty label"),
        (("memories", "a.b"), "k", {"content": "x"}, "'.'"),
        (("memories", "alice"), 7, {"content": "x"}, "key"),
        (("memories", "alice"), "", {"content": "x"}, "key"),
        (("memories", "alice"), "k", "not a dict", "dict"),
        (("memories", "alice"), "k", {"content": "x", "importance": 2}, "between 0 and 1"),
        (("memories", "alice"), "k", {"content": "y" * 20_001}, "over the limit"),
        (("langgraph", "x"), "k", {"content": "x"}, "reserved"),
    ],
)
def test_bad_puts_store_nothing(
    store: PraxMemoryStore, namespace: tuple[str, ...], key: object, value: object, match: str
) -> None:
    store.put(("memories", "alice"), "keep", {"content": "keep me"})
    with pytest.raises(MemoryValidationError, match=match):
        store.batch(
            [
                PutOp(("memories", "alice"), "other", {"content": "also valid"}),
                PutOp(namespace, key, value),  # type: ignore[arg-type]
            ]
        )
    assert [i.key for i in store.search(("memories", "alice"))] == ["keep"]


def test_value_created_at_is_used(store: PraxMemoryStore) -> None:
    when = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    store.put(
        ("memories", "alice"), "old", {"content": "Trip to Oslo", "created_at": when.isoformat()}
    )
    item = store.get(("memories", "alice"), "old")
    assert item is not None and item.created_at == when
    hit = store.memory.recall("alice", "Oslo trip", now=when, reinforce=False)[0]
    assert hit.decay == 1.0


def test_ttl_is_supported(store: PraxMemoryStore) -> None:
    store.put(("memories", "alice"), "k", {"content": "x"}, ttl=5)
    assert store.get(("memories", "alice"), "k") is not None


def test_second_process_gets_a_clear_lock_error(tmp_path: Path) -> None:
    cfg = MemoryConfig(data_dir=tmp_path / "shared")
    mem = PraxMemory(cfg, embeddings=HashEmbeddings(), embedding_dimension=384)
    try:
        mem.remember("alice", "held open by this process")
        code = textwrap.dedent(f"""
            import sys
            from langgraph_prax_memory import MemoryConfig, PraxMemory
            from langgraph_prax_memory.errors import StoreLockedError
            from tests.fakes import HashEmbeddings
            # building the memory works (scratchpad and notes need no vectors) ...
            mem = PraxMemory(MemoryConfig(data_dir={str(tmp_path / "shared")!r}),
                             embeddings=HashEmbeddings(), embedding_dimension=384)
            mem.stm.write("alice", "k", "v")
            try:  # ... long-term memory says who holds the folder
                mem.count("alice")
            except StoreLockedError as exc:
                print("LOCKED:", exc)
                sys.exit(3)
        """)
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=Path(__file__).parents[2],
        )
        assert proc.returncode == 3, proc.stderr
        assert "QDRANT_URL" in proc.stdout and "another process" in proc.stdout
        assert f"held by pid {os.getpid()}" in proc.stdout
    finally:
        mem.close()
    # after close the folder is free and the memory is still there
    again = PraxMemory(cfg, embeddings=HashEmbeddings(), embedding_dimension=384)
    assert again.count("alice") == 1
    again.close()
    assert issubclass(StoreLockedError, Exception)


def test_width_mismatch_with_existing_collection(tmp_path: Path) -> None:
    from langgraph_prax_memory import ConfigError

    cfg = MemoryConfig(data_dir=tmp_path / "w")
    mem = PraxMemory(cfg, embeddings=HashEmbeddings(384), embedding_dimension=384)
    mem.remember("alice", "x")
    mem.close()
    other = PraxMemory(cfg, embeddings=HashEmbeddings(768), embedding_dimension=768)
    with pytest.raises(ConfigError, match="384-dimensional"):
        other.remember("alice", "y")
    other.close()


def test_stm_namespace_is_the_scratchpad(store: PraxMemoryStore) -> None:
    ns = ("stm", "alice")
    store.put(
        ns,
        "user_timezone",
        {"content": "America/New_York", "importance": 0.8, "tags": ["preference"]},
    )
    store.put(ns, "user_timezone", {"content": "Europe/Paris"})
    item = store.get(ns, "user_timezone")
    assert item is not None
    assert item.value == {
        "content": "Europe/Paris",
        "importance": 0.8,
        "tags": ["preference"],
        "access_count": 1,
    }
    # the same entry through the scratchpad API, and nothing went into Qdrant
    entry = store.memory.stm.get("alice", "user_timezone")
    assert entry is not None and entry.content == "Europe/Paris"
    assert store.memory.count("alice") == 0
    store.put(ns, "project", {"content": "fraud detection with XGBoost"})
    assert store.search(ns, query="which project?")[0].key == "project"
    assert ("stm", "alice") in store.list_namespaces(prefix=("stm", "alice"))
    with pytest.raises(MemoryValidationError, match="scratchpad values"):
        store.put(ns, "bad", {"content": "x", "kind": "other"})
    store.delete(ns, "project")
    assert store.get(ns, "project") is None
    assert store.get(("stm", "bob"), "user_timezone") is None


def test_notes_promotion_lands_in_ltm(memory: PraxMemory) -> None:
    bullets = "\n".join(
        f"- prefers concise answers with code example number {i}" for i in range(20)
    )
    memory.notes.update(
        "alice", f"# Preferences\n{bullets}\n- prefers concise answers with code example number 3\n"
    )
    promoted = memory.list_memories("alice")
    assert promoted, "compaction dropped old items and promoted durable preferences into LTM"
    assert all(m.source == "user_notes_compaction" for m in promoted)
