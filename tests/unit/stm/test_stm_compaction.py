from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.stm import (
    COMPACTED_TAG,
    PENDING_REVIEW_TAG,
    AsyncScratchpadStore,
    ScratchpadStore,
    StmEntry,
    deterministic_summary,
)


def _seed(stm: ScratchpadStore, user: str, n: int, **extra: Any) -> None:
    """Write n entries with strictly increasing created_at (one per minute)."""
    entries = [
        {
            "key": f"k{i:02d}",
            "content": f"fact number {i}",
            "tags": extra.get("tags", []),
            "created_at": f"2026-03-15T10:{i:02d}:00Z",
            "access_count": 0,
            "importance": round(0.1 + (i % 9) / 10, 2),
        }
        for i in range(n)
    ]
    path = stm.path(user)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(entries))


SEEN: list[list[BaseMessage]] = []


class RecordingModel(FakeListChatModel):
    """Scripted chat model that also records the prompts it was given (in SEEN)."""

    def invoke(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        SEEN.append(list(input))
        return super().invoke(input, *args, **kwargs)


class FailingModel(FakeListChatModel):
    def invoke(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("model is down")

    async def ainvoke(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("model is down")


def test_no_compaction_at_or_below_the_limit(tmp_path: Path) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=4))
    for i in range(4):
        stm.write("alice", f"k{i}", f"v{i}")
    assert [e.key for e in stm.all("alice")] == ["k0", "k1", "k2", "k3"]
    assert stm.compact("alice") is None


def test_deterministic_compaction_of_the_oldest_half(tmp_path: Path) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=10))
    _seed(stm, "alice", 10)
    stm.write("alice", "new", "the newest fact")  # 11 entries > 10 -> compact 5 oldest
    entries = stm.all("alice")
    keys = [e.key for e in entries]
    assert len(entries) == 7  # 11 - 5 + 1
    summary = entries[0]
    assert summary.key.startswith(f"{COMPACTED_TAG}:")
    assert summary.tags == [COMPACTED_TAG]
    assert keys[1:] == ["k05", "k06", "k07", "k08", "k09", "new"]
    assert summary.content == (
        "Compacted 5 scratchpad entries:\n"
        "- [k00] fact number 0\n"
        "- [k01] fact number 1\n"
        "- [k02] fact number 2\n"
        "- [k03] fact number 3\n"
        "- [k04] fact number 4"
    )
    assert summary.importance == 0.5  # max of the compacted importances (0.1 .. 0.5)
    assert summary.to_json_dict()["created_at"] == "2026-03-15T10:04:00Z"  # newest of group


def test_default_limit_is_fifty(tmp_path: Path) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path))
    _seed(stm, "alice", 50)
    stm.write("alice", "k49", "update, not a new entry")
    assert len(stm.all("alice")) == 50
    stm.write("alice", "fifty-one", "one too many")
    entries = stm.all("alice")
    assert len(entries) == 51 - 25 + 1
    assert sum(COMPACTED_TAG in e.tags for e in entries) == 1


def test_chat_model_writes_the_summary(tmp_path: Path) -> None:
    model = RecordingModel(responses=["User is planning a trip to Lisbon in May."])
    SEEN.clear()
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=4), chat_model=model)
    _seed(stm, "alice", 4)
    stm.write("alice", "k99", "latest")
    summary = stm.all("alice")[0]
    assert summary.content == "User is planning a trip to Lisbon in May."
    assert [e.key for e in stm.all("alice")][1:] == ["k02", "k03", "k99"]
    prompt = SEEN[0][-1].content
    assert "fact number 0" in prompt and "fact number 1" in prompt
    assert "fact number 2" not in prompt


def test_failed_model_falls_back_to_deterministic_summary(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    stm = ScratchpadStore(
        MemoryConfig(data_dir=tmp_path, stm_max_entries=4),
        chat_model=FailingModel(responses=["unused"]),
    )
    _seed(stm, "alice", 4)
    with caplog.at_level(logging.ERROR):
        stm.write("alice", "k99", "latest")
    summary = stm.all("alice")[0]
    assert summary.content.startswith("Compacted 2 scratchpad entries:")
    assert "[k00] fact number 0" in summary.content
    assert "model failed" in caplog.text


def test_empty_model_answer_falls_back(tmp_path: Path) -> None:
    stm = ScratchpadStore(
        MemoryConfig(data_dir=tmp_path, stm_max_entries=4),
        chat_model=FakeListChatModel(responses=["   "]),
    )
    _seed(stm, "alice", 4)
    stm.write("alice", "k99", "latest")
    assert stm.all("alice")[0].content.startswith("Compacted 2 scratchpad entries:")


def test_pending_review_entries_are_never_compacted(tmp_path: Path) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=4))
    _seed(stm, "alice", 3, tags=[PENDING_REVIEW_TAG])  # the three oldest are pending review
    stm.write("alice", "a", "plain a")
    stm.write("alice", "b", "plain b")  # 5 > 4: compact 2 oldest non-pending: a, b
    entries = stm.all("alice")
    assert [e.key for e in stm.list_pending_review("alice")] == ["k00", "k01", "k02"]
    assert not any(e.key in {"a", "b"} for e in entries)
    assert sum(COMPACTED_TAG in e.tags for e in entries) == 1


def test_compaction_skipped_when_too_few_candidates(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=2))
    _seed(stm, "alice", 3, tags=[PENDING_REVIEW_TAG])
    with caplog.at_level(logging.WARNING):
        stm.write("alice", "only", "one plain entry")
    assert len(stm.all("alice")) == 4
    assert "fewer than 2 can be compacted" in caplog.text


def test_force_compaction(tmp_path: Path) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path))
    _seed(stm, "alice", 6)
    new = stm.compact("alice", force=True)
    assert new is not None
    assert [e.key for e in stm.all("alice")][1:] == ["k03", "k04", "k05"]


def test_compaction_is_not_applied_if_entries_changed_meanwhile(tmp_path: Path) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=4))
    _seed(stm, "alice", 5)
    group = stm._compaction_group("alice", force=False)
    assert [e.key for e in group] == ["k00", "k01"]
    stm._write("alice", "k00", "changed while the model was thinking", None, None)
    assert stm._apply_compaction("alice", group, "stale summary") is None
    assert stm.get("alice", "k00").content.startswith("changed")  # type: ignore[union-attr]
    assert not any(COMPACTED_TAG in e.tags for e in stm.all("alice"))


def test_deterministic_summary_is_bounded_and_stable() -> None:
    entries = [
        StmEntry(key=f"k{i}", content="word " * 300, created_at="2026-01-01T00:00:00Z")
        for i in range(10)
    ]
    one = deterministic_summary(entries, max_chars=2000)
    assert one == deterministic_summary(entries, max_chars=2000)
    assert len(one) == 2000 and one.endswith("…")
    assert one.startswith("Compacted 10 scratchpad entries:\n- [k0] word word")


def test_summary_respects_max_content_chars(tmp_path: Path) -> None:
    stm = ScratchpadStore(
        MemoryConfig(data_dir=tmp_path, stm_max_entries=3, max_content_chars=100),
        chat_model=FakeListChatModel(responses=["x" * 500]),
    )
    for i in range(4):
        stm.write("alice", f"k{i}", "y" * 90)
    summary = stm.all("alice")[0]
    assert COMPACTED_TAG in summary.tags and len(summary.content) == 100


async def test_async_compaction_uses_ainvoke(tmp_path: Path) -> None:
    model = FakeListChatModel(responses=["async summary"])
    stm = AsyncScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=4), chat_model=model)
    _seed(stm.sync, "alice", 4)
    await stm.write("alice", "k99", "latest")
    entries = await stm.all("alice")
    assert entries[0].content == "async summary"
    assert len(entries) == 4


async def test_async_compaction_model_failure_falls_back(tmp_path: Path) -> None:
    stm = AsyncScratchpadStore(
        MemoryConfig(data_dir=tmp_path, stm_max_entries=4),
        chat_model=FailingModel(responses=["unused"]),
    )
    _seed(stm.sync, "alice", 4)
    await stm.write("alice", "k99", "latest")
    assert (await stm.all("alice"))[0].content.startswith("Compacted 2 scratchpad entries:")
