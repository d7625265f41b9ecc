from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.consolidation import (
    Consolidator,
    Extraction,
    RuleBasedExtractor,
    TraceLogSource,
)

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


class SpyExtractor:
    """The real rule-based extractor, recording what it was handed (optionally failing)."""

    def __init__(
        self, *, max_chars: int = 4000, fail_on: Callable[[int, Sequence[str]], bool] | None = None
    ) -> None:
        self.inner = RuleBasedExtractor(max_chars=max_chars)
        self.max_chars = max_chars
        self.calls: list[list[str]] = []
        self.fail_on = fail_on

    def extract(
        self, items: Sequence[str], *, times: Sequence[datetime | None] | None = None
    ) -> Extraction:
        self.calls.append(list(items))
        if self.fail_on is not None and self.fail_on(len(self.calls), items):
            raise RuntimeError("injected extractor failure")
        return self.inner.extract(items, times=times)

    @property
    def seen(self) -> list[str]:
        return [t for call in self.calls for t in call]


class ScriptedToolModel(BaseChatModel):
    """A chat model that answers with scripted tool calls (structured output path)."""

    answers: list[dict[str, Any]]
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted-tool-model"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:  # structured output binds a tool
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        args = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        msg = AIMessage(
            content="",
            tool_calls=[{"name": "Extraction", "args": args, "id": f"call-{self.calls}"}],
        )
        return ChatResult(generations=[ChatGeneration(message=msg)])


def rule_path_stored(
    mem: PraxMemory, tmp: Path, user: str, turns: Sequence[str], *, now: datetime | None = None
) -> list[str]:
    """The raw memories the rule path stores of ``turns`` said by ``user`` (one trace)."""
    trace = tmp / f"{user}.log"
    trace.write_text("".join(f"user: {t}\n" for t in turns), encoding="utf-8")
    Consolidator(mem, extractor=RuleBasedExtractor()).run(user, TraceLogSource(trace), now=now)
    return [m.content for m in mem.list_memories(user, limit=100) if m.summary_level == "raw"]


def write_lines(path: Path, lines: Sequence[str], *, mode: str = "w") -> None:
    with path.open(mode, encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")


def state_json(consolidator: Consolidator, user: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(consolidator.state_path(user).read_text())
    return data


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    return tmp_path / "trace.log"


@pytest.fixture
def spy() -> SpyExtractor:
    return SpyExtractor()


@pytest.fixture
def consolidator(memory: PraxMemory, spy: SpyExtractor) -> Iterator[Consolidator]:
    yield Consolidator(memory, extractor=spy)
