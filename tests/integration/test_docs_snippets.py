"""Every ```python block of README.md and docs/*.md runs, as written: 100 %, no exceptions.

The snippet convention (also in docs/writing-docs.md), checked here:

1. **Every block runs.** A fence is exactly ```` ```python ````: no marker after it and no
   HTML comment (``<!-- ... -->``) on the line before it, so nothing is skipped and no setup
   is hidden. Text that is not Python to run goes in a ``text``, ``bash`` or ``json`` fence.
2. **Each block shows its own setup**: its imports, its data, and its chat model. A model is
   ``EchoChatModel()`` (``from langgraph_prax_memory.chat_models import EchoChatModel``:
   offline, no key, answers with the question and the memories it was given; ``reply=``
   fixes its answer), with a comment on how to use a real one.
3. **Each block uses its own temporary data folder**:
   ``PraxMemory(MemoryConfig(data_dir=tempfile.mkdtemp()))``,
   ``PraxMemoryStore.from_data_dir(tempfile.mkdtemp())``, never a bare ``PraxMemory()`` or
   ``MemoryConfig()`` (the default folder is shared by every program of the user). The test
   points ``MEMORY_DATA_DIR`` at a folder that must still not exist after the block, and
   ``tempfile`` at the test's own temporary directory.
4. **A block that needs Neo4j** reads ``os.environ["NEO4J_URI"]`` and
   ``os.environ["NEO4J_PASSWORD"]`` (``NEO4J_USER`` with ``.get``) and removes its own data at
   the end; the test gives exactly those blocks the session's real Neo4j server
   (tests/integration/conftest.py) and removes ``NEO4J_*`` for every other block.
5. A block closes what it opens (``memory.close()`` or ``with``); the test closes leftovers.

Each block runs in a fresh module namespace with a fresh empty working directory; the real
offline embedding model, embedded Qdrant, SQLite graph and git notes.
"""

from __future__ import annotations

import re
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"(?:^<!--(?P<comment>[^>]*?)-->\s*\n)?^```python(?P<info>[^\n]*)\n(?P<code>.*?)^```",
    re.M | re.S,
)
NEEDS_NEO4J = 'os.environ["NEO4J_URI"]'


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    code: str
    info: str
    comment: str | None

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def collect() -> list[Block]:
    blocks = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            blocks.append(
                Block(
                    page=str(page.relative_to(ROOT)),
                    line=text.count("\n", 0, m.start("info")) + 1,
                    code=m.group("code"),
                    info=m.group("info").strip(),
                    comment=m.group("comment"),
                )
            )
    return blocks


BLOCKS = collect()


def test_every_block_is_plain_python_with_nothing_hidden() -> None:
    assert len(BLOCKS) >= 25, [str(b) for b in BLOCKS]
    marked = [f"{b}: {b.info!r}" for b in BLOCKS if b.info]
    hidden = [f"{b}: <!--{b.comment}-->" for b in BLOCKS if b.comment is not None]
    assert marked == [] and hidden == []


def test_no_block_opens_the_shared_default_folder() -> None:
    bare = re.compile(r"\b(PraxMemory|MemoryConfig|AsyncPraxMemory)\(\)|from_config\(\)")
    found = [f"{b}: {m.group(0)}" for b in BLOCKS for m in bare.finditer(b.code)]
    assert found == []


def _close_all(namespace: dict[str, Any]) -> None:
    """Release what a block left open (each memory once; the embedded folder locks)."""
    from langgraph_prax_memory import PraxMemory, PraxMemoryStore

    memories: dict[int, PraxMemory] = {}
    for value in list(namespace.values()):
        if isinstance(value, PraxMemoryStore):
            value.stop_ttl_sweeper()
            memories[id(value.memory)] = value.memory
        elif isinstance(value, PraxMemory):
            memories[id(value)] = value
    for memory in memories.values():
        memory.close()


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_block_runs(
    block: Block,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    work = tmp_path / "cwd"
    work.mkdir()
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    default = tmp_path / "default-data-folder"
    monkeypatch.setenv("MEMORY_DATA_DIR", str(default))
    for name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_USERNAME", "NEO4J_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    if NEEDS_NEO4J in block.code:
        server = request.getfixturevalue("neo4j_server")
        user, password = server.auth or ("neo4j", "unused")  # a server without auth takes any
        monkeypatch.setenv("NEO4J_URI", server.uri)
        monkeypatch.setenv("NEO4J_USER", user)
        monkeypatch.setenv("NEO4J_PASSWORD", password)
    module = types.ModuleType("docs_snippet")  # a real module: dataclasses, pickling
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace: dict[str, Any] = module.__dict__
    try:
        exec(compile(block.code, str(block), "exec"), namespace)
    finally:
        _close_all(namespace)
    assert not default.exists(), f"{block} used the shared default data folder"
    printed = capsys.readouterr().out
    if "print(" in block.code:
        assert printed.strip(), f"{block} prints nothing"
    if "EchoChatModel()" in block.code and "You asked" in printed:
        assert "I remember:" in printed, f"{block}: the model was given no memory\n{printed}"
