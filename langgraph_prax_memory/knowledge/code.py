"""Structural code analysis with tree-sitter (Python, JavaScript, TypeScript).

Three tools the Prax assistant had, as plain functions returning pydantic records:

* :func:`code_structure` — classes, functions, methods, imports and decorators of one file,
  without its whole text;
* :func:`code_dependencies` — the import map of a directory, circular imports, hub files;
* :func:`code_search_ast` — definitions by name (not a text grep).

:func:`analyse_project` + :func:`module_concepts` turn a source tree into concepts and
relations for the ``codebase`` knowledge namespace (``defines``, ``imports``, ``inherits``,
``calls``). Parsers come from the maintained per-language PyPI packages
(``tree-sitter-python``, ``tree-sitter-javascript``, ``tree-sitter-typescript``).
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from collections.abc import Iterator
from datetime import datetime
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import tree_sitter
import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_typescript
from pydantic import BaseModel, ConfigDict, Field

from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.knowledge.models import (
    ConceptInput,
    DocumentInput,
    KnowledgeStats,
    RelationInput,
    check_relation_type,
    concept_id,
    document_id,
    relation_id,
)

if TYPE_CHECKING:
    from langgraph_prax_memory.knowledge._protocol import KnowledgeStore

__all__ = [
    "CodebaseSync",
    "module_document",
    "sync_codebase",
    "ClassInfo",
    "Definition",
    "DependencyReport",
    "FileStructure",
    "FunctionInfo",
    "ImportInfo",
    "ModuleInfo",
    "Project",
    "analyse_project",
    "code_dependencies",
    "code_search_ast",
    "code_structure",
    "language_of",
    "module_concepts",
]

LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
}
EXCLUDED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".venv",
        "venv",
        "env",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "dist",
        "build",
        ".tox",
        ".neo4j",
    }
)
MAX_FILE_BYTES = 2 * 1024 * 1024
_JS_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class ImportInfo(_Model):
    """One import: ``module`` as written (``.`` prefixes for Python relative imports)."""

    module: str
    names: list[str] = Field(default_factory=list)
    alias: str | None = None
    line: int


class FunctionInfo(_Model):
    """A function or method definition."""

    name: str
    qualified_name: str
    line: int
    end_line: int
    params: list[str] = Field(default_factory=list)
    decorators: list[str] = Field(default_factory=list)
    is_async: bool = False
    docstring: str = ""
    calls: list[str] = Field(default_factory=list)


class ClassInfo(_Model):
    """A class (or TypeScript interface) definition."""

    name: str
    qualified_name: str
    kind: str = "class"
    line: int
    end_line: int
    bases: list[str] = Field(default_factory=list)
    decorators: list[str] = Field(default_factory=list)
    docstring: str = ""
    methods: list[FunctionInfo] = Field(default_factory=list)


class FileStructure(_Model):
    """The structure of one source file (``code_structure``)."""

    path: str
    language: str
    module: str
    lines: int
    docstring: str = ""
    imports: list[ImportInfo] = Field(default_factory=list)
    classes: list[ClassInfo] = Field(default_factory=list)
    functions: list[FunctionInfo] = Field(default_factory=list)


class ModuleInfo(FileStructure):
    """A file of a project, with its content hash and resolved imports."""

    content_hash: str
    internal_imports: list[str] = Field(default_factory=list)
    external_imports: list[str] = Field(default_factory=list)
    imported_names: dict[str, str] = Field(default_factory=dict)
    """Local name → qualified name it refers to (``from m import f as g`` → ``g: m.f``)."""


class Project(_Model):
    """Every parsed module of a source tree."""

    root: str
    modules: list[ModuleInfo]
    errors: list[tuple[str, str]] = Field(default_factory=list)

    def by_name(self) -> dict[str, ModuleInfo]:
        """Modules by (dotted or path-like) module name."""
        return {m.module: m for m in self.modules}

    def definitions(self) -> set[str]:
        """Every qualified name defined in the project (modules, classes, functions)."""
        out: set[str] = set()
        for m in self.modules:
            out.add(m.module)
            for f in m.functions:
                out.add(f.qualified_name)
            for c in m.classes:
                out.add(c.qualified_name)
                out.update(meth.qualified_name for meth in c.methods)
        return out


class DependencyReport(_Model):
    """The import graph of a directory (``code_dependencies``)."""

    root: str
    files: int
    imports: dict[str, list[str]]
    """Module → the project modules it imports."""
    external: dict[str, list[str]]
    """Module → the third-party / standard-library modules it imports."""
    cycles: list[list[str]]
    """Strongly connected groups of modules that import each other (circular imports)."""
    hubs: list[tuple[str, int]]
    """The most imported project modules with how many modules import them."""
    errors: list[tuple[str, str]] = Field(default_factory=list)


class Definition(_Model):
    """A definition found by name (``code_search_ast``)."""

    name: str
    qualified_name: str
    kind: str
    path: str
    line: int
    end_line: int
    signature: str = ""


# ----------------------------------------------------------------------------- parsing


@cache
def _parser(language: str) -> tree_sitter.Parser:
    if language == "python":
        capsule = tree_sitter_python.language()
    elif language == "javascript":
        capsule = tree_sitter_javascript.language()
    elif language == "typescript":
        capsule = tree_sitter_typescript.language_typescript()
    elif language == "tsx":
        capsule = tree_sitter_typescript.language_tsx()
    else:
        raise MemoryValidationError(f"unsupported language {language!r}")
    return tree_sitter.Parser(tree_sitter.Language(capsule))


def language_of(path: str | Path) -> str | None:
    """``python`` / ``javascript`` / ``typescript`` / ``tsx`` by file extension, else ``None``."""
    return LANGUAGES.get(Path(path).suffix.lower())


def _text(node: tree_sitter.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def _walk(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _first_line(text: str) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def _py_docstring(body: tree_sitter.Node | None) -> str:
    if body is None:
        return ""
    for child in body.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_children:
            first = child.named_children[0]
            if first.type == "string":
                raw = _text(first)
                for quote in ('"""', "'''", '"', "'"):
                    idx = raw.find(quote)
                    if idx >= 0 and raw.endswith(quote) and len(raw) >= idx + 2 * len(quote):
                        return _first_line(raw[idx + len(quote) : -len(quote)])
        return ""
    return ""


def _calls(body: tree_sitter.Node | None, call_type: str) -> list[str]:
    if body is None:
        return []
    out: list[str] = []
    for node in _walk(body):
        if node.type == call_type:
            fn = node.child_by_field_name("function")
            if fn is not None and fn.type in (
                "identifier",
                "attribute",
                "member_expression",
            ):
                name = _text(fn)
                if len(name) <= 200 and name not in out:
                    out.append(name)
    return out


class _PythonReader:
    def __init__(self, module: str) -> None:
        self.module = module

    def read(
        self, root: tree_sitter.Node
    ) -> tuple[str, list[ImportInfo], list[ClassInfo], list[FunctionInfo]]:
        imports = self._imports(root)
        classes: list[ClassInfo] = []
        functions: list[FunctionInfo] = []
        for child in root.named_children:
            node, decorators = self._undecorate(child)
            if node.type == "class_definition":
                classes.append(self._class(node, decorators))
            elif node.type == "function_definition":
                functions.append(self._function(node, decorators, self.module))
        return _py_docstring(root), imports, classes, functions

    @staticmethod
    def _undecorate(node: tree_sitter.Node) -> tuple[tree_sitter.Node, list[str]]:
        if node.type != "decorated_definition":
            return node, []
        decorators = [
            _text(d).lstrip("@").strip()[:200] for d in node.children if d.type == "decorator"
        ]
        inner = node.child_by_field_name("definition")
        return (inner if inner is not None else node), decorators

    def _imports(self, root: tree_sitter.Node) -> list[ImportInfo]:
        out: list[ImportInfo] = []
        for node in _walk(root):
            line = node.start_point[0] + 1
            if node.type == "import_statement":
                for name in node.children_by_field_name("name"):
                    if name.type == "aliased_import":
                        out.append(
                            ImportInfo(
                                module=_text(name.child_by_field_name("name")),
                                alias=_text(name.child_by_field_name("alias")) or None,
                                line=line,
                            )
                        )
                    else:
                        out.append(ImportInfo(module=_text(name), line=line))
            elif node.type == "import_from_statement":
                module = _text(node.child_by_field_name("module_name")).replace(" ", "")
                names = []
                for name in node.children_by_field_name("name"):
                    if name.type == "aliased_import":
                        names.append(
                            f"{_text(name.child_by_field_name('name'))} as "
                            f"{_text(name.child_by_field_name('alias'))}"
                        )
                    else:
                        names.append(_text(name))
                if any(c.type == "wildcard_import" for c in node.children):
                    names.append("*")
                out.append(ImportInfo(module=module, names=names, line=line))
        return out

    def _function(self, node: tree_sitter.Node, decorators: list[str], prefix: str) -> FunctionInfo:
        name = _text(node.child_by_field_name("name"))
        params_node = node.child_by_field_name("parameters")
        params = []
        if params_node is not None:
            for p in params_node.named_children:
                if p.type == "comment":
                    continue
                ident = p.child_by_field_name("name") if p.type != "identifier" else p
                text = _text(ident) if ident is not None else _text(p)
                params.append(text.split(":")[0].split("=")[0].strip()[:100])
        body = node.child_by_field_name("body")
        return FunctionInfo(
            name=name,
            qualified_name=f"{prefix}.{name}",
            line=node.start_point[0] + 1,
            end_line=node.end_point[0] + 1,
            params=params,
            decorators=decorators,
            is_async=any(c.type == "async" for c in node.children),
            docstring=_py_docstring(body),
            calls=_calls(body, "call"),
        )

    def _class(self, node: tree_sitter.Node, decorators: list[str]) -> ClassInfo:
        name = _text(node.child_by_field_name("name"))
        qualified = f"{self.module}.{name}"
        supers = node.child_by_field_name("superclasses")
        bases = [
            _text(b)
            for b in (supers.named_children if supers is not None else [])
            if b.type in ("identifier", "attribute")
        ]
        body = node.child_by_field_name("body")
        methods = []
        for child in body.named_children if body is not None else []:
            inner, decos = self._undecorate(child)
            if inner.type == "function_definition":
                methods.append(self._function(inner, decos, qualified))
        return ClassInfo(
            name=name,
            qualified_name=qualified,
            line=node.start_point[0] + 1,
            end_line=node.end_point[0] + 1,
            bases=bases,
            decorators=decorators,
            docstring=_py_docstring(body),
            methods=methods,
        )


def _js_comment_before(node: tree_sitter.Node) -> str:
    prev = node.prev_named_sibling
    if prev is not None and prev.type == "comment" and prev.end_point[0] + 1 >= node.start_point[0]:
        text = _text(prev).strip()
        if text.startswith("/**"):
            lines = [ln.strip().lstrip("*").strip() for ln in text[3:-2].splitlines()]
            return _first_line("\n".join(ln for ln in lines if not ln.startswith("@")))
    return ""


class _JsReader:
    def __init__(self, module: str) -> None:
        self.module = module

    def read(
        self, root: tree_sitter.Node
    ) -> tuple[str, list[ImportInfo], list[ClassInfo], list[FunctionInfo]]:
        imports: list[ImportInfo] = []
        for node in _walk(root):
            line = node.start_point[0] + 1
            if node.type in ("import_statement", "export_statement"):
                source = node.child_by_field_name("source")
                if source is not None:
                    names = []
                    for n in _walk(node):
                        if n.type in ("import_specifier", "export_specifier"):
                            names.append(_text(n.child_by_field_name("name")))
                        elif n.type == "namespace_import":
                            names.append("*")
                    clause = next((c for c in node.children if c.type == "import_clause"), None)
                    if clause is not None:
                        names += [_text(c) for c in clause.children if c.type == "identifier"]
                    imports.append(
                        ImportInfo(module=_text(source).strip("'\"`"), names=names, line=line)
                    )
            elif node.type == "call_expression":
                fn = node.child_by_field_name("function")
                args = node.child_by_field_name("arguments")
                if (
                    fn is not None
                    and _text(fn) in ("require", "import")
                    and args is not None
                    and args.named_children
                    and args.named_children[0].type == "string"
                ):
                    imports.append(
                        ImportInfo(module=_text(args.named_children[0]).strip("'\"`"), line=line)
                    )
        classes: list[ClassInfo] = []
        functions: list[FunctionInfo] = []
        for child in root.named_children:
            node = child
            if node.type == "export_statement":
                decl = node.child_by_field_name("declaration")
                if decl is None:
                    decl = next(
                        (c for c in node.named_children if c.type.endswith("declaration")), None
                    )
                if decl is None:
                    continue
                node = decl
            doc = _js_comment_before(child)
            outer = [
                _text(c).lstrip("@").strip()[:200] for c in child.children if c.type == "decorator"
            ]
            if node.type in (
                "class_declaration",
                "abstract_class_declaration",
                "interface_declaration",
            ):
                classes.append(self._class(node, doc, outer if node is not child else []))
            elif node.type in ("function_declaration", "generator_function_declaration"):
                functions.append(self._function(node, self.module, doc))
            elif node.type in ("lexical_declaration", "variable_declaration"):
                for decl in node.named_children:
                    value = decl.child_by_field_name("value")
                    if (
                        decl.type == "variable_declarator"
                        and value is not None
                        and value.type
                        in (
                            "arrow_function",
                            "function_expression",
                            "function",
                        )
                    ):
                        functions.append(
                            self._function(
                                value, self.module, doc, name_node=decl.child_by_field_name("name")
                            )
                        )
        return "", imports, classes, functions

    def _function(
        self,
        node: tree_sitter.Node,
        prefix: str,
        doc: str,
        *,
        name_node: tree_sitter.Node | None = None,
        decorators: list[str] | None = None,
    ) -> FunctionInfo:
        name = _text(name_node or node.child_by_field_name("name")) or "<anonymous>"
        params_node = node.child_by_field_name("parameters") or node.child_by_field_name(
            "parameter"
        )
        params = []
        if params_node is not None:
            items = params_node.named_children if params_node.named_children else [params_node]
            for p in items:
                pattern = p.child_by_field_name("pattern")
                params.append(_text(pattern if pattern is not None else p).split(":")[0][:100])
        body = node.child_by_field_name("body")
        return FunctionInfo(
            name=name,
            qualified_name=f"{prefix}.{name}",
            line=node.start_point[0] + 1,
            end_line=node.end_point[0] + 1,
            params=params,
            decorators=decorators or [],
            is_async=any(c.type == "async" for c in node.children),
            docstring=doc,
            calls=_calls(body, "call_expression"),
        )

    def _class(self, node: tree_sitter.Node, doc: str, outer: list[str]) -> ClassInfo:
        name = _text(node.child_by_field_name("name"))
        qualified = f"{self.module}.{name}"
        bases: list[str] = []
        for child in node.children:
            if child.type == "class_heritage":
                for n in _walk(child):
                    if n.type == "extends_clause":
                        value = n.child_by_field_name("value")
                        bases.append(
                            _text(value if value is not None else n).removeprefix("extends").strip()
                        )
                if not bases and child.named_children:
                    bases.append(_text(child.named_children[0]))
            elif child.type == "extends_type_clause":
                bases += [_text(c) for c in child.named_children]
        decorators = outer + [
            _text(c).lstrip("@").strip()[:200] for c in node.children if c.type == "decorator"
        ]
        body = node.child_by_field_name("body")
        methods = []
        for member in body.named_children if body is not None else []:
            if member.type == "method_definition":
                member_decos = [
                    _text(c).lstrip("@").strip()[:200]
                    for c in member.children
                    if c.type == "decorator"
                ]
                methods.append(
                    self._function(
                        member, qualified, _js_comment_before(member), decorators=member_decos
                    )
                )
        return ClassInfo(
            name=name,
            qualified_name=qualified,
            kind="interface" if node.type == "interface_declaration" else "class",
            line=node.start_point[0] + 1,
            end_line=node.end_point[0] + 1,
            bases=bases,
            decorators=decorators,
            docstring=doc,
            methods=methods,
        )


def _parse(
    data: bytes, language: str, module: str
) -> tuple[str, list[ImportInfo], list[ClassInfo], list[FunctionInfo]]:
    tree = _parser(language).parse(data)
    if language == "python":
        return _PythonReader(module).read(tree.root_node)
    return _JsReader(module).read(tree.root_node)


def _python_module_name(path: Path) -> str:
    """Dotted name of a Python file from the outermost package (``__init__.py``) above it."""
    parts = [] if path.stem == "__init__" else [path.stem]
    parent = path.parent
    while (parent / "__init__.py").is_file():
        parts.insert(0, parent.name)
        if parent.parent == parent:
            break
        parent = parent.parent
    return ".".join(parts) or path.stem


def _read_source(path: Path) -> bytes:
    if not path.is_file():
        raise MemoryValidationError(f"no such file: {path}")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise MemoryValidationError(f"{path.name} is larger than {MAX_FILE_BYTES} bytes")
    return path.read_bytes()


def code_structure(path: str | Path) -> FileStructure:
    """Classes, functions, methods, imports and decorators of one source file.

    Args:
        path: A ``.py`` / ``.js`` / ``.jsx`` / ``.ts`` / ``.tsx`` file.

    Returns:
        The file's structure with line numbers and first docstring lines, not its text.

    Example:
        >>> from pathlib import Path
        >>> import langgraph_prax_memory.knowledge.code as code
        >>> s = code_structure(Path(code.__file__))
        >>> (s.language, s.module, "code_structure" in [f.name for f in s.functions])
        ('python', 'langgraph_prax_memory.knowledge.code', True)
    """
    p = Path(path)
    language = language_of(p)
    if language is None:
        raise MemoryValidationError(
            f"{p.name}: unsupported file type (supported: {sorted(set(LANGUAGES))})"
        )
    data = _read_source(p)
    module = _python_module_name(p.resolve()) if language == "python" else p.stem
    doc, imports, classes, functions = _parse(data, language, module)
    return FileStructure(
        path=str(p),
        language=language,
        module=module,
        lines=data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1),
        docstring=doc,
        imports=imports,
        classes=classes,
        functions=functions,
    )


# ----------------------------------------------------------------------------- projects


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


def module_document(module: ModuleInfo) -> DocumentInput:
    """The ``KnowledgeDocument`` of one source file (its content hash is its identity)."""
    return DocumentInput(
        title=module.path,
        content_hash=module.content_hash,
        source=module.path,
        source_type="code",
        chunks=1,
        properties={"language": module.language, "module": module.module},
    )


class CodebaseSync(BaseModel):
    """What :func:`sync_codebase` changed after the per-file writes of a re-ingestion."""

    pruned: KnowledgeStats = Field(default_factory=KnowledgeStats)
    pruned_concept_ids: list[str] = Field(default_factory=list)
    """Concepts removed (their vectors are to be removed too)."""
    written_concept_ids: list[str] = Field(default_factory=list)
    """Concepts of unchanged files written because other files changed (to be indexed)."""
    relations_written: int = 0


def sync_codebase(
    store: KnowledgeStore,
    user_id: str,
    namespace: str,
    project: Project,
    *,
    now: datetime | None = None,
) -> CodebaseSync:
    """Make ``namespace`` hold exactly what ``project`` defines now.

    Run after the changed files were written. Removes the documents of files that are gone or
    changed, the code concepts no file defines any more (a deleted file's module, classes and
    functions, an external module nothing imports) with their relations, provenance and
    entity links, and the relations no file states any more (so ``dependents()`` forgets a
    deleted importer). An unchanged file whose relations changed because another file did
    (``import b`` once ``b.py`` is deleted points at the external ``b``) gets what it lacks.
    Concepts of another kind (``source_type`` not ``code``) in the namespace are left alone.

    Example:
        >>> # kb.ingest_codebase(user, root) calls it; the result is in IngestResult.warnings
    """
    expected_concepts: dict[str, tuple[ConceptInput, ModuleInfo]] = {}
    expected_relations: dict[str, tuple[RelationInput, ModuleInfo]] = {}
    expected_docs: set[str] = set()
    for module in project.modules:
        concepts, relations = module_concepts(project, module)
        for c in concepts:
            expected_concepts.setdefault(concept_id(user_id, namespace, c.name), (c, module))
        for r in relations:
            rid = relation_id(
                concept_id(user_id, namespace, r.source),
                concept_id(user_id, namespace, r.target),
                check_relation_type(r.type),
            )
            expected_relations.setdefault(rid, (r, module))
        expected_docs.add(document_id(user_id, namespace, module.content_hash))
    endpoints = {
        concept_id(user_id, namespace, end)
        for r, _ in expected_relations.values()
        for end in (r.source, r.target)
    }
    existing = []
    after: str | None = None
    while True:
        page = store.list_concepts(user_id, namespace, limit=1000, after_id=after)
        if not page:
            break
        existing += page
        after = page[-1].id
    code_ids = {c.id for c in existing if c.source_type in ("code", "")}
    have = {c.id for c in existing}
    stale_concepts = sorted(code_ids - set(expected_concepts) - endpoints)
    rels = store.get_relations(user_id, namespace, limit=100_000)
    have_rels = {r.id for r in rels}
    stale_relations = sorted(
        r.id
        for r in rels
        if r.id not in expected_relations and (r.source_id in code_ids or r.target_id in code_ids)
    )
    docs = store.list_documents(user_id, namespace, limit=100_000)
    stale_docs = sorted(d.id for d in docs if d.source_type == "code" and d.id not in expected_docs)
    out = CodebaseSync()
    missing: dict[str, tuple[list[ConceptInput], list[RelationInput], ModuleInfo]] = {}
    for cid, (c, module) in expected_concepts.items():
        if cid not in have:
            missing.setdefault(module.path, ([], [], module))[0].append(c)
    for rid, (r, module) in expected_relations.items():
        if rid not in have_rels:
            missing.setdefault(module.path, ([], [], module))[1].append(r)
    for concepts, relations, module in missing.values():
        result = store.write_batch(
            user_id, namespace, concepts, relations, document=module_document(module), now=now
        )
        out.written_concept_ids += [c.id for c in result.concepts]
        out.relations_written += len(result.relations)
    if stale_concepts or stale_relations or stale_docs:
        out.pruned = store.delete_items(
            user_id,
            namespace,
            concepts=stale_concepts,
            relations=stale_relations,
            documents=stale_docs,
        )
        out.pruned_concept_ids = stale_concepts
    return out
