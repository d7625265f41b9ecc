"""The Cypher of the Neo4j graph backend: every query, as constant text.

Pure text, no execution: the operations of ``_cypher_ops.py`` yield these with their
parameters, and ``_connection.py`` runs them. All user text travels as query parameters: no
value is ever formatted into a query string. The relation type is stored as the ``type``
property of ``RELATES_TO`` (as the seed does) and is checked against the store's
:class:`~langgraph_prax_memory.graph.Vocabulary` allow-list first.
"""

from __future__ import annotations

SETUP_QUERIES: tuple[str, ...] = (
    "CREATE CONSTRAINT prax_entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE",
    "CREATE INDEX prax_entity_user IF NOT EXISTS FOR (e:Entity) ON (e.user_id)",
    "CREATE CONSTRAINT prax_event_id IF NOT EXISTS FOR (t:TemporalEvent) REQUIRE t.id IS UNIQUE",
    "CREATE INDEX prax_event_user IF NOT EXISTS FOR (t:TemporalEvent) ON (t.user_id)",
    "CREATE CONSTRAINT prax_causal_id IF NOT EXISTS FOR (c:CausalLink) REQUIRE c.id IS UNIQUE",
    "CREATE INDEX prax_causal_user IF NOT EXISTS FOR (c:CausalLink) ON (c.user_id)",
    "CREATE INDEX prax_relates_user IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.user_id)",
    # Also registers the ``valid_until`` property key, so queries on a fresh database do not
    # draw "property does not exist" notifications before the first edge is superseded.
    "CREATE INDEX prax_relates_validity IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.valid_until)",
    # Every label, relationship type and property key the queries below name, created up
    # front (no data, no index): on a fresh database a read before the first write (stats,
    # an event lookup, a decay pass) would otherwise draw "... does not exist" notifications
    # (PARTICIPATED_IN, CAUSED_BY, ``mention_count``, ...), logged by the driver as warnings.
    "UNWIND ['Entity', 'TemporalEvent', 'CausalLink'] AS name CALL db.createLabel(name)",
    "UNWIND ['RELATES_TO', 'PARTICIPATED_IN', 'CAUSED_BY'] AS name "
    "CALL db.createRelationshipType(name)",
    "UNWIND ['cause', 'created_at', 'created_at_ts', 'description', 'direction', "
    "'display_name', 'effect', 'evidence', 'first_seen', 'first_seen_ts', 'id', 'importance', "
    "'last_seen', 'last_seen_ts', 'mention_count', 'name', 'occurred_at', 'occurred_at_ts', "
    "'prax_lock', 'properties', 'type', 'user_id', 'valid_from', 'valid_from_ts', "
    "'valid_until', 'valid_until_ts', 'weight'] AS name CALL db.createProperty(name)",
)

ENSURE_ENTITIES = """
UNWIND $entities AS x
MERGE (e:Entity {id: x.id})
ON CREATE SET e += x.props
"""

MERGE_ENTITY = """
MERGE (e:Entity {id: $id})
ON CREATE SET e += $create
ON MATCH SET
    e.mention_count = e.mention_count + 1,
    e.type = coalesce($type, e.type),
    e.importance = CASE WHEN $importance IS NOT NULL AND $importance > e.importance
                        THEN $importance ELSE e.importance END,
    e.first_seen = CASE WHEN $now_ts < e.first_seen_ts THEN $now ELSE e.first_seen END,
    e.first_seen_ts = CASE WHEN $now_ts < e.first_seen_ts THEN $now_ts ELSE e.first_seen_ts END,
    e.last_seen = CASE WHEN $now_ts > e.last_seen_ts THEN $now ELSE e.last_seen END,
    e.last_seen_ts = CASE WHEN $now_ts > e.last_seen_ts THEN $now_ts ELSE e.last_seen_ts END
RETURN e {.*} AS e
"""

SET_PROPERTIES = """
MATCH (e:Entity {id: $id})
SET e.properties = $properties
RETURN e {.*} AS e
"""

GET_ENTITY = "MATCH (e:Entity {id: $id}) WHERE e.user_id = $user_id RETURN e {.*} AS e"

ENTITY_RELATIONS = """
MATCH (e:Entity {id: $id})-[r:RELATES_TO]-(:Entity)
WHERE $all OR r.valid_until IS NULL
WITH r, startNode(r) AS s, endNode(r) AS t
RETURN r {.*} AS r, s.name AS source, t.name AS target, s.id AS source_id, t.id AS target_id
ORDER BY r.valid_from_ts, r.first_seen_ts, r.type, s.name, t.name
"""

IDS_EXIST = """
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.user_id = $user_id
RETURN e.id AS id
"""

SEARCH = """
MATCH (e:Entity {user_id: $user_id})
WHERE e.name CONTAINS $q
RETURN e {.*} AS e
ORDER BY (e.name = $q) DESC, (e.name STARTS WITH $q) DESC, e.importance DESC,
         e.mention_count DESC, e.name
LIMIT $limit
"""

# Ordered and cut on the sort keys first, so only the ``limit`` kept nodes are projected.
TOP_ENTITIES = """
MATCH (e:Entity {user_id: $user_id})
WITH e ORDER BY e.importance DESC, e.mention_count DESC, e.name LIMIT $limit
RETURN e {.*} AS e
ORDER BY e.importance DESC, e.mention_count DESC, e.name
"""

# Pages of a user's records in id order (``list_entities`` and its siblings): cut on the id
# first, so only the kept records are projected.
ENTITIES_PAGE = """
MATCH (e:Entity {user_id: $user_id})
WHERE e.id > $after
WITH e ORDER BY e.id LIMIT $limit
RETURN e {.*} AS e
ORDER BY e.id
"""
RELATIONS_PAGE = """
MATCH (a:Entity {user_id: $user_id})-[r:RELATES_TO]->(b:Entity)
WHERE r.id > $after
WITH a, r, b ORDER BY r.id LIMIT $limit
RETURN r {.*} AS r, a.name AS source, b.name AS target, a.id AS source_id, b.id AS target_id
ORDER BY r.id
"""

# Each relation touching one of the ids once (``DISTINCT``), then ``$both`` keeps those whose
# other end is among them too; every node and the edge must be the user's. The hint keeps the
# id lookup on the unique index: left to itself the planner has been seen to scan the user
# index once per id instead (80 ids x 5,000 entities: 400,000 rows, 300 ms).
RELATIONS_AMONG = """
UNWIND $ids AS id
MATCH (n:Entity)-[r:RELATES_TO]-(:Entity)
USING INDEX n:Entity(id)
WHERE n.id = id AND n.user_id = $user_id AND ($all OR r.valid_until IS NULL)
WITH DISTINCT r
WITH r, startNode(r) AS a, endNode(r) AS b
WHERE r.user_id = $user_id AND a.user_id = $user_id AND b.user_id = $user_id
  AND (NOT $both OR (a.id IN $ids AND b.id IN $ids))
RETURN r {.*} AS r, a.name AS source, b.name AS target, a.id AS source_id, b.id AS target_id
ORDER BY CASE WHEN r.valid_until IS NULL THEN 0 ELSE 1 END, r.weight DESC, r.valid_from_ts,
         r.first_seen_ts, r.type, a.name, b.name, r.id
LIMIT $limit
"""

FIND_CURRENT_TAIL = """
MATCH (a:Entity {id: $source_id})
SET a.prax_lock = true
REMOVE a.prax_lock
WITH a
MATCH (b:Entity {id: $target_id})
OPTIONAL MATCH (a)-[r:RELATES_TO {type: $type}]->(b)
WHERE r.valid_until IS NULL
RETURN r.id AS id, r.evidence AS evidence, r.valid_from_ts AS valid_from_ts
"""
# Lock the source node (a no-op write takes its write lock until commit, so two concurrent
# add_relation calls cannot both open a "current" edge), then find the current edge.
LOCK_AND_FIND_CURRENT = FIND_CURRENT_TAIL
# The same, after creating missing endpoints: one round trip instead of two.
ENSURE_LOCK_AND_FIND_CURRENT = ENSURE_ENTITIES + "WITH count(*) AS ensured\n" + FIND_CURRENT_TAIL

RETURN_RELATION = (
    "RETURN r {.*} AS r, a.name AS source, b.name AS target, a.id AS source_id, b.id AS target_id"
)

STRENGTHEN = f"""
MATCH (a:Entity {{id: $source_id}})-[r:RELATES_TO {{id: $id}}]->(b:Entity {{id: $target_id}})
SET r.weight = r.weight + $weight,
    r.evidence = $evidence,
    r.last_seen = CASE WHEN $now_ts > r.last_seen_ts THEN $now ELSE r.last_seen END,
    r.last_seen_ts = CASE WHEN $now_ts > r.last_seen_ts THEN $now_ts ELSE r.last_seen_ts END
{RETURN_RELATION}
"""

CREATE_RELATION = f"""
MATCH (a:Entity {{id: $source_id}}), (b:Entity {{id: $target_id}})
CREATE (a)-[r:RELATES_TO]->(b)
SET r = $props
{RETURN_RELATION}
"""

SUPERSEDE = f"""
MATCH (a:Entity {{id: $source_id}})-[r:RELATES_TO {{id: $id}}]->(b:Entity {{id: $target_id}})
SET r.valid_until = $now, r.valid_until_ts = $now_ts
{RETURN_RELATION}
"""

CURRENT_TARGETS = """
MATCH (a:Entity {id: $source_id})-[r:RELATES_TO {type: $type}]->(b:Entity)
WHERE r.valid_until IS NULL AND a.user_id = $user_id
RETURN b {.*} AS e
ORDER BY r.weight DESC, b.name
"""

MERGE_EVENT = """
MERGE (t:TemporalEvent {id: $id})
ON CREATE SET t += $create
ON MATCH SET t.importance = CASE WHEN $importance IS NOT NULL AND $importance > t.importance
                                 THEN $importance ELSE t.importance END
"""

LINK_PARTICIPANT = """
MERGE (e:Entity {id: $entity.id})
ON CREATE SET e += $entity.props
WITH e
MATCH (t:TemporalEvent {id: $event_id})
MERGE (e)-[:PARTICIPATED_IN]->(t)
"""

MERGE_CAUSAL = """
MERGE (c:CausalLink {id: $id})
ON CREATE SET c += $create
ON MATCH SET c.importance = CASE WHEN $importance IS NOT NULL AND $importance > c.importance
                                 THEN $importance ELSE c.importance END
"""

LINK_CAUSE = """
MERGE (e:Entity {id: $entity.id})
ON CREATE SET e += $entity.props
WITH e
MATCH (c:CausalLink {id: $link_id})
MERGE (e)-[:CAUSED_BY {direction: 'cause'}]->(c)
"""

LINK_EFFECT = """
MERGE (e:Entity {id: $entity.id})
ON CREATE SET e += $entity.props
WITH e
MATCH (c:CausalLink {id: $link_id})
MERGE (c)-[:CAUSED_BY {direction: 'effect'}]->(e)
"""

EVENTS_TAIL = """
WITH t ORDER BY t.occurred_at_ts DESC, t.created_at_ts DESC, t.id LIMIT $limit
OPTIONAL MATCH (p:Entity)-[:PARTICIPATED_IN]->(t)
WITH t, collect(p.name) AS participants
RETURN t {.*} AS t, participants
ORDER BY t.occurred_at_ts DESC, t.created_at_ts DESC, t.id
"""
EVENT_BY_ID = "MATCH (t:TemporalEvent {id: $id})" + EVENTS_TAIL
EVENTS_PAGE = """
MATCH (t:TemporalEvent {user_id: $user_id})
WHERE t.id > $after
WITH t ORDER BY t.id LIMIT $limit
OPTIONAL MATCH (p:Entity)-[:PARTICIPATED_IN]->(t)
WITH t, collect(p.name) AS participants
RETURN t {.*} AS t, participants
ORDER BY t.id
"""
EVENTS_OF_USER = "MATCH (t:TemporalEvent {user_id: $user_id})" + EVENTS_TAIL
EVENTS_OF_ENTITY = (
    "MATCH (:Entity {id: $entity_id})-[:PARTICIPATED_IN]->(t:TemporalEvent {user_id: $user_id})"
    + EVENTS_TAIL
)

LINKS_TAIL = """
WITH DISTINCT c ORDER BY c.created_at_ts DESC, c.id LIMIT $limit
OPTIONAL MATCH (ce:Entity)-[:CAUSED_BY {direction: 'cause'}]->(c)
WITH c, collect(DISTINCT ce.name) AS causes
OPTIONAL MATCH (c)-[:CAUSED_BY {direction: 'effect'}]->(ee:Entity)
WITH c, causes, collect(DISTINCT ee.name) AS effects
RETURN c {.*} AS c, causes, effects
ORDER BY c.created_at_ts DESC, c.id
"""
LINK_BY_ID = "MATCH (c:CausalLink {id: $id})" + LINKS_TAIL
LINKS_PAGE = """
MATCH (c:CausalLink {user_id: $user_id})
WHERE c.id > $after
WITH c ORDER BY c.id LIMIT $limit
OPTIONAL MATCH (ce:Entity)-[:CAUSED_BY {direction: 'cause'}]->(c)
WITH c, collect(DISTINCT ce.name) AS causes
OPTIONAL MATCH (c)-[:CAUSED_BY {direction: 'effect'}]->(ee:Entity)
WITH c, causes, collect(DISTINCT ee.name) AS effects
RETURN c {.*} AS c, causes, effects
ORDER BY c.id
"""
LINKS_OF_USER = "MATCH (c:CausalLink {user_id: $user_id})" + LINKS_TAIL
LINKS_OF_ENTITY = (
    "MATCH (:Entity {id: $entity_id})-[:CAUSED_BY]-(c:CausalLink {user_id: $user_id})" + LINKS_TAIL
)

NEIGHBOURS_TAIL = """
WHERE n <> s AND n.user_id = $user_id AND all(r IN rels WHERE r.valid_until IS NULL)
WITH n, min(size(rels)) AS hops
RETURN n {.*} AS e, hops
ORDER BY hops, n.importance DESC, n.name
LIMIT $limit
"""
# Variable-length bounds cannot be parameters; ``hops`` is checked to be 1 or 2 and picks one
# of these two constant texts.
NEIGHBOURS: dict[int, str] = {
    1: "MATCH (s:Entity {id: $id})-[rels:RELATES_TO*1..1]-(n:Entity)" + NEIGHBOURS_TAIL,
    2: "MATCH (s:Entity {id: $id})-[rels:RELATES_TO*1..2]-(n:Entity)" + NEIGHBOURS_TAIL,
}

AGE_DAYS = (
    "(CASE WHEN $now_ts > {0}.last_seen_ts THEN $now_ts - {0}.last_seen_ts ELSE 0.0 END) / $day"
)
DECAY_RELATIONS = f"""
MATCH (a:Entity {{user_id: $user_id}})-[r:RELATES_TO]->(b:Entity)
WHERE r.weight * exp(-$lam * {AGE_DAYS.format("r")}) < $rt
{RETURN_RELATION}
ORDER BY r.valid_from_ts, r.first_seen_ts, r.type, a.name, b.name
"""
DECAY_ENTITIES = f"""
MATCH (e:Entity {{user_id: $user_id}})
WHERE e.importance * exp(-$lam * {AGE_DAYS.format("e")}) < $et
  AND NOT EXISTS {{
      MATCH (e)-[r:RELATES_TO]-()
      WHERE r.weight * exp(-$lam * {AGE_DAYS.format("r")}) >= $rt
  }}
RETURN e.id AS id, e.name AS name
ORDER BY e.name
"""
DELETE_RELATIONS = """
MATCH (:Entity {user_id: $user_id})-[r:RELATES_TO]->()
WHERE r.id IN $ids
DELETE r
"""
DELETE_ENTITIES = """
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.user_id = $user_id
DETACH DELETE e
"""

STATS = """
RETURN
  COUNT { MATCH (e:Entity {user_id: $user_id}) } AS entities,
  COUNT { MATCH (:Entity {user_id: $user_id})-[r:RELATES_TO]->() } AS relations,
  COUNT { MATCH (:Entity {user_id: $user_id})-[r:RELATES_TO]->() WHERE r.valid_until IS NULL }
      AS current_relations,
  COUNT { MATCH (t:TemporalEvent {user_id: $user_id}) } AS temporal_events,
  COUNT { MATCH (c:CausalLink {user_id: $user_id}) } AS causal_links
"""
DELETE_USER: tuple[str, ...] = (
    "MATCH (e:Entity {user_id: $user_id}) DETACH DELETE e",
    "MATCH (t:TemporalEvent {user_id: $user_id}) DETACH DELETE t",
    "MATCH (c:CausalLink {user_id: $user_id}) DETACH DELETE c",
)

# ------------------------------------------------------------------ load_records / delete_records
# Records written as they are (an import), a batch of rows per query; one the user already has
# stays as it is. ``_load.build_load`` keeps one record per key, so no batch repeats one.

#: Entities (given ones, or endpoints with their defaults) that do not exist yet.
LOAD_ENTITIES = """
UNWIND $rows AS x
OPTIONAL MATCH (old:Entity {id: x.id})
WITH x WHERE old IS NULL
CREATE (e:Entity)
SET e = x
RETURN e.id AS id
"""

#: Relations without one of the same ends, type and ``valid_from`` (or a current one).
LOAD_RELATIONS = """
UNWIND $rows AS x
MATCH (a:Entity {id: x.source_id})
MATCH (b:Entity {id: x.target_id})
WHERE a.user_id = $user_id AND b.user_id = $user_id AND NOT EXISTS {
    MATCH (a)-[old:RELATES_TO {type: x.props.type}]->(b)
    WHERE old.valid_from_ts = x.props.valid_from_ts OR (x.current AND old.valid_until IS NULL)
}
CREATE (a)-[r:RELATES_TO]->(b)
SET r = x.props
RETURN r.id AS id
"""

LOAD_EVENTS = """
UNWIND $rows AS x
OPTIONAL MATCH (old:TemporalEvent {id: x.id})
WITH x WHERE old IS NULL
CREATE (t:TemporalEvent)
SET t = x
RETURN t.id AS id
"""

LOAD_LINKS = """
UNWIND $rows AS x
OPTIONAL MATCH (old:CausalLink {id: x.id})
WITH x WHERE old IS NULL
CREATE (c:CausalLink)
SET c = x
RETURN c.id AS id
"""

LOAD_PARTICIPANTS = """
UNWIND $rows AS x
MATCH (e:Entity {id: x.entity_id})
MATCH (t:TemporalEvent {id: x.event_id})
MERGE (e)-[:PARTICIPATED_IN]->(t)
"""

LOAD_CAUSES = """
UNWIND $rows AS x
MATCH (e:Entity {id: x.entity_id})
MATCH (c:CausalLink {id: x.link_id})
MERGE (e)-[:CAUSED_BY {direction: 'cause'}]->(c)
"""

LOAD_EFFECTS = """
UNWIND $rows AS x
MATCH (e:Entity {id: x.entity_id})
MATCH (c:CausalLink {id: x.link_id})
MERGE (c)-[:CAUSED_BY {direction: 'effect'}]->(e)
"""

DELETE_EVENTS = """
UNWIND $ids AS id
MATCH (t:TemporalEvent {id: id})
WHERE t.user_id = $user_id
DETACH DELETE t
"""

DELETE_LINKS = """
UNWIND $ids AS id
MATCH (c:CausalLink {id: id})
WHERE c.user_id = $user_id
DETACH DELETE c
"""
