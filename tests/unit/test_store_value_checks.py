"""Issue 26 item 4: every user value the store takes is checked before anything runs.

Lone surrogates (in content, any other field, a dict key, a key, a namespace label, a filter,
a query, a listing prefix), values nested too deep for the engine, numbers JSON cannot hold
and objects that cannot be stored are :class:`MemoryValidationError` (bad input), never a raw
``UnicodeEncodeError``, a ``RecursionError``, a ``MemoryWriteError`` or a
``BackendUnavailable`` (an outage). What was stored before is still there, unchanged, and the
user's reads keep working. Real parts: embedded Qdrant (qdrant-edge) and the packaged
embedding model.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory._validation import MAX_VALUE_DEPTH, check_json_value
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings
from langgraph_prax_memory.errors import MemoryValidationError

NS = ("memories", "alice")
KEPT = {"content": "Alice drinks green tea every morning", "tags": ["drinks"]}


def nested(depth: int, *, dicts: bool = False) -> Any:
    """``depth`` containers, one inside the other, around the string ``"x"``."""
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value} if dicts else [value]
    return value


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Embeddings:
    return PackagedMiniLMEmbeddings(tmp_path_factory.mktemp("models"))


@pytest.fixture
def store(model: Embeddings, tmp_path: Path) -> Iterator[PraxMemoryStore]:
    cfg = MemoryConfig(data_dir=tmp_path / "d")  # the embedded qdrant-edge engine, on disk
    with PraxMemoryStore.from_config(cfg, index={"embed": model, "dims": 384}) as s:
        s.put(NS, "kept", KEPT)
        yield s


def _unchanged(store: PraxMemoryStore) -> None:
    """The item stored before is intact and every kind of read of the user still works."""
    item = store.get(NS, "kept")
    assert item is not None and item.value == KEPT
    assert [i.key for i in store.search(NS)] == ["kept"]
    assert store.search(NS, query="what does alice drink")[0].key == "kept"
    assert store.list_namespaces(prefix=NS) == [NS]


BAD_PUTS: dict[str, Callable[[PraxMemoryStore], object]] = {
    "surrogate in content": lambda s: s.put(NS, "k", {"content": "x \udfff"}),
    "surrogate in another field": lambda s: s.put(NS, "k", {"content": "x", "note": "\ud800"}),
    "surrogate in a nested list": lambda s: s.put(NS, "k", {"content": "x", "l": [["a\udc80"]]}),
    "surrogate in a dict key": lambda s: s.put(NS, "k", {"content": "x", "\ud800": 1}),
    "surrogate, not indexed": lambda s: s.put(NS, "k", {"content": "x\ud800"}, index=False),
    "surrogate in the key": lambda s: s.put(NS, "k\ud800", {"content": "x"}),
    "surrogate in a namespace label": lambda s: s.put(("mem\ud800", "alice"), "k", {"c": "x"}),
    "surrogate in the user label": lambda s: s.put(("memories", "al\ud800"), "k", {"c": "x"}),
    "surrogate in a delete's key": lambda s: s.delete(NS, "kept\ud800"),
    "nested 1000 lists deep": lambda s: s.put(NS, "k", {"content": "x", "d": nested(1000)}),
    "nested 1000 dicts deep": lambda s: s.put(
        NS, "k", {"content": "x", "d": nested(1000, dicts=True)}
    ),
    # stored, but past the engine's 128 levels: every read of the user failed afterwards
    "nested 130 dicts deep": lambda s: s.put(NS, "k", {"d": nested(130, dicts=True)}, index=False),
    "NaN": lambda s: s.put(NS, "k", {"content": "x", "n": math.nan}),
    "infinity": lambda s: s.put(NS, "k", {"content": "x", "n": [1.0, -math.inf]}),
    "an object JSON cannot hold": lambda s: s.put(NS, "k", {"content": "x", "o": object()}),
    "bytes that are not UTF-8": lambda s: s.put(NS, "k", {"content": "x", "b": b"\xff"}),
}


@pytest.mark.parametrize("case", sorted(BAD_PUTS))
def test_a_bad_put_is_a_validation_error_and_loses_nothing(
    store: PraxMemoryStore, case: str
) -> None:
    with pytest.raises(MemoryValidationError):
        BAD_PUTS[case](store)
    assert store.get(NS, "k") is None
    _unchanged(store)


def test_a_value_that_contains_itself_is_a_validation_error(store: PraxMemoryStore) -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(MemoryValidationError, match="contains itself"):
        store.put(NS, "k", {"content": "x", "loop": loop})
    _unchanged(store)


def test_a_bad_put_in_a_batch_stores_nothing_of_the_batch(store: PraxMemoryStore) -> None:
    with pytest.raises(MemoryValidationError, match="lone surrogate"):
        store.batch(
            [
                PutOp(NS, "good", {"content": "Alice plays chess"}),
                PutOp(NS, "kept", {"content": "overwritten"}),
                PutOp(NS, "bad", {"content": "x \udfff"}),
            ]
        )
    assert store.get(NS, "good") is None
    _unchanged(store)


BAD_READS: dict[str, Callable[[PraxMemoryStore], object]] = {
    "surrogate filter value": lambda s: s.search(NS, filter={"content": "\ud800"}),
    "surrogate filter value, with a query": lambda s: s.search(
        NS, query="tea", filter={"tags": "\ud800"}
    ),
    "surrogate in an operator's value": lambda s: s.search(NS, filter={"n": {"$eq": "\udfff"}}),
    "surrogate filter key": lambda s: s.search(NS, filter={"\ud800": "a"}),
    "filter nested 1000 deep": lambda s: s.search(NS, filter={"d": nested(1000, dicts=True)}),
    "surrogate query": lambda s: s.search(NS, query="tea \ud800"),
    "surrogate in the search prefix": lambda s: s.search(("mem\ud800", "alice")),
    "surrogate in a get's key": lambda s: s.get(NS, "kept\ud800"),
    "surrogate in a get's namespace": lambda s: s.get(("memories", "alice", "x\ud800"), "k"),
    "surrogate in a listing prefix": lambda s: s.list_namespaces(prefix=("mem\ud800",)),
    "surrogate in a listing suffix": lambda s: s.list_namespaces(suffix=("\ud800",)),
    "surrogate in the scratchpad key": lambda s: s.get(("stm", "alice"), "k\ud800"),
}


@pytest.mark.parametrize("case", sorted(BAD_READS))
def test_a_bad_read_is_a_validation_error_not_an_outage(store: PraxMemoryStore, case: str) -> None:
    with pytest.raises(MemoryValidationError):
        BAD_READS[case](store)
    _unchanged(store)


def test_a_bad_read_in_a_batch_runs_nothing_of_the_batch(store: PraxMemoryStore) -> None:
    with pytest.raises(MemoryValidationError, match="lone surrogate"):
        store.batch(
            [
                PutOp(NS, "good", {"content": "Alice plays chess"}),
                GetOp(NS, "kept"),
                SearchOp(NS, filter={"content": "\ud800"}),
                ListNamespacesOp(match_conditions=(MatchCondition("prefix", NS),)),
            ]
        )
    assert store.get(NS, "good") is None
    _unchanged(store)


def test_the_async_face_raises_the_same_validation_errors(store: PraxMemoryStore) -> None:
    async def run() -> None:
        with pytest.raises(MemoryValidationError, match="lone surrogate"):
            await store.aput(NS, "k", {"content": "x \udfff"})
        with pytest.raises(MemoryValidationError, match="lone surrogate"):
            await store.asearch(NS, filter={"content": "\ud800"})
        with pytest.raises(MemoryValidationError, match="nested"):
            await store.aput(NS, "k", {"content": "x", "d": nested(1000)})
        with pytest.raises(MemoryValidationError, match="lone surrogate"):
            await store.aget(NS, "k\ud800")
        item = await store.aget(NS, "kept")
        assert item is not None and item.value == KEPT

    asyncio.run(run())
    _unchanged(store)


def test_values_at_the_depth_limit_are_stored_and_read_back(store: PraxMemoryStore) -> None:
    # the value dict is one level; MAX_VALUE_DEPTH - 1 more fit
    deep = {"content": "x", "d": nested(MAX_VALUE_DEPTH - 1, dicts=True)}
    store.put(NS, "deep", deep, index=False)
    item = store.get(NS, "deep")
    assert item is not None and item.value == deep
    with pytest.raises(MemoryValidationError, match=f"more than {MAX_VALUE_DEPTH} levels"):
        store.put(NS, "deeper", {"content": "x", "d": nested(MAX_VALUE_DEPTH, dicts=True)})
    assert [i.key for i in store.search(NS, filter={"d": deep["d"]})] == ["deep"]
    store.delete(NS, "deep")
    _unchanged(store)


def test_valid_unusual_values_still_work(store: PraxMemoryStore) -> None:
    value = {"content": "café ☕ 我每天早上喝绿茶 🍵", "n": 1.5, "big": 2**60, "none": None}
    store.put(NS, "unusual", value)
    item = store.get(NS, "unusual")
    assert item is not None and item.value == value
    assert [i.key for i in store.search(NS, filter={"n": 1.5})] == ["unusual"]


def test_check_json_value_names_the_path() -> None:
    with pytest.raises(MemoryValidationError, match=r"value\['a'\]\[1\] contains a lone"):
        check_json_value({"a": ["ok", "b\ud800"]}, what="value")
    with pytest.raises(MemoryValidationError, match=r"a key of value\['a'\]"):
        check_json_value({"a": {"\udfff": 1}}, what="value")
    with pytest.raises(MemoryValidationError, match=r"value\['n'\] is not a finite number"):
        check_json_value({"n": math.inf}, what="value")
    # a filter may compare with infinity (LangGraph's InMemoryStore semantics)
    assert check_json_value({"n": {"$lt": math.inf}}, what="filter", finite=False)
    assert check_json_value({"a": [1, "b", None, True]}, what="value") == {
        "a": [1, "b", None, True]
    }


def test_remember_many_refuses_a_surrogate_entity_id(tmp_path: Path) -> None:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path / "m"))
    try:
        memory.remember("u", "Alice drinks green tea")
        with pytest.raises(MemoryValidationError, match="entity id"):
            memory.remember_many("u", [{"content": "x", "entity_ids": ["e\ud800"]}])
        assert [m.content for m in memory.list_memories("u")] == ["Alice drinks green tea"]
    finally:
        memory.close()
