"""Model commands: ``models list`` and ``models pull NAME`` (a set-up step, never at run time)."""

from __future__ import annotations

from typing import Any

import click

from langgraph_prax_memory.cli._app import EXIT_OK, _Call, _command, _group, _m, cli

_models = _group(cli, "models", "Local embedding models: list them, pull one from Maven.")


@_command(_models, "list", opens=False)
def _list(call: _Call) -> int:
    """The local models this package knows, and which are ready in the model cache."""
    from langgraph_prax_memory.embeddings import catalog, pulled_dir

    models_dir = call.config().data_dir / "models"
    rows: list[dict[str, Any]] = []
    for spec in catalog():
        state = (
            "packaged"
            if spec.packaged
            else ("pulled" if pulled_dir(models_dir, spec) else "not pulled")
        )
        rows.append(
            {
                "name": spec.name,
                "dimension": spec.dimension,
                "state": state,
                "license": spec.license,
                "artifact": spec.maven.coordinates if spec.maven else None,
            }
        )

    def render() -> None:
        from rich.table import Table

        table = Table(title=f"models in {_m(models_dir)}")
        for col in ("name", "dim", "state", "license", "maven artifact"):
            table.add_column(col, overflow="fold")
        for r in rows:
            table.add_row(
                r["name"], str(r["dimension"]), r["state"], r["license"], r["artifact"] or "–"
            )
        call.out.console.print(table)

    call.out.emit({"models_dir": str(models_dir), "models": rows}, render)
    return EXIT_OK


@_command(_models, "pull", opens=False)
@click.argument("name")
@click.option(
    "--repository",
    metavar="URL",
    help="Maven repository root to fetch from over HTTP (default: $MEMORY_MODEL_REPOSITORY; "
    "else the Maven client, else Maven Central).",
)
@click.option(
    "--maven/--http",
    "use_maven",
    default=None,
    help="Force the Maven client (mvn) or plain HTTP.",
)
@click.option("--force", is_flag=True, help="Fetch again even when the model is there.")
def _pull(
    call: _Call, name: str, repository: str | None, use_maven: bool | None, force: bool
) -> int:
    """Fetch model NAME's jar, verify its pinned SHA-256 and unpack it into the model cache.

    Then set EMBEDDING_MODEL=NAME. Nothing is downloaded at run time.
    """
    from langgraph_prax_memory.embeddings import pull_model

    config = call.config()
    repo = repository or config.model_repository
    if not call.as_json:
        call.out.err.print(f"pulling {_m(name)} …")
    with call.out.progress() as progress:
        folder = pull_model(
            name,
            config.data_dir / "models",
            repository=repo,
            use_maven=use_maven,
            force=force,
            progress=progress,
        )
    call.out.emit(
        {"name": name, "path": str(folder)},
        lambda: call.out.console.print(
            f"[green]ready[/] {_m(name)} in {_m(folder)}: set EMBEDDING_MODEL={_m(name)}"
        ),
    )
    return EXIT_OK
