from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from langgraph_prax_memory import (
    BackendUnavailable,
    MemoryConfig,
    MemoryValidationError,
    MemoryWriteError,
    PraxMemory,
)
from tests.fakes import HashEmbeddings, SwitchableEmbeddings

FACTS = [
    "User prefers Rust for systems projects and Python for scripts.",
    "User uses NixOS with flake-based project templates.",
    "User insists on MIT license for all personal projects.",
    "User's preferred editor is Helix with catppuccin theme.",
]


def test_remember_then_recall(memory: PraxMemory) -> None:
    ids = memory.remember_many("alice", [{"content": f, "importance": 0.7} for f in FACTS])
    assert len(set(ids)) == 4
    hits = memory.recall("alice", "which license for personal projects?", k=2)
    assert hits[0].memory.content == FACTS[2]
    assert hits[0].ranks["sparse"] == 1
    assert hits[0].memory.user_id == "alice"
    assert memory.count("alice") == 4


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"content": ""}, "empty"),
        ({"content": "   \n"}, "empty"),
        ({"content": 42}, "string"),
        ({"content": "x" * 20_001}, "over the limit"),
        ({"content": "ok", "importance": 1.5}, "between 0 and 1"),
        ({"content": "ok", "importance": -0.1}, "between 0 and 1"),
        ({"content": "ok", "importance": float("nan")}, "between 0 and 1"),
        ({"content": "ok", "importance": "high"}, "number"),
        ({"content": "ok", "tags": [1, 2]}, "tag"),
        ({"content": "ok", "created_at": "yesterday"}, "ISO-8601"),
    ],
)
def test_bad_input_is_a_clear_error_and_stores_nothing(
    memory: PraxMemory, kwargs: dict[str, object], match: str
) -> None:
    memory.remember("alice", "an existing memory")
    content = kwargs.pop("content")
    with pytest.raises(MemoryValidationError, match=match):
        memory.remember("alice", content, **kwargs)  # type: ignore[arg-type]
    assert memory.count("alice") == 1


@pytest.mark.parametrize("user", [None, "", "  ", 7, "a\x00b", "x" * 300])
def test_user_id_is_mandatory(memory: PraxMemory, user: object) -> None:
    with pytest.raises(MemoryValidationError, match="user_id"):
        memory.remember(user, "something")  # type: ignore[arg-type]
    with pytest.raises(MemoryValidationError, match="user_id"):
        memory.recall(user, "something")  # type: ignore[arg-type]


def test_one_bad_item_in_a_batch_stores_none_of_it(memory: PraxMemory) -> None:
    with pytest.raises(MemoryValidationError):
        memory.remember_many("alice", [{"content": "fine"}, {"content": "bad", "importance": 3}])
    assert memory.count("alice") == 0


def test_users_never_see_each_other(memory: PraxMemory) -> None:
    memory.remember("alice", "The launch code is 1234", importance=0.9)
    memory.remember("bob", "The launch code is 1234", importance=0.9)
    memory.remember("bob", "Bob likes jazz")
    alice_hits = memory.recall("alice", "launch code", k=10)
    assert [h.memory.user_id for h in alice_hits] == ["alice"]
    bob_ids = {h.memory.id for h in memory.recall("bob", "launch code", k=10)}
    assert alice_hits[0].memory.id not in bob_ids
    assert memory.get("bob", alice_hits[0].memory.id) is None
    assert memory.forget("bob", alice_hits[0].memory.id) is False
    assert memory.count("alice") == 1


def test_identical_content_is_stored_once(memory: PraxMemory) -> None:
    a = memory.remember("alice", "Alice likes tea")
    b = memory.remember("alice", "Alice likes tea  ")
    ids = memory.remember_many("alice", [{"content": "x y"}, {"content": "x y"}])
    assert a == b and ids[0] == ids[1]
    assert memory.count("alice") == 2


def test_forget(memory: PraxMemory) -> None:
    mid = memory.remember("alice", "temporary fact")
    assert memory.forget("alice", mid) is True
    assert memory.forget("alice", mid) is False
    assert memory.forget("alice", "not-a-uuid") is False
    assert memory.get("alice", mid) is None


def test_failed_write_raises_and_keeps_what_was_stored(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = memory.remember("alice", "precious memory", importance=0.9)

    def broken(*args: object, **kwargs: object) -> object:
        raise ConnectionError("qdrant went away")

    monkeypatch.setattr(memory.vectors.client, "upsert", broken)
    with pytest.raises(MemoryWriteError, match="qdrant went away"):
        memory.remember("alice", "new memory")
    monkeypatch.undo()
    assert memory.get("alice", kept) is not None
    assert memory.count("alice") == 1


def test_incomplete_write_status_raises(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qdrant_client import models

    real = memory.vectors.client.upsert

    def acknowledged_only(*args: object, **kwargs: object) -> models.UpdateResult:
        real(*args, **kwargs)  # type: ignore[arg-type]
        return models.UpdateResult(operation_id=1, status=models.UpdateStatus.ACKNOWLEDGED)

    monkeypatch.setattr(memory.vectors.client, "upsert", acknowledged_only)
    with pytest.raises(MemoryWriteError, match="did not complete"):
        memory.remember("alice", "maybe stored")


def test_embedding_outage_stores_sparse_only_then_reembed(config: MemoryConfig) -> None:
    provider = SwitchableEmbeddings()
    mem = PraxMemory(config, embeddings=provider, embedding_dimension=384)
    try:
        mid = mem.remember("alice", "Alice's passport number is X99")
        stored = mem.get("alice", mid)
        assert stored is not None and stored.dense_pending
        result = mem.recall_detailed("alice", "passport number", k=3)
        assert [h.memory.id for h in result.hits] == [mid]
        assert "dense" in result.errors and result.arms["sparse"] == 1
        provider.down = False  # the provider comes back
        assert mem.reembed("alice") == 1
        again = mem.get("alice", mid)
        assert again is not None and not again.dense_pending
        assert mem.recall_detailed("alice", "passport number").arms["dense"] == 1
    finally:
        mem.close()


def test_created_at_backdates_and_now_is_injectable(memory: PraxMemory) -> None:
    old = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    mid = memory.remember("alice", "Went hiking in May", created_at=old, importance=0.5)
    m = memory.get("alice", mid)
    assert m is not None and m.created_at == old and m.last_accessed == old
    at_time = memory.recall("alice", "hiking", now=old + timedelta(days=7), reinforce=False)[0]
    # evidence fusion (default): decay = 2^(-7/7); recency takes 0.1 · (1 - decay); the
    # importance term is 0.1 · (0.5 - 0.5) = 0
    assert math.isclose(at_time.decay, 0.5, rel_tol=1e-9)
    assert math.isclose(at_time.recency, 0.05, rel_tol=1e-6)
    assert math.isclose(at_time.boost, 0.0, abs_tol=1e-12)
    assert at_time.rank_score is not None
    assert math.isclose(at_time.rank_score, at_time.fused - 0.05, rel_tol=1e-6)
    at_creation = memory.recall("alice", "hiking", now=old, reinforce=False)[0]
    assert math.isclose(at_creation.decay, 1.0)


def test_reinforcement_restarts_the_decay_clock(memory: PraxMemory) -> None:
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    mid = memory.remember("alice", "Alice's cat is called Miso", created_at=t0)
    t1 = t0 + timedelta(days=14)
    first = memory.recall("alice", "cat name", now=t1)[0]
    memory.flush()
    assert math.isclose(first.decay, 0.25, rel_tol=1e-9)  # two half-lives
    m = memory.get("alice", mid)
    assert m is not None and m.access_count == 1 and m.last_accessed == t1
    second = memory.recall("alice", "cat name", now=t1, reinforce=False)[0]
    assert math.isclose(second.decay, 1.0)


def test_decay_pass_is_idempotent_and_never_writes_back(memory: PraxMemory) -> None:
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    # an episode (the caller says so): standing facts never decay (docs/context.md)
    weak = memory.remember(
        "alice", "minor mention of coffee", importance=0.1, created_at=t0, tags=["episode"]
    )
    strong = memory.remember("alice", "allergic to shellfish", importance=0.9, created_at=t0)
    # 0.1·2^(-21/7) = 0.0125 < 0.02 ; 0.9·2^(-3) = 0.1125 stays
    now = t0 + timedelta(days=21)
    assert memory.decay("alice", now=now, dry_run=True) == [weak]
    assert memory.decay("alice", now=now, dry_run=True) == [weak]
    assert memory.decay("alice", now=now) == [weak]
    assert memory.decay("alice", now=now) == []
    kept = memory.get("alice", strong)
    assert kept is not None and kept.importance == 0.9


def test_delete_user_removes_only_that_user(memory: PraxMemory) -> None:
    memory.remember_many("alice", [{"content": f} for f in FACTS])
    memory.remember("bob", "Bob's fact")
    memory.graph.add_relation("alice", "Alice", "FinCorp", "works_on")
    memory.graph.add_relation("bob", "Bob", "FinCorp", "works_on")
    memory.stm.write("alice", "role", "data scientist")
    removed = memory.delete_user("alice")
    assert removed["memories"] == 4 and removed["stm_entries"] == 1
    assert removed["entities"] == 2 and removed["relations"] == 1
    assert memory.count("alice") == 0 and memory.count("bob") == 1
    assert memory.graph.stats("alice").entities == 0
    assert memory.graph.stats("bob").relations == 1


def test_disabled_memory_says_so(tmp_path: Path) -> None:
    mem = PraxMemory(
        MemoryConfig(enabled=False, data_dir=tmp_path),
        embeddings=HashEmbeddings(),
        embedding_dimension=384,
    )
    assert not mem.available
    with pytest.raises(BackendUnavailable, match="not available"):
        mem.remember("alice", "x")
    mem.close()


def test_list_is_in_first_write_order(memory: PraxMemory) -> None:
    memory.remember_many("alice", [{"content": f} for f in FACTS])
    assert [m.content for m in memory.list_memories("alice")] == FACTS


def test_recall_argument_checks(memory: PraxMemory) -> None:
    with pytest.raises(MemoryValidationError, match="query"):
        memory.recall("alice", "")
    with pytest.raises(MemoryValidationError, match="k must"):
        memory.recall("alice", "x", k=0)


async def test_async_face_has_the_same_methods(config: MemoryConfig) -> None:
    from langgraph_prax_memory import AsyncPraxMemory

    async with AsyncPraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384) as mem:
        mid = await mem.remember("alice", "Alice prefers dark mode", importance=0.8)
        hits = await mem.recall("alice", "dark mode preference", k=3)
        assert [h.memory.id for h in hits] == [mid]
        await mem.flush()
        got = await mem.get("alice", mid)
        assert got is not None and got.access_count == 1
        assert await mem.count("bob") == 0
        assert await mem.forget("alice", mid)
    sync_names = {n for n in dir(PraxMemory) if not n.startswith("_")}
    async_names = {n for n in dir(AsyncPraxMemory) if not n.startswith("_")}
    # backend handles are reached through mem.sync (e.g. mem.sync.graph)
    missing = sync_names - async_names - {"vectors", "embeddings", "sparse_encoder", "graph"}
    assert not missing


def test_context_is_indexed_but_not_stored_as_content(memory: PraxMemory) -> None:
    mid = memory.remember_many(
        "alice",
        [{"content": "Yes, last May!", "context": "Bob: When did you visit Oslo?", "key": "t2"}],
    )[0]
    memory.remember("alice", "The weather was nice")
    hit = memory.recall("alice", "Oslo visit", k=1, reinforce=False)[0]
    assert hit.memory.id == mid and hit.memory.content == "Yes, last May!"
    assert hit.ranks.get("sparse") == 1
    with pytest.raises(MemoryValidationError, match="context"):
        memory.remember_many("alice", [{"content": "x", "context": ""}])


def test_context_survives_export_and_import(memory: PraxMemory) -> None:
    import io

    ids = memory.remember_conversation("alice", [("Bob", "Been to Oslo?"), ("Alice", "Yes!")])
    buf = io.StringIO()
    memory.export_user("alice", buf)
    assert '"context": "Bob: Been to Oslo?"' in buf.getvalue()
    memory.import_user(buf.getvalue().splitlines(), user_id="carol")
    copy = next(m for m in memory.list_memories("carol") if m.content == "Alice: Yes!")
    assert copy.context == "Bob: Been to Oslo?"
    hits = memory.recall("carol", "Oslo", k=2, reinforce=False)
    assert "sparse" in next(h for h in hits if h.memory.id == copy.id).ranks
    assert memory.get("alice", ids[1]) is not None


def test_reembed_force_redoes_every_dense_vector(config: MemoryConfig) -> None:
    provider = SwitchableEmbeddings()
    provider.down = False
    mem = PraxMemory(config, embeddings=provider, embedding_dimension=384)
    try:
        mem.remember_conversation("alice", [("Bob", "Tea?"), ("Alice", "Yes!")])
        assert mem.reembed("alice") == 0  # nothing pending
        assert mem.reembed("alice", force=True) == 2
        vs = mem.vectors
        points = vs.client.scroll(vs.collection, limit=10, with_vectors=True)[0]
        by_content = {p.payload["content"]: p.vector["dense"] for p in points}  # type: ignore[index]
        # the dense vector is the content's alone, context or not
        assert by_content["Alice: Yes!"] == pytest.approx(
            provider.embed_query("Alice: Yes!"), abs=1e-5
        )
    finally:
        mem.close()


def test_parts_built_on_first_use_are_built_once_across_threads(memory: PraxMemory) -> None:
    import threading

    barrier = threading.Barrier(4)
    seen: list[object] = []

    def touch() -> None:
        barrier.wait()
        seen.extend([memory.graph, memory.consolidator, memory.ltm._recaller()])

    threads = [threading.Thread(target=touch) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(seen) == 12 and len({id(o) for o in seen}) == 3


@pytest.mark.parametrize("engine", ["edge", "local"])
def test_a_long_listing_shows_every_memory_once_in_order(
    tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past a page of 512, each memory once, on both embedded engines (the engine compares
    order values as doubles, a ``seq`` of ~1.8e18 is not exact as one: ``last + 1`` as the
    next page's start repeated memories at page boundaries)."""
    import itertools

    import langgraph_prax_memory.vectors._payload as payload

    # write clocks whose ``last + 1`` rounds *down* as a double (the case that repeated)
    ticks = itertools.count()

    class Clock:
        @staticmethod
        def time_ns() -> int:
            return 1_800_000_000_000_000_000 + 1024 * next(ticks) + 1

    monkeypatch.setattr(payload, "time", Clock)
    config = MemoryConfig(data_dir=tmp_path, vector_engine=engine)  # type: ignore[arg-type]
    with PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384) as memory:
        ids = [memory.remember("lister", f"listed memory number {i}") for i in range(600)]
        listed = memory.list_memories("lister", limit=5000)
        assert [m.id for m in listed] == ids  # in the order they were first written
        assert memory.list_memories("lister", limit=550) == listed[:550]
