"""Questions over a source tree: its import map (cycles, hubs) and definitions by name."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING

from langgraph_prax_memory.errors import MemoryValidationError

if TYPE_CHECKING:
    pass

from langgraph_prax_memory.knowledge.code._models import Definition, DependencyReport
from langgraph_prax_memory.knowledge.code._project import _signature, analyse_project


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components with a cycle (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = graph.get(node, [])
            if i < len(targets):
                work.append((node, i + 1))
                nxt = targets[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1 or node in graph.get(node, []):
                    out.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(out)


def code_dependencies(directory: str | Path, *, hubs: int = 10) -> DependencyReport:
    """The import map of a source tree: who imports whom, circular imports, hub files.

    Args:
        directory: The root of the tree.
        hubs: How many of the most-imported modules to list.

    Example:
        >>> from pathlib import Path
        >>> import langgraph_prax_memory as pkg
        >>> report = code_dependencies(Path(pkg.__file__).parent)
        >>> "langgraph_prax_memory.ltm" in report.imports["langgraph_prax_memory.memory"]
        True
    """
    project = analyse_project(directory)
    imports = {m.module: sorted(m.internal_imports) for m in project.modules}
    external = {m.module: sorted(m.external_imports) for m in project.modules if m.external_imports}
    counts: dict[str, int] = {}
    for targets in imports.values():
        for t in targets:
            counts[t] = counts.get(t, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:hubs]
    return DependencyReport(
        root=project.root,
        files=len(project.modules),
        imports=imports,
        external=external,
        cycles=_cycles(imports),
        hubs=top,
        errors=project.errors,
    )


def code_search_ast(name: str, directory: str | Path, *, limit: int = 50) -> list[Definition]:
    """Definitions (modules, classes, functions, methods) by name, not by text grep.

    ``name`` matches a simple name (``PraxMemory``), a qualified suffix
    (``PraxMemory.recall``), or a glob (``*Store``).

    Example:
        >>> from pathlib import Path
        >>> import langgraph_prax_memory as pkg
        >>> hits = code_search_ast("PraxMemory", Path(pkg.__file__).parent)
        >>> [(d.kind, d.qualified_name) for d in hits][:1]
        [('class', 'langgraph_prax_memory.memory.PraxMemory')]
    """
    if not isinstance(name, str) or not name.strip():
        raise MemoryValidationError("name must be a non-empty string")
    pattern = name.strip()
    glob = any(ch in pattern for ch in "*?[")

    def matches(simple: str, qualified: str) -> bool:
        if glob:
            return fnmatch.fnmatchcase(simple, pattern) or fnmatch.fnmatchcase(qualified, pattern)
        return simple == pattern or qualified == pattern or qualified.endswith("." + pattern)

    out: list[Definition] = []
    for module in analyse_project(directory).modules:
        if matches(module.module.rpartition(".")[2], module.module):
            out.append(
                Definition(
                    name=module.module.rpartition(".")[2],
                    qualified_name=module.module,
                    kind="module",
                    path=module.path,
                    line=1,
                    end_line=module.lines,
                )
            )
        funcs = [(f, "function") for f in module.functions]
        for cls in module.classes:
            if matches(cls.name, cls.qualified_name):
                out.append(
                    Definition(
                        name=cls.name,
                        qualified_name=cls.qualified_name,
                        kind=cls.kind,
                        path=module.path,
                        line=cls.line,
                        end_line=cls.end_line,
                        signature=f"{cls.kind} {cls.name}({', '.join(cls.bases)})",
                    )
                )
            funcs += [(m, "method") for m in cls.methods]
        for fn, kind in funcs:
            if matches(fn.name, fn.qualified_name):
                out.append(
                    Definition(
                        name=fn.name,
                        qualified_name=fn.qualified_name,
                        kind=kind,
                        path=module.path,
                        line=fn.line,
                        end_line=fn.end_line,
                        signature=_signature(fn),
                    )
                )
    order = {"class": 0, "interface": 0, "function": 1, "method": 2, "module": 3}
    out.sort(key=lambda d: (order.get(d.kind, 4), d.qualified_name))
    return out[:limit]
