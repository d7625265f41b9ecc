"""``prax-memory doctor``: check each configured backend and say what works."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from langgraph_prax_memory._parts import HasParts, MemoryParts
    from langgraph_prax_memory.config import MemoryConfig

__all__ = ["Check", "diagnose", "quick_checks", "run_checks"]

Status = Literal["ok", "fail", "skip"]
_PROBE_USER = "prax-doctor-probe"


@dataclass(frozen=True)
class Check:
    """The outcome of one check.

    Attributes:
        name: What was checked (``vectors``, ``embeddings``, ``graph`` ...).
        status: ``ok``, ``fail`` or ``skip`` (not configured).
        detail: What was found, or why it failed.
        ms: How long the check took.
    """

    name: str
    status: Status
    detail: str
    ms: float = 0.0


def _timed(name: str, fn: Callable[[], str]) -> Check:
    start = time.perf_counter()
    try:
        detail = fn()
    except Exception as exc:  # a doctor reports every failure as its check's row, never aborts
        return Check(name, "fail", f"{type(exc).__name__}: {exc}", _ms(start))
    return Check(name, "ok", detail, _ms(start))


def diagnose(
    make_config: Callable[[], MemoryConfig], open_memory: Callable[[MemoryConfig], HasParts]
) -> list[Check]:
    """Build the configuration and the memory, then :func:`run_checks` — reporting, not raising.

    What ``prax-memory doctor`` runs: a bad setting (``QDRANT_URL='not a url'``) is a failed
    ``config`` check naming the variable, and a memory that cannot be opened a failed
    ``open`` check, instead of an aborted command.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> make = lambda: MemoryConfig(data_dir="/tmp/prax-doc", qdrant_url="not a url")
        >>> diagnose(make, PraxMemory)[0].name
        'config'
    """
    from langgraph_prax_memory._parts import parts_of
    from langgraph_prax_memory.errors import ModelUnavailableError

    start = time.perf_counter()
    try:
        config = make_config()
    except Exception as exc:
        return [Check("config", "fail", f"{type(exc).__name__}: {exc}", _ms(start))]
    try:
        opened = open_memory(config)
    except ModelUnavailableError as exc:  # the embedding model: what works without it, too
        from langgraph_prax_memory.notes import UserNotes

        failed = Check("embeddings", "fail", f"{type(exc).__name__}: {exc}", _ms(start))
        return [
            Check("config", "ok", "settings are valid"),
            *_basic_checks(config, UserNotes(config).git_executable),
            failed,
            *(
                Check(name, "skip", "not opened: the embedding model is missing")
                for name in _DEEP[1:]
            ),
        ]
    except Exception as exc:
        return [Check("open", "fail", f"{type(exc).__name__}: {exc}", _ms(start))]
    try:
        return run_checks(opened)
    finally:
        parts_of(opened).close()


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


#: The checks that need long-term memory (the embedding model, the vector engine, the graph).
_DEEP = ("embeddings", "vectors", "graph")


def quick_checks(make_config: Callable[[], MemoryConfig]) -> list[Check]:
    """The checks that need no vectors: settings, data directory, scratchpad and notes (git).

    What ``prax-memory doctor --quick`` runs: it opens neither the vector engine nor the
    embedding model nor the graph (their rows are ``skip``), so it answers in well under a
    second. A pulled embedding model's files are checked against their checksums, though
    (reading them, not loading the model): a model that is missing or damaged is a ``fail``
    row. Checks never raise; a failure is a ``fail`` row.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig
        >>> checks = quick_checks(lambda: MemoryConfig(data_dir="/tmp/prax-doctor-quick"))
        >>> [(c.name, c.status) for c in checks][:4]
        [('config', 'ok'), ('data_dir', 'ok'), ('stm', 'ok'), ('notes', 'ok')]
    """
    from langgraph_prax_memory.notes import UserNotes

    start = time.perf_counter()
    try:
        config = make_config()
    except Exception as exc:
        return [Check("config", "fail", f"{type(exc).__name__}: {exc}", _ms(start))]
    checks = [Check("config", "ok", "settings are valid", _ms(start))]
    checks.extend(_basic_checks(config, UserNotes(config).git_executable))
    checks.append(_model_files(config))
    checks.extend(Check(name, "skip", "not checked (--quick)") for name in _DEEP[1:])
    return checks


def _model_files(cfg: MemoryConfig) -> Check:
    """The ``embeddings`` row of ``--quick``: a pulled model's files, checked, never loaded.

    Light: neither fastembed nor LangChain is imported, so a name outside the catalog (one
    of fastembed's list, or a misspelling) is left to the full ``doctor``.
    """
    from langgraph_prax_memory.embeddings import find_model, model_dirs, require_pulled

    name = cfg.resolved_embedding_model
    spec = find_model(name) if cfg.embedding_provider == "local" else None
    if not cfg.enabled:
        return Check("embeddings", "skip", "long-term memory disabled (MEMORY_ENABLED=false)")
    if spec is None or spec.packaged:
        return Check("embeddings", "skip", f"not checked (--quick): {name}")

    def files() -> str:
        folder = require_pulled(spec, cfg.models_dir, model_dirs(cfg))
        return f"{spec.name} pulled in {folder}, its files match their checksums (not loaded)"

    return _timed("embeddings", files)


def _basic_checks(cfg: MemoryConfig, git_executable: str | None) -> list[Check]:
    """Data directory, scratchpad and notes: what works without long-term memory."""
    checks: list[Check] = []

    def data_dir() -> str:
        cfg.data_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=cfg.data_dir, prefix=".doctor-"):
            pass
        return f"{cfg.data_dir} is writable"

    checks.append(_timed("data_dir", data_dir))

    def stm() -> str:
        from langgraph_prax_memory.config import MemoryConfig
        from langgraph_prax_memory.stm import ScratchpadStore

        with tempfile.TemporaryDirectory(dir=cfg.data_dir, prefix=".doctor-") as tmp:
            pad = ScratchpadStore(MemoryConfig(enabled=False, data_dir=tmp))
            pad.write(_PROBE_USER, "probe", "ok")
            pad.delete(_PROBE_USER, "probe")
        return f"scratchpads under {cfg.users_dir} (atomic JSON files)"

    checks.append(_timed("stm", stm))

    def notes() -> str:
        git = git_executable or shutil.which("git")
        if not git:
            raise RuntimeError("git not found on PATH: user_notes.md updates will fail")
        return f"git-backed notes with {git}"

    checks.append(_timed("notes", notes))
    return checks


def run_checks(memory: MemoryParts | HasParts) -> list[Check]:
    """Check the data directory, STM, notes (git), the embedder, Qdrant and the graph.

    Every check is read-only except the STM check, which writes and deletes one probe entry
    in a temporary workspace. Checks never raise; a failure is a ``fail`` row.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(enabled=False, data_dir="/tmp/prax-doctor"))
        >>> [c.status for c in run_checks(mem)][-3:]
        ['skip', 'skip', 'skip']
    """
    from langgraph_prax_memory._parts import parts_of

    parts = parts_of(memory)
    cfg = parts.config
    checks = _basic_checks(cfg, parts.notes.git_executable)

    if not parts.ltm.available:
        for name in _DEEP:
            checks.append(Check(name, "skip", "long-term memory disabled (MEMORY_ENABLED=false)"))
        return checks

    def embeddings() -> str:
        emb = parts.ltm.embeddings
        vec = emb.embed_query("prax doctor probe")
        if len(vec) != emb.dimension:
            raise RuntimeError(f"vector width {len(vec)} != collection width {emb.dimension}")
        used = emb.last_model or emb.model_name
        note = "" if used == emb.model_name else f" (fell back to {used})"
        return f"{cfg.embedding_provider}: {emb.model_name}, {emb.dimension} dims{note}"

    checks.append(_timed("embeddings", embeddings))

    def vectors() -> str:
        where = cfg.qdrant_url or f"embedded ({cfg.vector_engine}) at {cfg.embedded_qdrant_path}"
        parts.ltm.count(_PROBE_USER)
        return f"Qdrant {where}, collection {cfg.collection_name}"

    checks.append(_timed("vectors", vectors))

    def graph() -> str:
        parts.graph.stats(_PROBE_USER)
        if cfg.neo4j_uri:
            return f"Neo4j at {cfg.neo4j_uri}"
        return f"SQLite at {cfg.graph_path}"

    checks.append(_timed("graph", graph))
    return checks
