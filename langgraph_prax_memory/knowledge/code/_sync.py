"""Keeping the ``codebase`` knowledge namespace in step with a source tree."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

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
    from langgraph_prax_memory.knowledge._store import KnowledgeStore

from langgraph_prax_memory.knowledge.code._models import ModuleInfo, Project
from langgraph_prax_memory.knowledge.code._project import module_concepts


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
