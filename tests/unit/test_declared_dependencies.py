"""Every third-party module the package imports belongs to a dependency pyproject declares.

A module that arrives only as another package's dependency (``urllib3`` with qdrant-client,
``markupsafe`` with jinja2) works until that package drops it; declaring what we import keeps a
fresh install honest.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "langgraph_prax_memory"

#: Distributions installed by a declared one *and* versioned with it, importable under its name.
_SAME_PROJECT = {
    # langgraph's own sub-distributions (``langgraph.checkpoint``, ``langgraph.prebuilt``)
    "langgraph-checkpoint": "langgraph",
    "langgraph-prebuilt": "langgraph",
}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    names = set()
    for requirement in data["project"]["dependencies"]:
        names.add(_normal(re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0]))
    return names


def _imported_top_levels() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == PACKAGE.name:
                    continue
                found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_imported_module_is_declared() -> None:
    declared = _declared()
    owners = md.packages_distributions()
    missing = {}
    for top, files in _imported_top_levels().items():
        dists = {_normal(d) for d in owners.get(top, [])}
        assert dists, f"{top} is imported ({sorted(files)}) but no installed distribution has it"
        if not any(d in declared or _SAME_PROJECT.get(d) in declared for d in dists):
            missing[top] = (sorted(dists), sorted(files))
    assert not missing, f"imported but not declared in pyproject's dependencies: {missing}"


def test_the_check_sees_imports() -> None:
    # the scan finds the package's known direct imports (a scan that finds nothing passes vacuously)
    tops = _imported_top_levels()
    assert {"qdrant_client", "pydantic", "urllib3", "markupsafe", "pydantic_core"} <= set(tops)
