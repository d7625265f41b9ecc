"""The records of code analysis (pydantic) and the languages and folders it reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    pass


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
