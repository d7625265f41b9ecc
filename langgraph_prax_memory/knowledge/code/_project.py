"""A source tree as modules, and its modules as ``codebase`` concepts and relations."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.knowledge.models import (
    ConceptInput,
    RelationInput,
)

if TYPE_CHECKING:
    pass

from langgraph_prax_memory.knowledge.code._models import (
    _JS_EXTS,
    EXCLUDED_DIRS,
    FileStructure,
    FunctionInfo,
    ImportInfo,
    ModuleInfo,
    Project,
)
from langgraph_prax_memory.knowledge.code._parsing import (
    _parse,
    _python_module_name,
    _read_source,
    language_of,
)


def _source_files(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if d not in EXCLUDED_DIRS and not d.endswith(".egg-info")
        )
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if language_of(path) is not None and not path.is_symlink():
                yield path


def _js_module_name(rel: PurePosixPath) -> str:
    return str(rel.with_suffix(""))


def _resolve_python(
    module: ModuleInfo | FileStructure, imp: ImportInfo, known: set[str], is_package: bool
) -> list[tuple[str, bool]]:
    """``[(target, internal)]`` of one Python import."""
    spec = imp.module
    if spec.startswith("."):
        level = len(spec) - len(spec.lstrip("."))
        rest = spec.lstrip(".")
        parts = module.module.split(".")
        base_parts = parts if is_package else parts[:-1]
        if level > 1:
            base_parts = base_parts[: len(base_parts) - (level - 1)]
        base = ".".join(p for p in [*base_parts, rest] if p)
    else:
        base = spec
    targets: list[tuple[str, bool]] = []
    if imp.names:
        for name in imp.names:
            leaf = name.split(" as ")[0].strip()
            candidate = f"{base}.{leaf}" if base else leaf
            if candidate in known:
                targets.append((candidate, True))
    if targets:
        return targets
    probe = base
    while probe:
        if probe in known:
            return [(probe, True)]
        probe = probe.rpartition(".")[0]
    if not base:
        return []
    return [(base.split(".")[0], False)]


def _resolve_js(rel: PurePosixPath, spec: str, known: set[str]) -> tuple[str, bool]:
    if spec.startswith((".", "/")):
        target = os.path.normpath(str(rel.parent / spec)).replace(os.sep, "/")
        stripped = target
        for ext in _JS_EXTS:
            if stripped.endswith(ext):
                stripped = stripped[: -len(ext)]
                break
        for candidate in (stripped, f"{stripped}/index"):
            if candidate in known:
                return candidate, True
        return stripped, False
    parts = spec.split("/")
    return ("/".join(parts[:2]) if spec.startswith("@") else parts[0]), False


def analyse_project(root: str | Path) -> Project:
    """Parse every supported file under ``root`` and resolve imports between them.

    Python module names are dotted from the outermost package above each file (so
    ``langgraph_prax_memory/memory.py`` is ``langgraph_prax_memory.memory``); JS/TS modules
    are their path relative to ``root`` without the extension. Files that fail to parse are
    listed in ``errors``; dependency directories (``node_modules``, ``.venv``, …) are skipped.

    Example:
        >>> from pathlib import Path
        >>> import langgraph_prax_memory.knowledge as pkg
        >>> project = analyse_project(Path(pkg.__file__).parent)
        >>> "langgraph_prax_memory.knowledge.code" in project.by_name()
        True
    """
    base = Path(root).resolve()
    if not base.is_dir():
        raise MemoryValidationError(f"not a directory: {root}")
    raw: list[tuple[Path, str, bytes, str]] = []
    errors: list[tuple[str, str]] = []
    for path in _source_files(base):
        language = language_of(path)
        assert language is not None
        rel = PurePosixPath(path.relative_to(base).as_posix())
        try:
            data = _read_source(path)
        except (OSError, MemoryValidationError) as exc:
            errors.append((str(rel), str(exc)))
            continue
        name = _python_module_name(path) if language == "python" else _js_module_name(rel)
        raw.append((path, language, data, name))
    known = {name for *_, name in raw}
    modules: list[ModuleInfo] = []
    for path, language, data, name in raw:
        rel = PurePosixPath(path.relative_to(base).as_posix())
        try:
            doc, imports, classes, functions = _parse(data, language, name)
        except Exception as exc:  # a parser crash must not stop the whole project
            errors.append((str(rel), f"{type(exc).__name__}: {exc}"))
            continue
        structure = FileStructure(
            path=str(rel),
            language=language,
            module=name,
            lines=data.count(b"\n") + 1,
            docstring=doc,
            imports=imports,
            classes=classes,
            functions=functions,
        )
        internal: list[str] = []
        external: list[str] = []
        imported: dict[str, str] = {}
        for imp in imports:
            if language == "python":
                resolved = _resolve_python(structure, imp, known, path.stem == "__init__")
                for target, is_internal in resolved:
                    bucket = internal if is_internal else external
                    if target != name and target not in bucket:
                        bucket.append(target)
                module_base = resolved[0][0] if resolved else imp.module
                for n in imp.names:
                    leaf, _, alias = n.partition(" as ")
                    local = (alias or leaf).strip()
                    if local != "*":
                        imported[local] = f"{module_base}.{leaf.strip()}"
                if not imp.names:
                    local = imp.alias or imp.module.split(".")[0]
                    imported[local] = imp.module if imp.alias else imp.module.split(".")[0]
            else:
                target, is_internal = _resolve_js(rel, imp.module, known)
                bucket = internal if is_internal else external
                if target != name and target not in bucket:
                    bucket.append(target)
                for n in imp.names:
                    if n and n != "*":
                        imported[n] = f"{target}.{n}"
        modules.append(
            ModuleInfo(
                **structure.model_dump(),
                content_hash=hashlib.sha256(data).hexdigest(),
                internal_imports=internal,
                external_imports=external,
                imported_names=imported,
            )
        )
    return Project(root=str(base), modules=modules, errors=errors)


def _resolve_name(
    name: str, module: ModuleInfo, local: dict[str, str], defined: set[str], cls: str | None
) -> str | None:
    """The project definition a call/base name refers to, or ``None``."""
    head, _, tail = name.partition(".")
    candidates = []
    if head in ("self", "cls", "this") and cls and tail:
        candidates.append(f"{cls}.{tail}")
    candidates.append(f"{module.module}.{name}")
    if head in local:
        candidates.append(f"{local[head]}.{tail}" if tail else local[head])
    if head in module.imported_names:
        target = module.imported_names[head]
        candidates.append(f"{target}.{tail}" if tail else target)
    for c in candidates:
        if c in defined:
            return c
    return None


def module_concepts(
    project: Project, module: ModuleInfo
) -> tuple[list[ConceptInput], list[RelationInput]]:
    """The concepts and relations one module contributes to the ``codebase`` namespace."""
    defined = project.definitions()
    concepts: list[ConceptInput] = []
    relations: list[RelationInput] = []
    common: dict[str, Any] = {"source": module.path, "source_type": "code"}
    concepts.append(
        ConceptInput(
            name=module.module,
            display_name=module.module,
            description=module.docstring or f"{module.language} module {module.path}",
            kind="module",
            importance=0.6,
            tags=[module.language],
            properties={"path": module.path, "language": module.language, "lines": module.lines},
            **common,
        )
    )
    for target in module.internal_imports:
        relations.append(RelationInput(source=module.module, target=target, type="imports"))
    for target in module.external_imports:
        concepts.append(
            ConceptInput(
                name=target,
                description=f"external module {target}",
                kind="external_module",
                importance=0.3,
                source_type="code",
            )
        )
        relations.append(RelationInput(source=module.module, target=target, type="imports"))

    def add_function(fn: FunctionInfo, kind: str, owner: str, cls: str | None) -> None:
        signature = _signature(fn)
        concepts.append(
            ConceptInput(
                name=fn.qualified_name,
                display_name=fn.name,
                description=fn.docstring or signature,
                kind=kind,
                importance=0.5 if kind == "function" else 0.4,
                properties={
                    "path": module.path,
                    "line": fn.line,
                    "end_line": fn.end_line,
                    "signature": signature,
                    "decorators": fn.decorators,
                },
                **common,
            )
        )
        relations.append(RelationInput(source=owner, target=fn.qualified_name, type="defines"))
        for call in fn.calls:
            target = _resolve_name(call, module, {}, defined, cls)
            if target and target != fn.qualified_name:
                relations.append(
                    RelationInput(source=fn.qualified_name, target=target, type="calls")
                )

    for fn in module.functions:
        add_function(fn, "function", module.module, None)
    for cls in module.classes:
        concepts.append(
            ConceptInput(
                name=cls.qualified_name,
                display_name=cls.name,
                description=cls.docstring or f"{cls.kind} {cls.name}({', '.join(cls.bases)})",
                kind=cls.kind,
                importance=0.6,
                properties={
                    "path": module.path,
                    "line": cls.line,
                    "end_line": cls.end_line,
                    "bases": cls.bases,
                    "decorators": cls.decorators,
                },
                **common,
            )
        )
        relations.append(
            RelationInput(source=module.module, target=cls.qualified_name, type="defines")
        )
        for base in cls.bases:
            parent = _resolve_name(base, module, {}, defined, None)
            if parent and parent != cls.qualified_name:
                relations.append(
                    RelationInput(source=cls.qualified_name, target=parent, type="inherits")
                )
        for meth in cls.methods:
            add_function(meth, "method", cls.qualified_name, cls.qualified_name)
    return concepts, relations


def _signature(fn: FunctionInfo) -> str:
    return f"{'async ' if fn.is_async else ''}{fn.name}({', '.join(fn.params)})"
