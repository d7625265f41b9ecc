"""Progress callbacks of the long operations, their adapters, and ``remember_many`` of strings."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from langgraph_prax_memory import AsyncPraxMemory, MemoryConfig, PraxMemory
from langgraph_prax_memory._progress import (
    ProgressCallback,
    notify,
    rich_progress,
    tqdm_progress,
)
from langgraph_prax_memory.consolidation import Consolidator, RuleBasedExtractor, TraceLogSource
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.knowledge import KnowledgeBase
from tests.fakes import HashEmbeddings

Step = tuple[int, int | None, str]


class Recorder:
    """A progress callback that keeps every call."""

    def __init__(self) -> None:
        self.calls: list[Step] = []

    def __call__(self, done: int, total: int | None, label: str) -> None:
        self.calls.append((done, total, label))

    def of(self, label: str) -> list[tuple[int, int | None]]:
        return [(d, t) for d, t, lab in self.calls if lab == label]


def _moves_to_its_total(steps: list[tuple[int, int | None]]) -> int:
    """Assert ``done`` never goes back and ends at a known total; return that total."""
    done = [d for d, _ in steps]
    assert done == sorted(done), steps
    last, total = steps[-1]
    assert total is not None and last == total, steps
    return total


def _trace(tmp_path: Path, lines: int) -> Path:
    path = tmp_path / "trace.log"
    path.write_text(
        "".join(
            f"user: On day {i} I visited the museum of modern art in Berlin with Jane.\n"
            for i in range(lines)
        )
    )
    return path


def test_recorder_is_a_progress_callback() -> None:
    assert isinstance(Recorder(), ProgressCallback)


def test_consolidate_reports_each_batch(memory: PraxMemory, tmp_path: Path) -> None:
    memory._consolidator = Consolidator(memory, extractor=RuleBasedExtractor(max_chars=160))
    progress = Recorder()
    result = memory.consolidate("a", TraceLogSource(_trace(tmp_path, 6)), progress=progress)
    steps = progress.of("batches")
    assert steps[0] == (0, None)  # unknown until the trace is read: said so, not guessed
    total = _moves_to_its_total(steps)
    assert total == result.batches >= 3
    assert [d for d, _ in steps[2:]] == list(range(1, total + 1))  # it moves batch by batch


def test_consolidate_progress_completes_when_a_batch_fails(
    memory: PraxMemory, tmp_path: Path
) -> None:
    class Failing(RuleBasedExtractor):
        def extract(self, items, *, times=None):  # type: ignore[no-untyped-def]
            raise RuntimeError("extractor down")

    memory._consolidator = Consolidator(memory, extractor=Failing(max_chars=160))
    progress = Recorder()
    result = memory.consolidate("a", TraceLogSource(_trace(tmp_path, 6)), progress=progress)
    assert result.batches_failed == 1  # the rest of that source waits for the next run
    _moves_to_its_total(progress.of("batches"))


def test_async_consolidate_takes_progress(config: MemoryConfig, tmp_path: Path) -> None:
    async def run() -> list[Step]:
        async with AsyncPraxMemory(
            config, embeddings=HashEmbeddings(), embedding_dimension=384
        ) as mem:
            progress = Recorder()
            await mem.consolidate("a", TraceLogSource(_trace(tmp_path, 2)), progress=progress)
            await mem.remember("a", "Alice likes tea")
            await mem.reembed("a", force=True, progress=progress)
            return progress.calls

    calls = asyncio.run(run())
    assert calls[-1][2] == "memories" and calls[-1][0] == calls[-1][1]
    assert any(label == "batches" for _, _, label in calls)


def test_export_and_import_report_records(memory: PraxMemory) -> None:
    memory.remember_many("a", [f"Alice fact number {i}" for i in range(150)])
    memory.stm.write("a", "goal", "ship")
    out = io.StringIO()
    reading = Recorder()
    summary = memory.export_user("a", out, progress=reading)
    assert summary.counts == {"memory": 150, "stm": 1}
    assert reading.of("reading")[0] == (0, None)
    assert _moves_to_its_total(reading.of("reading")) == 151
    assert _moves_to_its_total(reading.of("writing")) == 151

    importing = Recorder()
    receipt = memory.import_user(out.getvalue().splitlines(), user_id="b", progress=importing)
    assert receipt.created == {"memory": 150, "stm": 1}
    steps = importing.of("records")
    assert steps[0] == (0, 151) and _moves_to_its_total(steps) == 151
    assert len(steps) >= 4  # memories arrive in chunks, not in one silent call
    assert memory.count("b") == 150


def test_reembed_and_decay_report_progress(memory: PraxMemory) -> None:
    memory.remember_many("a", ["Alice likes tea", "Alice likes jazz"])
    memory.remember("a", "Alice once sneezed", importance=0.01, created_at="2001-01-01T00:00:00Z")
    progress = Recorder()
    assert memory.reembed("a", force=True, progress=progress) == 3
    assert progress.of("memories") == [(0, 3), (3, 3)]
    progress = Recorder()
    assert len(memory.decay("a", dry_run=True, progress=progress)) == 1
    assert progress.of("scanned") == [(0, None), (3, 3)] and progress.of("pruned") == []
    assert memory.count("a") == 3
    progress = Recorder()
    assert len(memory.decay("a", progress=progress)) == 1
    assert progress.of("pruned") == [(1, 1)] and memory.count("a") == 2


def test_knowledge_ingestion_reports_chunks_and_files(memory: PraxMemory, tmp_path: Path) -> None:
    kb = KnowledgeBase(memory, chunk_chars=200)
    text = "\n\n".join(
        f"# Topic {i}\nReciprocal Rank Fusion variant {i} combines rankings." for i in range(6)
    )
    progress = Recorder()
    result = kb.ingest_document("a", text, namespace="papers", progress=progress)
    assert _moves_to_its_total(progress.of("chunks")) == result.chunks >= 2

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for name in ("a", "b", "c"):
        (pkg / f"{name}.py").write_text(f'def {name}():\n    """Do {name}."""\n')
    progress = Recorder()
    kb.ingest_codebase("a", pkg, progress=progress)
    files = progress.of("files")
    assert files[0] == (0, None) and _moves_to_its_total(files) == 3
    progress = Recorder()
    assert kb.ingest_codebase("a", pkg, progress=progress).skipped  # unchanged files
    assert _moves_to_its_total(progress.of("files")) == 3


def test_a_failing_callback_never_stops_the_work(
    memory: PraxMemory, caplog: pytest.LogCaptureFixture
) -> None:
    calls = []

    def broken(done: int, total: int | None, label: str) -> None:
        calls.append(done)
        raise RuntimeError("the widget is gone")

    memory.remember_many("a", ["Alice likes tea", "Alice likes jazz"])
    assert memory.reembed("a", force=True, progress=broken) == 2
    assert calls == [0]  # logged once, then left alone
    assert "progress callback" in caplog.text
    notify(None, 1, 2, "nothing")  # no callback: nothing to do


def test_tqdm_and_rich_adapters_draw_the_counts() -> None:
    sink = io.StringIO()
    with tqdm_progress(file=sink, mininterval=0) as bar:
        bar(0, None, "records")
        bar(0, 3, "records")
        bar(3, 3, "records")
    assert "records" in sink.getvalue() and "3/3" in sink.getvalue()

    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80)
    with rich_progress(console) as bar:
        bar(1, None, "batches [bold]x")
        bar(2, 2, "batches [bold]x")
    text = out.getvalue()
    assert "2/2" in text and "[bold]x" in text  # a label is shown as text, not markup


def test_remember_many_accepts_plain_strings(memory: PraxMemory) -> None:
    ids = memory.remember_many(
        "a", ["Alice drinks green tea", {"content": "Alice is a nurse", "importance": 0.9}]
    )
    stored = [memory.get("a", i) for i in ids]
    assert [m.content for m in stored] == ["Alice drinks green tea", "Alice is a nurse"]
    assert stored[0].importance == 0.5 and stored[0].source == "conversation"
    with pytest.raises(MemoryValidationError, match="not one string"):
        memory.remember_many("a", "Alice drinks tea")
    with pytest.raises(MemoryValidationError, match="string or a mapping"):
        memory.remember_many("a", [42])  # type: ignore[list-item]


def test_import_is_light() -> None:
    """``import langgraph_prax_memory`` and the CLI module load no heavy dependency."""
    # a package deferred by langgraph_prax_memory._lazy_packages (qdrant-client) has a
    # placeholder in sys.modules whose code has not run: not loaded
    code = (
        "import json, sys\n"
        "import langgraph_prax_memory, langgraph_prax_memory.cli\n"
        "from langgraph_prax_memory._lazy_packages import is_deferred\n"
        "heavy = ('qdrant_client', 'langchain_core', 'langgraph', 'neo4j', 'pydantic',"
        " 'tree_sitter', 'fastembed', 'onnxruntime', 'langchain_qdrant')\n"
        "print(json.dumps(sorted(m for m, mod in list(sys.modules.items())"
        " if m.split('.')[0] in heavy and not is_deferred(mod))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(done.stdout) == []
    # every public name still resolves on first use
    done = subprocess.run(
        [sys.executable, "-c", "import langgraph_prax_memory as m; print(m.PraxMemory.__name__)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.strip() == "PraxMemory"


@pytest.mark.parametrize(
    "name",
    [
        "langgraph_prax_memory._progress",
        "langgraph_prax_memory.cli",
        "langgraph_prax_memory.cli._memories",
    ],
)
def test_doctests(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
