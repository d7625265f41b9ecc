from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

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


def test_the_root_is_small() -> None:
    assert len(langgraph_prax_memory.__all__) <= 25
    assert not [n for n in langgraph_prax_memory.__all__ if n.isupper()]  # no constants


@pytest.mark.parametrize("name", sorted(langgraph_prax_memory._MOVED))
def test_names_that_left_the_root_still_import_with_a_warning(name: str) -> None:
    home = langgraph_prax_memory._MOVED[name]
    assert name not in langgraph_prax_memory.__all__
    with pytest.warns(DeprecationWarning, match=home.replace(".", r"\.")):
        moved = getattr(langgraph_prax_memory, name)
    assert moved is getattr(importlib.import_module(home), name)


def test_an_unknown_root_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = langgraph_prax_memory.not_a_name  # type: ignore[attr-defined]


def public_modules() -> list[str]:
    """Every module of the package whose dotted path has no private part."""
    root = Path(langgraph_prax_memory.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(p.startswith("_") for p in parts[1:]) and parts[1:2] != ("cli",):
            found.append(".".join(parts))
    return found


@pytest.mark.parametrize("name", public_modules())
def test_every_public_module_has_a_tested_all(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, list | tuple), f"{name} has no __all__"
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"
    for item in exported:
        obj = getattr(module, item)  # every name resolves
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (obj.__doc__ or "").strip(), f"{name}.{item} has no docstring"
    constants = [n for n in exported if n.isupper() and not n.startswith("__")]
    assert constants == [], f"{name}.__all__ exports constants {constants}"
