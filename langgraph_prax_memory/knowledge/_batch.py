"""What the sync knowledge stores share: single-item writes expressed as batch writes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.knowledge._rows import PreparedBatch, prepare_batch
from langgraph_prax_memory.knowledge.models import (
    ConceptInput,
    DocumentInput,
    KnowledgeConcept,
    KnowledgeRelation,
    RelationInput,
    WriteResult,
)


class BatchWriter(ABC):
    """Implements :meth:`merge_concept` / :meth:`add_relation` on :meth:`_write_prepared`."""

    @abstractmethod
    def _write_prepared(self, batch: PreparedBatch) -> WriteResult:
        """Write one prepared batch in one transaction."""

    def write_batch(
        self,
        user_id: str,
        namespace: str,
        concepts: Iterable[ConceptInput],
        relations: Iterable[RelationInput] = (),
        *,
        document: DocumentInput | None = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """Merge concepts and relations in one transaction. See ``KnowledgeStore``."""
        batch = prepare_batch(user_id, namespace, concepts, relations, document=document, now=now)
        return self._write_prepared(batch)

    def merge_concept(
        self,
        user_id: str,
        namespace: str,
        name: str,
        *,
        display_name: str | None = None,
        description: str = "",
        kind: str | None = None,
        importance: float | None = None,
        source: str = "",
        source_type: str = "",
        tags: Sequence[str] = (),
        properties: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> KnowledgeConcept:
        """Create or update one concept. See ``KnowledgeStore.merge_concept``."""
        item = ConceptInput(
            name=name,
            display_name=display_name,
            description=description,
            kind=kind,
            importance=importance,
            source=source,
            source_type=source_type,
            tags=list(tags),
            properties=dict(properties or {}),
        )
        return self.write_batch(user_id, namespace, [item], now=now).concepts[0]

    def add_relation(
        self,
        user_id: str,
        namespace: str,
        source: str,
        target: str,
        relation_type: str = "related_to",
        *,
        weight: float = 1.0,
        evidence: str = "",
        now: datetime | None = None,
    ) -> KnowledgeRelation:
        """Create or strengthen one relation. See ``KnowledgeStore.add_relation``."""
        rel = RelationInput(
            source=source, target=target, type=relation_type, weight=weight, evidence=evidence
        )
        result = self.write_batch(user_id, namespace, [], [rel], now=now)
        if not result.relations:
            raise MemoryValidationError("a relation needs two different concepts")
        return result.relations[0]
