"""The SQL of the SQLite graph backend: the schema and every statement, as text.

Pure text, no execution (``_store.py`` runs it, ``_database.py`` owns the connection). Every
value travels as a parameter; the only formatted parts are the constant column lists and the
two fixed ``WHERE`` variants of the event and causal-link reads.
"""

from __future__ import annotations

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS entities (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL,
    name          TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    type          TEXT NOT NULL,
    importance    REAL NOT NULL,
    mention_count INTEGER NOT NULL,
    first_seen    TEXT NOT NULL,
    first_seen_ts REAL NOT NULL,
    last_seen     TEXT NOT NULL,
    last_seen_ts  REAL NOT NULL,
    properties    TEXT NOT NULL DEFAULT '{}',
    UNIQUE (user_id, name)
);
-- top_entities: the most important entities of a user, read in index order (no sort)
CREATE INDEX IF NOT EXISTS entities_rank
    ON entities (user_id, importance DESC, mention_count DESC, name);
CREATE TABLE IF NOT EXISTS relations (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL,
    source_id      TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    target_id      TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    type           TEXT NOT NULL,
    weight         REAL NOT NULL,
    evidence       TEXT NOT NULL DEFAULT '',
    first_seen     TEXT NOT NULL,
    first_seen_ts  REAL NOT NULL,
    last_seen      TEXT NOT NULL,
    last_seen_ts   REAL NOT NULL,
    valid_from     TEXT NOT NULL,
    valid_from_ts  REAL NOT NULL,
    valid_until    TEXT,
    valid_until_ts REAL
);
CREATE UNIQUE INDEX IF NOT EXISTS relations_one_current
    ON relations (source_id, target_id, type) WHERE valid_until IS NULL;
CREATE INDEX IF NOT EXISTS relations_source ON relations (source_id, valid_until);
CREATE INDEX IF NOT EXISTS relations_target ON relations (target_id, valid_until);
CREATE INDEX IF NOT EXISTS relations_user ON relations (user_id);
CREATE TABLE IF NOT EXISTS temporal_events (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL,
    description    TEXT NOT NULL,
    occurred_at    TEXT NOT NULL,
    occurred_at_ts REAL NOT NULL,
    importance     REAL NOT NULL,
    created_at     TEXT NOT NULL,
    created_at_ts  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS temporal_events_user
    ON temporal_events (user_id, occurred_at_ts);
CREATE TABLE IF NOT EXISTS participations (
    entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    event_id  TEXT NOT NULL REFERENCES temporal_events(id) ON DELETE CASCADE,
    PRIMARY KEY (entity_id, event_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS participations_event ON participations (event_id);
CREATE TABLE IF NOT EXISTS causal_links (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL,
    cause         TEXT NOT NULL,
    effect        TEXT NOT NULL,
    importance    REAL NOT NULL,
    created_at    TEXT NOT NULL,
    created_at_ts REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS causal_links_user ON causal_links (user_id, created_at_ts);
CREATE TABLE IF NOT EXISTS causal_edges (
    link_id   TEXT NOT NULL REFERENCES causal_links(id) ON DELETE CASCADE,
    entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    direction TEXT NOT NULL CHECK (direction IN ('cause', 'effect')),
    PRIMARY KEY (link_id, entity_id, direction)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS causal_edges_entity ON causal_edges (entity_id);
-- list_entities / list_relations / list_events / list_causal_links: a user's records in id
-- order, page after page (what an export reads)
CREATE INDEX IF NOT EXISTS entities_user_id ON entities (user_id, id);
CREATE INDEX IF NOT EXISTS relations_user_id ON relations (user_id, id);
CREATE INDEX IF NOT EXISTS temporal_events_user_id ON temporal_events (user_id, id);
CREATE INDEX IF NOT EXISTS causal_links_user_id ON causal_links (user_id, id);
"""

ENTITY_COLS = (
    "e.id, e.user_id, e.name, e.display_name, e.type, e.importance, e.mention_count, "
    "e.first_seen, e.last_seen, e.properties"
)
RELATION_COLS = (
    "r.id, r.user_id, s.name AS source, t.name AS target, r.source_id, r.target_id, r.type, "
    "r.weight, r.evidence, r.first_seen, r.last_seen, r.valid_from, r.valid_until"
)
RELATION_FROM = (
    "FROM relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
)
RELATION_ORDER = "ORDER BY r.valid_from_ts, r.first_seen_ts, r.type, s.name, t.name"

INSERT_ENTITY = """
INSERT INTO entities (id, user_id, name, display_name, type, importance, mention_count,
                      first_seen, first_seen_ts, last_seen, last_seen_ts, properties)
VALUES (:id, :user_id, :name, :display_name, :type, :importance, 1,
        :now, :now_ts, :now, :now_ts, :properties)
"""

NEIGHBOURS = f"""
WITH RECURSIVE walk(id, depth) AS (
    SELECT :start, 0
    UNION
    SELECT CASE WHEN r.source_id = w.id THEN r.target_id ELSE r.source_id END, w.depth + 1
    FROM walk w
    JOIN relations r
      ON (r.source_id = w.id OR r.target_id = w.id) AND r.valid_until IS NULL
    WHERE w.depth < :hops
)
SELECT {ENTITY_COLS}, MIN(w.depth) AS hops
FROM walk w JOIN entities e ON e.id = w.id
WHERE w.id <> :start AND e.user_id = :user_id
GROUP BY e.id
ORDER BY hops, e.importance DESC, e.name
LIMIT :limit
"""

ENSURE_ENTITY = INSERT_ENTITY + " ON CONFLICT DO NOTHING"

ENTITY_PROPERTIES = "SELECT properties FROM entities WHERE id = ?"

UPDATE_ENTITY = """
UPDATE entities SET
    mention_count = mention_count + 1,
    type = COALESCE(:type, type),
    importance = MAX(importance, COALESCE(:importance, importance)),
    first_seen = CASE WHEN :now_ts < first_seen_ts THEN :now ELSE first_seen END,
    first_seen_ts = MIN(first_seen_ts, :now_ts),
    last_seen = CASE WHEN :now_ts > last_seen_ts THEN :now ELSE last_seen END,
    last_seen_ts = MAX(last_seen_ts, :now_ts),
    properties = :properties
WHERE id = :id
"""

ENTITY_BY_ID = f"SELECT {ENTITY_COLS} FROM entities e WHERE e.id = ?"
ENTITY_OF_USER = f"SELECT {ENTITY_COLS} FROM entities e WHERE e.id = ? AND e.user_id = ?"
RELATION_BY_ID = f"SELECT {RELATION_COLS} {RELATION_FROM} WHERE r.id = ?"
_ENTITY_EDGES = (
    f"SELECT {RELATION_COLS} {RELATION_FROM} WHERE (r.source_id = :id OR r.target_id = :id)"
)
#: The relations of one entity: ``[False]`` current ones, ``[True]`` superseded ones too.
ENTITY_RELATIONS = {
    False: f"{_ENTITY_EDGES} AND r.valid_until IS NULL {RELATION_ORDER}",
    True: f"{_ENTITY_EDGES} {RELATION_ORDER}",
}


def ids_exist(count: int) -> str:
    """Which of ``count`` entity ids (``?`` parameters after the user id) exist."""
    marks = ",".join("?" * count)
    return f"SELECT id FROM entities WHERE user_id = ? AND id IN ({marks})"


#: Ids per ``IN (...)`` list (SQLite's default limit of host parameters is far above).
IDS_CHUNK = 500

SEARCH = f"""
SELECT {ENTITY_COLS} FROM entities e
WHERE e.user_id = :user_id AND instr(e.name, :q) > 0
ORDER BY (e.name = :q) DESC, (substr(e.name, 1, length(:q)) = :q) DESC,
         e.importance DESC, e.mention_count DESC, e.name
LIMIT :limit
"""

TOP_ENTITIES = f"""
SELECT {ENTITY_COLS} FROM entities e
WHERE e.user_id = :user_id
ORDER BY e.importance DESC, e.mention_count DESC, e.name
LIMIT :limit
"""

#: Pages of a user's records in id order (``list_entities`` and its siblings).
ENTITIES_PAGE = f"""
SELECT {ENTITY_COLS} FROM entities e
WHERE e.user_id = :user_id AND e.id > :after
ORDER BY e.id
LIMIT :limit
"""
RELATIONS_PAGE = (
    f"SELECT {RELATION_COLS} {RELATION_FROM} WHERE r.user_id = :user_id AND r.id > :after "
    "ORDER BY r.id LIMIT :limit"
)

#: The relations of ``relations_among``'s ids (one JSON array parameter, any number of ids),
#: found from the ids through the source and target indexes (``CROSS JOIN`` keeps the ids
#: the outer loop): the read grows with the relations of those entities, not the user's.
_AMONG_HITS = {
    True: "SELECT r.id FROM ids CROSS JOIN relations r ON r.source_id = ids.id "
    "WHERE r.target_id IN (SELECT id FROM ids)",
    False: "SELECT r.id FROM ids CROSS JOIN relations r ON r.source_id = ids.id UNION "
    "SELECT r.id FROM ids CROSS JOIN relations r ON r.target_id = ids.id",
}
_AMONG_STATE = {True: "", False: " AND r.valid_until IS NULL"}
#: Current first, heaviest first, then as :data:`RELATION_ORDER`, then the id.
RANKED_RELATION_ORDER = (
    "ORDER BY (r.valid_until IS NOT NULL), r.weight DESC, r.valid_from_ts, r.first_seen_ts, "
    "r.type, s.name, t.name, r.id"
)
#: ``relations_among``, by ``(both_ends, include_superseded)``: four constant texts.
RELATIONS_AMONG = {
    (both, superseded): (
        "WITH ids(id) AS (SELECT value FROM json_each(:ids)), "
        f"hits(id) AS ({_AMONG_HITS[both]}) "
        f"SELECT {RELATION_COLS} FROM hits CROSS JOIN relations r ON r.id = hits.id "
        "JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id "
        "WHERE r.user_id = :user_id AND s.user_id = :user_id AND t.user_id = :user_id"
        f"{_AMONG_STATE[superseded]} {RANKED_RELATION_ORDER} LIMIT :limit"
    )
    for both in (True, False)
    for superseded in (True, False)
}

CURRENT_EDGE = (
    "SELECT id, evidence, valid_from_ts FROM relations WHERE source_id = ? AND target_id = ? "
    "AND type = ? AND valid_until IS NULL"
)

STRENGTHEN = """
UPDATE relations SET
    weight = weight + :weight,
    evidence = :evidence,
    last_seen = CASE WHEN :now_ts > last_seen_ts THEN :now ELSE last_seen END,
    last_seen_ts = MAX(last_seen_ts, :now_ts)
WHERE id = :id
"""

INSERT_RELATION = """
INSERT INTO relations (id, user_id, source_id, target_id, type, weight, evidence,
                       first_seen, first_seen_ts, last_seen, last_seen_ts,
                       valid_from, valid_from_ts, valid_until, valid_until_ts)
VALUES (:id, :user_id, :source_id, :target_id, :type, :weight, :evidence,
        :now, :now_ts, :now, :now_ts, :valid_from, :valid_from_ts, NULL, NULL)
"""

SUPERSEDE = "UPDATE relations SET valid_until = ?, valid_until_ts = ? WHERE id = ?"

CURRENT_TARGETS = f"""
SELECT {ENTITY_COLS} FROM relations r JOIN entities e ON e.id = r.target_id
WHERE r.user_id = ? AND r.source_id = ? AND r.type = ? AND r.valid_until IS NULL
ORDER BY r.weight DESC, e.name
"""

MERGE_EVENT = """
INSERT INTO temporal_events (id, user_id, description, occurred_at, occurred_at_ts,
                             importance, created_at, created_at_ts)
VALUES (:id, :user_id, :description, :occurred_at, :occurred_at_ts,
        :create_importance, :now, :now_ts)
ON CONFLICT (id) DO UPDATE SET
    importance = MAX(importance, COALESCE(:importance, importance))
"""

LINK_PARTICIPANT = "INSERT OR IGNORE INTO participations (entity_id, event_id) VALUES (?, ?)"

MERGE_CAUSAL = """
INSERT INTO causal_links (id, user_id, cause, effect, importance, created_at, created_at_ts)
VALUES (:id, :user_id, :cause, :effect, :create_importance, :now, :now_ts)
ON CONFLICT (id) DO UPDATE SET
    importance = MAX(importance, COALESCE(:importance, importance))
"""

LINK_CAUSAL = "INSERT OR IGNORE INTO causal_edges (link_id, entity_id, direction) VALUES (?, ?, ?)"

EVENTS_WHERE = {
    "id": "t.id = :id",
    "user": "t.user_id = :user_id",
    "entity": "t.user_id = :user_id AND EXISTS (SELECT 1 FROM participations p "
    "WHERE p.event_id = t.id AND p.entity_id = :eid)",
    "page": "t.user_id = :user_id AND t.id > :after",
}
_EVENTS_ORDER = {
    "page": "t.id",
}


def events(where: str) -> str:
    """The events matching one of :data:`EVENTS_WHERE`, with their participants."""
    return f"""
    SELECT t.*, (SELECT json_group_array(name) FROM (
            SELECT e.name FROM participations p JOIN entities e ON e.id = p.entity_id
            WHERE p.event_id = t.id ORDER BY e.name)) AS participants
    FROM temporal_events t WHERE {EVENTS_WHERE[where]}
    ORDER BY {_EVENTS_ORDER.get(where, "t.occurred_at_ts DESC, t.created_at_ts DESC, t.id")}
    LIMIT :limit
    """


LINKS_WHERE = {
    "id": "c.id = :id",
    "user": "c.user_id = :user_id",
    "entity": "c.user_id = :user_id AND EXISTS (SELECT 1 FROM causal_edges x "
    "WHERE x.link_id = c.id AND x.entity_id = :eid)",
    "page": "c.user_id = :user_id AND c.id > :after",
}
_SIDE = """(SELECT json_group_array(name) FROM (
    SELECT e.name FROM causal_edges x JOIN entities e ON e.id = x.entity_id
    WHERE x.link_id = c.id AND x.direction = '{0}' ORDER BY e.name))"""


def links(where: str) -> str:
    """The causal links matching one of :data:`LINKS_WHERE`, with both sides."""
    return f"""
    SELECT c.*, {_SIDE.format("cause")} AS causes, {_SIDE.format("effect")} AS effects
    FROM causal_links c WHERE {LINKS_WHERE[where]}
    ORDER BY {"c.id" if where == "page" else "c.created_at_ts DESC, c.id"}
    LIMIT :limit
    """


DECAYED_RELATIONS = (
    f"SELECT {RELATION_COLS} {RELATION_FROM} WHERE r.user_id = :user_id "
    "AND prax_decayed(r.weight, r.last_seen_ts, :now_ts, :lam) < :rt "
    f"{RELATION_ORDER}"
)

DECAYED_ENTITIES = """
SELECT e.id, e.name FROM entities e
WHERE e.user_id = :user_id
  AND prax_decayed(e.importance, e.last_seen_ts, :now_ts, :lam) < :et
  AND NOT EXISTS (
      SELECT 1 FROM relations r
      WHERE (r.source_id = e.id OR r.target_id = e.id)
        AND prax_decayed(r.weight, r.last_seen_ts, :now_ts, :lam) >= :rt)
ORDER BY e.name
"""

DELETE_RELATION = "DELETE FROM relations WHERE id = ?"
DELETE_ENTITY = "DELETE FROM entities WHERE id = ?"

STATS = """
SELECT
  (SELECT COUNT(*) FROM entities WHERE user_id = :u) AS entities,
  (SELECT COUNT(*) FROM relations WHERE user_id = :u) AS relations,
  (SELECT COUNT(*) FROM relations WHERE user_id = :u AND valid_until IS NULL)
      AS current_relations,
  (SELECT COUNT(*) FROM temporal_events WHERE user_id = :u) AS temporal_events,
  (SELECT COUNT(*) FROM causal_links WHERE user_id = :u) AS causal_links
"""

#: In this order: edges and links before the entities they reference.
DELETE_USER = (
    "DELETE FROM relations WHERE user_id = ?",
    "DELETE FROM causal_links WHERE user_id = ?",
    "DELETE FROM temporal_events WHERE user_id = ?",
    "DELETE FROM entities WHERE user_id = ?",
)

# ------------------------------------------------------------------ load_records / delete_records
# Records written as they are (an import); ``ON CONFLICT DO NOTHING``: one the user has stays.

LOAD_ENTITY = """
INSERT INTO entities (id, user_id, name, display_name, type, importance, mention_count,
                      first_seen, first_seen_ts, last_seen, last_seen_ts, properties)
VALUES (:id, :user_id, :name, :display_name, :type, :importance, :mention_count,
        :first_seen, :first_seen_ts, :last_seen, :last_seen_ts, :properties)
ON CONFLICT DO NOTHING
"""

#: A relation of the same ends, type and ``valid_from`` (or, ``:current``, a current one).
RELATION_THERE = """
SELECT 1 FROM relations
WHERE source_id = :source_id AND target_id = :target_id AND type = :type
  AND (valid_from_ts = :valid_from_ts OR (:current AND valid_until IS NULL))
LIMIT 1
"""

LOAD_RELATION = """
INSERT INTO relations (id, user_id, source_id, target_id, type, weight, evidence,
                       first_seen, first_seen_ts, last_seen, last_seen_ts,
                       valid_from, valid_from_ts, valid_until, valid_until_ts)
VALUES (:id, :user_id, :source_id, :target_id, :type, :weight, :evidence,
        :first_seen, :first_seen_ts, :last_seen, :last_seen_ts,
        :valid_from, :valid_from_ts, :valid_until, :valid_until_ts)
"""

LOAD_EVENT = """
INSERT INTO temporal_events (id, user_id, description, occurred_at, occurred_at_ts,
                             importance, created_at, created_at_ts)
VALUES (:id, :user_id, :description, :occurred_at, :occurred_at_ts,
        :importance, :created_at, :created_at_ts)
ON CONFLICT DO NOTHING
"""

LOAD_LINK = """
INSERT INTO causal_links (id, user_id, cause, effect, importance, created_at, created_at_ts)
VALUES (:id, :user_id, :cause, :effect, :importance, :created_at, :created_at_ts)
ON CONFLICT DO NOTHING
"""

#: Records of one user by id (a JSON array parameter), edges before the entities: in order.
DELETE_RECORDS = (
    ("relation_ids", "DELETE FROM relations WHERE user_id = :user_id AND id IN "
     "(SELECT value FROM json_each(:ids))"),
    ("link_ids", "DELETE FROM causal_links WHERE user_id = :user_id AND id IN "
     "(SELECT value FROM json_each(:ids))"),
    ("event_ids", "DELETE FROM temporal_events WHERE user_id = :user_id AND id IN "
     "(SELECT value FROM json_each(:ids))"),
    ("entity_ids", "DELETE FROM entities WHERE user_id = :user_id AND id IN "
     "(SELECT value FROM json_each(:ids))"),
)  # fmt: skip
