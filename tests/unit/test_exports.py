from __future__ import annotations

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
