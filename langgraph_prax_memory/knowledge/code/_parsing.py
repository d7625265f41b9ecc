"""Parsing one source file with tree-sitter: its imports, classes, functions and docstrings."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import tree_sitter
import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_typescript

from langgraph_prax_memory.errors import MemoryValidationError

if TYPE_CHECKING:
    pass

from langgraph_prax_memory.knowledge.code._models import (
    LANGUAGES,
    MAX_FILE_BYTES,
    ClassInfo,
    FileStructure,
    FunctionInfo,
    ImportInfo,
)


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
        >>> import langgraph_prax_memory.knowledge.code._parsing as parsing
        >>> s = code_structure(Path(parsing.__file__))
        >>> (s.language, s.module, "code_structure" in [f.name for f in s.functions])
        ('python', 'langgraph_prax_memory.knowledge.code._parsing', True)
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
