"""One tenancy rule for every namespace, the administrator's listing, coalesced ``abatch``.

The rule (docs/store.md, "Tenancy"): the user of a namespace is its label at ``tenant_index``;
a namespace too short to have one, and every read whose prefix stops above it, belongs to the
store's shared tenant. LangMem's quickstarts (``("memories",)``, ``("chat",)`` and
``("memories", "{langgraph_user_id}")``) run unchanged, and no read crosses users.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import GetOp, PutOp, SearchOp

from langgraph_prax_memory import MemoryValidationError, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.store import SHARED_TENANT


class _State(TypedDict):
    text: str
    found: Annotated[list[str], operator.add]


def _langmem_like_graph(namespace: tuple[str, ...]) -> Any:
    """A node doing what LangMem's manage + search tools do, with their namespace template."""

    def node(state: _State, config: RunnableConfig) -> dict[str, Any]:
        store = get_store()
        ns = tuple(
            label.format(**config.get("configurable", {})) for label in namespace
        )  # LangMem's NamespaceTemplate
        store.put(ns, f"m{abs(hash(state['text'])) % 10_000}", {"content": state["text"]})
        hits = store.search(ns, query=state["text"], limit=5)
        return {"found": [h.value["content"] for h in hits]}

    builder = StateGraph(_State)
    builder.add_node("memory", node)
    builder.add_edge(START, "memory")
    builder.add_edge("memory", END)
    return builder


@pytest.mark.parametrize("namespace", [("memories",), ("chat",)])
def test_langmem_one_label_quickstart_runs_unchanged(
    memory: PraxMemory, namespace: tuple[str, ...]
) -> None:
    store = PraxMemoryStore(memory)
    graph = _langmem_like_graph(namespace).compile(store=store)
    out = graph.invoke({"text": "I prefer dark mode", "found": []})
    assert out["found"] == ["I prefer dark mode"]
    out = graph.invoke({"text": "my favourite editor is vim", "found": []})
    assert set(out["found"]) == {"I prefer dark mode", "my favourite editor is vim"}
    assert store.list_namespaces() == [namespace]
    assert [i.namespace for i in store.search(namespace)] == [namespace, namespace]
    assert memory.count(SHARED_TENANT) == 0  # shared store items are not anyone's LTM


def test_langmem_user_template_quickstart_keeps_users_apart(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory)
    graph = _langmem_like_graph(("memories", "{langgraph_user_id}")).compile(store=store)
    alice = {"configurable": {"langgraph_user_id": "alice"}}
    bob = {"configurable": {"langgraph_user_id": "bob"}}
    graph.invoke({"text": "alice's PIN is 1234", "found": []}, alice)
    out = graph.invoke({"text": "bob's PIN is 9876", "found": []}, bob)
    assert out["found"] == ["bob's PIN is 9876"]
    assert memory.count("alice") == 1 and memory.count("bob") == 1  # their own LTM
    assert store.list_namespaces(prefix=("memories", "alice")) == [("memories", "alice")]


def test_no_short_prefix_read_crosses_users(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory)
    store.put(("memories", "alice"), "pin", {"content": "PIN 1234"})
    store.put(("memories", "bob"), "pin", {"content": "PIN 9876"})
    store.put(("memories",), "faq", {"content": "PIN resets happen at the front desk"})
    for prefix in [(), ("memories",)]:
        assert [i.key for i in store.search(prefix)] == ["faq"]
        assert [i.key for i in store.search(prefix, query="PIN")] == ["faq"]
        assert [i.key for i in store.search(prefix, filter={"content": "PIN 1234"})] == []
    assert store.list_namespaces() == [("memories",)]
    assert store.list_namespaces(prefix=("memories",)) == [("memories",)]
    assert store.list_namespaces(suffix=("alice",)) == []
    assert store.get(("memories",), "pin") is None
    # the shared tenant is a tenant like any other: its items are not a user's
    assert store.tenant_of(("memories",)) == SHARED_TENANT
    assert store.tenant_of(("memories", "alice")) == "alice"


def test_admin_listing_spans_users_but_content_reads_stay_pinned(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory, allow_cross_tenant_listing=True)
    store.put(("memories", "alice"), "a", {"content": "x"})
    store.put(("memories", "bob"), "b", {"content": "y"})
    store.put(("memories", "bob", "work"), "c", {"content": "z"})
    store.put(("notes",), "d", {"content": "w"})
    assert store.list_namespaces() == [
        ("memories", "alice"),
        ("memories", "bob"),
        ("memories", "bob", "work"),
        ("notes",),
    ]
    assert store.list_namespaces(prefix=("memories",), max_depth=2) == [
        ("memories", "alice"),
        ("memories", "bob"),
    ]
    assert store.list_namespaces(prefix=("memories", "bob")) == [
        ("memories", "bob"),
        ("memories", "bob", "work"),
    ]
    # what Studio does next: open a namespace (pinned to its user)
    assert [i.key for i in store.search(("memories", "bob"))] == ["b", "c"]
    assert [i.key for i in store.search(("memories",))] == []  # the shared tenant only


def test_cross_tenant_store_still_merges_users(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory, allow_cross_tenant=True)
    store.put(("memories", "alice"), "a", {"content": "x"})
    store.put(("memories", "bob"), "b", {"content": "y"})
    store.put(("memories",), "s", {"content": "z"})
    assert {i.key for i in store.search(("memories",))} == {"a", "b", "s"}
    assert len(store.list_namespaces()) == 3


def test_shared_tenant_must_be_a_valid_id(memory: PraxMemory) -> None:
    with pytest.raises(MemoryValidationError):
        PraxMemoryStore(memory, shared_tenant="")


# ----------------------------------------------------------------------- abatch


class _CountingStore(PraxMemoryStore):
    trips = 0

    def _run_batches(self, batches: Any) -> list[tuple[bool, Any]]:
        type(self).trips += 1
        return super()._run_batches(batches)


def test_concurrent_abatch_calls_are_coalesced(memory: PraxMemory) -> None:
    store = _CountingStore(memory)
    ns = ("memories", "alice")
    n = 200

    async def main() -> list[Any]:
        puts = [store.abatch([PutOp(ns, f"k{i}", {"content": f"item {i}"})]) for i in range(n)]
        await asyncio.gather(*puts)
        gets = [store.abatch([GetOp(ns, f"k{i}")]) for i in range(n)]
        bad = store.abatch([PutOp(("langgraph",), "x", {"content": "reserved"})])
        search = store.abatch([SearchOp(ns, limit=500)])
        return await asyncio.gather(*gets, bad, search, return_exceptions=True)

    results = asyncio.run(main())
    assert [r[0].value["content"] for r in results[:n]] == [f"item {i}" for i in range(n)]
    assert isinstance(results[n], MemoryValidationError)  # one batch's error is its own
    assert len(results[n + 1][0]) == n
    assert _CountingStore.trips <= 10, _CountingStore.trips  # not one thread hop per call


def test_abatch_keeps_arrival_order_between_batches(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory)
    ns = ("memories", "alice")

    async def main() -> list[Any]:
        return await asyncio.gather(
            store.abatch([PutOp(ns, "k", {"content": "first"})]),
            store.abatch([GetOp(ns, "k")]),
            store.abatch([PutOp(ns, "k", {"content": "second"})]),
            store.abatch([GetOp(ns, "k")]),
        )

    _, first, _, second = asyncio.run(main())
    assert first[0].value["content"] == "first"
    assert second[0].value["content"] == "second"


def test_listing_flag_opens_listings_only_and_one_label_reads_stay_shared(
    memory: PraxMemory,
) -> None:
    """``allow_cross_tenant_listing`` changes what a listing shows, never what a read returns.

    Under it a read of ``("memories",)`` or ``()`` still follows the one rule: it reads the
    shared tenant (the one-label namespace the listing shows as ``("memories",)``), never a
    user's items, and gives exactly what the default store gives.
    """
    plain = PraxMemoryStore(memory)
    admin = PraxMemoryStore(memory, allow_cross_tenant_listing=True)
    plain.put(("memories", "alice"), "pin", {"content": "alice PIN 1234", "kind": "pin"})
    plain.put(("memories", "bob"), "pin", {"content": "bob PIN 9876", "kind": "pin"})
    plain.put(("memories",), "faq", {"content": "PIN resets at the front desk", "kind": "pin"})
    plain.put(("chat",), "hello", {"content": "welcome to the PIN helpdesk"})

    def reads(store: PraxMemoryStore) -> list[list[tuple[tuple[str, ...], str]]]:
        out = []
        for prefix in [(), ("memories",), ("chat",)]:
            for kw in [{}, {"query": "PIN"}, {"filter": {"kind": "pin"}}, {"query": "1234"}]:
                out.append([(i.namespace, i.key) for i in store.search(prefix, **kw)])  # type: ignore[arg-type]
        return out

    seen = reads(admin)
    assert seen == reads(plain)  # the listing flag changes no read
    assert {item for found in seen for item in found} == {
        (("memories",), "faq"),
        (("chat",), "hello"),
    }  # the shared tenant's items only: no alice, no bob
    assert admin.get(("memories",), "faq") is not None
    assert admin.get(("memories",), "pin") is None  # alice's key is not in the shared tenant
    # the listing crosses tenants, and each namespace it shows reads back what it holds
    listed = admin.list_namespaces(prefix=("memories",))
    assert listed == [("memories",), ("memories", "alice"), ("memories", "bob")]
    assert [[i.key for i in admin.search(ns)] for ns in listed] == [["faq"], ["pin"], ["pin"]]
    assert plain.list_namespaces(prefix=("memories",)) == [("memories",)]
