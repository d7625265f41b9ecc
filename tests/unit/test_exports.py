from __future__ import annotations

import importlib

import langgraph_prax_memory


def test_every_public_name_is_importable_and_documented() -> None:
    for name in langgraph_prax_memory.__all__:
        obj = getattr(langgraph_prax_memory, name)
        if name != "__version__":
            assert (obj.__doc__ or "").strip(), f"{name} has no docstring"


def test_all_is_exactly_the_public_surface() -> None:
    public = {n for n in dir(langgraph_prax_memory) if not n.startswith("_")}
    modules = {n for n in public if type(getattr(langgraph_prax_memory, n)).__name__ == "module"}
    assert public - modules == set(langgraph_prax_memory.__all__) - {"__version__"}


def test_importing_reads_no_configuration(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("MEMORY_STM_MAX_ENTRIES", "not-a-number")
    importlib.reload(langgraph_prax_memory)  # a bad env value only matters when a config is built
