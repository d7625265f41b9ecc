"""The quality benchmarks' quick mode with a second real model: bge-small-en-v1.5 from Maven.

Nothing is hand-set: the product measures the model's cosine scale itself. The figures are
printed for the log (``-s`` or the CI output), not asserted as targets: what is asserted is
that the whole pipeline runs on the model and produces every figure. LoCoMo's development
split is evaluation data the project does not ship; where it is present
(``PRAX_LOCOMO_DATA``) it is measured too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def _bench(module: str, models: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRAX_BENCH_MODELS_DIR": str(models), "PYTHONPATH": str(ROOT)}
    env.pop("MEMORY_RETRIEVAL", None)  # no hand-set cosine value
    return subprocess.run(
        [sys.executable, "-m", module, "--embeddings", "benchmarks._models:bge_small", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )


def test_personal_memory_quick_runs_on_bge_small(bge_models_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "bge.json"
    done = _bench("benchmarks.personal_memory", bge_models_dir, "--quick", "--json", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert "benchmarks._models:bge_small" in figures["data"]
    for size, table in figures["sizes"].items():
        product, dense = table["methods"]["recall door"], table["methods"]["dense"]
        floor = figures["floor"][size]
        print(
            f"bge-small {size:>3}: P@1 product {product['P@1']:.3f} dense {dense['P@1']:.3f}; "
            f"off-topic nothing injected {floor['off_topic_nothing_injected']:.3f}, "
            f"on-topic gold in block {floor['on_topic_gold_in_block']:.3f}"
        )
        assert 0.0 <= product["P@1"] <= 1.0 and product["n"] > 0
        assert 0.0 <= floor["off_topic_nothing_injected"] <= 1.0


def test_locomo_runs_on_bge_small_where_the_data_is(bge_models_dir: Path) -> None:
    data = os.environ.get("PRAX_LOCOMO_DATA", "")
    args = ["--latency-sizes"] + (["--data", data] if data else ["--data", "/nonexistent"])
    done = _bench("benchmarks.locomo", bge_models_dir, *args)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "embeddings: benchmarks._models:bge_small (384 wide)" in done.stderr
    print(done.stdout[-4000:])
    if not data:
        assert "not shipped with the project" in done.stdout
