"""Every ```python block of README.md and docs/*.md runs as written, or is marked as not runnable.

Each block runs in a fresh namespace, in a temporary working directory, with
``MEMORY_DATA_DIR`` pointing into it and ``/tmp/`` paths rewritten into it (the real offline
embedding model, embedded Qdrant, SQLite graph, git notes). Markers, in the fence's info
string or in an HTML comment on the line before the fence:

* ```` ```python no-run ```` or ``<!-- no-run: why -->`` — shown, not run (needs a server, an
  API key, a file of yours);
* ```` ```python model ```` or ``<!-- model -->`` — the block finds ``model``: a scripted chat
  model (the only LLM double the tests use) that answers "OK." and calls no tool.
"""

from __future__ import annotations

import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from tests.scripted import ScriptedChatModel

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"(?:^<!--\s*(?P<comment>[^>]*?)\s*-->\n)?^```python(?P<info>[^\n]*)\n(?P<code>.*?)^```",
    re.M | re.S,
)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    code: str
    markers: frozenset[str]

    @property
    def runs(self) -> bool:
        return "no-run" not in self.markers

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def _markers(info: str, comment: str | None) -> frozenset[str]:
    words = set(info.split())
    if comment:
        words.add(comment.split(":", 1)[0].strip())
    return frozenset(words)


def collect() -> list[Block]:
    blocks = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start("info")) + 1
            blocks.append(
                Block(
                    page=str(page.relative_to(ROOT)),
                    line=line,
                    code=m.group("code"),
                    markers=_markers(m.group("info"), m.group("comment")),
                )
            )
    return blocks


BLOCKS = collect()
RUNNABLE = [b for b in BLOCKS if b.runs]


def test_the_docs_have_runnable_blocks_and_every_skip_is_marked() -> None:
    assert len(RUNNABLE) >= 15, [str(b) for b in RUNNABLE]
    for block in BLOCKS:
        unknown = block.markers - {"no-run", "model"}
        assert not unknown, f"{block}: unknown marker(s) {sorted(unknown)}"


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


@pytest.mark.parametrize("block", RUNNABLE, ids=str)
def test_block_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMORY_DATA_DIR", str(tmp_path / "data"))
    code = block.code.replace("/tmp/", f"{tmp_path}/")
    module = types.ModuleType("docs_snippet")  # a real module: dataclasses, pickling
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace: dict[str, Any] = module.__dict__
    if "model" in block.markers:
        namespace["model"] = ScriptedChatModel(script=[AIMessage("OK.") for _ in range(20)])
    try:
        exec(compile(code, str(block), "exec"), namespace)
    finally:
        _close_all(namespace)
