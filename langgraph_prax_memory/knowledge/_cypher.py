"""The Cypher of the knowledge operations in Neo4j, each a generator of parameterised queries.

Labels and edges: ``(:KnowledgeConcept {id, user_id, namespace, name, display_name, description,
kind, importance, source, source_type, tags, properties, created_at, updated_at, …})``,
``(:KnowledgeDocument)``, ``-[:KNOWLEDGE_RELATES {id, user_id, namespace, type, weight,
evidence, …}]->``, ``(:KnowledgeConcept)-[:EXTRACTED_FROM]->(:KnowledgeDocument)`` and
``(:KnowledgeConcept)-[:REFERENCES_ENTITY]->(:Entity)``. The memory graph's Cypher only
matches ``:Entity`` / ``:TemporalEvent`` / ``:CausalLink``, so concepts never reach it.

As in the graph backend, each operation is written once as a generator of :class:`Query`
objects (every value is a ``$parameter``; no text is ever formatted into Cypher);
:func:`cypher_op` picks the generator of an op object, and the sync or the native async
runner (``neo4j.py``) drives it inside one managed transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from langgraph_prax_memory.graph import Entity
from langgraph_prax_memory.graph.neo4j import Op, Query, to_entity
from langgraph_prax_memory.knowledge import _ops
from langgraph_prax_memory.knowledge._rows import (
    PreparedBatch,
    document_row,
    dump_json,
    load_json,
    merge_concepts,
    merge_relations,
    namespace_infos,
    to_concept,
    to_document,
    to_relation,
    write_result,
)
from langgraph_prax_memory.knowledge.models import (
    ConceptHit,
    KnowledgeConcept,
    KnowledgeDocument,
    KnowledgeNotFound,
    KnowledgeRelation,
    KnowledgeStats,
    NamespaceInfo,
    WriteResult,
)

__all__ = ["SETUP_QUERIES", "KnowledgeOps", "cypher_op"]

T = TypeVar("T")

SETUP_QUERIES: tuple[str, ...] = (
    "CREATE CONSTRAINT prax_kconcept_id IF NOT EXISTS "
    "FOR (c:KnowledgeConcept) REQUIRE c.id IS UNIQUE",
    "CREATE INDEX prax_kconcept_key IF NOT EXISTS "
    "FOR (c:KnowledgeConcept) ON (c.user_id, c.namespace, c.name)",
    "CREATE INDEX prax_kconcept_user IF NOT EXISTS FOR (c:KnowledgeConcept) ON (c.user_id)",
    "CREATE CONSTRAINT prax_kdoc_id IF NOT EXISTS FOR (d:KnowledgeDocument) REQUIRE d.id IS UNIQUE",
    "CREATE INDEX prax_kdoc_user IF NOT EXISTS "
    "FOR (d:KnowledgeDocument) ON (d.user_id, d.namespace)",
    "CREATE INDEX prax_krel_id IF NOT EXISTS FOR ()-[r:KNOWLEDGE_RELATES]-() ON (r.id)",
    "CREATE INDEX prax_krel_user IF NOT EXISTS "
    "FOR ()-[r:KNOWLEDGE_RELATES]-() ON (r.user_id, r.namespace)",
    # Every label, relationship type and property key the queries below name, created up
    # front (no data, no index): on a fresh database the server answers a query naming one it
    # does not know yet with a "... does not exist" notification, which the driver logs as a
    # warning each time (REFERENCES_ENTITY until the first link, Entity before the memory
    # graph's first write, ...). The memory graph's own set-up runs first (``Entity``).
    "UNWIND ['Entity', 'KnowledgeConcept', 'KnowledgeDocument'] AS name CALL db.createLabel(name)",
    "UNWIND ['EXTRACTED_FROM', 'KNOWLEDGE_RELATES', 'REFERENCES_ENTITY'] AS name "
    "CALL db.createRelationshipType(name)",
    "UNWIND ['created_at', 'created_at_ts', 'id', 'importance', 'name', 'namespace', "
    "'search_text', 'source_id', 'target_id', 'type', 'user_id', 'weight'] AS name "
    "CALL db.createProperty(name)",
)

_GET_CONCEPTS = """
UNWIND $ids AS id
MATCH (c:KnowledgeConcept {id: id})
WHERE c.user_id = $user_id
RETURN c {.*} AS c
"""
_UPSERT_CONCEPTS = """
UNWIND $rows AS row
MERGE (c:KnowledgeConcept {id: row.id})
SET c = row
"""
_GET_RELATIONS_BY_ID = """
UNWIND $ids AS id
MATCH ()-[r:KNOWLEDGE_RELATES {id: id}]->()
WHERE r.user_id = $user_id
RETURN r {.*} AS r
"""
_UPSERT_RELATIONS = """
UNWIND $rows AS row
MATCH (a:KnowledgeConcept {id: row.source_id}), (b:KnowledgeConcept {id: row.target_id})
WHERE a.user_id = $user_id AND b.user_id = $user_id
MERGE (a)-[r:KNOWLEDGE_RELATES {id: row.id}]->(b)
SET r = row
"""
_MERGE_DOCUMENT = """
MERGE (d:KnowledgeDocument {id: $doc.id})
ON CREATE SET d = $doc
RETURN d {.*} AS d
"""
_LINK_DOCUMENT = """
MATCH (d:KnowledgeDocument {id: $doc_id})
WHERE d.user_id = $user_id
UNWIND $ids AS cid
MATCH (c:KnowledgeConcept {id: cid})
WHERE c.user_id = $user_id
MERGE (c)-[:EXTRACTED_FROM]->(d)
"""
_LIST_CONCEPTS = """
MATCH (c:KnowledgeConcept {user_id: $user_id})
WHERE ($ns IS NULL OR c.namespace = $ns) AND ($after IS NULL OR c.id > $after)
RETURN c {.*} AS c
ORDER BY c.id
LIMIT $limit
"""
_NAMESPACE_RELATIONS = """
MATCH (s:KnowledgeConcept)-[r:KNOWLEDGE_RELATES]->(t:KnowledgeConcept)
WHERE r.user_id = $user_id AND r.namespace = $ns AND ($type IS NULL OR r.type = $type)
RETURN r {.*} AS r, s.name AS source, t.name AS target
ORDER BY r.weight DESC, source, target, r.type
LIMIT $limit
"""
_CONCEPT_RELATIONS = """
MATCH (c:KnowledgeConcept {id: $cid})-[r:KNOWLEDGE_RELATES]-(:KnowledgeConcept)
WHERE c.user_id = $user_id AND r.user_id = $user_id AND ($type IS NULL OR r.type = $type)
WITH c, r, startNode(r) AS s, endNode(r) AS t
WHERE $dir = 'both' OR ($dir = 'out' AND s = c) OR ($dir = 'in' AND t = c)
RETURN r {.*} AS r, s.name AS source, t.name AS target
ORDER BY r.weight DESC, source, target, r.type
LIMIT $limit
"""
_KEYWORD = """
MATCH (c:KnowledgeConcept {user_id: $user_id})
WHERE $ns IS NULL OR c.namespace = $ns
WITH c,
     reduce(n = 0, t IN $terms |
        n + CASE WHEN any(v IN t WHERE c.search_text CONTAINS v) THEN 1 ELSE 0 END) AS matched,
     reduce(n = 0, t IN $terms |
        n + CASE WHEN any(v IN t WHERE c.name CONTAINS v) THEN 1 ELSE 0 END) AS name_matched,
     (c.name = $exact OR c.name ENDS WITH ('.' + $exact)) AS exact
WHERE matched > 0
RETURN c {.*} AS c, matched
ORDER BY matched DESC, exact DESC, name_matched DESC, c.importance DESC, c.name
LIMIT $limit
"""
_GET_DOCUMENT = """
MATCH (d:KnowledgeDocument {id: $id})
WHERE d.user_id = $user_id
RETURN d {.*} AS d
"""
_LIST_DOCUMENTS = """
MATCH (d:KnowledgeDocument {user_id: $user_id})
WHERE $ns IS NULL OR d.namespace = $ns
RETURN d {.*} AS d
ORDER BY d.created_at_ts DESC, d.id
LIMIT $limit
"""
_CONCEPT_DOCUMENTS = """
MATCH (c:KnowledgeConcept {id: $cid})-[:EXTRACTED_FROM]->(d:KnowledgeDocument)
WHERE c.user_id = $user_id AND d.user_id = $user_id
RETURN d {.*} AS d
ORDER BY d.created_at_ts, d.id
"""
_NS_CONCEPTS = """
MATCH (c:KnowledgeConcept {user_id: $user_id})
RETURN c.namespace AS ns, count(*) AS n
"""
_NS_RELATIONS = """
MATCH ()-[r:KNOWLEDGE_RELATES]->()
WHERE r.user_id = $user_id
RETURN r.namespace AS ns, count(*) AS n
"""
_NS_DOCUMENTS = """
MATCH (d:KnowledgeDocument {user_id: $user_id})
RETURN d.namespace AS ns, count(*) AS n
"""
_COUNTS = """
RETURN
    COUNT {
        MATCH (c:KnowledgeConcept {user_id: $user_id})
        WHERE $ns IS NULL OR c.namespace = $ns
    } AS concepts,
    COUNT {
        MATCH ()-[r:KNOWLEDGE_RELATES]->()
        WHERE r.user_id = $user_id AND ($ns IS NULL OR r.namespace = $ns)
    } AS relations,
    COUNT {
        MATCH (d:KnowledgeDocument {user_id: $user_id})
        WHERE $ns IS NULL OR d.namespace = $ns
    } AS documents,
    COUNT {
        MATCH (c:KnowledgeConcept {user_id: $user_id})-[:REFERENCES_ENTITY]->(:Entity)
        WHERE $ns IS NULL OR c.namespace = $ns
    } AS entity_links
"""
_DELETE_CONCEPTS = """
MATCH (c:KnowledgeConcept {user_id: $user_id})
WHERE $ns IS NULL OR c.namespace = $ns
DETACH DELETE c
"""
_DELETE_DOCUMENTS = """
MATCH (d:KnowledgeDocument {user_id: $user_id})
WHERE $ns IS NULL OR d.namespace = $ns
DETACH DELETE d
"""
_DELETE_RELATIONS_BY_ID = """
MATCH ()-[r:KNOWLEDGE_RELATES]->()
WHERE r.id IN $ids AND r.user_id = $user_id AND r.namespace = $ns
DELETE r
RETURN count(*) AS n
"""
_DELETE_CONCEPTS_BY_ID = """
MATCH (c:KnowledgeConcept)
WHERE c.id IN $ids AND c.user_id = $user_id AND c.namespace = $ns
OPTIONAL MATCH (c)-[l:REFERENCES_ENTITY]->()
WITH c, count(l) AS links
DETACH DELETE c
RETURN count(*) AS n, sum(links) AS links
"""
_DELETE_DOCUMENTS_BY_ID = """
MATCH (d:KnowledgeDocument)
WHERE d.id IN $ids AND d.user_id = $user_id AND d.namespace = $ns
DETACH DELETE d
RETURN count(*) AS n
"""
_CONCEPT_EXISTS = """
MATCH (c:KnowledgeConcept {id: $cid})
WHERE c.user_id = $user_id
RETURN c.id AS id
"""
_ENTITY_EXISTS = """
MATCH (e:Entity {id: $eid})
WHERE e.user_id = $user_id
RETURN e.id AS id
"""
_CONNECT = """
MATCH (c:KnowledgeConcept {id: $cid}), (e:Entity {id: $eid})
WHERE c.user_id = $user_id AND e.user_id = $user_id
OPTIONAL MATCH (c)-[old:REFERENCES_ENTITY]->(e)
WITH c, e, old IS NOT NULL AS existed
MERGE (c)-[x:REFERENCES_ENTITY]->(e)
ON CREATE SET x.user_id = $user_id, x.created_at = $now
RETURN existed
"""
_DISCONNECT = """
MATCH (c:KnowledgeConcept {id: $cid})-[x:REFERENCES_ENTITY]->(e:Entity {id: $eid})
WHERE c.user_id = $user_id AND e.user_id = $user_id
DELETE x
RETURN count(*) AS n
"""
_REFERENCED = """
MATCH (c:KnowledgeConcept {id: $cid})-[:REFERENCES_ENTITY]->(e:Entity)
WHERE c.user_id = $user_id AND e.user_id = $user_id
RETURN e {.*} AS e
ORDER BY e.name
"""
_FOR_ENTITIES = """
UNWIND $ids AS eid
MATCH (c:KnowledgeConcept)-[:REFERENCES_ENTITY]->(e:Entity {id: eid})
WHERE e.user_id = $user_id AND c.user_id = $user_id AND ($ns IS NULL OR c.namespace = $ns)
RETURN DISTINCT c {.*} AS c
"""


def _concept(props: dict[str, Any]) -> dict[str, Any]:
    out = dict(props)
    out["tags"] = list(props.get("tags") or [])
    out["properties"] = load_json(props.get("properties"))
    return out


def _encode(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    out["properties"] = dump_json(row["properties"])
    return out


def _document(props: dict[str, Any]) -> KnowledgeDocument:
    return to_document({**props, "properties": load_json(props.get("properties"))})


def _relation(row: dict[str, Any]) -> KnowledgeRelation:
    return to_relation(row["r"], row["source"], row["target"])


class KnowledgeOps:
    """The operations, each a generator of :class:`Query` objects (shared by both faces)."""

    @staticmethod
    def op_write(batch: PreparedBatch) -> Op[WriteResult]:
        """Merge a prepared batch: read the stored rows, merge in Python, write them back."""
        uid = batch.user_id
        rows = yield Query(_GET_CONCEPTS, {"ids": batch.concept_ids, "user_id": uid})
        existing = {r["c"]["id"]: _concept(r["c"]) for r in rows}
        written, final = merge_concepts(batch, existing)
        if written:
            yield Query(_UPSERT_CONCEPTS, {"rows": [_encode(r) for r in written]})
        rel_rows: list[dict[str, Any]] = []
        if batch.relations:
            ids = [r.id for r in batch.relations]
            found = yield Query(_GET_RELATIONS_BY_ID, {"ids": ids, "user_id": uid})
            rel_existing = {r["r"]["id"]: dict(r["r"]) for r in found}
            rel_rows = merge_relations(batch, rel_existing)
            yield Query(_UPSERT_RELATIONS, {"rows": rel_rows, "user_id": uid})
        doc = None
        drow = document_row(batch)
        if drow is not None:
            got = yield Query(_MERGE_DOCUMENT, {"doc": _encode(drow)})
            doc = _document(got[0]["d"])
            ids = [c.id for c in batch.concepts if not c.placeholder]
            if ids:
                yield Query(_LINK_DOCUMENT, {"doc_id": drow["id"], "ids": ids, "user_id": uid})
        return write_result(batch, final, rel_rows, doc)

    @staticmethod
    def op_get_concepts(user_id: str, ids: list[str]) -> Op[list[KnowledgeConcept]]:
        """Concepts by id, in the given order."""
        rows = yield Query(_GET_CONCEPTS, {"ids": ids, "user_id": user_id})
        found = {r["c"]["id"]: to_concept(_concept(r["c"])) for r in rows}
        return [found[i] for i in ids if i in found]

    @staticmethod
    def op_list_concepts(
        user_id: str, ns: str | None, limit: int, after: str | None
    ) -> Op[list[KnowledgeConcept]]:
        """A page of concepts by id."""
        rows = yield Query(
            _LIST_CONCEPTS, {"user_id": user_id, "ns": ns, "limit": limit, "after": after}
        )
        return [to_concept(_concept(r["c"])) for r in rows]

    @staticmethod
    def op_relations(
        user_id: str, ns: str, cid: str | None, direction: str, rtype: str | None, limit: int
    ) -> Op[list[KnowledgeRelation]]:
        """Relations of a namespace or of one concept."""
        params = {"user_id": user_id, "ns": ns, "type": rtype, "limit": limit}
        if cid is None:
            rows = yield Query(_NAMESPACE_RELATIONS, params)
        else:
            rows = yield Query(_CONCEPT_RELATIONS, {**params, "cid": cid, "dir": direction})
        return [_relation(r) for r in rows]

    @staticmethod
    def op_keyword(
        user_id: str, terms: list[list[str]], ns: str | None, limit: int, exact: str
    ) -> Op[list[ConceptHit]]:
        """The keyword arm."""
        rows = yield Query(
            _KEYWORD,
            {"user_id": user_id, "terms": terms, "ns": ns, "limit": limit, "exact": exact},
        )
        return [
            ConceptHit(
                concept=to_concept(_concept(r["c"])),
                score=float(r["matched"]),
                matched_terms=int(r["matched"]),
                ranks={"keyword": rank},
            )
            for rank, r in enumerate(rows, start=1)
        ]

    @staticmethod
    def op_get_document(user_id: str, doc_id: str) -> Op[KnowledgeDocument | None]:
        """One document."""
        rows = yield Query(_GET_DOCUMENT, {"id": doc_id, "user_id": user_id})
        return _document(rows[0]["d"]) if rows else None

    @staticmethod
    def op_list_documents(user_id: str, ns: str | None, limit: int) -> Op[list[KnowledgeDocument]]:
        """Documents, newest first."""
        rows = yield Query(_LIST_DOCUMENTS, {"user_id": user_id, "ns": ns, "limit": limit})
        return [_document(r["d"]) for r in rows]

    @staticmethod
    def op_concept_documents(user_id: str, cid: str) -> Op[list[KnowledgeDocument]]:
        """Provenance."""
        rows = yield Query(_CONCEPT_DOCUMENTS, {"cid": cid, "user_id": user_id})
        return [_document(r["d"]) for r in rows]

    @staticmethod
    def op_namespaces(user_id: str) -> Op[list[NamespaceInfo]]:
        """Namespaces with counts."""
        counts: dict[str, dict[str, int]] = {}
        for text, field in (
            (_NS_CONCEPTS, "concepts"),
            (_NS_RELATIONS, "relations"),
            (_NS_DOCUMENTS, "documents"),
        ):
            rows = yield Query(text, {"user_id": user_id})
            for r in rows:
                counts.setdefault(r["ns"], {})[field] = int(r["n"])
        return namespace_infos(counts)

    @staticmethod
    def op_stats(user_id: str, ns: str | None) -> Op[KnowledgeStats]:
        """Counts of a user (or one namespace)."""
        rows = yield Query(_COUNTS, {"user_id": user_id, "ns": ns})
        return KnowledgeStats(**rows[0])

    @staticmethod
    def op_delete(user_id: str, ns: str | None) -> Op[KnowledgeStats]:
        """Delete a namespace (or, with ``ns=None``, the user's whole knowledge graph)."""
        rows = yield Query(_COUNTS, {"user_id": user_id, "ns": ns})
        yield Query(_DELETE_CONCEPTS, {"user_id": user_id, "ns": ns})
        yield Query(_DELETE_DOCUMENTS, {"user_id": user_id, "ns": ns})
        return KnowledgeStats(**rows[0])

    @staticmethod
    def op_delete_items(
        user_id: str, ns: str, concepts: list[str], relations: list[str], documents: list[str]
    ) -> Op[KnowledgeStats]:
        """Delete concepts, relations and documents of one namespace by id."""
        counts = {"concepts": 0, "relations": 0, "documents": 0, "entity_links": 0}
        scope = {"user_id": user_id, "ns": ns}
        if relations:
            rows = yield Query(_DELETE_RELATIONS_BY_ID, {**scope, "ids": relations})
            counts["relations"] = int(rows[0]["n"]) if rows else 0
        if concepts:
            rows = yield Query(_DELETE_CONCEPTS_BY_ID, {**scope, "ids": concepts})
            if rows:
                counts["concepts"] = int(rows[0]["n"] or 0)
                counts["entity_links"] = int(rows[0]["links"] or 0)
        if documents:
            rows = yield Query(_DELETE_DOCUMENTS_BY_ID, {**scope, "ids": documents})
            counts["documents"] = int(rows[0]["n"]) if rows else 0
        return KnowledgeStats(**counts)

    @staticmethod
    def op_connect(user_id: str, cid: str, label: str, eid: str, now: str) -> Op[bool]:
        """``REFERENCES_ENTITY``: ``True`` when the link is new."""
        found = yield Query(_CONCEPT_EXISTS, {"cid": cid, "user_id": user_id})
        if not found:
            raise KnowledgeNotFound(f"no concept {label}")
        found = yield Query(_ENTITY_EXISTS, {"eid": eid, "user_id": user_id})
        if not found:
            raise KnowledgeNotFound(f"no memory entity with id {eid!r}")
        rows = yield Query(_CONNECT, {"cid": cid, "eid": eid, "user_id": user_id, "now": now})
        return not rows[0]["existed"]

    @staticmethod
    def op_disconnect(user_id: str, cid: str, eid: str) -> Op[bool]:
        """Remove a link."""
        rows = yield Query(_DISCONNECT, {"cid": cid, "eid": eid, "user_id": user_id})
        return bool(rows and rows[0]["n"])

    @staticmethod
    def op_referenced(user_id: str, cid: str) -> Op[list[Entity]]:
        """Entities a concept references."""
        rows = yield Query(_REFERENCED, {"cid": cid, "user_id": user_id})
        return [to_entity(r["e"]) for r in rows]

    @staticmethod
    def op_for_entities(user_id: str, ids: list[str], ns: str | None) -> Op[list[KnowledgeConcept]]:
        """The cross-namespace join."""
        rows = yield Query(_FOR_ENTITIES, {"ids": ids, "user_id": user_id, "ns": ns})
        out = {r["c"]["id"]: to_concept(_concept(r["c"])) for r in rows}
        return sorted(out.values(), key=lambda c: (-c.importance, c.name))


_BUILDERS: dict[type[Any], Callable[[Any], Op[Any]]] = {
    _ops.WriteBatch: lambda op: KnowledgeOps.op_write(op.batch),
    _ops.GetConcepts: lambda op: KnowledgeOps.op_get_concepts(op.user_id, op.ids),
    _ops.ListConcepts: lambda op: KnowledgeOps.op_list_concepts(
        op.user_id, op.namespace, op.limit, op.after_id
    ),
    _ops.GetRelations: lambda op: KnowledgeOps.op_relations(
        op.user_id, op.namespace, op.concept_id, op.direction, op.relation_type, op.limit
    ),
    _ops.KeywordSearch: lambda op: KnowledgeOps.op_keyword(
        op.user_id, op.terms, op.namespace, op.limit, op.exact
    ),
    _ops.GetDocument: lambda op: KnowledgeOps.op_get_document(op.user_id, op.document_id),
    _ops.ListDocuments: lambda op: KnowledgeOps.op_list_documents(
        op.user_id, op.namespace, op.limit
    ),
    _ops.ConceptDocuments: lambda op: KnowledgeOps.op_concept_documents(op.user_id, op.concept_id),
    _ops.Namespaces: lambda op: KnowledgeOps.op_namespaces(op.user_id),
    _ops.Stats: lambda op: KnowledgeOps.op_stats(op.user_id, None),
    _ops.Delete: lambda op: KnowledgeOps.op_delete(op.user_id, op.namespace),
    _ops.DeleteItems: lambda op: KnowledgeOps.op_delete_items(
        op.user_id, op.namespace, op.concepts, op.relations, op.documents
    ),
    _ops.ConnectEntity: lambda op: KnowledgeOps.op_connect(
        op.user_id, op.concept_id, op.label, op.entity_id, op.when
    ),
    _ops.DisconnectEntity: lambda op: KnowledgeOps.op_disconnect(
        op.user_id, op.concept_id, op.entity_id
    ),
    _ops.ReferencedEntities: lambda op: KnowledgeOps.op_referenced(op.user_id, op.concept_id),
    _ops.ConceptsForEntities: lambda op: KnowledgeOps.op_for_entities(
        op.user_id, op.entity_ids, op.namespace
    ),
}


def cypher_op(op: _ops.KnowledgeOp[T]) -> Op[T]:
    """The generator of queries that runs ``op`` (a fresh one per call: retries replay it)."""
    return cast("Op[T]", _BUILDERS[type(op)](op))
