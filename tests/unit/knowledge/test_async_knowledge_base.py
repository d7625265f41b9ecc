"""``AsyncKnowledgeBase`` has every method of ``KnowledgeBase``, with the same signature."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.knowledge import AsyncKnowledgeBase, KnowledgeBase


def public(cls: type) -> dict[str, object]:
    return {
        name: member
        for name, member in vars(cls).items()
        if not name.startswith("_") and callable(member)
    }


def test_the_async_face_has_every_method() -> None:
    assert set(public(KnowledgeBase)) - set(public(AsyncKnowledgeBase)) == set()


def test_every_method_has_the_same_signature_and_is_a_coroutine() -> None:
    drift = []
    for name, member in public(KnowledgeBase).items():
        twin = public(AsyncKnowledgeBase)[name]
        assert inspect.iscoroutinefunction(twin), f"{name} is not async"
        sync_sig, async_sig = inspect.signature(member), inspect.signature(twin)  # type: ignore[arg-type]
        if list(sync_sig.parameters.values()) != list(async_sig.parameters.values()):
            drift.append(f"{name}: {sync_sig} != {async_sig}")
    assert drift == []


def test_the_constructors_take_the_same_arguments() -> None:
    sync = list(inspect.signature(KnowledgeBase.__init__).parameters.values())
    face = list(inspect.signature(AsyncKnowledgeBase.__init__).parameters.values())
    assert [p.name for p in face] == [p.name for p in sync]
    assert face[2:] == sync[2:]  # the first argument may also be a KnowledgeBase


@pytest.fixture
def memory(tmp_path) -> Iterator[PraxMemory]:  # type: ignore[no-untyped-def]
    mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=str(tmp_path)))
    yield mem
    mem.close()


def test_the_async_face_runs_the_sync_service(memory: PraxMemory) -> None:
    kb = KnowledgeBase(memory)
    akb = AsyncKnowledgeBase(kb)
    assert akb.sync is kb and akb.store is kb.store and akb.parts is kb.parts

    async def main() -> None:
        result = await akb.ingest_document(
            "u1", "# RRF\nReciprocal Rank Fusion combines rankings.", namespace="papers"
        )
        assert result.concepts >= 1
        hits = await akb.search("u1", "rank fusion", k=1)
        assert [h.concept.display_name for h in hits] == ["Reciprocal Rank Fusion"]
        assert [n.namespace for n in await akb.namespaces("u1")] == ["papers"]
        assert (await akb.stats("u1")).concepts == result.concepts
        gone = await akb.delete_namespace("u1", "papers")
        assert gone.concepts == result.concepts

    asyncio.run(main())


def test_the_async_face_builds_its_service(memory: PraxMemory) -> None:
    akb = AsyncKnowledgeBase(memory, hybrid=False)
    assert isinstance(akb.sync, KnowledgeBase) and akb.sync.vectors is None
