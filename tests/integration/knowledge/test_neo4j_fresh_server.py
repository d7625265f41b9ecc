"""A fresh Neo4j logs no "does not exist" warnings on knowledge operations (issue 40, item 11).

On a database where no knowledge or memory graph was written yet, the server answered the
knowledge queries with notifications such as "The relationship type `REFERENCES_ENTITY` does
not exist" and "The label `Entity` does not exist", which the driver logs as warnings on every
such query. The stores' set-up now creates the labels, relationship types and property keys
their queries name, so the server knows them. The shared test server cannot show this (other
tests have long created them), so this module starts a server of its own, with an empty
database (``scripts/neo4j-server`` with a home of its own; the jars are shared).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory.graph import Neo4jGraphStore, entity_id
from langgraph_prax_memory.knowledge import (
    ConceptInput,
    DocumentInput,
    Neo4jKnowledgeStore,
    RelationInput,
)
from tests.services import unavailable

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "neo4j-server"


@pytest.fixture(scope="module")
def fresh_neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URI of a Neo4j server started for this module, on an empty database."""
    home = tmp_path_factory.mktemp("fresh-neo4j")
    cache = Path(os.environ.get("PRAX_NEO4J_HOME", ROOT / ".neo4j"))
    if (cache / "jars.stamp").is_file():  # the jars another start fetched: no second fetch
        for folder in ("lib", "plugins"):
            (home / folder).symlink_to(cache / folder, target_is_directory=True)
        shutil.copy(cache / "jars.stamp", home / "jars.stamp")
    env = {**os.environ, "PRAX_NEO4J_HOME": str(home), "PRAX_NEO4J_PORT": "auto"}
    started = subprocess.run(
        [str(SCRIPT), "start"], capture_output=True, text=True, env=env, timeout=1200, cwd=ROOT
    )
    if started.returncode != 0:
        unavailable(
            "a fresh Neo4j server",
            f"scripts/neo4j-server start exited {started.returncode}: {started.stderr[-2000:]}",
            hint="see docs/neo4j-test-server.md (Java 17 and Maven)",
        )
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([str(SCRIPT), "stop"], capture_output=True, env=env, timeout=300)


def test_graph_and_knowledge_operations_on_a_fresh_neo4j_draw_no_unknown_name_warnings(
    fresh_neo4j: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="neo4j.notifications")
    user, ns = "alice", "papers"
    with Neo4jGraphStore(fresh_neo4j) as graph:
        # the memory graph's reads before its first write, then its writes
        assert graph.stats(user).entities == 0
        assert graph.get_events(user) == [] and graph.get_causal_links(user) == []
        assert graph.get_neighbours(user, "Alice", hops=2) == []
        assert graph.decay_graph(user, dry_run=True).entities == []
        graph.add_relation(user, "Alice", "Bob", "works_on")
        graph.merge_temporal_event(user, "met", participants=["Alice"])
        graph.add_causal_link(user, "rain", "stayed in", cause_entities=["Alice"])
        assert graph.get_events(user, entity="Alice")
        assert graph.get_causal_links(user, entity="Alice")
        graph.delete_user(user)
        # the knowledge store, on a database that has never held a knowledge link
        store = Neo4jKnowledgeStore(graph)
        # reads first, before any knowledge write
        assert store.stats(user).concepts == 0
        assert store.keyword_search(user, "attention") == []
        assert store.list_concepts(user) == [] and store.list_documents(user) == []
        assert store.namespaces(user) == []
        assert store.concepts_for_entities(user, [entity_id(user, "Vaswani")]) == []
        assert store.get_relations(user, ns) == []
        # then every write and the reads of what was written
        store.write_batch(
            user,
            ns,
            [ConceptInput(name="Attention", description="weighs tokens"), ConceptInput(name="RNN")],
            [RelationInput(source="Attention", target="RNN", type="related_to")],
            document=DocumentInput(title="Attention is all you need", content_hash="abc"),
        )
        store.merge_concept(user, ns, "Transformer", tags=["model"])
        store.add_relation(user, ns, "Transformer", "Attention", "related_to")
        graph.merge_entity(user, "Vaswani")
        assert store.connect_entity(user, ns, "Attention", entity_id(user, "Vaswani"))
        assert [e.name for e in store.referenced_entities(user, ns, "Attention")] == ["vaswani"]
        assert store.concepts_for_entities(user, [entity_id(user, "Vaswani")])
        concept = store.get_concept(user, ns, "Attention")
        assert concept is not None and store.concept_documents(user, concept.id)
        assert store.keyword_search(user, "attention")
        assert store.stats(user).entity_links == 1
        assert store.disconnect_entity(user, ns, "Attention", entity_id(user, "Vaswani"))
        store.delete_items(user, ns, concepts=[concept.id])
        store.delete_user(user)
        graph.delete_user(user)
    warned = [
        r.getMessage()
        for r in caplog.records
        if r.name == "neo4j.notifications" and "does not exist" in r.getMessage()
    ]
    assert warned == [], "\n".join(w[:300] for w in warned)
