"""The graph tools: ``memory_entity_lookup`` and ``memory_graph_query``."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from langgraph_prax_memory._graph_query import answer_graph_question, describe_relation
from langgraph_prax_memory.errors import (
    MemoryValidationError,
)
from langgraph_prax_memory.tools._base import MemoryTool
from langgraph_prax_memory.tools._schemas import _EntityInput, _GraphQueryInput


class MemoryEntityLookupTool(MemoryTool):
    """``memory_entity_lookup``: an entity, all its current relations and recent events."""

    name: str = "memory_entity_lookup"
    description: str = (
        "Look up a person, project, tool or topic in the memory graph: returns the entity "
        "and all its current relations. Use with memory_recall for 'what do you know about X'."
    )
    args_schema: type[BaseModel] = _EntityInput
    requires_ltm: ClassVar[bool] = True

    def execute(self, user_id: str, args: _EntityInput) -> tuple[str, dict[str, Any]]:
        """Look the entity up (or suggest similar names), within ``retrieval.graph_timeout``."""
        return self.memory.parts.graph_deadline.run(
            lambda: self._lookup(user_id, args),
            timeout=self.memory.config.retrieval.graph_timeout,
            what="entity lookup",
        )

    def _lookup(self, user_id: str, args: _EntityInput) -> tuple[str, dict[str, Any]]:
        name = args.name
        graph = self.memory.graph
        found = graph.get_entity(user_id, name, include_superseded=args.include_history)
        if found is None:
            similar = graph.search_entities(user_id, name, limit=5)
            artifact: dict[str, Any] = {
                "entity": None,
                "suggestions": [e.display_name for e in similar],
            }
            if similar:
                names = ", ".join(e.display_name for e in similar)
                return f"No entity named {name!r}. Similar: {names}.", artifact
            return f"No entity named {name!r} in memory.", artifact
        ent = found.entity
        events = graph.get_events(user_id, entity=ent.name, limit=5)
        lines = [
            f"{ent.display_name} ({ent.type}; importance {ent.importance:.2f}; mentioned "
            f"{ent.mention_count}×; last seen {ent.last_seen.date().isoformat()})"
        ]
        if found.relations:
            lines.append("Relations:")
            lines.extend(f"- {describe_relation(r)}" for r in found.relations)
        else:
            lines.append("No current relations.")
        if events:
            lines.append("Events:")
            lines.extend(
                f"- {ev.occurred_at.date().isoformat()}: {ev.description}" for ev in events
            )
        artifact = {
            "entity": ent.model_dump(mode="json"),
            "relations": [r.model_dump(mode="json") for r in found.relations],
            "events": [e.model_dump(mode="json") for e in events],
        }
        return "\n".join(lines), artifact


class MemoryGraphQueryTool(MemoryTool):
    """``memory_graph_query``: answer a question from the graph (no generated Cypher)."""

    name: str = "memory_graph_query"
    description: str = (
        "Ask the memory graph how people, projects, tools and topics are connected. The "
        "question's key phrases are matched to entities and their neighbourhood is returned."
    )
    args_schema: type[BaseModel] = _GraphQueryInput
    requires_ltm: ClassVar[bool] = True

    def execute(self, user_id: str, args: _GraphQueryInput) -> tuple[str, dict[str, Any]]:
        """Answer from the graph, within ``retrieval.graph_timeout``."""
        question = args.question
        if not question.strip():
            raise MemoryValidationError("question must not be empty")
        answer = self.memory.parts.graph_deadline.run(
            lambda: answer_graph_question(self.memory.graph, user_id, question),
            timeout=self.memory.config.retrieval.graph_timeout,
            what="graph query",
        )
        artifact = {
            "question": question,
            "phrases": answer.phrases,
            "entities": [e.model_dump(mode="json") for e in answer.entities],
            "connections": [r.model_dump(mode="json") for r in answer.connections],
            "bridges": [list(b) for b in answer.bridges],
            "relations": [r.model_dump(mode="json") for r in answer.relations],
        }
        return answer.to_text(), artifact
