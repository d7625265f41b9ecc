"""The GraphStore contract: one suite, run against every backend.

Subclass :class:`GraphStoreContract` (sync) / :class:`AsyncGraphStoreContract` (async) in a test
module and provide a ``store`` / ``astore`` fixture that yields a fresh store. Every test works
on its own random user ids and deletes them afterwards, so a shared server is fine. The whole
sync contract also runs against an async face through :class:`AwaitedFace` (each call awaited
on one event loop), so the async faces of both backends meet every rule too.

SQLite runs it in ``tests/unit/graph``; the real Neo4j server in ``tests/integration/graph``.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from langgraph_prax_memory.errors import MemoryValidationError, MemoryWriteError
from langgraph_prax_memory.graph import (
    AsyncGraphStore,
    GraphStats,
    GraphStore,
    entity_id,
)

T0 = datetime(2026, 1, 20, 9, 30, tzinfo=UTC)


def days(n: float) -> datetime:
    return T0 + timedelta(days=n)


HOSTILE_NAMES: list[tuple[str, str]] = [
    ("quotes", "O'Brien said \"hi\" and 'bye'"),
    ("backticks", "`Entity` ``double`` `"),
    ("cypher", "x})-[:X]->(y"),
    ("cypher-detach", "a'}) DETACH DELETE n //"),
    ("sql", "'); DROP TABLE entities; --"),
    ("braces", "{$user_id} ${name} %s :name ?"),
    ("newlines", "line one\nline two\r\nline three\ttab"),
    ("emoji", "🦜🔗 memory 👩‍👩‍👧"),
    ("scripts", "Müller Łódź 東京 Ελληνικά עברית مرحبا Ωmega"),
    ("backslash", "C:\\path\\to\\file \\u0000 \\n"),
    ("10kB", "long-" + "abcdefghij" * 1000 + "-end"),
]


def _user() -> str:
    return f"test-{uuid.uuid4()}"


class _Failing:
    """Wrap a store method so that its ``n``-th call (or calls matching ``when``) raise."""

    def __init__(
        self,
        original: Callable[..., Any],
        *,
        fail_on_call: int | None = None,
        when: Callable[..., bool] | None = None,
    ) -> None:
        self.original = original
        self.fail_on_call = fail_on_call
        self.when = when
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.fail_on_call is not None and self.calls == self.fail_on_call:
            raise RuntimeError("injected fault half-way through the transaction")
        if self.when is not None and self.when(*args, **kwargs):
            raise RuntimeError("injected fault half-way through the transaction")
        return self.original(*args, **kwargs)


class AwaitedFace:
    """An :class:`AsyncGraphStore` seen through the sync contract: each call awaited on ``loop``.

    Fault injection (``_link_participant`` / ``_link_causal``) goes to the object that owns
    the hooks: the wrapped sync store of a threaded face, else the async store itself.
    """

    def __init__(self, astore: AsyncGraphStore, loop: asyncio.AbstractEventLoop) -> None:
        object.__setattr__(self, "astore", astore)
        object.__setattr__(self, "loop", loop)
        object.__setattr__(self, "hooks", getattr(astore, "sync_store", astore))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            return getattr(self.hooks, name)
        value = getattr(self.astore, name)
        if inspect.iscoroutinefunction(value):
            return lambda *args, **kwargs: self.loop.run_until_complete(value(*args, **kwargs))
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.hooks if name.startswith("_") else self.astore, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self.hooks if name.startswith("_") else self.astore, name)


def awaited(make: Callable[[], AsyncGraphStore]) -> Iterator[AwaitedFace]:
    """A fresh async store (built by ``make`` on a new event loop), seen as a sync one."""
    loop = asyncio.new_event_loop()
    astore = make()
    try:
        yield AwaitedFace(astore, loop)
    finally:
        loop.run_until_complete(astore.close())
        loop.close()


class GraphStoreContract:
    """Behaviour every :class:`GraphStore` must show. Subclasses provide ``store``."""

    @pytest.fixture
    def store(self) -> Iterator[GraphStore]:  # pragma: no cover - overridden
        raise NotImplementedError

    @pytest.fixture
    def user(self, store: GraphStore) -> Iterator[str]:
        uid = _user()
        yield uid
        store.delete_user(uid)

    @pytest.fixture
    def other_user(self, store: GraphStore) -> Iterator[str]:
        uid = _user()
        yield uid
        store.delete_user(uid)

    # ------------------------------------------------------------------ protocol

    def test_is_a_graph_store(self, store: GraphStore) -> None:
        assert isinstance(store, GraphStore)
        store.setup()
        store.setup()  # idempotent

    # ------------------------------------------------------------------ entities

    def test_merge_entity_creates(self, store: GraphStore, user: str) -> None:
        ent = store.merge_entity(
            user, "  Alice Smith ", entity_type="Person", importance=0.7, now=T0,
            properties={"role": "engineer", "n": 3},
        )  # fmt: skip
        assert ent.id == entity_id(user, "alice smith")
        assert ent.user_id == user
        assert ent.name == "alice smith"
        assert ent.display_name == "Alice Smith"
        assert ent.type == "person"
        assert ent.importance == pytest.approx(0.7)
        assert ent.mention_count == 1
        assert ent.first_seen == T0
        assert ent.last_seen == T0
        assert ent.properties == {"role": "engineer", "n": 3}
        got = store.get_entity(user, "ALICE SMITH")
        assert got is not None
        assert got.entity == ent
        assert got.relations == []

    def test_merge_entity_defaults(self, store: GraphStore, user: str) -> None:
        ent = store.merge_entity(user, "Thing", now=T0)
        assert ent.type == "concept"
        assert ent.importance == pytest.approx(0.5)
        assert ent.properties == {}

    def test_merge_entity_updates(self, store: GraphStore, user: str) -> None:
        store.merge_entity(
            user, "Alice", entity_type="person", importance=0.9, properties={"a": 1}, now=T0
        )
        ent = store.merge_entity(user, "ALICE", importance=0.2, properties={"b": 2}, now=days(3))
        assert ent.mention_count == 2
        assert ent.display_name == "Alice"  # first spelling is kept
        assert ent.importance == pytest.approx(0.9)  # the highest is kept
        assert ent.type == "person"  # unchanged when no type is given
        assert ent.first_seen == T0
        assert ent.last_seen == days(3)
        assert ent.properties == {"a": 1, "b": 2}
        ent = store.merge_entity(
            user, "alice", importance=0.95, entity_type="organization", properties={"a": 5},
            now=days(4),
        )  # fmt: skip
        assert ent.importance == pytest.approx(0.95)
        assert ent.type == "organization"
        assert ent.mention_count == 3
        assert ent.properties == {"a": 5, "b": 2}
        # An older observation does not move last_seen back (but can move first_seen back).
        ent = store.merge_entity(user, "alice", now=days(-2))
        assert ent.last_seen == days(4)
        assert ent.first_seen == days(-2)
        assert store.stats(user).entities == 1

    def test_get_entity_missing(self, store: GraphStore, user: str) -> None:
        assert store.get_entity(user, "nobody") is None
        assert store.current_targets(user, "nobody", "works_on") == []
        assert store.get_neighbours(user, "nobody", hops=2) == []

    def test_entity_ids_for(self, store: GraphStore, user: str) -> None:
        store.merge_entity(user, "Alice", now=T0)
        store.merge_entity(user, "Bob", now=T0)
        ids = store.entity_ids_for(user, ["ALICE", "bob", "carol"])
        assert ids == {"ALICE": entity_id(user, "alice"), "bob": entity_id(user, "Bob")}
        assert store.entity_ids_for(user, []) == {}

    @pytest.mark.parametrize(
        ("kwargs", "match"),
        [
            ({"name": ""}, "empty"),
            ({"name": "   "}, "empty"),
            ({"name": "x\x00y"}, "NUL"),
            ({"name": "x" * 20_001}, "characters"),
            ({"name": "ok", "entity_type": "spaceship"}, "unknown entity type"),
            ({"name": "ok", "importance": 1.5}, "between 0 and 1"),
            ({"name": "ok", "importance": float("nan")}, "between 0 and 1"),
            ({"name": "ok", "properties": {"x": object()}}, "JSON"),
            ({"name": "ok", "properties": "nope"}, "mapping"),
        ],
    )
    def test_merge_entity_rejects_bad_input(
        self, store: GraphStore, user: str, kwargs: dict[str, Any], match: str
    ) -> None:
        with pytest.raises(MemoryValidationError, match=match):
            store.merge_entity(user, **kwargs)
        assert store.stats(user) == GraphStats()

    @pytest.mark.parametrize("bad_user", [None, "", "   ", "a\nb", 42, "x" * 257])
    def test_every_method_requires_a_user_id(self, store: GraphStore, bad_user: Any) -> None:
        calls: list[Callable[[], Any]] = [
            lambda: store.merge_entity(bad_user, "a"),
            lambda: store.get_entity(bad_user, "a"),
            lambda: store.entity_ids_for(bad_user, ["a"]),
            lambda: store.search_entities(bad_user, "a"),
            lambda: store.top_entities(bad_user),
            lambda: store.relations_among(bad_user, ["a"]),
            lambda: store.add_relation(bad_user, "a", "b", "works_on"),
            lambda: store.supersede_relation(bad_user, "a", "b", "works_on"),
            lambda: store.current_targets(bad_user, "a", "works_on"),
            lambda: store.merge_temporal_event(bad_user, "e"),
            lambda: store.add_causal_link(bad_user, "c", "e"),
            lambda: store.get_events(bad_user),
            lambda: store.get_causal_links(bad_user),
            lambda: store.get_neighbours(bad_user, "a"),
            lambda: store.decay_graph(bad_user),
            lambda: store.stats(bad_user),
            lambda: store.delete_user(bad_user),
        ]
        for call in calls:
            with pytest.raises(MemoryValidationError, match="user_id"):
                call()

    # ------------------------------------------------------------------ vocabulary

    def test_unknown_relation_type_is_an_error(self, store: GraphStore, user: str) -> None:
        with pytest.raises(MemoryValidationError, match="unknown relation type 'mentors'"):
            store.add_relation(user, "Alice", "Bob", "mentors", now=T0)
        with pytest.raises(MemoryValidationError, match="unknown relation type"):
            store.current_targets(user, "Alice", "mentors")
        with pytest.raises(MemoryValidationError, match="unknown relation type"):
            store.supersede_relation(user, "Alice", "Bob", "RELATES_TO")
        assert store.stats(user) == GraphStats()

    def test_relation_type_is_case_insensitive(self, store: GraphStore, user: str) -> None:
        rel = store.add_relation(user, "Alice", "Prax", " Works_On ", now=T0)
        assert rel.type == "works_on"

    def test_extended_vocabulary(self, store: GraphStore, user: str) -> None:
        store.vocabulary = store.vocabulary.extend(
            relation_types=["mentors"], entity_types=["place"]
        )
        store.merge_entity(user, "Berlin", entity_type="place", now=T0)
        rel = store.add_relation(user, "Alice", "Bob", "mentors", now=T0)
        assert rel.type == "mentors"
        assert [e.name for e in store.current_targets(user, "alice", "mentors")] == ["bob"]
        got = store.get_entity(user, "berlin")
        assert got is not None
        assert got.entity.type == "place"
        # The seed's types are still there.
        store.add_relation(user, "Alice", "Bob", "works_on", now=T0)
        assert store.stats(user).relations == 2

    # ------------------------------------------------------------------ relations

    def test_add_relation_creates_edge_and_endpoints(self, store: GraphStore, user: str) -> None:
        store.merge_entity(user, "Alice", entity_type="person", importance=0.8, now=T0)
        rel = store.add_relation(
            user, "alice", "Prax Project", "works_on", weight=1.5, evidence="said so", now=T0
        )
        assert rel.source == "alice"
        assert rel.target == "prax project"
        assert rel.source_id == entity_id(user, "Alice")
        assert rel.target_id == entity_id(user, "prax project")
        assert rel.type == "works_on"
        assert rel.weight == pytest.approx(1.5)
        assert rel.evidence == "said so"
        assert rel.first_seen == rel.last_seen == rel.valid_from == T0
        assert rel.valid_until is None
        assert rel.is_current
        alice = store.get_entity(user, "alice")
        assert alice is not None
        assert alice.entity.mention_count == 1  # an existing endpoint is not re-mentioned
        assert alice.entity.type == "person"
        target = store.get_entity(user, "PRAX PROJECT")
        assert target is not None
        assert target.entity.display_name == "Prax Project"
        assert target.entity.type == "concept"
        assert target.relations == [rel]  # incoming relations are listed too
        assert [e.display_name for e in store.current_targets(user, "Alice", "works_on")] == [
            "Prax Project"
        ]
        assert store.stats(user) == GraphStats(entities=2, relations=1, current_relations=1)

    def test_add_relation_strengthens_current_edge(self, store: GraphStore, user: str) -> None:
        first = store.add_relation(user, "Alice", "Prax", "works_on", evidence="a", now=T0)
        second = store.add_relation(
            user, "ALICE", "prax", "works_on", weight=2.5, evidence="b", now=days(2)
        )
        third = store.add_relation(user, "alice", "prax", "works_on", evidence="a", now=days(1))
        assert second.id == first.id == third.id
        assert third.weight == pytest.approx(4.5)
        assert third.evidence == "a; b"
        assert third.first_seen == T0
        assert third.valid_from == T0
        assert third.last_seen == days(2)  # an older mention does not move it back
        assert store.stats(user) == GraphStats(entities=2, relations=1, current_relations=1)

    def test_direction_and_type_make_distinct_edges(self, store: GraphStore, user: str) -> None:
        a = store.add_relation(user, "Alice", "Bob", "related_to", now=T0)
        b = store.add_relation(user, "Bob", "Alice", "related_to", now=T0)
        c = store.add_relation(user, "Alice", "Bob", "mentioned_with", now=T0)
        assert len({a.id, b.id, c.id}) == 3
        assert [e.name for e in store.current_targets(user, "bob", "related_to")] == ["alice"]
        got = store.get_entity(user, "alice")
        assert got is not None
        assert {(r.source, r.type, r.target) for r in got.relations} == {
            ("alice", "related_to", "bob"),
            ("bob", "related_to", "alice"),
            ("alice", "mentioned_with", "bob"),
        }

    def test_current_targets_heaviest_first(self, store: GraphStore, user: str) -> None:
        store.add_relation(user, "me", "tea", "prefers", weight=1.0, now=T0)
        store.add_relation(user, "me", "coffee", "prefers", weight=3.0, now=T0)
        store.add_relation(user, "me", "water", "prefers", weight=2.0, now=T0)
        store.add_relation(user, "me", "Prax", "works_on", now=T0)
        names = [e.name for e in store.current_targets(user, "me", "prefers")]
        assert names == ["coffee", "water", "tea"]

    def test_supersede_and_never_reopen(self, store: GraphStore, user: str) -> None:
        old = store.add_relation(user, "me", "Dark Mode", "prefers", weight=2.0, now=T0)
        closed = store.supersede_relation(user, "ME", "dark mode", "prefers", now=days(10))
        assert closed is not None
        assert closed.id == old.id
        assert closed.valid_until == days(10)
        assert closed.weight == pytest.approx(2.0)
        assert not closed.is_current
        assert store.current_targets(user, "me", "prefers") == []
        # Nothing current to supersede any more.
        assert store.supersede_relation(user, "me", "dark mode", "prefers", now=days(11)) is None
        got = store.get_entity(user, "me")
        assert got is not None
        assert got.relations == []
        history = store.get_entity(user, "me", include_superseded=True)
        assert history is not None
        assert [r.id for r in history.relations] == [old.id]
        # The fact becomes true again: a NEW edge, the old one stays closed.
        new = store.add_relation(user, "me", "dark mode", "prefers", evidence="again", now=days(20))
        assert new.id != old.id
        assert new.weight == pytest.approx(1.0)
        assert new.valid_from == days(20)
        assert new.valid_until is None
        history = store.get_entity(user, "me", include_superseded=True)
        assert history is not None
        assert [(r.id, r.valid_until) for r in history.relations] == [
            (old.id, days(10)),
            (new.id, None),
        ]
        assert store.stats(user) == GraphStats(entities=2, relations=2, current_relations=1)
        assert store.stats(user).superseded_relations == 1

    def test_supersede_then_switch_preference(self, store: GraphStore, user: str) -> None:
        store.add_relation(user, "me", "dark mode", "prefers", now=T0)
        store.supersede_relation(user, "me", "dark mode", "prefers", now=days(5))
        store.add_relation(user, "me", "light mode", "prefers", now=days(5))
        assert [e.name for e in store.current_targets(user, "me", "prefers")] == ["light mode"]

    def test_supersede_missing_edge_returns_none(self, store: GraphStore, user: str) -> None:
        assert store.supersede_relation(user, "a", "b", "works_on", now=T0) is None
        assert store.stats(user) == GraphStats()

    def test_supersede_before_valid_from_is_rejected(self, store: GraphStore, user: str) -> None:
        store.add_relation(user, "a", "b", "works_on", valid_from=days(5), now=days(5))
        with pytest.raises(MemoryValidationError, match="valid_from"):
            store.supersede_relation(user, "a", "b", "works_on", now=days(1))
        assert len(store.current_targets(user, "a", "works_on")) == 1

    def test_explicit_valid_from(self, store: GraphStore, user: str) -> None:
        rel = store.add_relation(user, "a", "b", "part_of", valid_from=days(-30), now=T0)
        assert rel.valid_from == days(-30)
        assert rel.first_seen == T0

    @pytest.mark.parametrize(
        ("args", "kwargs", "match"),
        [
            (("a", "A ", "related_to"), {}, "two different"),
            (("a", "b", "related_to"), {"weight": 0}, "above 0"),
            (("a", "b", "related_to"), {"weight": -1.0}, "above 0"),
            (("a", "b", "related_to"), {"weight": float("inf")}, "above 0"),
            (("a", "", "related_to"), {}, "empty"),
            (("a", "b", "related_to"), {"evidence": "x" * 2001}, "evidence"),
        ],
    )
    def test_add_relation_rejects_bad_input(
        self,
        store: GraphStore,
        user: str,
        args: tuple[str, ...],
        kwargs: dict[str, Any],
        match: str,
    ) -> None:
        with pytest.raises(MemoryValidationError, match=match):
            store.add_relation(user, *args, **kwargs)
        assert store.stats(user) == GraphStats()

    # ------------------------------------------------------------------ events and causal links

    def test_temporal_events(self, store: GraphStore, user: str) -> None:
        store.merge_entity(user, "Alice", entity_type="person", now=T0)
        ev = store.merge_temporal_event(
            user, "Launched Prax v1", participants=["Alice", "Prax", "alice"],
            occurred_at=days(-1), importance=0.6, now=T0,
        )  # fmt: skip
        assert ev.description == "Launched Prax v1"
        assert ev.occurred_at == days(-1)
        assert ev.created_at == T0
        assert ev.importance == pytest.approx(0.6)
        assert ev.participants == ["alice", "prax"]
        prax = store.get_entity(user, "prax")
        assert prax is not None
        assert prax.entity.type == "concept"
        # Merging the same event again: same id, highest importance, participants added.
        again = store.merge_temporal_event(
            user, "Launched Prax v1", participants=["Bob"], occurred_at=days(-1),
            importance=0.4, now=days(1),
        )  # fmt: skip
        assert again.id == ev.id
        assert again.importance == pytest.approx(0.6)
        assert again.created_at == T0
        assert again.participants == ["alice", "bob", "prax"]
        later = store.merge_temporal_event(user, "Retro", participants=["Bob"], now=days(2))
        assert later.occurred_at == days(2)
        assert later.importance == pytest.approx(0.5)
        assert [e.description for e in store.get_events(user)] == ["Retro", "Launched Prax v1"]
        assert [e.id for e in store.get_events(user, entity="BOB")] == [later.id, ev.id]
        assert [e.id for e in store.get_events(user, entity="alice")] == [ev.id]
        assert [e.id for e in store.get_events(user, limit=1)] == [later.id]
        assert store.get_events(user, entity="nobody") == []
        stats = store.stats(user)
        assert (stats.temporal_events, stats.entities, stats.relations) == (2, 3, 0)

    def test_causal_links(self, store: GraphStore, user: str) -> None:
        link = store.add_causal_link(
            user, "the deploy broke the cache", "pages loaded slowly",
            cause_entities=["Deploy", "Cache"], effect_entities=["Website"],
            importance=0.8, now=T0,
        )  # fmt: skip
        assert link.cause == "the deploy broke the cache"
        assert link.effect == "pages loaded slowly"
        assert link.cause_entities == ["cache", "deploy"]
        assert link.effect_entities == ["website"]
        assert link.importance == pytest.approx(0.8)
        assert link.created_at == T0
        same = store.add_causal_link(
            user, "the deploy broke the cache", "pages loaded slowly",
            effect_entities=["Users"], importance=0.3, now=days(1),
        )  # fmt: skip
        assert same.id == link.id
        assert same.importance == pytest.approx(0.8)
        assert same.effect_entities == ["users", "website"]
        other = store.add_causal_link(user, "rain", "wet street", now=days(2))
        assert other.cause_entities == other.effect_entities == []
        assert [c.id for c in store.get_causal_links(user)] == [other.id, link.id]
        assert [c.id for c in store.get_causal_links(user, entity="website")] == [link.id]
        assert [c.id for c in store.get_causal_links(user, entity="deploy")] == [link.id]
        assert store.get_causal_links(user, entity="rain") == []
        stats = store.stats(user)
        assert (stats.causal_links, stats.entities) == (2, 4)

    def test_event_rejects_bad_input(self, store: GraphStore, user: str) -> None:
        with pytest.raises(MemoryValidationError):
            store.merge_temporal_event(user, "  ", now=T0)
        with pytest.raises(MemoryValidationError):
            store.merge_temporal_event(user, "e", participants="Alice", now=T0)
        with pytest.raises(MemoryValidationError):
            store.merge_temporal_event(user, "e", participants=["ok", ""], now=T0)
        with pytest.raises(MemoryValidationError):
            store.add_causal_link(user, "c", "", now=T0)
        assert store.stats(user) == GraphStats()

    # ------------------------------------------------------------------ transactions

    def test_failed_event_write_leaves_nothing(
        self, store: GraphStore, user: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        failing = _Failing(store._link_participant, fail_on_call=2)  # type: ignore[attr-defined]
        monkeypatch.setattr(store, "_link_participant", failing)
        with pytest.raises(MemoryWriteError, match="injected fault"):
            store.merge_temporal_event(
                user, "Team offsite", participants=["Alice", "Bob", "Carol"], now=T0
            )
        assert failing.calls == 2  # the first link was written before the fault
        assert store.stats(user) == GraphStats()
        assert store.get_entity(user, "alice") is None
        assert store.get_events(user) == []
        monkeypatch.undo()
        ok = store.merge_temporal_event(
            user, "Team offsite", participants=["Alice", "Bob", "Carol"], now=T0
        )
        assert ok.participants == ["alice", "bob", "carol"]

    def test_failed_causal_write_leaves_nothing(
        self, store: GraphStore, user: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store.merge_entity(user, "Existing", importance=0.4, now=T0)
        before = store.stats(user)
        failing = _Failing(
            store._link_causal,  # type: ignore[attr-defined]
            when=lambda *args, **kwargs: args[-1] == "effect",
        )
        monkeypatch.setattr(store, "_link_causal", failing)
        with pytest.raises(MemoryWriteError):
            store.add_causal_link(
                user, "cause", "effect", cause_entities=["Existing", "New cause"],
                effect_entities=["New effect"], now=days(1),
            )  # fmt: skip
        assert store.stats(user) == before
        assert store.get_entity(user, "new cause") is None
        existing = store.get_entity(user, "existing")
        assert existing is not None
        assert existing.entity.mention_count == 1

    # ------------------------------------------------------------------ neighbours

    def _chain(self, store: GraphStore, user: str) -> None:
        # e -> a -> b -> c -> d, plus a superseded a -> x, and f isolated.
        store.merge_entity(user, "A", importance=0.5, now=T0)
        store.merge_entity(user, "B", importance=0.2, now=T0)
        store.merge_entity(user, "E", importance=0.9, now=T0)
        store.merge_entity(user, "F", now=T0)
        store.add_relation(user, "A", "B", "related_to", now=T0)
        store.add_relation(user, "B", "C", "part_of", now=T0)
        store.add_relation(user, "C", "D", "part_of", now=T0)
        store.add_relation(user, "E", "A", "works_on", now=T0)
        store.add_relation(user, "A", "X", "prefers", now=T0)
        store.supersede_relation(user, "A", "X", "prefers", now=days(1))

    def test_neighbours_one_hop(self, store: GraphStore, user: str) -> None:
        self._chain(store, user)
        found = store.get_neighbours(user, "a", hops=1)
        # Both directions; most important first within a hop; superseded edges not walked.
        assert [(n.entity.name, n.hops) for n in found] == [("e", 1), ("b", 1)]
        assert found[0].entity.id == entity_id(user, "E")

    def test_neighbours_two_hops(self, store: GraphStore, user: str) -> None:
        self._chain(store, user)
        found = store.get_neighbours(user, "A", hops=2)
        assert [(n.entity.name, n.hops) for n in found] == [("e", 1), ("b", 1), ("c", 2)]
        from_d = store.get_neighbours(user, "d", hops=2)
        assert [(n.entity.name, n.hops) for n in from_d] == [("c", 1), ("b", 2)]
        assert store.get_neighbours(user, "f", hops=2) == []
        assert [n.entity.name for n in store.get_neighbours(user, "x", hops=2)] == []

    def test_neighbours_minimum_hops_and_limit(self, store: GraphStore, user: str) -> None:
        store.add_relation(user, "a", "b", "related_to", now=T0)
        store.add_relation(user, "b", "c", "related_to", now=T0)
        store.add_relation(user, "c", "a", "related_to", now=T0)
        store.add_relation(user, "c", "d", "related_to", now=T0)
        found = store.get_neighbours(user, "a", hops=2)
        assert [(n.entity.name, n.hops) for n in found] == [("b", 1), ("c", 1), ("d", 2)]
        assert [n.entity.name for n in store.get_neighbours(user, "a", hops=2, limit=2)] == [
            "b",
            "c",
        ]

    def test_neighbours_bounded(self, store: GraphStore, user: str) -> None:
        for i in range(30):
            store.add_relation(user, "hub", f"spoke {i:02d}", "related_to", now=T0)
        assert len(store.get_neighbours(user, "hub")) == 25
        assert len(store.get_neighbours(user, "hub", limit=30)) == 30
        with pytest.raises(MemoryValidationError, match="hops"):
            store.get_neighbours(user, "hub", hops=3)
        with pytest.raises(MemoryValidationError, match="hops"):
            store.get_neighbours(user, "hub", hops=0)
        with pytest.raises(MemoryValidationError, match="limit"):
            store.get_neighbours(user, "hub", limit=0)
        with pytest.raises(MemoryValidationError, match="limit"):
            store.get_neighbours(user, "hub", limit=10_000)

    # ------------------------------------------------------------------ search

    def test_search_entities(self, store: GraphStore, user: str) -> None:
        store.merge_entity(user, "LangGraph", importance=0.4, now=T0)
        store.merge_entity(user, "GraphQL", importance=0.3, now=T0)
        store.merge_entity(user, "Graph", importance=0.1, now=T0)
        store.merge_entity(user, "Knowledge graph store", importance=0.9, now=T0)
        store.merge_entity(user, "Qdrant", importance=1.0, now=T0)
        found = [e.display_name for e in store.search_entities(user, "GRAPH")]
        # Exact match, then prefix matches, then by importance.
        assert found == ["Graph", "GraphQL", "Knowledge graph store", "LangGraph"]
        assert [e.name for e in store.search_entities(user, " graph ", limit=2)] == [
            "graph",
            "graphql",
        ]
        assert store.search_entities(user, "neo4j") == []
        assert [e.name for e in store.search_entities(user, "%")] == []
        assert [e.name for e in store.search_entities(user, "_")] == []
        with pytest.raises(MemoryValidationError):
            store.search_entities(user, "  ")
        with pytest.raises(MemoryValidationError, match="limit"):
            store.search_entities(user, "graph", limit=0)

    # ------------------------------------------------------------------ capped reads

    def test_top_entities(self, store: GraphStore, user: str) -> None:
        store.merge_entity(user, "Low", importance=0.1, now=T0)
        store.merge_entity(user, "Beta", importance=0.6, now=T0)
        store.merge_entity(user, "Alpha", importance=0.6, now=T0)
        store.merge_entity(user, "Mentioned", importance=0.6, now=T0)
        store.merge_entity(user, "mentioned", now=days(1))
        store.merge_entity(user, "Top", importance=0.9, now=T0)
        # Importance, then mentions, then name; exactly as many as asked.
        assert [e.name for e in store.top_entities(user, limit=4)] == [
            "top",
            "mentioned",
            "alpha",
            "beta",
        ]
        assert [e.name for e in store.top_entities(user, limit=1)] == ["top"]
        everything = store.top_entities(user)
        assert [e.name for e in everything] == ["top", "mentioned", "alpha", "beta", "low"]
        assert everything[1].mention_count == 2
        top = everything[0]
        assert (top.id, top.user_id, top.display_name) == (entity_id(user, "top"), user, "Top")
        assert top.importance == pytest.approx(0.9)
        got = store.get_entity(user, "top")
        assert got is not None
        assert got.entity == top

    def test_top_entities_limit(self, store: GraphStore, user: str) -> None:
        for i in range(12):
            store.merge_entity(user, f"e{i:02d}", importance=i / 20, now=T0)
        assert len(store.top_entities(user, limit=10)) == 10
        assert len(store.top_entities(user, limit=1000)) == 12
        for bad in (0, -1, 1001, True, 2.0, "5"):
            with pytest.raises(MemoryValidationError, match="limit"):
                store.top_entities(user, limit=bad)  # type: ignore[arg-type]

    def _square(self, store: GraphStore, user: str) -> dict[str, str]:
        """a→b (1), b→c (3), c→d (1, later), a→c superseded; ids by name."""
        store.add_relation(user, "a", "b", "works_on", now=T0)
        store.add_relation(user, "b", "c", "related_to", weight=3.0, now=T0)
        store.add_relation(user, "c", "d", "related_to", now=days(1))
        store.add_relation(user, "a", "c", "prefers", weight=5.0, now=T0)
        store.supersede_relation(user, "a", "c", "prefers", now=days(2))
        return {name: entity_id(user, name) for name in "abcd"}

    def test_relations_among_both_ends(self, store: GraphStore, user: str) -> None:
        ids = self._square(store, user)
        abc = [ids["a"], ids["b"], ids["c"]]
        found = store.relations_among(user, abc)
        # Current first, heaviest first; only edges with both ends among the ids.
        assert [(r.source, r.target, r.type) for r in found] == [
            ("b", "c", "related_to"),
            ("a", "b", "works_on"),
        ]
        assert all(r.user_id == user and r.is_current for r in found)
        assert found[0].source_id == ids["b"]
        assert found[0].target_id == ids["c"]
        with_history = store.relations_among(user, abc, include_superseded=True)
        assert [(r.source, r.target, r.is_current) for r in with_history] == [
            ("b", "c", True),
            ("a", "b", True),
            ("a", "c", False),  # heavier, but superseded ones come last
        ]
        assert with_history[2].valid_until == days(2)
        assert store.relations_among(user, [ids["a"], ids["d"]]) == []
        # Duplicates and unknown ids change nothing; no id, no relation.
        again = store.relations_among(user, [*abc, *abc, "no such id"])
        assert [r.id for r in again] == [r.id for r in found]
        assert store.relations_among(user, []) == []
        assert store.relations_among(user, ["no such id"]) == []

    def test_relations_among_either_end(self, store: GraphStore, user: str) -> None:
        ids = self._square(store, user)
        touching = store.relations_among(user, [ids["c"]], both_ends=False)
        # Equal weights: the older valid_from first.
        assert [(r.source, r.target) for r in touching] == [("b", "c"), ("c", "d")]
        everything = store.relations_among(
            user, list(ids.values()), both_ends=False, include_superseded=True
        )
        assert [(r.source, r.target) for r in everything] == [
            ("b", "c"),
            ("a", "b"),
            ("c", "d"),
            ("a", "c"),
        ]
        assert len({r.id for r in everything}) == 4  # each relation once
        assert [(r.source, r.target) for r in store.relations_among(
            user, [ids["a"]], both_ends=False, include_superseded=True, limit=1
        )] == [("a", "b")]  # fmt: skip

    def test_relations_among_rejects_bad_input(self, store: GraphStore, user: str) -> None:
        ids = self._square(store, user)
        with pytest.raises(MemoryValidationError, match="single string"):
            store.relations_among(user, ids["a"])
        with pytest.raises(MemoryValidationError, match="strings"):
            store.relations_among(user, [ids["a"], 7])  # type: ignore[list-item]
        with pytest.raises(MemoryValidationError, match="at most 1000"):
            store.relations_among(user, [f"id {i}" for i in range(1001)])
        assert store.relations_among(user, [f"id {i}" for i in range(1000)]) == []
        for bad in (0, 1001, False, None):
            with pytest.raises(MemoryValidationError, match="limit"):
                store.relations_among(user, [ids["a"]], limit=bad)  # type: ignore[arg-type]

    def test_capped_reads_never_cross_users(
        self, store: GraphStore, user: str, other_user: str
    ) -> None:
        store.add_relation(user, "Alice", "Prax", "works_on", now=T0)
        store.merge_entity(other_user, "Boss", importance=1.0, now=T0)
        store.add_relation(other_user, "Boss", "Alice", "works_on", weight=9.0, now=T0)
        store.add_relation(other_user, "Alice", "Prax", "prefers", weight=9.0, now=T0)
        assert [e.name for e in store.top_entities(user)] == ["alice", "prax"]
        assert {e.user_id for e in store.top_entities(other_user)} == {other_user}
        theirs = [e.id for e in store.top_entities(other_user)]
        # Another user's ids match nothing, even passed in full, alone or mixed with ours.
        assert store.relations_among(user, theirs, include_superseded=True) == []
        assert store.relations_among(user, theirs, both_ends=False) == []
        ours = [entity_id(user, "alice"), entity_id(user, "prax")]
        mixed = store.relations_among(user, [*ours, *theirs], both_ends=False)
        assert [(r.user_id, r.source, r.target, r.type) for r in mixed] == [
            (user, "alice", "prax", "works_on")
        ]
        assert store.relations_among(other_user, ours, both_ends=False) == []

    # ------------------------------------------------------------------ hostile input

    @pytest.mark.parametrize(("label", "name"), HOSTILE_NAMES, ids=[h[0] for h in HOSTILE_NAMES])
    def test_hostile_names_stored_and_found_verbatim(
        self, store: GraphStore, user: str, label: str, name: str
    ) -> None:
        ent = store.merge_entity(user, name, properties={"raw": name}, now=T0)
        assert ent.display_name == name
        assert ent.name == name.lower()
        assert ent.properties == {"raw": name}
        got = store.get_entity(user, name)
        assert got is not None
        assert got.entity.display_name == name
        assert got.entity.id == entity_id(user, name)
        needle = name[len(name) // 3 : len(name) // 3 + 12]
        found = store.search_entities(user, needle)
        assert [e.display_name for e in found] == [name]
        rel = store.add_relation(user, name, "Plain", "related_to", evidence=name[:500], now=T0)
        assert rel.source == name.lower()
        assert rel.evidence == name[:500].strip()
        event = store.merge_temporal_event(user, name, participants=[name], now=T0)
        assert event.description == name
        assert [n.entity.display_name for n in store.get_neighbours(user, "plain")] == [name]
        assert store.entity_ids_for(user, [name]) == {name: entity_id(user, name)}
        # The text never changed the shape of a query: exactly what we wrote is there.
        assert store.stats(user) == GraphStats(
            entities=2, relations=1, current_relations=1, temporal_events=1
        )
        assert store.delete_user(user).entities == 2

    # ------------------------------------------------------------------ decay

    def _decay_fixture(self, store: GraphStore, user: str) -> None:
        # Entities without relations.
        store.merge_entity(user, "Fleeting", importance=0.3, now=T0)  # 45 d: 0.032 -> pruned
        store.merge_entity(user, "Steady", importance=0.5, now=T0)  # 45 d: 0.054 -> kept
        # A weak relation: 45 d: 0.2 * 0.108 = 0.0216 < 0.025 -> pruned; then "Weak end"
        # (importance 0.3) has no relation left and is pruned in the same pass.
        store.merge_entity(user, "Weak end", importance=0.3, now=T0)
        store.add_relation(user, "Weak end", "Other end", "related_to", weight=0.2, now=T0)
        # A strong relation keeps even an unimportant entity alive.
        store.merge_entity(user, "Tiny", importance=0.01, now=T0)
        store.add_relation(user, "Tiny", "Anchor", "works_on", weight=1.0, now=T0)

    def test_decay_schedule(self, store: GraphStore, user: str) -> None:
        self._decay_fixture(store, user)
        before = store.stats(user)
        expected = {
            0: ([], []),
            7: ([], []),
            45: (["fleeting", "weak end"], [("weak end", "related_to", "other end")]),
            200: (
                ["anchor", "fleeting", "other end", "steady", "tiny", "weak end"],
                [("tiny", "works_on", "anchor"), ("weak end", "related_to", "other end")],
            ),
        }
        for day, (ents, rels) in expected.items():
            result = store.decay_graph(user, now=days(day), dry_run=True)
            assert result.dry_run
            assert result.halflife_days == pytest.approx(14.0)
            assert result.entities == ents, day
            assert sorted((r.source, r.type, r.target) for r in result.relations) == rels, day
        assert store.stats(user) == before  # dry runs write nothing

    def test_decay_prunes_and_is_idempotent(self, store: GraphStore, user: str) -> None:
        self._decay_fixture(store, user)
        preview = store.decay_graph(user, now=days(45), dry_run=True)
        result = store.decay_graph(user, now=days(45))
        assert not result.dry_run
        assert result.entities == preview.entities == ["fleeting", "weak end"]
        assert [r.id for r in result.relations] == [r.id for r in preview.relations]
        assert result.pruned == 3
        assert store.get_entity(user, "fleeting") is None
        assert store.get_entity(user, "weak end") is None
        steady = store.get_entity(user, "steady")
        assert steady is not None
        assert steady.entity.importance == pytest.approx(0.5)  # nothing written back
        tiny = store.get_entity(user, "tiny")
        assert tiny is not None
        assert tiny.relations[0].weight == pytest.approx(1.0)
        # A second pass at the same moment prunes nothing more.
        again = store.decay_graph(user, now=days(45))
        assert again.pruned == 0
        assert store.stats(user) == GraphStats(entities=4, relations=1, current_relations=1)

    def test_decay_uses_total_days_across_months(self, store: GraphStore, user: str) -> None:
        # 0.3 * 2^(-d/14) falls below 0.05 at d = 14 * log2(6) = 36.2 days. 45 days from Jan 20
        # is Mar 6, "1 month 14 days" as a duration: counting only its days component (14)
        # would keep the entity. Total days (45) prune it.
        store.merge_entity(user, "Fleeting", importance=0.3, now=T0)
        assert store.decay_graph(user, now=days(36)).entities == []
        assert store.decay_graph(user, now=days(36.5), dry_run=True).entities == ["fleeting"]
        assert store.decay_graph(user, now=days(45)).entities == ["fleeting"]

    def test_decay_restarts_on_mention(self, store: GraphStore, user: str) -> None:
        store.merge_entity(user, "Fleeting", importance=0.3, now=T0)
        store.add_relation(user, "Weak end", "Other end", "related_to", weight=0.2, now=T0)
        store.merge_entity(user, "fleeting", now=days(40))
        store.add_relation(user, "Weak end", "Other end", "related_to", weight=0.1, now=days(40))
        result = store.decay_graph(user, now=days(45))
        assert result.pruned == 0

    def test_decay_halflife_override(self, store: GraphStore, user: str) -> None:
        store.merge_entity(user, "Fleeting", importance=0.3, now=T0)
        assert store.decay_graph(user, now=days(45), halflife_days=1000).entities == []
        assert store.decay_graph(user, now=days(5), halflife_days=1).entities == ["fleeting"]
        with pytest.raises(MemoryValidationError):
            store.decay_graph(user, now=days(5), halflife_days=0)

    def test_decay_superseded_relations_use_last_seen(self, store: GraphStore, user: str) -> None:
        store.add_relation(user, "me", "dark mode", "prefers", weight=0.5, now=T0)
        store.supersede_relation(user, "me", "dark mode", "prefers", now=days(1))
        # 0.5 * 2^(-45/14) = 0.054 -> kept; at 60 days 0.026 -> kept; at 62 days 0.023 -> pruned.
        assert store.decay_graph(user, now=days(60)).relations == []
        pruned = store.decay_graph(user, now=days(62)).relations
        assert [(r.source, r.target, r.is_current) for r in pruned] == [("me", "dark mode", False)]

    def test_decay_only_touches_its_user(
        self, store: GraphStore, user: str, other_user: str
    ) -> None:
        store.merge_entity(user, "Fleeting", importance=0.3, now=T0)
        store.merge_entity(other_user, "Fleeting", importance=0.3, now=T0)
        assert store.decay_graph(user, now=days(45)).entities == ["fleeting"]
        assert store.stats(other_user).entities == 1

    # ------------------------------------------------------------------ users

    def test_two_users_never_see_each_other(
        self, store: GraphStore, user: str, other_user: str
    ) -> None:
        a = store.merge_entity(user, "Alice", entity_type="person", importance=0.9, now=T0)
        b = store.merge_entity(other_user, "Alice", entity_type="tool", importance=0.1, now=T0)
        assert a.id != b.id
        store.add_relation(user, "Alice", "Prax", "works_on", now=T0)
        store.add_relation(other_user, "Alice", "Secret", "prefers", now=T0)
        store.merge_temporal_event(user, "Kickoff", participants=["Alice"], now=T0)
        store.add_causal_link(other_user, "x", "y", cause_entities=["Alice"], now=T0)

        got = store.get_entity(user, "alice")
        assert got is not None
        assert got.entity.type == "person"
        assert [r.target for r in got.relations] == ["prax"]
        assert [n.entity.name for n in store.get_neighbours(user, "alice", hops=2)] == ["prax"]
        assert [n.entity.name for n in store.get_neighbours(other_user, "alice")] == ["secret"]
        assert sorted(e.name for e in store.search_entities(user, "a")) == ["alice", "prax"]
        assert sorted(e.name for e in store.search_entities(other_user, "e")) == [
            "alice",
            "secret",
        ]
        assert store.get_entity(user, "secret") is None
        assert store.current_targets(other_user, "alice", "works_on") == []
        assert len(store.get_events(user)) == 1
        assert store.get_events(other_user) == []
        assert store.get_causal_links(user) == []
        assert store.entity_ids_for(user, ["Secret", "Prax"]) == {"Prax": entity_id(user, "prax")}
        assert store.supersede_relation(other_user, "alice", "prax", "works_on") is None

        removed = store.delete_user(other_user)
        assert removed == GraphStats(
            entities=2, relations=1, current_relations=1, temporal_events=0, causal_links=1
        )
        assert store.stats(other_user) == GraphStats()
        assert store.stats(user) == GraphStats(
            entities=2, relations=1, current_relations=1, temporal_events=1
        )

    def test_delete_user_and_stats(self, store: GraphStore, user: str) -> None:
        store.add_relation(user, "a", "b", "related_to", now=T0)
        store.add_relation(user, "a", "c", "related_to", now=T0)
        store.supersede_relation(user, "a", "c", "related_to", now=days(1))
        store.merge_temporal_event(user, "e1", participants=["a"], now=T0)
        store.merge_temporal_event(user, "e2", now=T0)
        store.add_causal_link(user, "c", "e", cause_entities=["b"], effect_entities=["z"], now=T0)
        stats = store.stats(user)
        assert stats == GraphStats(
            entities=4, relations=2, current_relations=1, temporal_events=2, causal_links=1
        )
        assert stats.total == 9
        assert store.delete_user(user) == stats
        assert store.stats(user) == GraphStats()
        assert store.delete_user(user) == GraphStats()
        assert store.get_entity(user, "a") is None
        assert store.search_entities(user, "a") == []
        assert store.get_events(user) == []
        assert store.get_causal_links(user) == []
        # The user can start again from scratch.
        assert store.merge_entity(user, "a", now=T0).mention_count == 1

    # ------------------------------------------------------------------ paged listings

    def test_pages_list_every_record_once_in_any_script(
        self, store: GraphStore, user: str, other_user: str
    ) -> None:
        """Issue 40, item 8: ``list_*`` page through everything (an export reads them)."""
        names = [
            f"{word} {i}"
            for i in range(4)
            for word in ("თბილისი", "አዲስ አበባ", "กรุงเทพ", "東京", "Москва", "Zürich")
        ]
        for name in names:
            store.merge_entity(user, name, now=T0)
        for a, b in itertools.pairwise(names):
            store.add_relation(user, a, b, "related_to", now=T0)
        store.supersede_relation(user, names[0], names[1], "related_to", now=days(1))
        for i in range(5):
            store.merge_temporal_event(user, f"event {i}", participants=[names[i]], now=T0)
            store.add_causal_link(user, f"cause {i}", f"effect {i}", now=T0)
        store.merge_entity(other_user, names[0], now=T0)  # another user's: never listed
        store.add_relation(other_user, "x", "y", "related_to", now=T0)

        def every(list_page: Callable[..., list[Any]]) -> list[Any]:
            got: list[Any] = []
            while True:
                page = list_page(user, after=got[-1].id if got else None, limit=7)
                assert [r.id for r in page] == sorted(r.id for r in page)
                got.extend(page)
                if len(page) < 7:
                    return got

        entities = every(store.list_entities)
        assert sorted(e.display_name for e in entities) == sorted(names)
        assert {e.user_id for e in entities} == {user}
        relations = every(store.list_relations)
        assert len({r.id for r in relations}) == len(relations) == len(names) - 1
        assert sum(r.valid_until is not None for r in relations) == 1
        assert {r.user_id for r in relations} == {user}
        events = every(store.list_events)
        assert sorted(e.description for e in events) == [f"event {i}" for i in range(5)]
        assert all(len(e.participants) == 1 for e in events)
        links = every(store.list_causal_links)
        assert sorted(c.cause for c in links) == [f"cause {i}" for i in range(5)]
        stats = store.stats(user)
        assert (len(entities), len(relations), len(events), len(links)) == (
            stats.entities,
            stats.relations,
            stats.temporal_events,
            stats.causal_links,
        )
        assert store.list_entities(user, after=entities[-1].id) == []
        with pytest.raises(MemoryValidationError, match="after"):
            store.list_entities(user, after=3)  # type: ignore[arg-type]
        with pytest.raises(MemoryValidationError, match="limit"):
            store.list_relations(user, limit=1001)

    # ------------------------------------------------------------------ load / delete records

    @staticmethod
    def _graph_of(store: GraphStore, user: str) -> dict[str, list[str]]:
        """Every record of ``user`` as it reads back, without ids (they are the user's)."""
        ids = {"id", "user_id", "source_id", "target_id"}
        out = {
            "entities": store.list_entities(user),
            "relations": store.list_relations(user),
            "events": store.list_events(user),
            "links": store.list_causal_links(user),
        }
        return {
            kind: sorted(r.model_dump_json(exclude=ids & set(type(r).model_fields)) for r in rows)
            for kind, rows in out.items()
        }

    @staticmethod
    def _rich_graph(store: GraphStore, user: str) -> None:
        """Mentions, strengthened and superseded relations, events and links at set times."""
        for n in range(3):
            store.merge_entity(user, "Alice", entity_type="person", now=days(n))
        store.merge_entity(user, "東京", importance=0.9, properties={"k": [1, "二"]}, now=T0)
        store.add_relation(user, "Alice", "東京", "lives_in", evidence="said", now=T0)
        store.add_relation(
            user, "Alice", "東京", "lives_in", weight=2, evidence="again", now=days(4)
        )
        store.supersede_relation(user, "Alice", "東京", "lives_in", now=days(5))
        store.add_relation(user, "Alice", "東京", "lives_in", now=days(6))
        store.merge_temporal_event(
            user, "Moved", participants=["Alice", "Bob"], occurred_at=days(2), now=days(3)
        )
        store.add_causal_link(
            user, "rain", "wet", cause_entities=["Rain"], effect_entities=["Street"], now=days(1)
        )

    def test_load_records_keeps_every_field_as_it_was(
        self, store: GraphStore, user: str, other_user: str
    ) -> None:
        """Issue 40: a loaded record keeps its mention count, sightings and creation time."""
        self._rich_graph(store, other_user)
        made = store.load_records(
            user,
            entities=store.list_entities(other_user),
            relations=store.list_relations(other_user),
            events=store.list_events(other_user),
            links=store.list_causal_links(other_user),
        )
        assert self._graph_of(store, user) == self._graph_of(store, other_user)
        alice = store.get_entity(user, "alice")
        assert alice is not None and alice.entity.mention_count == 3
        assert (alice.entity.first_seen, alice.entity.last_seen) == (T0, days(2))
        assert alice.entity.id == entity_id(user, "alice")  # the ids are the user's own
        stats = store.stats(user)
        assert stats == store.stats(other_user)
        assert (len(made.entities), len(made.relations)) == (stats.entities, stats.relations)
        assert (len(made.temporal_events), len(made.causal_links)) == (1, 1)
        # loading the same records again changes nothing
        again = store.load_records(
            user,
            entities=store.list_entities(other_user),
            relations=store.list_relations(other_user),
            events=store.list_events(other_user),
            links=store.list_causal_links(other_user),
        )
        assert again.total == 0 and store.stats(user) == stats

    def test_load_records_leaves_what_the_user_has(
        self, store: GraphStore, user: str, other_user: str
    ) -> None:
        store.merge_entity(user, "Alice", importance=0.2, now=days(9))
        mine = store.add_relation(user, "Alice", "東京", "lives_in", now=days(9))
        self._rich_graph(store, other_user)
        made = store.load_records(
            user,
            entities=store.list_entities(other_user),
            relations=store.list_relations(other_user),
        )
        alice = store.get_entity(user, "alice", include_superseded=True)
        assert alice is not None
        assert (alice.entity.mention_count, alice.entity.importance) == (1, 0.2)
        assert entity_id(user, "alice") not in made.entities
        # the superseded relation is new; the current one meets the user's current one
        assert len(made.relations) == 1
        current = [r for r in alice.relations if r.valid_until is None]
        assert [r.id for r in current] == [mine.id]
        assert len(alice.relations) == 2

    def test_load_records_creates_missing_ends_and_refuses_bad_records(
        self, store: GraphStore, user: str, other_user: str
    ) -> None:
        self._rich_graph(store, other_user)
        made = store.load_records(user, events=store.list_events(other_user))
        assert sorted(e.name for e in store.list_entities(user)) == ["alice", "bob"]
        assert len(made.entities) == 2 and store.get_events(user)[0].created_at == days(3)
        bad = store.list_entities(other_user)[0].model_copy(update={"mention_count": 0})
        with pytest.raises(MemoryValidationError, match="mention_count"):
            store.load_records(user, entities=[bad])
        early = store.list_relations(other_user)[0]
        early = early.model_copy(update={"last_seen": early.first_seen - timedelta(days=1)})
        with pytest.raises(MemoryValidationError, match="last_seen is before first_seen"):
            store.load_records(user, relations=[early])
        with pytest.raises(MemoryValidationError, match="Entity records"):
            store.load_records(user, entities=store.list_relations(other_user))  # type: ignore[arg-type]
        assert store.stats(user).entities == 2

    def test_a_failed_load_leaves_nothing(
        self, store: GraphStore, user: str, other_user: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        self._rich_graph(store, other_user)
        hook = "_load_row" if hasattr(store, "_load_row") else "_load_batch"
        failing = _Failing(getattr(store, hook), fail_on_call=3)  # entities went in before
        monkeypatch.setattr(store, hook, failing)
        with pytest.raises(MemoryWriteError, match="injected fault"):
            store.load_records(
                user,
                entities=store.list_entities(other_user),
                relations=store.list_relations(other_user),
                events=store.list_events(other_user),
            )
        assert failing.calls == 3
        assert store.stats(user) == GraphStats()

    def test_delete_records_removes_those_ids_of_that_user_only(
        self, store: GraphStore, user: str, other_user: str
    ) -> None:
        self._rich_graph(store, other_user)
        store.merge_entity(user, "Keep", now=T0)
        made = store.load_records(
            user,
            entities=store.list_entities(other_user),
            relations=store.list_relations(other_user),
            events=store.list_events(other_user),
            links=store.list_causal_links(other_user),
        )
        theirs = store.stats(other_user)
        foreign = [e.id for e in store.list_entities(other_user)]
        removed = store.delete_records(
            user,
            entity_ids=[*made.entities, *foreign],
            relation_ids=made.relations,
            event_ids=made.temporal_events,
            link_ids=made.causal_links,
        )
        assert removed == theirs  # what was loaded, and nothing of the other user
        assert [e.name for e in store.list_entities(user)] == ["keep"]
        assert store.stats(other_user) == theirs
        assert store.delete_records(user, entity_ids=made.entities) == GraphStats()


class AsyncGraphStoreContract:
    """A smoke subset of the contract for :class:`AsyncGraphStore` implementations."""

    @pytest.fixture
    async def astore(self) -> AsyncIterator[AsyncGraphStore]:  # pragma: no cover - overridden
        raise NotImplementedError
        yield

    @pytest.fixture
    async def auser(self, astore: AsyncGraphStore) -> AsyncIterator[str]:
        uid = _user()
        yield uid
        await astore.delete_user(uid)

    async def test_is_an_async_graph_store(self, astore: AsyncGraphStore) -> None:
        assert isinstance(astore, AsyncGraphStore)
        await astore.setup()

    async def test_lifecycle(self, astore: AsyncGraphStore, auser: str) -> None:
        ent = await astore.merge_entity(auser, "Alice", entity_type="person", now=T0)
        assert (ent.name, ent.display_name, ent.mention_count) == ("alice", "Alice", 1)
        first = await astore.add_relation(auser, "Alice", "Prax", "works_on", evidence="a", now=T0)
        second = await astore.add_relation(
            auser, "alice", "prax", "works_on", weight=2.0, evidence="b", now=days(1)
        )
        assert second.id == first.id
        assert second.weight == pytest.approx(3.0)
        assert second.evidence == "a; b"
        await astore.add_relation(auser, "Prax", "LangGraph", "related_to", now=T0)
        hood = await astore.get_neighbours(auser, "alice", hops=2)
        assert [(n.entity.name, n.hops) for n in hood] == [("prax", 1), ("langgraph", 2)]
        assert [e.name for e in await astore.search_entities(auser, "LANG")] == ["langgraph"]
        assert await astore.entity_ids_for(auser, ["Alice", "nobody"]) == {
            "Alice": entity_id(auser, "alice")
        }
        closed = await astore.supersede_relation(auser, "alice", "prax", "works_on", now=days(2))
        assert closed is not None
        assert closed.valid_until == days(2)
        assert await astore.current_targets(auser, "alice", "works_on") == []
        reopened = await astore.add_relation(auser, "alice", "prax", "works_on", now=days(3))
        assert reopened.id != first.id
        history = await astore.get_entity(auser, "alice", include_superseded=True)
        assert history is not None
        assert len(history.relations) == 2
        with pytest.raises(MemoryValidationError, match="unknown relation type"):
            await astore.add_relation(auser, "a", "b", "mentors")

    async def test_events_links_decay_delete(self, astore: AsyncGraphStore, auser: str) -> None:
        ev = await astore.merge_temporal_event(auser, "Met", participants=["Bob"], now=T0)
        assert ev.participants == ["bob"]
        assert [e.id for e in await astore.get_events(auser, entity="bob")] == [ev.id]
        link = await astore.add_causal_link(
            auser, "rain", "wet", cause_entities=["Rain"], effect_entities=["Street"], now=T0
        )
        assert (link.cause_entities, link.effect_entities) == (["rain"], ["street"])
        assert [c.id for c in await astore.get_causal_links(auser)] == [link.id]
        await astore.merge_entity(auser, "Fleeting", importance=0.3, now=T0)
        preview = await astore.decay_graph(auser, now=days(45), dry_run=True)
        assert "fleeting" in preview.entities
        done = await astore.decay_graph(auser, now=days(45))
        assert done.entities == preview.entities
        assert (await astore.decay_graph(auser, now=days(45))).pruned == 0
        stats = await astore.stats(auser)
        assert stats.temporal_events == 1
        assert stats.causal_links == 1
        assert await astore.delete_user(auser) == stats
        assert await astore.stats(auser) == GraphStats()

    async def test_failed_write_leaves_nothing(
        self, astore: AsyncGraphStore, auser: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        target: Any = getattr(astore, "sync_store", astore)
        failing = _Failing(target._link_participant, fail_on_call=2)
        monkeypatch.setattr(target, "_link_participant", failing)
        with pytest.raises(MemoryWriteError):
            await astore.merge_temporal_event(auser, "Offsite", participants=["A", "B"], now=T0)
        assert await astore.stats(auser) == GraphStats()
