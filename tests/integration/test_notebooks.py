"""Every notebook runs top to bottom offline on the embedded defaults, with what
``pip install -e '.[notebooks]'`` installs (the extra is checked against the notebooks' imports).
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert [p.name for p in NOTEBOOKS] == [
        "01_quickstart.ipynb",
        "02_agent_with_memory.ipynb",
        "03_retriever_lcel.ipynb",
        "04_inside_the_graph.ipynb",
        "05_create_agent_middleware.ipynb",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    book = nbformat.read(path, as_version=4)
    client = NotebookClient(
        book,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    errors = [
        out
        for cell in book.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert errors == []


def _requirement_name(spec: str) -> str:
    return re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0].lower().replace("_", "-")


def test_the_notebooks_extra_installs_everything_the_notebooks_import() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    declared = {_requirement_name(r) for r in [*project["dependencies"], *extras["notebooks"]]}
    # running them: a kernel, and nbclient/nbformat for `jupyter execute` (what this test uses)
    assert {"ipykernel", "nbclient", "nbformat", "matplotlib"} <= declared
    # the dev extra pulls the notebooks extra in (the README's test command installs dev)
    own = [r for r in extras["dev"] if _requirement_name(r) == "langgraph-prax-memory"]
    assert own and "notebooks" in re.search(r"\[(.*?)\]", own[0]).group(1).split(",")  # type: ignore[union-attr]
    installed_by = packages_distributions()
    missing = {}
    for path in NOTEBOOKS:
        book = nbformat.read(path, as_version=4)
        for cell in book.cells:
            if cell.cell_type != "code":
                continue
            for node in ast.walk(ast.parse(cell.source)):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top in sys.stdlib_module_names or top == "langgraph_prax_memory":
                        continue
                    dists = {d.lower().replace("_", "-") for d in installed_by.get(top, [])}
                    if not dists & declared:
                        missing[f"{path.name}: {name}"] = sorted(dists)
    assert missing == {}
