from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from tests.fakes import HashEmbeddings
from tests.services import MISSING, SERVICES, under_ci


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's memory settings or data directory."""
    for name in (
        "MEMORY_ENABLED",
        "QDRANT_URL",
        "NEO4J_URI",
        "EMBEDDING_PROVIDER",
        "EMBEDDING_MODEL",
        "MEMORY_DATA_DIR",
        "MEMORY_STM_MAX_ENTRIES",
        "MEMORY_DECAY_HALFLIFE_DAYS",
        "MEMORY_COLLECTION",
        "MEMORY_VECTOR_ENGINE",
        "QDRANT_CONNECT_TIMEOUT",
        "QDRANT_READ_TIMEOUT",
        "NEO4J_CONNECT_TIMEOUT",
        "NEO4J_MAX_RETRY_TIME",
        "MEMORY_BREAKER_FAILURES",
        "MEMORY_BREAKER_COOLDOWN",
        "KNOWLEDGE_HYBRID_ENABLED",
        "MEMORY_MODEL_ROUTING",
        "MEMORY_MODEL_REPOSITORY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MEMORY_DATA_DIR", str(tmp_path / "data"))
    # the machine's model cache is shared by every data folder: each test gets its own
    monkeypatch.setenv("MEMORY_MODELS_DIR", str(tmp_path / "model-cache"))


@pytest.fixture
def config(tmp_path: Path) -> MemoryConfig:
    return MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path / "data")


@pytest.fixture
def memory(config: MemoryConfig) -> Iterator[PraxMemory]:
    # Hash embeddings have no semantic cosine, so the relevance floor (a cosine calibrated
    # for the packaged MiniLM model) is off here; tests/integration/test_one_ranker.py and
    # benchmarks/personal_memory.py test it with the real model.
    floor_off = config.retrieval.model_copy(update={"relevance_floor": False})
    config = config.model_copy(update={"retrieval": floor_off})
    mem = PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)
    yield mem
    mem.close()


_SKIP_HEADLINE = pytest.StashKey[str]()


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        reason = str(longrepr[2])
    else:
        reason = str(longrepr)
    return reason.removeprefix("Skipped: ")


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    """End a run that skipped tests with a loud line: how many, and why.

    A missing service fails its tests (tests/services.py), so every skip here has another
    reason, and is still worth a look.
    """
    for line in SERVICES:
        terminalreporter.write_line(line)
    if MISSING:  # what the test command could not set up here, each named once with its fix
        terminalreporter.write_sep("!", f"MISSING: {', '.join(MISSING)}", red=True, bold=True)
        for service, why in MISSING.items():
            terminalreporter.write_line(f"  {service}: {why}", red=True)
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if r.skipped]
    if not skipped:
        return
    reasons = Counter(_skip_reason(r) for r in skipped)
    where = "under CI" if under_ci() else "outside CI"
    headline = f"{len(skipped)} TESTS SKIPPED, NOT RUN ({where})"
    terminalreporter.write_sep("!", headline, red=True, bold=True)
    for reason, n in reasons.most_common():
        short = reason if len(reason) <= 300 else reason[:297] + "..."
        terminalreporter.write_line(f"  {n} x {short}", red=True)
    config.stash[_SKIP_HEADLINE] = headline


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Repeat the skip headline as the run's very last line (after pytest's own counts)."""
    headline = config.stash.get(_SKIP_HEADLINE, None)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if headline and reporter is not None:
        reporter.write_sep("!", headline + " (reasons above)", red=True, bold=True)
