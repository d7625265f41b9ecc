"""Ingesting a folder by what it holds: its source tree as a codebase, its documents."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Protocol

from langgraph_prax_memory._progress import ProgressCallback
from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.knowledge.documents import plan_folder
from langgraph_prax_memory.knowledge.models import (
    FolderIngestResult,
    IngestResult,
    SkippedFile,
    check_namespace,
)


class _Ingests(Protocol):
    def ingest_document(
        self,
        user_id: str,
        source: str | Path,
        namespace: str = ...,
        *,
        now: datetime | None = ...,
        progress: ProgressCallback | None = ...,
    ) -> IngestResult: ...

    def ingest_codebase(
        self,
        user_id: str,
        root: str | Path,
        namespace: str = ...,
        *,
        now: datetime | None = ...,
        progress: ProgressCallback | None = ...,
    ) -> IngestResult: ...


def ingest_folder(
    kb: _Ingests,
    user_id: str,
    root: str | Path,
    namespace: str | None = None,
    *,
    now: datetime | None = None,
    progress: ProgressCallback | None = None,
) -> FolderIngestResult:
    """Ingest a folder by what it holds: ``KnowledgeBase.ingest_folder(user_id, root, ...)``.

    The folder is sorted by :func:`~langgraph_prax_memory.knowledge.documents.plan_folder`:
    if it has Python, JavaScript or TypeScript files, ``ingest_codebase`` runs on it
    (namespace ``namespace`` or ``"codebase"``); each Markdown, text or PDF file is ingested
    with ``ingest_document`` (namespace ``namespace`` or ``"uploads"``; unchanged ones are
    skipped by content hash). A document that cannot be read (no extractable text, a broken
    PDF) joins ``skipped`` with the reason, as do files of other types and the folders
    codebase ingestion never enters. Nothing is raised for an empty result: check
    ``found_nothing``.
    """
    check_user_id(user_id)
    if namespace is not None:
        check_namespace(namespace)
    plan = plan_folder(root)
    skipped = [SkippedFile(path=path, reason=reason) for path, reason in plan.skipped]
    codebase = None
    if plan.code_files:
        codebase = kb.ingest_codebase(
            user_id, root, namespace or "codebase", now=now, progress=progress
        )
    documents: dict[str, IngestResult] = {}
    for path in plan.documents:
        rel = path.relative_to(plan.root).as_posix()
        try:
            documents[rel] = kb.ingest_document(
                user_id, path, namespace or "uploads", now=now, progress=progress
            )
        except MemoryValidationError as exc:
            skipped.append(SkippedFile(path=rel, reason=str(exc)))
    return FolderIngestResult(
        root=str(root), codebase=codebase, documents=documents, skipped=skipped
    )
