"""The seed's full-pipeline session on the real offline defaults (MiniLM, Qdrant on disk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from tests.unit.agents.test_full_pipeline import POLARS, ROLE, run_full_pipeline

pytestmark = pytest.mark.integration


def test_full_pipeline_on_offline_defaults(tmp_path: Path) -> None:
    with PraxMemory(MemoryConfig(data_dir=tmp_path / "data")) as memory:
        model, state = run_full_pipeline(memory)
        system = model.received[-1][0].text
        memories = system.split("## Relevant Memories\n", 1)[1].splitlines()
        assert {line.split("] ", 1)[1] for line in memories} == {ROLE, POLARS}
        assert "- **user_role**: data scientist at FinCorp" in system
        assert state["messages"][-1].text.startswith("Since you use polars")
