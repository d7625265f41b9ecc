"""``AsyncPraxMemory`` has every method of ``PraxMemory``, with the same signature."""

from __future__ import annotations

import inspect

from langgraph_prax_memory import AsyncPraxMemory, PraxMemory

#: Built without awaiting on both faces: LangChain's VectorStore has both faces itself.
SAME_OBJECT = {"as_vectorstore"}


def public(cls: type) -> dict[str, object]:
    return {
        name: member
        for name, member in vars(cls).items()
        if not name.startswith("_") and (callable(member) or isinstance(member, property))
    }


def test_the_async_face_has_every_method() -> None:
    assert set(public(PraxMemory)) - set(public(AsyncPraxMemory)) == set()


def test_the_async_face_has_the_same_parts() -> None:
    for name in ("ltm", "parts", "stm", "notes", "graph", "vectors", "embeddings"):
        assert isinstance(getattr(AsyncPraxMemory, name), property), name
    assert "self.config = self.sync.config" in inspect.getsource(AsyncPraxMemory.__init__)


def test_the_constructors_take_the_same_arguments() -> None:
    assert inspect.signature(AsyncPraxMemory.__init__) == inspect.signature(PraxMemory.__init__)


def test_every_method_has_the_same_signature_and_is_a_coroutine() -> None:
    drift = []
    for name, member in public(PraxMemory).items():
        twin = public(AsyncPraxMemory)[name]
        if isinstance(member, property):
            assert isinstance(twin, property), name
            continue
        if name not in SAME_OBJECT:
            assert inspect.iscoroutinefunction(twin), f"{name} is not async"
        sync_sig, async_sig = inspect.signature(member), inspect.signature(twin)  # type: ignore[arg-type]
        if list(sync_sig.parameters.values()) != list(async_sig.parameters.values()):
            drift.append(f"{name}: {sync_sig} != {async_sig}")
    assert drift == []


def test_the_async_face_imports_from_the_facade_module_too() -> None:
    from langgraph_prax_memory import memory

    assert "AsyncPraxMemory" in memory.__all__
    assert memory.AsyncPraxMemory is AsyncPraxMemory
    assert AsyncPraxMemory.__module__ == "langgraph_prax_memory._async_memory"
