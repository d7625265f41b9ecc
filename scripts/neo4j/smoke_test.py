"""End-to-end check of the local Neo4j test server started by scripts/neo4j-server.

Usage: python scripts/neo4j/smoke_test.py [bolt-uri]
(default: the URI printed by `scripts/neo4j-server uri`). Needs the `neo4j` driver.
Writes only nodes labelled PraxSmoke and drops its constraint again.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import uuid

from neo4j import GraphDatabase


def main() -> int:
    if len(sys.argv) > 1:
        uri = sys.argv[1]
    else:
        script = pathlib.Path(__file__).resolve().parent.parent / "neo4j-server"
        uri = subprocess.run(
            [str(script), "uri"], check=True, capture_output=True, text=True
        ).stdout.strip()
    token = uuid.uuid4().hex
    with GraphDatabase.driver(uri, auth=None) as driver:
        driver.verify_connectivity()
        driver.execute_query(
            "CREATE CONSTRAINT prax_smoke_id IF NOT EXISTS FOR (n:PraxSmoke) REQUIRE n.id IS UNIQUE"
        )
        driver.execute_query("CREATE (:PraxSmoke {id: $id, text: 'hello'})", id=token)
        records, _, _ = driver.execute_query(
            "MATCH (n:PraxSmoke {id: $id}) RETURN n.text AS text", id=token
        )
        assert [r["text"] for r in records] == ["hello"], records
        try:
            driver.execute_query("CREATE (:PraxSmoke {id: $id})", id=token)
        except Exception as exc:  # ConstraintError
            assert "already exists" in str(exc) or "ConstraintValidationFailed" in str(exc), exc
        else:
            raise AssertionError("uniqueness constraint was not enforced")
        records, _, _ = driver.execute_query(
            "CALL dbms.components() YIELD name, versions, edition RETURN *"
        )
        for r in records:
            print(f"{r['name']} {r['versions'][0]} {r['edition']}")
        try:
            records, _, _ = driver.execute_query("RETURN apoc.version() AS v")
            print(f"APOC {records[0]['v']}")
        except Exception as exc:  # APOC is optional (PRAX_NEO4J_APOC=0)
            print(f"APOC not available: {type(exc).__name__}")
        driver.execute_query("MATCH (n:PraxSmoke) DETACH DELETE n")
        driver.execute_query("DROP CONSTRAINT prax_smoke_id IF EXISTS")
    print(f"smoke test OK against {uri}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
