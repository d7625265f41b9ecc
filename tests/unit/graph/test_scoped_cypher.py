"""The lexical guard of ScopedCypherGraph (no server needed; the real-Neo4j side is in
tests/integration/graph/test_neo4j_langchain.py), and the doctests of the new agent surface."""

from __future__ import annotations

import doctest
import importlib

import pytest

from langgraph_prax_memory.graph.neo4j import CypherScopeError, check_scoped_cypher

ACCEPTED = [
    "MATCH (e:Entity {user_id: $user_id}) RETURN e.name",
    "MATCH (a:Entity {user_id: $user_id})-[r:RELATES_TO]->(b:Entity {user_id: $user_id}) "
    "WHERE r.type = 'works_on' AND (a.importance > 0.5 OR b.name = 'x') "
    "RETURN a.name, b.name, count(*) ORDER BY a.name LIMIT 10",
    "MATCH (a:Entity {user_id: $user_id}) WHERE toLower(a.name) CONTAINS '(b)' RETURN a",
    "MATCH (a:Entity {user_id: $user_id}) WHERE EXISTS "
    "{ (a {user_id: $user_id})-[:RELATES_TO]->(:Entity {user_id: $user_id}) } RETURN a",
    "MATCH (e:TemporalEvent {`user_id`: $user_id, description: 'x'}) RETURN e.occurred_at",
    "MATCH (a:Entity {user_id: $user_id}) WHERE (a.importance >= 0.5) AND ($flag OR (1 = 1)) "
    "RETURN a.name",
    "MATCH (a:Entity {user_id: $user_id} WHERE a.importance > 0.2) RETURN a.name",
]
REFUSED = {
    "unpinned": "MATCH (e:Entity) RETURN e.name",
    "no space": "MATCH(e) RETURN e",
    "second pattern": "MATCH (a {user_id: $user_id}) MATCH (b) RETURN b",
    "optional match": "MATCH (a {user_id: $user_id}) OPTIONAL MATCH (b:Entity) RETURN b",
    "duplicate key": "MATCH (a {user_id: $user_id, user_id: 'bob'}) RETURN a",
    "or in the pin": "MATCH (a {user_id: $user_id OR true}) RETURN a",
    "literal user": "MATCH (a {user_id: 'bob'}) RETURN a",
    "other param": "MATCH (a {user_id: $other}) RETURN a",
    "inline where": "MATCH (b WHERE b.user_id = $user_id) RETURN b",
    "quoted variable": "MATCH (`b`) RETURN `b`",
    "var length": "MATCH (a {user_id: $user_id})-[*]-(b {user_id: $user_id}) RETURN b",
    "quantified rel": "MATCH (a {user_id: $user_id})-[r]->+(b {user_id: $user_id}) RETURN b",
    "quantifier": "MATCH (a {user_id: $user_id})-->{1,3}(b {user_id: $user_id}) RETURN b",
    "shortest path": "MATCH p=shortestPath((a {user_id: $user_id})-[*]-(b {user_id: $user_id})) "
    "RETURN p",
    "pattern comprehension": "MATCH (a {user_id: $user_id}) RETURN [(a)-->(x) | x.name]",
    "count subquery": "MATCH (a {user_id: $user_id}) RETURN COUNT { MATCH (n) }",
    "procedure": "CALL db.labels()",
    "apoc function": "MATCH (a {user_id: $user_id}) "
    "RETURN apoc.cypher.runFirstColumnMany('MATCH (n) RETURN n', {})",
    "write": "MATCH (a {user_id: $user_id}) DETACH DELETE a",
    "set": "MATCH (a {user_id: $user_id}) SET a.name = 'x'",
    "merge": "MERGE (a:Entity {user_id: $user_id, name: 'x'})",
    "line comment": "MATCH (a {user_id: $user_id}) // c\n MATCH (b) RETURN b",
    "block comment": "MATCH (a {user_id: $user_id}) /* c */ RETURN a",
    "quote escape": "MATCH (a {user_id: $user_id}) WHERE a.name = '\\' ' MATCH (b) RETURN b",
    "use": "USE system SHOW USERS",
    "load csv": "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
    "no pattern": "RETURN 1",
    "unbalanced": "MATCH (a {user_id: $user_id} RETURN a",
    "empty": "   ",
    "is label": "MATCH p = (IS Entity)-->(IS Entity) RETURN [n IN nodes(p) | n.name]",
    "anonymous where": "MATCH p = (WHERE true)-->(b {user_id: $user_id}) RETURN p",
    "pin inside where": "MATCH (n WHERE n.user_id <> {user_id: $user_id}.user_id) RETURN n.name",
    "dynamic label": "MATCH (n:$(['Entity'])) RETURN n",
    "quoted namespace": "MATCH (a {user_id: $user_id}) "
    "RETURN `apoc`.`cypher`.`runFirstColumnMany`('MATCH (n) RETURN n', {}) AS x",
    "quoted function": "MATCH (a {user_id: $user_id}) RETURN `apoc.cypher.run`('x', {}) AS x",
    "zero-width space": "MATCH (a {user_id: $user_id})\u200b RETURN a",
}


@pytest.mark.parametrize("query", ACCEPTED)
def test_pinned_read_queries_pass_unchanged(query: str) -> None:
    assert check_scoped_cypher(query) == query


@pytest.mark.parametrize("query", list(REFUSED.values()), ids=list(REFUSED))
def test_unpinned_or_writing_queries_are_refused(query: str) -> None:
    with pytest.raises(CypherScopeError):
        check_scoped_cypher(query)


@pytest.mark.parametrize(
    "name",
    [
        "langgraph_prax_memory.graph.neo4j._scoped",
        "langgraph_prax_memory.middleware",
        "langgraph_prax_memory.vectorstore",
    ],
)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
