"""Loading documents (plain text, markdown, PDF) and cutting them into extraction chunks."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from langgraph_prax_memory._validation import check_unicode
from langgraph_prax_memory.errors import MemoryValidationError

__all__ = [
    "Chunk",
    "FolderPlan",
    "LoadedDocument",
    "chunk_text",
    "content_hash",
    "load_document",
    "plan_folder",
]

#: The extractor's per-call budget (the consolidation pipeline's ``EXTRACTION_CHAR_BUDGET``).
DEFAULT_CHUNK_CHARS = 4000
MAX_DOCUMENT_BYTES = 50 * 1024 * 1024
_MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdx", ".mdown"}
#: What a folder ingestion takes as a document: Markdown, plain text, reStructuredText, PDF.
DOCUMENT_SUFFIXES = frozenset({*_MARKDOWN_SUFFIXES, ".txt", ".text", ".rst", ".pdf"})
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class LoadedDocument:
    """A document's text and what it is."""

    text: str
    title: str
    source: str
    source_type: str
    """``text``, ``markdown`` or ``pdf``."""


@dataclass(frozen=True)
class Chunk:
    """A piece of a document within the extraction budget, with its heading path."""

    text: str
    headings: tuple[str, ...] = ()


def content_hash(text: str) -> str:
    r"""sha256 of the text with line endings and trailing spaces normalised.

    Example:
        >>> content_hash("a\r\nb  ") == content_hash("a\nb")
        True
    """
    norm = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip()
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


def _pdf_text(path: Path) -> tuple[str, str | None]:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
        meta = reader.metadata
        title = str(meta.title) if meta is not None and meta.title else None
    except (PyPdfError, OSError, ValueError) as exc:
        raise MemoryValidationError(f"cannot read the PDF {path.name}: {exc}") from exc
    return "\n\n".join(p.strip() for p in pages if p.strip()), title


def _markdown_title(text: str) -> str | None:
    for line in text.splitlines():
        m = _HEADING.match(line)
        if m:
            return m.group(2).strip()
    return None


def load_document(
    source: str | Path, *, title: str | None = None, source_type: str | None = None
) -> LoadedDocument:
    r"""Read a file (a ``Path``) or take ``source`` (a ``str``) as the document text.

    A ``str`` is always text, even when it happens to name a file: a path that reaches this
    function from a model or a request must not open files (``knowledge_ingest`` resolves files
    only under its explicit ``files_root`` and passes a ``Path``). ``.pdf`` files are read with
    pypdf, ``.md``/``.markdown`` as markdown, anything else as UTF-8 text. Raw text that has
    markdown headings is treated as markdown.

    Example:
        >>> doc = load_document("# Attention\nAttention weighs tokens.")
        >>> (doc.title, doc.source_type)
        ('Attention', 'markdown')
    """
    if isinstance(title, str):
        check_unicode(title, what="document title")
    if isinstance(source, Path):
        path = Path(source)
        if not path.is_file():
            raise MemoryValidationError(f"no such file: {path}")
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            raise MemoryValidationError(f"{path.name} is larger than {MAX_DOCUMENT_BYTES} bytes")
        suffix = path.suffix.lower()
        if suffix == ".pdf" or source_type == "pdf":
            text, meta_title = _pdf_text(path)
            kind = "pdf"
        else:
            text = path.read_bytes().decode("utf-8", errors="replace")
            meta_title = _markdown_title(text) if suffix in _MARKDOWN_SUFFIXES else None
            kind = "markdown" if suffix in _MARKDOWN_SUFFIXES else "text"
        if not text.strip():
            raise MemoryValidationError(f"{path.name} has no extractable text")
        return LoadedDocument(
            text=text,
            title=title or meta_title or path.stem,
            source=str(path),
            source_type=source_type or kind,
        )
    if not isinstance(source, str) or not source.strip():
        raise MemoryValidationError("a document must be non-empty text or a file path")
    if "\x00" in source:
        raise MemoryValidationError("document text must not contain NUL characters")
    check_unicode(source, what="document text")
    md_title = _markdown_title(source)
    first_line = source.strip().splitlines()[0][:80]
    return LoadedDocument(
        text=source,
        title=title or md_title or first_line,
        source=title or "",
        source_type=source_type or ("markdown" if md_title else "text"),
    )


@dataclass(frozen=True)
class FolderPlan:
    """What is in a folder, by content: source files, documents, and what neither (and why)."""

    root: Path
    code_files: list[Path] = field(default_factory=list)
    documents: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """``(path relative to root, reason)``; a skipped folder's path ends with ``/``."""


def plan_folder(root: str | Path) -> FolderPlan:
    """Sort a folder's files into source files, documents and the rest, without reading them.

    Source files are what :meth:`KnowledgeBase.ingest_codebase` parses (Python, JavaScript,
    TypeScript: :func:`~langgraph_prax_memory.knowledge.code.language_of`); documents are
    Markdown, text, reStructuredText and PDF files (:data:`DOCUMENT_SUFFIXES`). Everything
    else is skipped with a reason: the folders codebase ingestion never enters
    (``node_modules``, ``.venv``, ``.git``, ...), symbolic links, hidden files, documents over
    the size limit, and files of any other type.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "guide.md").write_text("# Guide")
        >>> _ = (folder / "logo.png").write_bytes(b"PNG")
        >>> plan = plan_folder(folder)
        >>> [p.name for p in plan.documents], plan.code_files, plan.skipped[0][0]
        (['guide.md'], [], 'logo.png')
    """
    from langgraph_prax_memory.knowledge.code import EXCLUDED_DIRS, language_of

    base = Path(root)
    if not base.is_dir():
        raise MemoryValidationError(f"not a directory: {root}")
    plan = FolderPlan(root=base)
    for dirpath, dirnames, filenames in os.walk(base):
        here = Path(dirpath)
        kept = []
        for d in sorted(dirnames):
            if d in EXCLUDED_DIRS or d.endswith(".egg-info"):
                rel = (here / d).relative_to(base).as_posix() + "/"
                plan.skipped.append((rel, "a dependency, build or tool folder (not read)"))
            else:
                kept.append(d)
        dirnames[:] = kept
        for name in sorted(filenames):
            path = here / name
            rel = path.relative_to(base).as_posix()
            suffix = path.suffix.lower()
            if path.is_symlink():
                plan.skipped.append((rel, "a symbolic link (not followed)"))
            elif language_of(path) is not None:
                plan.code_files.append(path)
            elif name.startswith("."):
                plan.skipped.append((rel, "a hidden file"))
            elif suffix in DOCUMENT_SUFFIXES:
                size = path.stat().st_size
                if size > MAX_DOCUMENT_BYTES:
                    plan.skipped.append((rel, f"larger than {MAX_DOCUMENT_BYTES} bytes"))
                elif size == 0:
                    plan.skipped.append((rel, "empty"))
                else:
                    plan.documents.append(path)
            else:
                kind = f"{suffix} file" if suffix else "file without an extension"
                plan.skipped.append(
                    (rel, f"a {kind}: not a document (Markdown, text, PDF) or source file")
                )
    return plan


def _split_long(text: str, limit: int) -> list[str]:
    """Split a paragraph over ``limit`` at sentence ends, then hard at ``limit``."""
    out: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > limit:
            if current:
                out.append(current)
                current = ""
            out.append(sentence[:limit])
            sentence = sentence[limit:]
        if current and len(current) + 1 + len(sentence) > limit:
            out.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        out.append(current)
    return out


def chunk_text(text: str, *, max_chars: int = DEFAULT_CHUNK_CHARS) -> list[Chunk]:
    r"""Cut text into chunks of at most ``max_chars``, following markdown sections.

    A chunk never spans two sections; each keeps the headings above it (``headings``), and
    the section heading line starts the chunk so the extractor sees it.

    Example:
        >>> [c.headings for c in chunk_text("# A\ntext\n## B\nmore")]
        [('A',), ('A', 'B')]
    """
    if max_chars < 200:
        raise MemoryValidationError("max_chars must be at least 200")
    sections: list[tuple[tuple[str, ...], list[str]]] = [((), [])]
    stack: list[tuple[int, str]] = []
    in_fence = False
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(line)
        if m:
            level, heading = len(m.group(1)), m.group(2).strip()
            stack = [(lv, h) for lv, h in stack if lv < level] + [(level, heading)]
            sections.append((tuple(h for _, h in stack), [line]))
        else:
            sections[-1][1].append(line)
    chunks: list[Chunk] = []
    for headings, lines in sections:
        body = "\n".join(lines).strip()
        if not body:
            continue
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
        current = ""
        for para in paragraphs:
            pieces = [para] if len(para) <= max_chars else _split_long(para, max_chars)
            for piece in pieces:
                if current and len(current) + 2 + len(piece) > max_chars:
                    chunks.append(Chunk(current, headings))
                    current = piece
                else:
                    current = f"{current}\n\n{piece}" if current else piece
        if current:
            chunks.append(Chunk(current, headings))
    return chunks
