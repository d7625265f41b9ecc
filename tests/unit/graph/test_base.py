"""The base classes: public methods written once over op objects, duck-typed stores accepted."""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

import pytest

from langgraph_prax_memory.errors import BackendUnavailable, MemoryValidationError
from langgraph_prax_memory.graph import (
    AsyncGraphStore,
    AsyncSQLiteGraphStore,
    GraphStats,
    GraphStore,
    SQLiteGraphStore,
    Vocabulary,
    entity_id,
)
from langgraph_prax_memory.graph._base import MEMBERS
from langgraph_prax_memory.graph._ops import AddRelation, DecayGraph, GraphOp, Stats

T = TypeVar("T")


class Recording(GraphStore):
    """A backend that records the ops it is asked to run and answers empty stats."""

    def __init__(self) -> None:
        self.vocabulary = Vocabulary()
        self.halflife_days = 14.0
        self.ops: list[GraphOp[Any]] = []

    def run(self, op: GraphOp[T]) -> T:
        self.ops.append(op)
        return GraphStats()  # type: ignore[return-value]

    def setup(self) -> None:
        pass

    def close(self) -> None:
        pass


class Face(AsyncGraphStore):
    """The generic async face over any sync store."""

    def __init__(self, store: GraphStore) -> None:
        self.sync_store = store
        self.vocabulary = store.vocabulary
        self.halflife_days = store.halflife_days


def duck(**drop: bool) -> object:
    """An object with every member a graph store has (but those in ``drop``)."""
    members = {name: (lambda *a, **k: None) for name in MEMBERS if name not in drop}
    return type("Duck", (), members)()


def test_public_methods_check_then_build_one_op() -> None:
    store = Recording()
    store.add_relation("u1", "Alice", "Prax", "works_on", weight=2.0)
    (op,) = store.ops
    assert isinstance(op, AddRelation) and op.write and op.name == "add_relation"
    assert op.relation.source.id == entity_id("u1", "alice")
    assert (op.relation.target.name, op.relation.weight) == ("prax", 2.0)
    with pytest.raises(MemoryValidationError):
        store.add_relation("", "Alice", "Prax", "works_on")
    with pytest.raises(MemoryValidationError, match="unknown relation type"):
        store.add_relation("u1", "Alice", "Prax", "mentors")
    assert store.entity_ids_for("u1", []) == {}  # nothing to look up: nothing run
    assert len(store.ops) == 1


def test_a_dry_run_decay_only_reads() -> None:
    store = Recording()
    store.decay_graph("u1", dry_run=True)
    store.decay_graph("u1", halflife_days=7)
    dry, real = store.ops
    assert isinstance(dry, DecayGraph) and not dry.write and dry.halflife_days == 14.0
    assert isinstance(real, DecayGraph) and real.write and real.halflife_days == 7.0


def test_the_async_face_runs_the_sync_runner_in_a_thread() -> None:
    store = Recording()
    face = Face(store)
    assert asyncio.run(face.stats("u1")) == GraphStats()
    assert isinstance(store.ops[0], Stats)
    with pytest.raises(MemoryValidationError):
        asyncio.run(face.stats(""))  # checked before any thread is used
    assert len(store.ops) == 1


def test_an_async_face_without_a_sync_store_must_override_arun() -> None:
    class Native(AsyncGraphStore):
        vocabulary = Vocabulary()
        halflife_days = 14.0

    with pytest.raises(NotImplementedError, match="override arun"):
        asyncio.run(Native().stats("u1"))


def test_duck_typed_stores_pass_isinstance_as_with_a_protocol() -> None:
    assert isinstance(duck(), GraphStore)
    assert isinstance(duck(), AsyncGraphStore)
    assert not isinstance(duck(get_neighbours=True), GraphStore)
    assert not isinstance(duck(vocabulary=True), GraphStore)
    assert not isinstance(object(), GraphStore)
    # a backend class is checked by inheritance alone
    assert not isinstance(duck(), SQLiteGraphStore)
    store = SQLiteGraphStore(":memory:")
    assert isinstance(store, GraphStore) and isinstance(
        AsyncSQLiteGraphStore(store=store), AsyncGraphStore
    )
    store.close()


def test_the_base_class_cannot_be_built_without_a_runner() -> None:
    with pytest.raises(TypeError, match="abstract"):
        GraphStore()  # type: ignore[abstract]


async def test_both_faces_close_on_leaving_a_with_block() -> None:
    with SQLiteGraphStore(":memory:") as store:
        store.merge_entity("u1", "Alice")
    with pytest.raises(BackendUnavailable, match="closed"):
        store.stats("u1")
    async with AsyncSQLiteGraphStore(":memory:") as astore:
        await astore.merge_entity("u1", "Alice")
    with pytest.raises(BackendUnavailable, match="closed"):
        await astore.stats("u1")
