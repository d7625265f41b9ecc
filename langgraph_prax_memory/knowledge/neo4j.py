"""The knowledge namespace in Neo4j, on the memory graph's driver (shared connection pool).

Labels and edges: ``(:KnowledgeConcept {id, user_id, namespace, name, display_name, description,
kind, importance, source, source_type, tags, properties, created_at, updated_at, …})``,
``(:KnowledgeDocument)``, ``-[:KNOWLEDGE_RELATES {id, user_id, namespace, type, weight,
evidence, …}]->``, ``(:KnowledgeConcept)-[:EXTRACTED_FROM]->(:KnowledgeDocument)`` and
``(:KnowledgeConcept)-[:REFERENCES_ENTITY]->(:Entity)``. The memory graph's Cypher only
matches ``:Entity`` / ``:TemporalEvent`` / ``:CausalLink``, so concepts never reach it.

As in the graph backend, each operation is written once as a generator of parameterised
queries (every value is a ``$parameter``; no text is ever formatted into Cypher) and driven
by a sync or an async runner inside one managed transaction.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, TypeVar

import neo4j

from langgraph_prax_memory._breaker import CircuitBreaker
from langgraph_prax_memory._validation import check_limit, check_user_id
from langgraph_prax_memory.errors import ConfigError, MemoryValidationError, PraxMemoryError
from langgraph_prax_memory.graph import (
    AsyncNeo4jGraphStore,
    Entity,
    Moment,
    Neo4jGraphStore,
    OutageLog,
)
from langgraph_prax_memory.graph.neo4j import Op, Query, to_entity, translate
from langgraph_prax_memory.graph.neo4j import arun_op as _arun_op
from langgraph_prax_memory.graph.neo4j import run_op as _run_op
from langgraph_prax_memory.knowledge._batch import BatchWriter
from langgraph_prax_memory.knowledge._rows import (
    PreparedBatch,
    check_direction,
    document_row,
    dump_json,
    load_json,
    merge_concept_row,
    merge_relation_row,
    prepare_batch,
    to_concept,
    to_document,
    to_relation,
)
from langgraph_prax_memory.knowledge._terms import exact_key, search_terms
from langgraph_prax_memory.knowledge.models import (
    ConceptHit,
    ConceptInput,
    DocumentInput,
    KnowledgeConcept,
    KnowledgeDocument,
    KnowledgeNotFound,
    KnowledgeRelation,
    KnowledgeStats,
    NamespaceInfo,
    RelationInput,
    WriteResult,
    check_namespace,
    check_relation_type,
    concept_id,
)

__all__ = ["AsyncNeo4jKnowledgeStore", "Neo4jKnowledgeStore"]

logger = logging.getLogger("langgraph_prax_memory.graph.neo4j")  # one logger for the Neo4j backend
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
        final: dict[str, dict[str, Any]] = {}
        written = []
        for c in batch.concepts:
            row = merge_concept_row(existing.get(c.id), c, batch)
            if row is not None:
                written.append(row)
            final[c.id] = row if row is not None else existing[c.id]
        if written:
            yield Query(_UPSERT_CONCEPTS, {"rows": [_encode(r) for r in written]})
        rel_rows: list[dict[str, Any]] = []
        if batch.relations:
            ids = [r.id for r in batch.relations]
            found = yield Query(_GET_RELATIONS_BY_ID, {"ids": ids, "user_id": uid})
            rel_existing = {r["r"]["id"]: dict(r["r"]) for r in found}
            rel_rows = [
                merge_relation_row(rel_existing.get(r.id), r, batch) for r in batch.relations
            ]
            yield Query(_UPSERT_RELATIONS, {"rows": rel_rows, "user_id": uid})
        doc = None
        drow = document_row(batch)
        if drow is not None:
            got = yield Query(_MERGE_DOCUMENT, {"doc": _encode(drow)})
            doc = _document(got[0]["d"])
            ids = [c.id for c in batch.concepts if not c.placeholder]
            if ids:
                yield Query(_LINK_DOCUMENT, {"doc_id": drow["id"], "ids": ids, "user_id": uid})
        names = {cid: row["name"] for cid, row in final.items()}
        return WriteResult(
            concepts=[to_concept(final[c.id]) for c in batch.concepts if not c.placeholder],
            relations=[
                to_relation(r, names[r["source_id"]], names[r["target_id"]]) for r in rel_rows
            ],
            document=doc,
        )

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
        return [
            NamespaceInfo(
                namespace=ns,
                concepts=c.get("concepts", 0),
                relations=c.get("relations", 0),
                documents=c.get("documents", 0),
            )
            for ns, c in sorted(counts.items())
        ]

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


# -- argument checks shared by both faces ----------------------------------------------


def _args_list(user_id: str, namespace: str | None, limit: int) -> int:
    check_user_id(user_id)
    if namespace is not None:
        check_namespace(namespace)
    return check_limit(limit, maximum=100_000)


def _args_relations(
    user_id: str, namespace: str, name: str | None, direction: str, rtype: str | None, limit: int
) -> tuple[str | None, str | None, int]:
    check_user_id(user_id)
    check_namespace(namespace)
    check_direction(direction)
    return (
        None if name is None else concept_id(user_id, namespace, name),
        None if rtype is None else check_relation_type(rtype),
        check_limit(limit, maximum=100_000),
    )


class _NoBreaker:
    """Stands in for the circuit breaker of a store built on a bare driver."""

    def guard(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()


def _breaker_of(connection: Any) -> CircuitBreaker | _NoBreaker:
    """The graph store's circuit breaker (one per server), or none for a bare driver."""
    breaker = getattr(connection, "breaker", None)
    return breaker if isinstance(breaker, CircuitBreaker) else _NoBreaker()


def _driver_of(connection: Any) -> tuple[Any, str | None, float]:
    """``(driver, database, max_retry_time)`` of a graph store or a bare driver."""
    if isinstance(connection, Neo4jGraphStore | AsyncNeo4jGraphStore):
        return connection.driver, connection.database, connection.max_retry_time
    if isinstance(connection, neo4j.Driver | neo4j.AsyncDriver):
        return connection, None, 10.0
    raise ConfigError(
        "the Neo4j knowledge store needs the memory graph's Neo4jGraphStore (or a neo4j driver), "
        f"got {type(connection).__name__}"
    )


class Neo4jKnowledgeStore(BatchWriter, KnowledgeOps):
    """The concept graph in the memory graph's Neo4j database, on the same driver.

    Args:
        connection: The memory graph's :class:`~langgraph_prax_memory.graph.Neo4jGraphStore`
            (its driver, database and retry budget are shared) or a ``neo4j.Driver``.
        database: The database name (default: the graph store's).

    Example:
        >>> from langgraph_prax_memory.graph import Neo4jGraphStore
        >>> graph = Neo4jGraphStore("bolt://127.0.0.1:17687")
        >>> store = Neo4jKnowledgeStore(graph)
        >>> store.merge_concept("u1", "papers", "Attention").name  # doctest: +SKIP
        'attention'
    """

    def __init__(self, connection: Neo4jGraphStore | neo4j.Driver, *, database: str | None = None):
        driver, db, retry = _driver_of(connection)
        if not isinstance(driver, neo4j.Driver):
            raise ConfigError("Neo4jKnowledgeStore needs a sync driver; use the async store")
        self._driver: neo4j.Driver = driver
        self._database = database or db
        self._max_retry_time = retry
        self._outage = OutageLog(logger, "Neo4j knowledge graph")
        self._breaker = _breaker_of(connection)
        self._setup_done = False
        self._setup_lock = threading.Lock()

    def _session(self) -> neo4j.Session:
        kwargs: dict[str, Any] = {"max_transaction_retry_time": self._max_retry_time}
        if self._database:
            kwargs["database"] = self._database
        return self._driver.session(**kwargs)

    def setup(self) -> None:
        """Create the knowledge constraints and indexes (idempotent)."""
        with self._setup_lock:
            try:
                with self._session() as session:
                    for text in SETUP_QUERIES:
                        session.run(text).consume()
            except Exception as exc:
                raise translate(
                    exc, what="knowledge setup", write=False, outage=self._outage
                ) from exc
            self._setup_done = True

    def close(self) -> None:
        """Nothing to release: the driver belongs to the graph store."""

    def _execute(self, what: str, make_op: Callable[[], Op[T]], *, write: bool) -> T:
        """One operation, through the graph store's circuit breaker (fails fast while open)."""
        with self._breaker.guard():
            return self._execute_now(what, make_op, write=write)

    def _execute_now(self, what: str, make_op: Callable[[], Op[T]], *, write: bool) -> T:
        if not self._setup_done:
            self.setup()
        try:
            if self._outage.down:
                self._driver.verify_connectivity()
            with self._session() as session:
                if write:
                    result = session.execute_write(_run_op, make_op)
                else:
                    result = session.execute_read(_run_op, make_op)
        except Exception as exc:
            if isinstance(exc, PraxMemoryError):
                raise
            raise translate(
                exc, what=f"knowledge {what}", write=write, outage=self._outage
            ) from exc
        self._outage.ok()
        return result

    def _write_prepared(self, batch: PreparedBatch) -> WriteResult:
        return self._execute("write_batch", lambda: self.op_write(batch), write=True)

    def get_concept(self, user_id: str, namespace: str, name: str) -> KnowledgeConcept | None:
        """See ``KnowledgeStore.get_concept``."""
        cid = concept_id(user_id, namespace, name)
        found = self._execute(
            "get_concept", lambda: self.op_get_concepts(user_id, [cid]), write=False
        )
        return found[0] if found else None

    def get_concepts(self, user_id: str, ids: Sequence[str]) -> list[KnowledgeConcept]:
        """See ``KnowledgeStore.get_concepts``."""
        check_user_id(user_id)
        wanted = list(dict.fromkeys(ids))
        return self._execute(
            "get_concepts", lambda: self.op_get_concepts(user_id, wanted), write=False
        )

    def list_concepts(
        self,
        user_id: str,
        namespace: str | None = None,
        *,
        limit: int = 1000,
        after_id: str | None = None,
    ) -> list[KnowledgeConcept]:
        """See ``KnowledgeStore.list_concepts``."""
        limit = _args_list(user_id, namespace, limit)
        return self._execute(
            "list_concepts",
            lambda: self.op_list_concepts(user_id, namespace, limit, after_id),
            write=False,
        )

    def get_relations(
        self,
        user_id: str,
        namespace: str,
        *,
        name: str | None = None,
        direction: str = "both",
        relation_type: str | None = None,
        limit: int = 1000,
    ) -> list[KnowledgeRelation]:
        """See ``KnowledgeStore.get_relations``."""
        cid, rtype, limit = _args_relations(
            user_id, namespace, name, direction, relation_type, limit
        )
        return self._execute(
            "get_relations",
            lambda: self.op_relations(user_id, namespace, cid, direction, rtype, limit),
            write=False,
        )

    def keyword_search(
        self, user_id: str, query: str, *, namespace: str | None = None, limit: int = 10
    ) -> list[ConceptHit]:
        """See ``KnowledgeStore.keyword_search``."""
        check_user_id(user_id)
        limit = check_limit(limit)
        if namespace is not None:
            check_namespace(namespace)
        terms = search_terms(query)
        if not terms:
            return []
        return self._execute(
            "keyword_search",
            lambda: self.op_keyword(user_id, terms, namespace, limit, exact_key(query)),
            write=False,
        )

    def get_document(self, user_id: str, document_id: str) -> KnowledgeDocument | None:
        """See ``KnowledgeStore.get_document``."""
        check_user_id(user_id)
        return self._execute(
            "get_document", lambda: self.op_get_document(user_id, document_id), write=False
        )

    def list_documents(
        self, user_id: str, namespace: str | None = None, *, limit: int = 1000
    ) -> list[KnowledgeDocument]:
        """See ``KnowledgeStore.list_documents``."""
        limit = _args_list(user_id, namespace, limit)
        return self._execute(
            "list_documents", lambda: self.op_list_documents(user_id, namespace, limit), write=False
        )

    def concept_documents(self, user_id: str, concept_id: str) -> list[KnowledgeDocument]:
        """See ``KnowledgeStore.concept_documents``."""
        check_user_id(user_id)
        return self._execute(
            "concept_documents", lambda: self.op_concept_documents(user_id, concept_id), write=False
        )

    def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """See ``KnowledgeStore.namespaces``."""
        check_user_id(user_id)
        return self._execute("namespaces", lambda: self.op_namespaces(user_id), write=False)

    def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """See ``KnowledgeStore.delete_namespace``."""
        check_user_id(user_id)
        check_namespace(namespace)
        return self._execute(
            "delete_namespace", lambda: self.op_delete(user_id, namespace), write=True
        )

    def delete_items(
        self,
        user_id: str,
        namespace: str,
        *,
        concepts: Sequence[str] = (),
        relations: Sequence[str] = (),
        documents: Sequence[str] = (),
    ) -> KnowledgeStats:
        """See ``KnowledgeStore.delete_items``."""
        check_user_id(user_id)
        check_namespace(namespace)
        ids = [sorted(set(x)) for x in (concepts, relations, documents)]
        if not any(ids):
            return KnowledgeStats()
        return self._execute(
            "delete_items", lambda: self.op_delete_items(user_id, namespace, *ids), write=True
        )

    def delete_user(self, user_id: str) -> KnowledgeStats:
        """See ``KnowledgeStore.delete_user``."""
        check_user_id(user_id)
        return self._execute("delete_user", lambda: self.op_delete(user_id, None), write=True)

    def stats(self, user_id: str) -> KnowledgeStats:
        """See ``KnowledgeStore.stats``."""
        check_user_id(user_id)
        return self._execute("stats", lambda: self.op_stats(user_id, None), write=False)

    def connect_entity(
        self,
        user_id: str,
        namespace: str,
        name: str,
        entity_id: str,
        *,
        now: datetime | None = None,
    ) -> bool:
        """See ``KnowledgeStore.connect_entity``."""
        cid = concept_id(user_id, namespace, name)
        when = Moment.of(now).iso
        label = f"{name!r} in namespace {namespace!r}"
        return self._execute(
            "connect_entity",
            lambda: self.op_connect(user_id, cid, label, entity_id, when),
            write=True,
        )

    def disconnect_entity(self, user_id: str, namespace: str, name: str, entity_id: str) -> bool:
        """See ``KnowledgeStore.disconnect_entity``."""
        cid = concept_id(user_id, namespace, name)
        return self._execute(
            "disconnect_entity", lambda: self.op_disconnect(user_id, cid, entity_id), write=True
        )

    def referenced_entities(self, user_id: str, namespace: str, name: str) -> list[Entity]:
        """See ``KnowledgeStore.referenced_entities``."""
        cid = concept_id(user_id, namespace, name)
        return self._execute(
            "referenced_entities", lambda: self.op_referenced(user_id, cid), write=False
        )

    def concepts_for_entities(
        self, user_id: str, entity_ids: Sequence[str], *, namespace: str | None = None
    ) -> list[KnowledgeConcept]:
        """See ``KnowledgeStore.concepts_for_entities``."""
        check_user_id(user_id)
        if namespace is not None:
            check_namespace(namespace)
        ids = list(dict.fromkeys(entity_ids))
        return self._execute(
            "concepts_for_entities",
            lambda: self.op_for_entities(user_id, ids, namespace),
            write=False,
        )


class AsyncNeo4jKnowledgeStore(KnowledgeOps):
    """The async face on the driver's native async API (same Cypher, no threads).

    Args:
        connection: The memory graph's
            :class:`~langgraph_prax_memory.graph.AsyncNeo4jGraphStore` or a
            ``neo4j.AsyncDriver``.
        database: The database name (default: the graph store's).

    Example:
        >>> from langgraph_prax_memory.graph import AsyncNeo4jGraphStore
        >>> store = AsyncNeo4jKnowledgeStore(AsyncNeo4jGraphStore("bolt://127.0.0.1:17687"))
        >>> # await store.merge_concept("u1", "papers", "Attention")
    """

    def __init__(
        self, connection: AsyncNeo4jGraphStore | neo4j.AsyncDriver, *, database: str | None = None
    ):
        driver, db, retry = _driver_of(connection)
        if not isinstance(driver, neo4j.AsyncDriver):
            raise ConfigError("AsyncNeo4jKnowledgeStore needs an async driver")
        self._driver: neo4j.AsyncDriver = driver
        self._database = database or db
        self._max_retry_time = retry
        self._outage = OutageLog(logger, "Neo4j knowledge graph")
        self._breaker = _breaker_of(connection)
        self._setup_done = False

    def _session(self) -> neo4j.AsyncSession:
        kwargs: dict[str, Any] = {"max_transaction_retry_time": self._max_retry_time}
        if self._database:
            kwargs["database"] = self._database
        return self._driver.session(**kwargs)

    async def setup(self) -> None:
        """Create the knowledge constraints and indexes (idempotent)."""
        try:
            async with self._session() as session:
                for text in SETUP_QUERIES:
                    await (await session.run(text)).consume()
        except Exception as exc:
            raise translate(exc, what="knowledge setup", write=False, outage=self._outage) from exc
        self._setup_done = True

    async def close(self) -> None:
        """Nothing to release: the driver belongs to the graph store."""

    async def _execute(self, what: str, make_op: Callable[[], Op[T]], *, write: bool) -> T:
        """One operation, through the graph store's circuit breaker (fails fast while open)."""
        with self._breaker.guard():
            return await self._execute_now(what, make_op, write=write)

    async def _execute_now(self, what: str, make_op: Callable[[], Op[T]], *, write: bool) -> T:
        if not self._setup_done:
            await self.setup()
        try:
            if self._outage.down:
                await self._driver.verify_connectivity()
            async with self._session() as session:
                if write:
                    result = await session.execute_write(_arun_op, make_op)
                else:
                    result = await session.execute_read(_arun_op, make_op)
        except Exception as exc:
            if isinstance(exc, PraxMemoryError):
                raise
            raise translate(
                exc, what=f"knowledge {what}", write=write, outage=self._outage
            ) from exc
        self._outage.ok()
        return result

    async def write_batch(
        self,
        user_id: str,
        namespace: str,
        concepts: Iterable[ConceptInput],
        relations: Iterable[RelationInput] = (),
        *,
        document: DocumentInput | None = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """See ``KnowledgeStore.write_batch``."""
        batch = prepare_batch(user_id, namespace, concepts, relations, document=document, now=now)
        return await self._execute("write_batch", lambda: self.op_write(batch), write=True)

    async def merge_concept(
        self, user_id: str, namespace: str, name: str, **kwargs: Any
    ) -> KnowledgeConcept:
        """See ``KnowledgeStore.merge_concept``."""
        now = kwargs.pop("now", None)
        if "tags" in kwargs:
            kwargs["tags"] = list(kwargs["tags"])
        if kwargs.get("properties") is None:
            kwargs.pop("properties", None)
        item = ConceptInput(name=name, **kwargs)
        return (await self.write_batch(user_id, namespace, [item], now=now)).concepts[0]

    async def add_relation(
        self,
        user_id: str,
        namespace: str,
        source: str,
        target: str,
        relation_type: str = "related_to",
        **kwargs: Any,
    ) -> KnowledgeRelation:
        """See ``KnowledgeStore.add_relation``."""
        now = kwargs.pop("now", None)
        rel = RelationInput(source=source, target=target, type=relation_type, **kwargs)
        result = await self.write_batch(user_id, namespace, [], [rel], now=now)
        if not result.relations:
            raise MemoryValidationError("a relation needs two different concepts")
        return result.relations[0]

    async def get_concept(self, user_id: str, namespace: str, name: str) -> KnowledgeConcept | None:
        """See ``KnowledgeStore.get_concept``."""
        cid = concept_id(user_id, namespace, name)
        found = await self._execute(
            "get_concept", lambda: self.op_get_concepts(user_id, [cid]), write=False
        )
        return found[0] if found else None

    async def get_concepts(self, user_id: str, ids: Sequence[str]) -> list[KnowledgeConcept]:
        """See ``KnowledgeStore.get_concepts``."""
        check_user_id(user_id)
        wanted = list(dict.fromkeys(ids))
        return await self._execute(
            "get_concepts", lambda: self.op_get_concepts(user_id, wanted), write=False
        )

    async def list_concepts(
        self,
        user_id: str,
        namespace: str | None = None,
        *,
        limit: int = 1000,
        after_id: str | None = None,
    ) -> list[KnowledgeConcept]:
        """See ``KnowledgeStore.list_concepts``."""
        limit = _args_list(user_id, namespace, limit)
        return await self._execute(
            "list_concepts",
            lambda: self.op_list_concepts(user_id, namespace, limit, after_id),
            write=False,
        )

    async def get_relations(
        self,
        user_id: str,
        namespace: str,
        *,
        name: str | None = None,
        direction: str = "both",
        relation_type: str | None = None,
        limit: int = 1000,
    ) -> list[KnowledgeRelation]:
        """See ``KnowledgeStore.get_relations``."""
        cid, rtype, limit = _args_relations(
            user_id, namespace, name, direction, relation_type, limit
        )
        return await self._execute(
            "get_relations",
            lambda: self.op_relations(user_id, namespace, cid, direction, rtype, limit),
            write=False,
        )

    async def keyword_search(
        self, user_id: str, query: str, *, namespace: str | None = None, limit: int = 10
    ) -> list[ConceptHit]:
        """See ``KnowledgeStore.keyword_search``."""
        check_user_id(user_id)
        limit = check_limit(limit)
        if namespace is not None:
            check_namespace(namespace)
        terms = search_terms(query)
        if not terms:
            return []
        return await self._execute(
            "keyword_search",
            lambda: self.op_keyword(user_id, terms, namespace, limit, exact_key(query)),
            write=False,
        )

    async def get_document(self, user_id: str, document_id: str) -> KnowledgeDocument | None:
        """See ``KnowledgeStore.get_document``."""
        check_user_id(user_id)
        return await self._execute(
            "get_document", lambda: self.op_get_document(user_id, document_id), write=False
        )

    async def list_documents(
        self, user_id: str, namespace: str | None = None, *, limit: int = 1000
    ) -> list[KnowledgeDocument]:
        """See ``KnowledgeStore.list_documents``."""
        limit = _args_list(user_id, namespace, limit)
        return await self._execute(
            "list_documents", lambda: self.op_list_documents(user_id, namespace, limit), write=False
        )

    async def concept_documents(self, user_id: str, concept_id: str) -> list[KnowledgeDocument]:
        """See ``KnowledgeStore.concept_documents``."""
        check_user_id(user_id)
        return await self._execute(
            "concept_documents", lambda: self.op_concept_documents(user_id, concept_id), write=False
        )

    async def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """See ``KnowledgeStore.namespaces``."""
        check_user_id(user_id)
        return await self._execute("namespaces", lambda: self.op_namespaces(user_id), write=False)

    async def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """See ``KnowledgeStore.delete_namespace``."""
        check_user_id(user_id)
        check_namespace(namespace)
        return await self._execute(
            "delete_namespace", lambda: self.op_delete(user_id, namespace), write=True
        )

    async def delete_items(
        self,
        user_id: str,
        namespace: str,
        *,
        concepts: Sequence[str] = (),
        relations: Sequence[str] = (),
        documents: Sequence[str] = (),
    ) -> KnowledgeStats:
        """See ``KnowledgeStore.delete_items``."""
        check_user_id(user_id)
        check_namespace(namespace)
        ids = [sorted(set(x)) for x in (concepts, relations, documents)]
        if not any(ids):
            return KnowledgeStats()
        return await self._execute(
            "delete_items", lambda: self.op_delete_items(user_id, namespace, *ids), write=True
        )

    async def delete_user(self, user_id: str) -> KnowledgeStats:
        """See ``KnowledgeStore.delete_user``."""
        check_user_id(user_id)
        return await self._execute("delete_user", lambda: self.op_delete(user_id, None), write=True)

    async def stats(self, user_id: str) -> KnowledgeStats:
        """See ``KnowledgeStore.stats``."""
        check_user_id(user_id)
        return await self._execute("stats", lambda: self.op_stats(user_id, None), write=False)

    async def connect_entity(
        self,
        user_id: str,
        namespace: str,
        name: str,
        entity_id: str,
        *,
        now: datetime | None = None,
    ) -> bool:
        """See ``KnowledgeStore.connect_entity``."""
        cid = concept_id(user_id, namespace, name)
        when = Moment.of(now).iso
        label = f"{name!r} in namespace {namespace!r}"
        return await self._execute(
            "connect_entity",
            lambda: self.op_connect(user_id, cid, label, entity_id, when),
            write=True,
        )

    async def disconnect_entity(
        self, user_id: str, namespace: str, name: str, entity_id: str
    ) -> bool:
        """See ``KnowledgeStore.disconnect_entity``."""
        cid = concept_id(user_id, namespace, name)
        return await self._execute(
            "disconnect_entity", lambda: self.op_disconnect(user_id, cid, entity_id), write=True
        )

    async def referenced_entities(self, user_id: str, namespace: str, name: str) -> list[Entity]:
        """See ``KnowledgeStore.referenced_entities``."""
        cid = concept_id(user_id, namespace, name)
        return await self._execute(
            "referenced_entities", lambda: self.op_referenced(user_id, cid), write=False
        )

    async def concepts_for_entities(
        self, user_id: str, entity_ids: Sequence[str], *, namespace: str | None = None
    ) -> list[KnowledgeConcept]:
        """See ``KnowledgeStore.concepts_for_entities``."""
        check_user_id(user_id)
        if namespace is not None:
            check_namespace(namespace)
        ids = list(dict.fromkeys(entity_ids))
        return await self._execute(
            "concepts_for_entities",
            lambda: self.op_for_entities(user_id, ids, namespace),
            write=False,
        )
