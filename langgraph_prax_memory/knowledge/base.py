"""``KnowledgeBase``: the world-knowledge service over a :class:`PraxMemory`'s backends.

It wires the memory's graph backend (SQLite file or Neo4j driver), Qdrant client and
embedders into a :class:`KnowledgeStore` plus the ``prax_knowledge_concepts`` vector
collection, and offers ingestion (documents, codebases), hybrid search, cross-links to memory
entities and OKF interchange.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from langgraph_prax_memory._parts import HasParts, MemoryParts, parts_of
from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._validation import check_limit, check_text, check_user_id
from langgraph_prax_memory.errors import BackendUnavailable, ConfigError, PraxMemoryError
from langgraph_prax_memory.graph import (
    AsyncNeo4jGraphStore,
    GraphStore,
    Neo4jGraphStore,
    SQLiteGraphStore,
)
from langgraph_prax_memory.knowledge import code as code_mod
from langgraph_prax_memory.knowledge import okf as okf_mod
from langgraph_prax_memory.knowledge._folder import ingest_folder
from langgraph_prax_memory.knowledge._rows import valid_concepts, valid_relations
from langgraph_prax_memory.knowledge._store import KnowledgeStore
from langgraph_prax_memory.knowledge._terms import exact_key
from langgraph_prax_memory.knowledge.documents import (
    DEFAULT_CHUNK_CHARS,
    chunk_text,
    content_hash,
    load_document,
)
from langgraph_prax_memory.knowledge.extract import (
    ConceptExtraction,
    ConceptExtractionError,
    ConceptExtractor,
    LLMConceptExtractor,
    RuleBasedConceptExtractor,
)
from langgraph_prax_memory.knowledge.models import (
    ConceptHit,
    ConceptInput,
    DocumentInput,
    FolderIngestResult,
    IngestResult,
    KnowledgeConcept,
    KnowledgeRelation,
    KnowledgeSearchResult,
    KnowledgeStats,
    NamespaceInfo,
    RelationInput,
    check_namespace,
    document_id,
)
from langgraph_prax_memory.knowledge.neo4j import Neo4jKnowledgeStore
from langgraph_prax_memory.knowledge.sqlite import SQLiteKnowledgeStore
from langgraph_prax_memory.knowledge.vectors import KnowledgeVectors
from langgraph_prax_memory.retrieval import fuse

__all__ = ["KnowledgeBase", "create_knowledge_store"]

logger = logging.getLogger(__name__)
_MAX_K = 100


def create_knowledge_store(graph: GraphStore) -> KnowledgeStore:
    """The knowledge store living in the same backend as ``graph``.

    SQLite: the same database file and connection. Neo4j: the same driver (connection pool).

    Example:
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> type(create_knowledge_store(SQLiteGraphStore(":memory:"))).__name__
        'SQLiteKnowledgeStore'
    """
    if isinstance(graph, SQLiteGraphStore):
        return SQLiteKnowledgeStore(graph)
    if isinstance(graph, Neo4jGraphStore):
        return Neo4jKnowledgeStore(graph)
    if isinstance(graph, AsyncNeo4jGraphStore):
        raise ConfigError("use AsyncNeo4jKnowledgeStore for an async Neo4j graph store")
    raise ConfigError(f"no knowledge store for graph backend {type(graph).__name__}")


class KnowledgeBase:
    r"""The world-knowledge namespace of a :class:`~langgraph_prax_memory.PraxMemory`.

    Concepts live in the memory's graph backend under their own labels / tables, their
    embeddings in the ``prax_knowledge_concepts`` collection of the memory's Qdrant client.
    Nothing here is visible to memory recall or entity lookup.

    Args:
        memory: The memory whose graph, vector client and embedders to share.
        chat_model: A (cheap) chat model for concept extraction; without one, ingestion
            uses the rule-based extractor offline.
        extractor: A custom :class:`ConceptExtractor` (overrides ``chat_model``).
        store: A knowledge store to use instead of the one next to ``parts.graph``.
        hybrid: Semantic arm on (default: ``config.knowledge_hybrid_enabled``, the
            ``KNOWLEDGE_HYBRID_ENABLED`` setting, on unless set false). Off or unavailable →
            keyword-only search.
        chunk_chars: Extraction chunk size.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> import tempfile
        >>> config = MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp())
        >>> mem = PraxMemory(config)
        >>> kb = KnowledgeBase(mem)
        >>> result = kb.ingest_document("u1", "# RRF\nReciprocal Rank Fusion combines rankings.",
        ...                             namespace="papers")
        >>> [h.concept.display_name for h in kb.search("u1", "rank fusion", k=1)]
        ['Reciprocal Rank Fusion']
        >>> _ = kb.delete_user("u1"); mem.close()
    """

    def __init__(
        self,
        memory: MemoryParts | HasParts,
        *,
        chat_model: BaseChatModel | None = None,
        extractor: ConceptExtractor | None = None,
        store: KnowledgeStore | None = None,
        hybrid: bool | None = None,
        chunk_chars: int = DEFAULT_CHUNK_CHARS,
    ) -> None:
        parts = parts_of(memory)
        #: The parts of the memory whose graph, vector client and embedders are shared.
        self.parts = parts
        self.store: KnowledgeStore = store or create_knowledge_store(parts.graph)
        self.rule_extractor = RuleBasedConceptExtractor()
        if extractor is not None:
            self.extractor: ConceptExtractor = extractor
        elif chat_model is not None:
            self.extractor = LLMConceptExtractor(chat_model)
        else:
            self.extractor = self.rule_extractor
        self.chunk_chars = chunk_chars
        if hybrid is None:
            hybrid = parts.config.knowledge_hybrid_enabled
        self.vectors: KnowledgeVectors | None = None
        if hybrid:
            try:
                # the long-term memory's client and breaker, write path and hybrid search
                self.vectors = KnowledgeVectors(parts.ltm)
            except BackendUnavailable as exc:
                logger.warning("knowledge search is keyword-only: %s", exc)

    # ------------------------------------------------------------------ vectors

    def _index(self, user_id: str, concepts: Sequence[KnowledgeConcept]) -> tuple[int, str | None]:
        if self.vectors is None or not concepts:
            return 0, None if self.vectors is not None else "vector search disabled"
        try:
            return self.vectors.index(user_id, concepts), None
        except PraxMemoryError as exc:
            logger.warning(
                "indexing %d concept(s) failed (%s); they are stored in the graph and "
                "reindex_user_concepts() will backfill them",
                len(concepts),
                exc,
            )
            return 0, str(exc)

    def reindex_user_concepts(self, user_id: str, *, namespace: str | None = None) -> int:
        """Backfill the vectors of a user's concepts (those written before, or while down).

        A no-op returning 0 when the vector side is unavailable.

        Example:
            >>> # kb.reindex_user_concepts("u1")  -> number of concepts indexed
        """
        check_user_id(user_id)
        if self.vectors is None:
            return 0
        total = 0
        after: str | None = None
        while True:
            page = self.store.list_concepts(user_id, namespace, limit=512, after_id=after)
            if not page:
                return total
            try:
                total += self.vectors.index(user_id, page)
            except PraxMemoryError as exc:
                logger.warning("reindex_user_concepts stopped: %s", exc)
                return total
            after = page[-1].id

    # ------------------------------------------------------------------ ingestion

    def _extract(self, text: str, headings: tuple[str, ...]) -> tuple[ConceptExtraction, bool]:
        try:
            return self.extractor.extract(text, headings=headings), False
        except ConceptExtractionError as exc:
            logger.warning("concept extraction failed, using the rule-based one: %s", exc)
            return self.rule_extractor.extract(text, headings=headings), True

    def ingest_document(
        self,
        user_id: str,
        source: str | Path,
        namespace: str = "uploads",
        *,
        title: str | None = None,
        source_type: str | None = None,
        now: datetime | None = None,
        progress: ProgressCallback | None = None,
    ) -> IngestResult:
        """Chunk a document, extract concepts and relations, merge them into a namespace.

        ``source`` is text (a ``str``, never opened as a file) or a file (a ``Path``):
        markdown, plain text or PDF. Concepts merge by name within the namespace; each keeps
        ``EXTRACTED_FROM`` provenance to the document. The same content ingested again into
        the same namespace is skipped (content hash). New concepts are indexed for the
        semantic arm; a vector outage is reported in ``index_error``, not raised.
        ``progress(done, total, "chunks")`` is called after each chunk is extracted.

        Example:
            >>> # kb.ingest_document("u1", Path("paper.pdf"), namespace="papers")
            >>> # IngestResult(namespace='papers', concepts=42, relations=57, chunks=9, ...)
        """
        check_user_id(user_id)
        check_namespace(namespace)
        doc = load_document(source, title=title, source_type=source_type)
        digest = content_hash(doc.text)
        existing = self.store.get_document(user_id, document_id(user_id, namespace, digest))
        if existing is not None:
            return IngestResult(
                namespace=namespace, document=existing, skipped=True, chunks=existing.chunks
            )
        chunks = chunk_text(doc.text, max_chars=self.chunk_chars)
        concepts: list[ConceptInput] = []
        relations: list[RelationInput] = []
        fallbacks = 0
        notify(progress, 0, len(chunks), "chunks")
        for done, chunk in enumerate(chunks, 1):
            extraction, fell_back = self._extract(chunk.text, chunk.headings)
            fallbacks += fell_back
            notify(progress, done, len(chunks), "chunks")
            for c in extraction.concepts:
                concepts.append(
                    ConceptInput(
                        name=c.name,
                        description=c.description,
                        kind=c.kind,
                        importance=c.importance,
                        source=doc.source or doc.title,
                        source_type=doc.source_type,
                    )
                )
            for r in extraction.relations:
                relations.append(
                    RelationInput(
                        source=r.source,
                        target=r.target,
                        type=r.type,
                        weight=max(r.confidence, 0.05),
                        # the quote the extractor gave; else the document, as provenance
                        evidence=r.evidence or doc.title[:200],
                    )
                )
        warnings: list[str] = []
        valid = valid_concepts(concepts, warnings)
        result = self.store.write_batch(
            user_id,
            namespace,
            valid,
            valid_relations(relations, warnings),
            document=DocumentInput(
                title=doc.title,
                content_hash=digest,
                source=doc.source,
                source_type=doc.source_type,
                chunks=len(chunks),
            ),
            now=now,
        )
        indexed, error = self._index(user_id, result.concepts)
        return IngestResult(
            namespace=namespace,
            document=result.document,
            documents=1,
            concepts=len(result.concepts),
            relations=len(result.relations),
            chunks=len(chunks),
            indexed=indexed,
            index_error=error,
            extractor_fallbacks=fallbacks,
            warnings=warnings,
        )

    def ingest_codebase(
        self,
        user_id: str,
        root: str | Path,
        namespace: str = "codebase",
        *,
        now: datetime | None = None,
        progress: ProgressCallback | None = None,
    ) -> IngestResult:
        """Parse a source tree with tree-sitter into modules, classes, functions and imports.

        Python, JavaScript and TypeScript files become concepts (``kind`` ``module`` /
        ``class`` / ``function`` / ``method``) with ``defines``, ``imports``, ``inherits`` and
        ``calls`` relations, so "what depends on X?" is
        ``store.get_relations(user, "codebase", name=X, direction="in",
        relation_type="imports")``. Each file is a document: unchanged files are skipped on
        re-ingestion. ``progress(done, total, "files")`` is called once the tree is parsed
        (``total`` unknown before) and after each file is written and indexed.

        Example:
            >>> # kb.ingest_codebase("u1", "langgraph_prax_memory/")
        """
        check_user_id(user_id)
        check_namespace(namespace)
        notify(progress, 0, None, "files")
        project = code_mod.analyse_project(root)
        totals = {"concepts": 0, "relations": 0, "documents": 0, "indexed": 0}
        errors: list[str] = []
        skipped = 0
        files = len(project.modules)
        notify(progress, 0, files, "files")
        for done, module in enumerate(project.modules, 1):
            doc_id = document_id(user_id, namespace, module.content_hash)
            if self.store.get_document(user_id, doc_id) is not None:
                skipped += 1
                notify(progress, done, files, "files")
                continue
            concepts, relations = code_mod.module_concepts(project, module)
            result = self.store.write_batch(
                user_id,
                namespace,
                concepts,
                relations,
                document=code_mod.module_document(module),
                now=now,
            )
            indexed, error = self._index(user_id, result.concepts)
            if error:
                errors.append(error)
            totals["concepts"] += len(result.concepts)
            totals["relations"] += len(result.relations)
            totals["documents"] += 1
            totals["indexed"] += indexed
            notify(progress, done, files, "files")
        # prune what the code no longer has (deleted files, removed definitions and imports)
        sync = code_mod.sync_codebase(self.store, user_id, namespace, project, now=now)
        if sync.written_concept_ids:
            written = self.store.get_concepts(user_id, sync.written_concept_ids)
            indexed, error = self._index(user_id, written)
            totals["indexed"] += indexed
            errors += [error] if error else []
        if sync.pruned_concept_ids and self.vectors is not None:
            try:
                self.vectors.delete_ids(user_id, sync.pruned_concept_ids)
            except PraxMemoryError as exc:
                logger.warning(
                    "vectors of %d pruned concept(s) not deleted: %s",
                    len(sync.pruned_concept_ids),
                    exc,
                )
        warnings = [f"{p}: {e}" for p, e in project.errors]
        if skipped:
            warnings.append(f"{skipped} unchanged file(s) skipped")
        return IngestResult(
            pruned=sync.pruned,
            namespace=namespace,
            documents=totals["documents"],
            concepts=totals["concepts"],
            relations=totals["relations"],
            chunks=len(project.modules),
            skipped=totals["documents"] == 0 and skipped > 0,
            indexed=totals["indexed"],
            index_error=errors[0] if errors else None,
            warnings=warnings,
        )

    def ingest_folder(
        self,
        user_id: str,
        root: str | Path,
        namespace: str | None = None,
        *,
        now: datetime | None = None,
        progress: ProgressCallback | None = None,
    ) -> FolderIngestResult:
        """Ingest a folder by what it holds: its code as a codebase, its documents, or both.

        See :func:`langgraph_prax_memory.knowledge._folder.ingest_folder`.

        Example:
            >>> # done = kb.ingest_folder("u1", "docs/")
            >>> # sorted(done.documents), [(s.path, s.reason) for s in done.skipped]
        """
        return ingest_folder(self, user_id, root, namespace, now=now, progress=progress)

    # ------------------------------------------------------------------ search

    def search_detailed(
        self, user_id: str, query: str, *, namespace: str | None = None, k: int = 10
    ) -> KnowledgeSearchResult:
        """Hybrid concept search: the keyword arm and the semantic arm fused by RRF (k = 60).

        Each arm returns its top ``2k``; vector-only hits are hydrated from the graph (stale
        points are dropped). A concept whose name *is* the query (for code: its last dotted
        part, ``PraxMemory``) ranks first; the rest by fused score. When the vector side is
        off or failing the result is exactly the keyword arm (``arms == ["keyword"]``, the
        reason in ``errors``).
        """
        check_user_id(user_id)
        text = check_text(query, max_chars=10_000, what="query")
        k = check_limit(k, maximum=_MAX_K)
        if namespace is not None:
            check_namespace(namespace)
        keyword = self.store.keyword_search(user_id, text, namespace=namespace, limit=2 * k)
        arms = ["keyword"]
        errors: dict[str, str] = {}
        semantic_ids: list[str] = []
        if self.vectors is None:
            errors["semantic"] = "vector search disabled or unavailable"
        else:
            try:
                hits = self.vectors.search(user_id, text, namespace=namespace, limit=2 * k)
                semantic_ids = [h.concept_id for h in hits]
                arms.append("semantic")
            except PraxMemoryError as exc:
                logger.warning("knowledge semantic arm failed, keyword only: %s", exc)
                errors["semantic"] = str(exc)
        if arms == ["keyword"]:
            return KnowledgeSearchResult(hits=keyword[:k], arms=arms, errors=errors)
        fused = fuse(
            {"keyword": [h.concept.id for h in keyword], "semantic": semantic_ids},
            {"keyword": 1.0, "semantic": 1.0},
        )
        concepts = {h.concept.id: h.concept for h in keyword}
        matched = {h.concept.id: h.matched_terms for h in keyword}
        exact = exact_key(text)
        missing = [i for i in semantic_ids if i not in concepts]
        for c in self.store.get_concepts(user_id, missing):
            if namespace is None or c.namespace == namespace:
                concepts[c.id] = c
        ranked = sorted(
            (cand for cand in fused.values() if cand.id in concepts),
            key=lambda cand: (
                not _exact(concepts[cand.id].name, exact),  # a navigational query's target
                -cand.fused,
                cand.ranks.get("keyword", 10**6),
                -concepts[cand.id].importance,
                concepts[cand.id].name,
            ),
        )[:k]
        return KnowledgeSearchResult(
            hits=[
                ConceptHit(
                    concept=concepts[cand.id],
                    score=cand.fused,
                    matched_terms=matched.get(cand.id, 0),
                    ranks=dict(cand.ranks),
                )
                for cand in ranked
            ],
            arms=arms,
            errors=errors,
        )

    def search(
        self, user_id: str, query: str, *, namespace: str | None = None, k: int = 10
    ) -> list[ConceptHit]:
        """The hits of :meth:`search_detailed`."""
        return self.search_detailed(user_id, query, namespace=namespace, k=k).hits

    # ------------------------------------------------------------------ namespaces & links

    def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """The user's namespaces with their concept, relation and document counts."""
        return self.store.namespaces(user_id)

    def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """Remove a namespace's concepts, relations, documents and vectors, nothing else."""
        stats = self.store.delete_namespace(user_id, namespace)
        if self.vectors is not None:
            try:
                self.vectors.delete_namespace(user_id, namespace)
            except PraxMemoryError as exc:
                logger.warning("namespace %s: concept vectors not deleted: %s", namespace, exc)
        return stats

    def delete_user(self, user_id: str) -> KnowledgeStats:
        """Remove the user's whole knowledge graph and concept vectors (memory untouched)."""
        stats = self.store.delete_user(user_id)
        if self.vectors is not None:
            try:
                self.vectors.delete_user(user_id)
            except PraxMemoryError as exc:
                logger.warning("concept vectors of a deleted user not removed: %s", exc)
        return stats

    def _entity_id(self, user_id: str, entity: str) -> str:
        graph = self.parts.graph
        found = graph.entity_ids_for(user_id, [entity])
        if entity in found:
            return found[entity]
        return entity

    def connect(
        self,
        user_id: str,
        namespace: str,
        concept: str,
        entity: str,
        *,
        now: datetime | None = None,
    ) -> bool:
        """Link a concept to a memory entity (given by name or by the graph's entity id).

        Returns ``True`` when the link is new; raises :class:`KnowledgeNotFound` when the
        concept or the entity does not exist.

        Example:
            >>> # kb.parts.graph.merge_entity("u1", "Alice")
            >>> # kb.connect("u1", "papers", "Attention", "Alice")  -> True
        """
        return self.store.connect_entity(
            user_id, namespace, concept, self._entity_id(user_id, entity), now=now
        )

    def knowledge_for_entities(
        self, user_id: str, entities: Iterable[str], *, namespace: str | None = None
    ) -> list[KnowledgeConcept]:
        """Concepts linked to memory entities (given by name or id): the cross-namespace join.

        Answers "connect my notes with what the research says" once concepts were linked.
        """
        ids = [self._entity_id(user_id, e) for e in entities]
        return self.store.concepts_for_entities(user_id, ids, namespace=namespace)

    def dependents(self, user_id: str, name: str, *, namespace: str = "codebase") -> list[str]:
        """Modules that import ``name`` (a dotted module name): "what depends on X?"."""
        rels = self.store.get_relations(
            user_id, namespace, name=name, direction="in", relation_type="imports"
        )
        return sorted({r.source for r in rels})

    def relations(
        self, user_id: str, namespace: str, name: str, *, direction: str = "both"
    ) -> list[KnowledgeRelation]:
        """Relations of one concept."""
        return self.store.get_relations(user_id, namespace, name=name, direction=direction)

    def stats(self, user_id: str) -> KnowledgeStats:
        """Counts of the user's knowledge graph."""
        return self.store.stats(user_id)

    # ------------------------------------------------------------------ OKF

    def export_namespace_okf(
        self, user_id: str, namespace: str, dest: str | Path
    ) -> okf_mod.OkfExportResult:
        """Write a namespace as an OKF v0.1 bundle (markdown + YAML frontmatter) under ``dest``."""
        return okf_mod.export_namespace_okf(self.store, user_id, namespace, dest)

    def import_okf(
        self, user_id: str, src: str | Path, namespace: str, *, now: datetime | None = None
    ) -> okf_mod.OkfImportResult:
        """Read an OKF bundle into a namespace (and index the concepts for search)."""
        result = okf_mod.import_okf(self.store, user_id, src, namespace, now=now)
        concepts = self.store.get_concepts(user_id, result.concept_ids)
        indexed, error = self._index(user_id, concepts)
        return result.model_copy(update={"indexed": indexed, "index_error": error})

    def close(self) -> None:
        """Release the store (the shared graph connection and Qdrant client stay open)."""
        self.store.close()


def _exact(name: str, key: str) -> bool:
    """Whether a concept name is the query itself (or, for code, its last dotted part)."""
    return name == key or name.endswith("." + key)
