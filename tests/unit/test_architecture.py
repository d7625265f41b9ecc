"""The package's shape, checked from its source (docs/architecture.md says why).

- no import cycle, counting every import (module level, inside functions, ``TYPE_CHECKING``);
- no package imports another package's private modules or names;
- no object reads another object's private attributes, except ones its own module defines;
- a module over 600 lines says at its top why it is one module;
- one write path and one ranked-search path for long-term memories.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import langgraph_prax_memory

ROOT = "langgraph_prax_memory"
PKG = Path(langgraph_prax_memory.__file__).parent
MAX_LINES = 600
#: Private attributes of third-party objects read on purpose, with the reason.
THIRD_PARTY_PRIVATE = {
    ("vectors/_client.py", "_client"): "qdrant-client: tell its local mode, set HTTP timeouts",
}
#: ``namedtuple`` API, whose names start with an underscore by design.
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make"}


@functools.cache
def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PKG.rglob("*.py")):
        parts = path.relative_to(PKG.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def is_package(name: str) -> bool:
    return modules()[name].name == "__init__.py"


@functools.cache
def tree(name: str) -> ast.Module:
    return ast.parse(modules()[name].read_text(encoding="utf-8"))


def resolve(name: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = name.split(".") if is_package(name) else name.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(name: str) -> list[tuple[str, list[str], int]]:
    """``(module, names, line)`` of every import of the package's own modules in ``name``."""
    found = []
    for node in ast.walk(tree(name)):
        if isinstance(node, ast.ImportFrom):
            target = resolve(name, node)
            if target == ROOT or target.startswith(ROOT + "."):
                found.append((target, [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(ROOT):
                    found.append((alias.name, [], node.lineno))
    return found


def edges(name: str) -> set[str]:
    out = set()
    for target, names, _ in imports(name):
        submodules = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules()]
        if submodules and len(submodules) == len(names):
            out.update(submodules)  # ``from pkg import submodule``: the submodule only
        elif target in modules():
            out.add(target)
            out.update(submodules)
    out.discard(name)
    return out


def owner(module: str) -> str | None:
    """The package whose private part ``module`` is (``ROOT`` for shared root helpers)."""
    parts = module.split(".")
    for i, part in enumerate(parts[1:], start=1):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def package_of(name: str) -> str:
    return name if is_package(name) else name.rsplit(".", 1)[0]


def inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_the_walk_sees_the_whole_package() -> None:
    assert {"langgraph_prax_memory.memory", "langgraph_prax_memory.ltm"} <= set(modules())
    assert "langgraph_prax_memory.ltm" in edges("langgraph_prax_memory.memory")
    assert owner("langgraph_prax_memory.vectors._plan") == "langgraph_prax_memory.vectors"
    assert owner("langgraph_prax_memory._validation") == ROOT


def test_no_import_cycle() -> None:
    graph = {m: edges(m) for m in modules()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    assert cycles == []


def test_no_module_below_the_facade_imports_it() -> None:
    above = {
        "memory",
        "_async_memory",
        "store",
        "cli",
        "inspector",
        "tools",
        "agents",
        "middleware",
        "context",
        "retriever",
    }
    for module in modules():
        if module.split(".")[1:2] and module.split(".")[1] in above | {"__init__"}:
            continue
        if module == ROOT:
            continue
        bad = {e for e in edges(module) if e.split(".")[1:2] and e.split(".")[1] in above}
        assert not bad, f"{module} imports {bad}"


def test_no_package_imports_another_packages_private_parts() -> None:
    found = []
    for module in modules():
        mine = package_of(module)
        for target, names, line in imports(module):
            home = owner(target)
            if home is not None and home != ROOT and not inside(mine, home):
                found.append(f"{module}:{line} imports {target}")
            for n in names:
                if not n.startswith("_") or n.startswith("__"):
                    continue
                if f"{target}.{n}" in modules():  # a private submodule: its package only
                    if not inside(mine, target):
                        found.append(f"{module}:{line} imports {target}.{n}")
                    continue
                # a private name: its own package only (root modules: root siblings only)
                home_pkg = package_of(target)
                if mine != home_pkg and (home_pkg == ROOT or not inside(mine, home_pkg)):
                    found.append(f"{module}:{line} imports {target}.{n}")
    assert found == []


def defined_private_names(module: str) -> set[str]:
    names = set()
    for node in ast.walk(tree(module)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if n.startswith("_")}


def test_no_reach_into_another_objects_private_attributes() -> None:
    found = []
    for module, path in modules().items():
        own = defined_private_names(module)
        rel = str(path.relative_to(PKG))
        for node in ast.walk(tree(module)):
            attr = None
            if isinstance(node, ast.Attribute):
                target = node.value
                if isinstance(target, ast.Name) and target.id in {"self", "cls"}:
                    continue
                attr = node.attr
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in {"getattr", "hasattr", "setattr"}
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                attr = node.args[1].value
            if not attr or not attr.startswith("_") or attr.startswith("__"):
                continue
            if attr in own or attr in NAMEDTUPLE_API or (rel, attr) in THIRD_PARTY_PRIVATE:
                continue
            found.append(f"{rel}:{node.lineno} reads {ast.unparse(node)}")
    assert found == []


def test_long_modules_say_why_they_are_one_module() -> None:
    long = set()
    unexplained = []
    for module, path in modules().items():
        lines = path.read_text(encoding="utf-8").count("\n")
        doc = ast.get_docstring(tree(module)) or ""
        if lines > MAX_LINES:
            long.add(module.removeprefix(ROOT + "."))
            if "Why one module:" not in doc:
                unexplained.append(f"{module} ({lines} lines)")
    assert unexplained == []
    assert long <= {"vectors._edge"}, "a new long module: split it rather than explain it"


def callers(pattern: str) -> set[str]:
    found = set()
    for module, path in modules().items():
        if re.search(pattern, path.read_text(encoding="utf-8")):
            found.add(module)
    return found


def test_one_write_path_for_long_term_memories() -> None:
    # the vector stores' own module defines upsert; the long-term memory is its one caller,
    # for memories and for knowledge concepts (their own collection) alike
    assert callers(r"\.upsert\(") - {f"{ROOT}.vectors._store", f"{ROOT}.vectors._edge"} == {
        f"{ROOT}.ltm"
    }


def test_one_ranked_search_path_for_long_term_memories() -> None:
    # recall's arms are the only hybrid ranking of memories, built by the long-term memory
    # alone; the store, the retriever, the tools and the context all call recall
    assert callers(r"\bRecaller\(") == {f"{ROOT}.ltm"}
    ranked = callers(r"\.recall_detailed\(|\.recall\(")
    doors = {"store._reads", "ltm", "retriever", "tools._ltm", "context", "vectorstore", "memory"}
    assert {f"{ROOT}.{d}" for d in doors} <= ranked
    arms = callers(r"\.search_dense\(|\.search_sparse\(|\.search_hybrid\(")
    arms -= {f"{ROOT}.vectors._store", f"{ROOT}.vectors._edge"}
    # consolidation's lookups are not rankings: superseded-fact candidates, near-duplicates,
    # the memories shown to the model (_candidates), the older values a new one replaces
    # (_classes); knowledge concepts are searched by the long-term memory's search_texts
    assert arms == {
        f"{ROOT}.retrieval._recaller",
        f"{ROOT}.consolidation._supersession",
        f"{ROOT}.consolidation._write",
        f"{ROOT}.consolidation._candidates",
        f"{ROOT}._classes",
        f"{ROOT}.ltm",
    }
