#!/usr/bin/env python3
"""Report the package's import cycles, cross-package private imports and private reach-ins.

The baseline for issue 13 (the redesign): run ``python scripts/architecture_report.py`` from the
repository root. Every import counts, including deferred and ``TYPE_CHECKING`` ones, so a cycle
hidden by a function-level import is still reported. A reach-in is an attribute starting with one
underscore read on anything other than ``self`` or ``cls``.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

PKG = "langgraph_prax_memory"


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def private_owner(dotted: str) -> str | None:
    """The package that owns the first private segment of a dotted name, if any."""
    segments = dotted.split(".")
    for i, segment in enumerate(segments):
        if segment.startswith("_") and not segment.startswith("__"):
            return ".".join(segments[:i])
    return None


def scan(root: Path) -> tuple[dict[str, set[str]], set[tuple[str, str]], list[str]]:
    modules = {module_name(root, p): p for p in (root / PKG).rglob("*.py")}
    edges: dict[str, set[str]] = defaultdict(set)
    private: set[tuple[str, str]] = set()
    reach_ins: list[str] = []
    for name, path in modules.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parent = base[: len(base) - (node.level - 1)]
                    full = ".".join(parent + ([node.module] if node.module else []))
                else:
                    full = node.module or ""
                if not full.startswith(PKG):
                    continue
                for alias in node.names:
                    dotted = f"{full}.{alias.name}"
                    targets.append(dotted if dotted in modules else full)
                    owner = private_owner(dotted)
                    if owner is not None and not (name == owner or name.startswith(owner + ".")):
                        private.add((name, dotted))
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith(PKG)]
            elif (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                reach_ins.append(f"{name}:{node.lineno} {ast.unparse(node)[:60]}")
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules and target != name:
                    edges[name].add(target)
    for name in modules:
        edges.setdefault(name, set())
    return edges, private, reach_ins


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    edges, private, reach_ins = scan(root)
    found = cycles(edges)
    print(f"import cycles: {len(found)}")
    for component in found:
        print(f"  {len(component)} modules: {', '.join(component)}")
    print(f"cross-package private imports: {len(private)}")
    for importer, imported in sorted(private):
        print(f"  {importer} -> {imported}")
    print(f"private attribute reach-ins (not self/cls): {len(reach_ins)}")
    for line in reach_ins:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
