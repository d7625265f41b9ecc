from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import MemoryValidationError, PraxMemoryError
from langgraph_prax_memory.stm import (
    PENDING_REVIEW_TAG,
    ScratchpadStore,
    StmEntry,
    format_scratchpad,
)


@pytest.fixture
def config(tmp_path: Path) -> MemoryConfig:
    return MemoryConfig(data_dir=tmp_path)


@pytest.fixture
def stm(config: MemoryConfig) -> ScratchpadStore:
    return ScratchpadStore(config)


def test_file_lives_in_user_workspace_memory_folder(stm: ScratchpadStore, tmp_path: Path) -> None:
    stm.write("alice", "k", "v")
    assert stm.path("alice") == tmp_path / "users" / "alice" / "memory" / "stm.json"
    assert stm.path("alice").is_file()


def test_json_shape_is_exactly_the_seed_format(stm: ScratchpadStore) -> None:
    stm.write("alice", "user_timezone", "America/New_York (EST/EDT)", 0.8, ["preference"])
    data = json.loads(stm.path("alice").read_text())
    assert isinstance(data, list) and len(data) == 1
    entry = data[0]
    assert set(entry) == {"key", "content", "tags", "created_at", "access_count", "importance"}
    assert entry["key"] == "user_timezone"
    assert entry["content"] == "America/New_York (EST/EDT)"
    assert entry["tags"] == ["preference"]
    assert entry["access_count"] == 0
    assert entry["importance"] == 0.8
    assert entry["created_at"].endswith("Z")
    parsed = datetime.fromisoformat(entry["created_at"].replace("Z", "+00:00"))
    assert abs((datetime.now(UTC) - parsed).total_seconds()) < 60


def test_seed_example_file_is_read_as_is(stm: ScratchpadStore) -> None:
    seed = [
        {
            "key": "user_timezone",
            "content": "America/New_York (EST/EDT)",
            "tags": ["preference"],
            "created_at": "2026-03-15T14:30:00Z",
            "access_count": 3,
            "importance": 0.8,
        }
    ]
    path = stm.path("alice")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(seed))
    entry = stm.read("alice", "user_timezone")
    assert entry is not None
    assert entry.access_count == 3
    assert entry.to_json_dict() == seed[0]


def test_upsert_updates_content_and_increments_access_count(stm: ScratchpadStore) -> None:
    first = stm.write("alice", "task", "draft report", importance=0.9, tags=["work"])
    second = stm.write("alice", "task", "draft and send report")
    third = stm.write("alice", "task", "send report", importance=0.2, tags=["done"])
    assert (first.access_count, second.access_count, third.access_count) == (0, 1, 2)
    assert second.importance == 0.9 and second.tags == ["work"]  # kept when not given
    assert third.importance == 0.2 and third.tags == ["done"]
    assert second.created_at == first.created_at
    assert [e.key for e in stm.all("alice")] == ["task"]
    stored = stm.get("alice", "task")
    assert stored is not None and stored.content == "send report" and stored.access_count == 2


def test_read_all_by_key_and_missing(stm: ScratchpadStore) -> None:
    assert stm.read("alice") == []
    assert stm.read("alice", "nope") is None
    stm.write("alice", "a", "one")
    stm.write("alice", "b", "two")
    assert [e.key for e in stm.read("alice")] == ["a", "b"]
    entry = stm.read("alice", "b")
    assert entry is not None and entry.content == "two"


def test_reading_does_not_change_access_count(stm: ScratchpadStore) -> None:
    stm.write("alice", "a", "one")
    for _ in range(3):
        stm.get("alice", "a")
    entry = stm.get("alice", "a")
    assert entry is not None and entry.access_count == 0


def test_delete_and_clear(stm: ScratchpadStore) -> None:
    stm.write("alice", "a", "one")
    stm.write("alice", "b", "two")
    assert stm.delete("alice", "a") is True
    assert stm.delete("alice", "a") is False
    assert [e.key for e in stm.all("alice")] == ["b"]
    assert stm.clear("alice") == 1
    assert stm.all("alice") == []


def test_users_are_isolated(stm: ScratchpadStore) -> None:
    stm.write("alice", "k", "alice's")
    stm.write("bob", "k", "bob's")
    assert stm.get("alice", "k").content == "alice's"  # type: ignore[union-attr]
    assert stm.get("bob", "k").content == "bob's"  # type: ignore[union-attr]
    stm.delete("alice", "k")
    assert stm.get("bob", "k") is not None


def test_put_store_shape(stm: ScratchpadStore) -> None:
    entry = stm.put("alice", "k", {"content": "v", "importance": 0.7, "tags": ["x"]})
    assert (entry.content, entry.importance, entry.tags) == ("v", 0.7, ["x"])
    again = stm.put("alice", "k", {"content": "w"})
    assert again.access_count == 1 and again.importance == 0.7
    with pytest.raises(MemoryValidationError, match="unsupported"):
        stm.put("alice", "k", {"content": "v", "colour": "red"})
    with pytest.raises(MemoryValidationError, match="content"):
        stm.put("alice", "k", {"importance": 0.3})


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"content": ""}, "empty"),
        ({"content": "   "}, "empty"),
        ({"content": 5}, "string"),
        ({"content": "x", "importance": 1.5}, "between 0 and 1"),
        ({"content": "x", "importance": True}, "number"),
        ({"content": "x", "tags": [1]}, "tag"),
    ],
)
def test_bad_values_rejected_and_nothing_written(
    stm: ScratchpadStore, kwargs: dict[str, object], match: str
) -> None:
    with pytest.raises(MemoryValidationError, match=match):
        stm.write("alice", "k", **kwargs)  # type: ignore[arg-type]
    assert not stm.path("alice").exists()


def test_content_over_config_limit_rejected(tmp_path: Path) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path, max_content_chars=100))
    with pytest.raises(MemoryValidationError, match="over the limit"):
        stm.write("alice", "k", "x" * 101)


@pytest.mark.parametrize(
    "key",
    ["", "   ", "a\x00b", "line\nbreak", "tab\there", "\x7f", "k" * 257, 42, None],
)
def test_invalid_keys_rejected(stm: ScratchpadStore, key: object) -> None:
    with pytest.raises(MemoryValidationError):
        stm.write("alice", key, "v")  # type: ignore[arg-type]
    with pytest.raises(MemoryValidationError):
        stm.get("alice", key)  # type: ignore[arg-type]
    with pytest.raises(MemoryValidationError):
        stm.delete("alice", key)  # type: ignore[arg-type]
    assert not stm.path("alice").exists()


def test_ten_kilobyte_key_rejected(stm: ScratchpadStore) -> None:
    with pytest.raises(MemoryValidationError, match="256"):
        stm.write("alice", "k" * 10_000, "v")


@pytest.mark.parametrize(
    "key", ["../../etc/passwd", "a/b", "..", "/abs/path", "C:\\windows", "k" * 256, "ünïcødé 🔑"]
)
def test_path_like_keys_stay_json_data_inside_the_workspace(
    stm: ScratchpadStore, tmp_path: Path, key: str
) -> None:
    before = {p for p in tmp_path.rglob("*")}
    stm.write("alice", key, "harmless")
    created = {p for p in tmp_path.rglob("*")} - before
    workspace = stm.workspace("alice")
    for path in created - {tmp_path / "users"}:
        assert path.is_relative_to(workspace), path
    assert {p.name for p in created if p.is_file()} <= {"stm.json", "stm.json.lock"}
    data = json.loads(stm.path("alice").read_text())
    assert [e["key"] for e in data] == [key]
    assert stm.get("alice", key).content == "harmless"  # type: ignore[union-attr]


def test_hostile_user_ids_stay_inside_users_dir(stm: ScratchpadStore, tmp_path: Path) -> None:
    stm.write("../../evil", "k", "v")
    stm.write("a/b", "k", "v")
    for path in tmp_path.rglob("*"):
        assert path.is_relative_to(tmp_path / "users")
    with pytest.raises(MemoryValidationError):
        stm.write("", "k", "v")


def test_pending_review_helpers(stm: ScratchpadStore) -> None:
    stm.write("alice", "plain", "not pending")
    a = stm.add_pending_review("alice", "Alice may work at Acme (confidence 0.4)", tags=["fact"])
    b = stm.add_pending_review("alice", "Bob is Alice's manager?", key="rel-1", importance=0.3)
    again = stm.add_pending_review("alice", "Alice may work at Acme (confidence 0.4)")
    assert a.key.startswith("pending_review:") and a.tags == [PENDING_REVIEW_TAG, "fact"]
    assert again.key == a.key and again.access_count == 1
    assert b.key == "rel-1" and b.importance == 0.3
    pending = stm.list_pending_review("alice")
    assert [e.key for e in pending] == [a.key, "rel-1"]
    assert all(PENDING_REVIEW_TAG in e.tags for e in pending)


def test_default_config_is_used_when_none(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEMORY_DATA_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("MEMORY_STM_MAX_ENTRIES", "7")
    stm = ScratchpadStore()
    assert stm.max_entries == 7
    stm.write("alice", "k", "v")
    assert (tmp_path / "env" / "users" / "alice" / "memory" / "stm.json").exists()


def test_stm_corrupt_error_is_a_prax_error() -> None:
    from langgraph_prax_memory.stm import StmCorruptError

    assert issubclass(StmCorruptError, PraxMemoryError)


def test_format_scratchpad() -> None:
    entries = [
        StmEntry(
            key="tz",
            content="Europe/Paris",
            tags=["preference"],
            created_at="2026-03-15T14:30:00Z",
            importance=0.8,
        ),
        StmEntry(key="goal", content="ship\n  v1", created_at="2026-03-15T14:31:00Z"),
    ]
    assert format_scratchpad(entries) == (
        "Working Memory (Scratchpad):\n"
        "- [tz] Europe/Paris (importance 0.80; tags: preference)\n"
        "- [goal] ship v1 (importance 0.50)"
    )
    assert format_scratchpad([]) == ""
    bounded = format_scratchpad(entries, max_chars=90)
    assert len(bounded) <= 90 and bounded.endswith("(+1 more)")
