"""Graph commands: ``entity`` and ``graph``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.table import Table

    from langgraph_prax_memory.memory import PraxMemory

from langgraph_prax_memory.cli._app import (
    EXIT_NOT_FOUND,
    EXIT_OK,
    _Call,
    _check_user,
    _command,
    _ltm,
    _m,
    _text,
    cli,
)


def _relations_table(relations: Sequence[Any], title: str) -> Table:
    from rich.table import Table

    table = Table(title=title)
    for col in ("source", "relation", "target", "weight", "valid from", "valid until"):
        table.add_column(col, overflow="fold")
    for r in relations:
        table.add_row(
            _text(r.source),
            _text(r.type),
            _text(r.target),
            f"{r.weight:g}",
            r.valid_from.date().isoformat(),
            r.valid_until.date().isoformat() if r.valid_until else "current",
        )
    return table


@_command(cli, "entity")
@click.argument("name")
@click.option("--history", is_flag=True, help="Include superseded relations.")
def _entity(call: _Call, mem: PraxMemory, name: str, history: bool) -> int:
    """An entity of the user's graph and its relations."""
    _ltm(mem)
    user = call.user()
    found = mem.graph.get_entity(user, name, include_superseded=history)
    if found is None:
        similar = [e.display_name for e in mem.graph.search_entities(user, name, limit=5)]
        call.out.emit(
            {"user_id": user, "entity": None, "suggestions": similar},
            lambda: call.out.console.print(
                _m(
                    f"no entity {name!r}"
                    + (
                        f"; similar: {', '.join(similar)}"
                        if similar
                        else f"; `prax-memory graph -u {user}` lists every entity "
                        "(the user themselves is 'user')"
                    )
                )
            ),
        )
        return EXIT_NOT_FOUND
    ent = found.entity

    def render() -> None:
        call.out.console.print(
            f"[bold]{_m(ent.display_name)}[/] ({_m(ent.type)}) importance {ent.importance:.2f}, "
            f"mentioned {ent.mention_count}×, last seen {ent.last_seen.date().isoformat()}"
        )
        call.out.console.print(
            _relations_table(found.relations, f"relations of {_m(ent.display_name)}")
        )

    call.out.emit({"user_id": user, "entity": ent, "relations": found.relations}, render)
    return EXIT_OK


@_command(cli, "graph")
@click.argument("question", required=False)
@click.option("--history", is_flag=True, help="Include superseded relations.")
def _graph(call: _Call, mem: PraxMemory, question: str | None, history: bool) -> int:
    """The user's whole graph, or the answer to a QUESTION about it."""
    from langgraph_prax_memory._graph_query import answer_graph_question, describe_relation
    from langgraph_prax_memory._portable import graph_entities, graph_relations

    _ltm(mem)
    user = call.user()
    if question:
        answer = answer_graph_question(mem.graph, user, question)
        call.out.emit(
            {
                "user_id": user,
                "question": question,
                "entities": answer.entities,
                "connections": answer.connections,
                "bridges": answer.bridges,
                "relations": answer.relations,
                "answer": answer.to_text(),
            },
            lambda: call.out.console.print(_text(answer.to_text())),
        )
        return EXIT_OK if answer.entities else EXIT_NOT_FOUND
    stats = mem.graph.stats(user)
    entities = graph_entities(mem.parts, user, total=stats.entities)
    relations = graph_relations(mem.parts, user, entities, include_superseded=history)

    def render() -> None:
        con = call.out.console
        con.print(
            f"[bold]{_m(user)}[/]: {stats.entities} entities, {stats.current_relations} current "
            f"relations ({stats.relations} total), {stats.temporal_events} events, "
            f"{stats.causal_links} causal links"
        )
        if relations:
            con.print(_relations_table(relations, "relations"))
        for e in entities:
            if not any(e.name in (r.source, r.target) for r in relations):
                con.print(_text(f"- {e.display_name} ({e.type}), no relations"))

    data: dict[str, Any] = {
        "user_id": user,
        "stats": stats,
        "entities": entities,
        "relations": relations,
        "lines": [describe_relation(r) for r in relations],
    }
    code = _check_user(call, mem, user, data) if not entities else EXIT_OK
    call.out.emit(data, render)
    return code
