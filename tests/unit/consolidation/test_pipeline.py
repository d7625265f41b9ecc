"""The pipeline end to end on the real SQLite graph and Qdrant local mode.

Each test names the seed's history-note bug it proves absent where there is one.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.consolidation import (
    ConsolidationResult,
    Consolidator,
    LLMExtractor,
    TraceLogSource,
)
from langgraph_prax_memory.errors import MemoryWriteError
from tests.unit.consolidation.conftest import NOW, SpyExtractor, state_json, write_lines

USER = "alice"


def facts(memory: PraxMemory, user: str = USER) -> list[str]:
    return sorted(
        m.content for m in memory.list_memories(user, limit=1000) if m.summary_level == "raw"
    )


# -- pointer and blank separators ----------------------------------------------------------------
def test_blank_separators_never_cause_re_consolidation(
    consolidator: Consolidator, spy: SpyExtractor, trace: Path
) -> None:
    """2026-09 bug: raw lines in, non-blank lines out → 13 of 50 lines re-consolidated."""
    lines: list[str] = []
    for i in range(50):
        lines += [f"user: I prefer option {i} for project P{i}.", ""]
    write_lines(trace, lines)
    first = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert first.batches >= 1
    assert first.items_seen == 50
    assert state_json(consolidator, USER)["sources"][f"trace:{trace}"]["pointer"] == 100

    write_lines(trace, ["user: I always use Vim keybindings.", ""], mode="a")
    spy.calls.clear()
    second = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert spy.seen == ["user: I always use Vim keybindings."]
    assert second.items_seen == 1
    assert state_json(consolidator, USER)["sources"][f"trace:{trace}"]["pointer"] == 102

    spy.calls.clear()
    third = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert spy.calls == [] and third.batches == 0


def test_line_still_being_written_is_left_for_the_next_run(
    consolidator: Consolidator, spy: SpyExtractor, trace: Path
) -> None:
    trace.write_text("user: I prefer tea over coffee.\nuser: I prefer gr")
    consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert spy.seen == ["user: I prefer tea over coffee."]
    with trace.open("a") as handle:
        handle.write("een tea.\n")
    spy.calls.clear()
    consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert spy.seen == ["user: I prefer green tea."]


# -- rotation ------------------------------------------------------------------------------------
def test_rotation_resets_pointer_logs_pending_and_keeps_consolidating(
    memory: PraxMemory, trace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """2026-09 bug: after a rotation the pointer pointed past the end and consolidation stopped."""
    spy = SpyExtractor()
    consolidator = Consolidator(memory, extractor=spy, max_batches=1)
    long_lines = [f"user: I prefer item {i} " + "x" * 2500 for i in range(3)]
    write_lines(trace, long_lines)  # one line per batch, so two stay pending
    first = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert (first.batches, first.pending_lines) == (1, 2)

    write_lines(trace, ["user: I decided to use Rust for the CLI."])  # replaced: shorter, new head
    spy.calls.clear()
    with caplog.at_level(logging.WARNING):
        second = consolidator.run(USER, TraceLogSource(trace), now=NOW + timedelta(minutes=5))
    assert spy.seen == ["user: I decided to use Rust for the CLI."]
    assert second.rotation_resets == 1
    assert second.rotation_dropped_lines == 2
    warning = [r for r in caplog.records if "rotated or replaced" in r.getMessage()]
    assert warning and warning[0].levelno == logging.WARNING
    assert "2 content line(s)" in warning[0].getMessage()
    src = state_json(consolidator, USER)["sources"][f"trace:{trace}"]
    assert src["rotation_resets"] == 1
    assert src["last_rotation_dropped_lines"] == 2
    assert src["last_rotation_reset_at"].startswith("2026-03-02T12:05")
    assert src["pointer"] == 1
    assert "User decided to use Rust for the CLI." in facts(memory)


def test_same_head_but_rewritten_body_is_detected(
    consolidator: Consolidator, spy: SpyExtractor, trace: Path
) -> None:
    write_lines(trace, ["# trace", "user: I prefer dark mode.", "user: I like jazz a lot."])
    consolidator.run(USER, TraceLogSource(trace), now=NOW)
    write_lines(
        trace, ["# trace", "user: I love sourdough baking.", "user: I use Helix daily.", "x"]
    )
    spy.calls.clear()
    result = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert result.rotation_resets == 1
    assert spy.seen[0] == "# trace"


# -- budget, cap and backlog ------------------------------------------------------------------
def test_budget_and_eight_batch_cap_report_the_backlog(
    consolidator: Consolidator, spy: SpyExtractor, trace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """2026-09 bug: 50-line batches (~250 KB) read as text[:4000]; one batch per run fell behind."""
    lines = [f"user: I prefer setting {i:03d} " + "w" * 1500 for i in range(30)]
    write_lines(trace, lines)
    with caplog.at_level(logging.WARNING):
        first = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert first.batches == 8 == first.extractor_calls
    assert all(len("\n".join(call)) <= 4000 for call in spy.calls)
    assert spy.seen == lines[:16]  # two whole lines per batch, none cut
    assert first.bytes_skipped == 0
    assert first.capped
    assert first.pending_lines == 14
    assert first.pending_bytes == sum(len(line.encode()) for line in lines[16:])
    state = state_json(consolidator, USER)
    assert state["trace_pending_lines"] == 14
    assert state["trace_pending_bytes"] == first.pending_bytes
    assert any(
        "backlog" in r.getMessage() and "14 line(s)" in r.getMessage() for r in caplog.records
    )

    spy.calls.clear()
    second = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert spy.seen == lines[16:]
    assert (second.batches, second.pending_lines, second.capped) == (7, 0, False)
    assert len(facts(consolidator.parts.ltm)) == 30


def test_over_long_single_line_is_sent_cut_not_dropped(
    consolidator: Consolidator, spy: SpyExtractor, trace: Path
) -> None:
    head = "user: I always deploy with Kubernetes. "
    long = head + "ü" * 6000
    write_lines(trace, [long, "user: I prefer short answers."])
    result = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert spy.calls[0] == [long[:4000]]
    assert result.bytes_skipped == len(long.encode()) - len(long[:4000].encode())
    assert result.bytes_seen == len(long[:4000].encode()) + len(b"user: I prefer short answers.")
    assert state_json(consolidator, USER)["sources"][f"trace:{trace}"]["pointer"] == 2
    assert "User always deploys with Kubernetes." in facts(consolidator.parts.ltm)


# -- idempotence and crash safety ----------------------------------------------------------------
def test_rerunning_the_same_batch_creates_no_duplicate(
    consolidator: Consolidator, trace: Path
) -> None:
    write_lines(trace, ["user: I prefer dark mode.", "user: I work on Prax with Alice."])
    first = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert first.memories_created == 2
    consolidator.state_path(USER).unlink()  # forget the pointer: the same batch again
    again = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert again.batches == 1
    assert (again.memories_created, again.memories_deduplicated) == (0, 2)
    assert consolidator.parts.ltm.count(USER) == 2


class Crash(BaseException):
    """A process dying mid-run (not an Exception: nothing may swallow it)."""


def test_crash_between_batches_resumes_without_loss_or_duplicates(
    memory: PraxMemory, trace: Path
) -> None:
    lines = [f"user: I prefer tool number {i} " + "q" * 1900 for i in range(6)]  # 3 batches
    write_lines(trace, lines)

    def crash_on_third(n: int, items: Any) -> bool:
        if n == 3:
            raise Crash
        return False

    crashing = Consolidator(memory, extractor=SpyExtractor(fail_on=crash_on_third))
    with pytest.raises(Crash):
        crashing.run(USER, TraceLogSource(trace), now=NOW)
    assert crashing.state(USER).sources[f"trace:{trace}"].pointer == 4
    assert len(facts(memory)) == 4
    assert not crashing.locks.held(USER)  # the lock was released by the failing node

    spy = SpyExtractor()
    resumed = Consolidator(memory, extractor=spy).run(USER, TraceLogSource(trace), now=NOW)
    assert spy.seen == lines[4:]
    assert resumed.memories_created == 2
    assert len(facts(memory)) == 6 == len(set(facts(memory)))


def test_crash_after_graph_upsert_does_not_double_the_graph(
    memory: PraxMemory, trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_lines(trace, ["user: I work on Prax with Alice."])
    original = memory.ltm.remember_many
    calls = {"n": 0}

    def dying(user_id: str, items: Any) -> list[str]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise Crash
        return original(user_id, items)

    monkeypatch.setattr(memory.ltm, "remember_many", dying)
    with pytest.raises(Crash):
        Consolidator(memory).run(USER, TraceLogSource(trace), now=NOW)
    prax = memory.graph.get_entity(USER, "Prax")
    assert prax is not None and prax.entity.mention_count == 1
    weight = {r.type: r.weight for r in prax.relations}

    result = Consolidator(memory).run(USER, TraceLogSource(trace), now=NOW)
    assert result.batches == 1 and result.entities_upserted == 0
    again = memory.graph.get_entity(USER, "Prax")
    assert again is not None and again.entity.mention_count == 1
    assert {r.type: r.weight for r in again.relations} == weight
    assert facts(memory) == ["User works on Prax with Alice."]


def test_failed_parse_is_counted_and_the_pointer_stays(
    memory: PraxMemory, trace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_lines(trace, ["user: I prefer Neovim.", "user: I use Rust at work."])
    bad = LLMExtractor(FakeListChatModel(responses=["I cannot help with that."]), structured=False)
    with caplog.at_level(logging.WARNING):
        failed = Consolidator(memory, extractor=bad).run(USER, TraceLogSource(trace), now=NOW)
    assert (failed.batches, failed.batches_failed, failed.memories_created) == (0, 1, 0)
    assert failed.pending_lines == 2
    assert any("pointer stays before it" in r.getMessage() for r in caplog.records)
    state = Consolidator(memory).state(USER).sources[f"trace:{trace}"]
    assert (state.pointer, state.failed_attempts) == (0, 1)

    good = LLMExtractor(
        FakeListChatModel(
            responses=['{"facts": [{"content": "Prefers Neovim", "confidence": 0.9}]}']
        ),
        structured=False,
    )
    ok = Consolidator(memory, extractor=good).run(USER, TraceLogSource(trace), now=NOW)
    assert (ok.batches, ok.memories_created) == (1, 1)
    assert Consolidator(memory).state(USER).sources[f"trace:{trace}"].pointer == 2


def test_a_batch_failing_again_and_again_stays_in_the_backlog_and_is_reported(
    memory: PraxMemory, trace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_lines(trace, ["user: I prefer Neovim."])
    flaky = SpyExtractor(fail_on=lambda n, items: n <= 4)
    bad = Consolidator(memory, extractor=flaky)
    results = [bad.run(USER, TraceLogSource(trace), now=NOW) for _ in range(2)]
    assert [r.batches_failed for r in results] == [1, 1]
    with caplog.at_level(logging.ERROR):
        runs = [bad.run(USER, TraceLogSource(trace), now=NOW) for _ in range(2)]
    # never dropped after N failures: the pointer stays, the lines stay pending, the reason shows
    assert [r.batches_stuck for r in runs] == [1, 1]
    assert bad.state(USER).sources[f"trace:{trace}"].pointer == 0
    failure = runs[-1].failures[0]
    assert (failure.start, failure.end, failure.lines, failure.attempts) == (0, 1, 1, 4)
    assert "injected extractor failure" in failure.reason
    assert runs[-1].pending_lines == 1
    assert any("keeps failing" in r.getMessage() for r in caplog.records)
    recovered = bad.run(USER, TraceLogSource(trace), now=NOW)  # the model works again
    assert (recovered.batches, recovered.memories_created, recovered.failures) == (1, 1, [])
    assert bad.state(USER).sources[f"trace:{trace}"].pointer == 1


# -- gate, graph, vectors -------------------------------------------------------------------------
def test_low_confidence_items_go_to_pending_review(consolidator: Consolidator, trace: Path) -> None:
    write_lines(trace, ["user: I think I prefer tabs over spaces.", "user: I prefer dark mode."])
    result = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    review = consolidator.parts.stm.list_pending_review(USER)
    contents = [e.content for e in review]
    assert "User thinks they prefer tabs over spaces." in contents
    assert result.pending_review == len(review) >= 2
    assert all("consolidation" in e.tags for e in review)
    assert facts(consolidator.parts.ltm) == ["User prefers dark mode."]


def test_llm_supersession_closes_the_old_edge(memory: PraxMemory, trace: Path) -> None:
    answers = [
        '{"relations": [{"source": "User", "type": "prefers", "target": "dark mode", '
        '"confidence": 0.9}]}',
        '{"relations": [{"source": "User", "type": "prefers", "target": "light mode", '
        '"supersedes": "dark mode", "confidence": 0.9}]}',
    ]
    model = FakeListChatModel(responses=answers)
    consolidator = Consolidator(memory, extractor=LLMExtractor(model, structured=False))
    write_lines(trace, ["user: I prefer dark mode."])
    consolidator.run(USER, TraceLogSource(trace), now=NOW)
    write_lines(trace, ["user: I now prefer light mode."], mode="a")
    result = consolidator.run(USER, TraceLogSource(trace), now=NOW + timedelta(hours=1))
    assert result.relations_superseded == 1
    assert [e.name for e in memory.graph.current_targets(USER, "user", "prefers")] == ["light mode"]
    user = memory.graph.get_entity(USER, "user", include_superseded=True)
    assert user is not None
    old = [r for r in user.relations if r.target == "dark mode"]
    assert old and old[0].valid_until is not None


def test_rule_based_supersession_and_strengthening(consolidator: Consolidator, trace: Path) -> None:
    write_lines(trace, ["user: I prefer dark mode.", "user: I prefer dark mode.", "user: ok"])
    consolidator.run(USER, TraceLogSource(trace), now=NOW)
    graph = consolidator.parts.graph
    edge = [r for r in graph.get_entity(USER, "user").relations if r.type == "prefers"]  # type: ignore[union-attr]
    assert edge[0].weight == 2.0  # strengthened, not duplicated
    write_lines(trace, ["user: I switched from dark mode to light mode."], mode="a")
    result = consolidator.run(USER, TraceLogSource(trace), now=NOW + timedelta(days=1))
    assert result.relations_superseded == 1
    assert [e.name for e in graph.current_targets(USER, "user", "prefers")] == ["light mode"]


def test_facts_carry_entity_ids_source_and_the_items_time(
    consolidator: Consolidator, trace: Path
) -> None:
    write_lines(
        trace,
        ["2026-02-27T09:15:00Z user: I work on Prax with Alice.", "user: I prefer dark mode."],
    )
    consolidator.run(USER, TraceLogSource(trace), now=NOW)
    by_content = {m.content: m for m in consolidator.parts.ltm.list_memories(USER)}
    dated = next(m for c, m in by_content.items() if "Prax" in c)
    assert dated.source == "consolidation"
    assert dated.created_at.isoformat().startswith("2026-02-27T09:15")
    ids = consolidator.parts.graph.entity_ids_for(USER, ["Prax", "Alice"])
    assert set(ids.values()) <= set(dated.entity_ids) and len(ids) == 2
    undated = by_content["User prefers dark mode."]
    assert undated.created_at == NOW


def test_failed_vector_write_is_counted_failed_and_retried(
    consolidator: Consolidator, trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_lines(trace, ["user: I prefer dark mode.", "user: I always use Vim."])
    client = consolidator.parts.ltm.vectors.client

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("qdrant down")

    monkeypatch.setattr(client, "upsert", broken)
    failed = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert (failed.memories_failed, failed.memories_created) == (2, 0)
    assert failed.batches == 1  # the graph part landed; the facts wait in the retry queue
    assert any("vector write" in e for e in failed.errors)
    assert len(consolidator.state(USER).retry_memories) == 2
    monkeypatch.undo()

    retried = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert (retried.memories_retried, retried.memories_created) == (2, 2)
    assert consolidator.state(USER).retry_memories == []
    assert len(facts(consolidator.parts.ltm)) == 2


def test_memory_write_error_is_what_remember_raises(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        memory.vectors.client, "upsert", lambda *a, **k: (_ for _ in ()).throw(OSError("x"))
    )
    with pytest.raises(MemoryWriteError):
        memory.remember(USER, "anything")


# -- decay ---------------------------------------------------------------------------------------
def test_decay_runs_at_most_once_per_interval_and_the_mark_moves_only_when_it_ran(
    consolidator: Consolidator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2026-09 bug: last_decay_run was written and never read."""
    calls: list[Any] = []
    original = consolidator.parts.ltm.decay

    def counting(user_id: str, **kwargs: Any) -> list[str]:
        calls.append(kwargs["now"])
        return original(user_id, **kwargs)

    monkeypatch.setattr(consolidator.parts.ltm, "decay", counting)
    assert consolidator.run(USER, [], now=NOW).decay_ran
    assert not consolidator.run(USER, [], now=NOW + timedelta(hours=1)).decay_ran
    assert not consolidator.run(USER, [], now=NOW + timedelta(hours=23, minutes=59)).decay_ran
    assert consolidator.state(USER).last_decay_run == NOW
    assert consolidator.run(USER, [], now=NOW + timedelta(hours=24)).decay_ran
    assert calls == [NOW, NOW + timedelta(hours=24)]

    def broken(user_id: str, **kwargs: Any) -> list[str]:
        raise ConnectionError("down")

    monkeypatch.setattr(consolidator.parts.ltm, "decay", broken)
    failed = consolidator.run(USER, [], now=NOW + timedelta(hours=60))
    assert not failed.decay_ran
    assert consolidator.state(USER).last_decay_run == NOW + timedelta(hours=24)


def test_decay_interval_is_configurable(memory: PraxMemory) -> None:
    hourly = Consolidator(memory, decay_interval=timedelta(hours=1))
    assert hourly.run(USER, [], now=NOW).decay_ran
    assert hourly.run(USER, [], now=NOW + timedelta(minutes=61)).decay_ran


def test_frequent_consolidation_does_not_accelerate_forgetting(memory: PraxMemory) -> None:
    """2026-09 bug: decay written back every 5 turns pruned a 7-day half-life memory in 4-8 days."""
    # an episode by the caller's tag (a standing fact never decays: docs/context.md)
    memory.remember(
        USER, "The user's cat is called Miso", importance=0.5, created_at=NOW, tags=["episode"]
    )
    consolidator = Consolidator(memory)
    for hour in range(0, 20 * 24, 25):  # a decay pass every ~day for 20 days
        consolidator.run(USER, [], now=NOW + timedelta(hours=hour))
    kept = [m for m in memory.list_memories(USER) if m.summary_level == "raw"]
    assert [m.importance for m in kept] == [0.5]  # nothing written back
    # 0.5·2^(−34/7) ≈ 0.017 < 0.02: pruned only after ~33 unrecalled days.
    late = consolidator.run(USER, [], now=NOW + timedelta(days=34))
    assert late.memories_decayed >= 1
    assert not any(
        "Miso" in m.content for m in memory.list_memories(USER) if m.summary_level == "raw"
    )


def test_graph_decay_uses_total_days(memory: PraxMemory) -> None:
    """2026-09 bug: duration.between(...).days counted a 45-day gap as 15."""
    memory.graph.merge_entity(USER, "Lonely", importance=0.3, now=NOW)
    consolidator = Consolidator(memory)
    kept = consolidator.run(USER, [], now=NOW + timedelta(days=20))  # 0.3·2^(−20/14) ≈ 0.11
    assert kept.entities_decayed == 0
    pruned = consolidator.run(USER, [], now=NOW + timedelta(days=45))  # ≈ 0.032 < 0.05
    assert pruned.entities_decayed == 1
    assert memory.graph.get_entity(USER, "Lonely") is None


# -- daily summary -------------------------------------------------------------------------------
def test_day_boundary_writes_one_daily_summary(consolidator: Consolidator, trace: Path) -> None:
    write_lines(trace, ["user: I prefer dark mode.", "user: I work on Prax with Alice."])
    first = consolidator.run(USER, TraceLogSource(trace), now=NOW)
    assert first.daily_summary is None
    same_day = consolidator.run(USER, TraceLogSource(trace), now=NOW + timedelta(hours=6))
    assert same_day.daily_summary is None
    next_day = consolidator.run(USER, TraceLogSource(trace), now=NOW + timedelta(days=1))
    assert next_day.daily_summary is not None
    assert next_day.daily_summary_days == [NOW.date()]
    summaries = [
        m for m in consolidator.parts.ltm.list_memories(USER) if m.summary_level == "daily"
    ]
    assert len(summaries) == 1
    text = summaries[0].content
    assert text.startswith("On 2026-03-02, 2 memories were consolidated")
    assert "User prefers dark mode" in text
    assert 2 <= text.count(". ") + 1 <= 5
    assert summaries[0].created_at.date() == NOW.date()
    again = consolidator.run(USER, TraceLogSource(trace), now=NOW + timedelta(days=1, hours=1))
    assert again.daily_summary is None
    assert consolidator.state(USER).last_summary_day == NOW.date()


def test_daily_summary_uses_the_chat_model_when_there_is_one(
    memory: PraxMemory, trace: Path
) -> None:
    model = FakeListChatModel(responses=["The user likes dark mode. They work on Prax. Good day."])
    consolidator = Consolidator(memory, chat_model=model)
    consolidator.extractor = SpyExtractor()
    write_lines(trace, ["user: I prefer dark mode."])
    consolidator.run(USER, TraceLogSource(trace), now=NOW)
    result = consolidator.run(USER, [], now=NOW + timedelta(days=1))
    assert result.daily_summary == "The user likes dark mode. They work on Prax. Good day."


# -- locking and tenancy -------------------------------------------------------------------------
def test_one_consolidation_per_user_at_a_time(memory: PraxMemory, trace: Path) -> None:
    started, release = threading.Event(), threading.Event()

    def block(n: int, items: Any) -> bool:
        started.set()
        release.wait(10)
        return False

    slow = Consolidator(memory, extractor=SpyExtractor(fail_on=block))
    write_lines(trace, ["user: I prefer dark mode."])
    box: list[ConsolidationResult] = []
    worker = threading.Thread(
        target=lambda: box.append(slow.run(USER, TraceLogSource(trace), now=NOW))
    )
    worker.start()
    assert started.wait(10)
    busy = slow.run(USER, TraceLogSource(trace), now=NOW, wait=False)
    assert busy.skipped == "busy" and busy.batches == 0
    other = slow.run("bob", [], now=NOW, wait=False)  # another user is not blocked
    assert other.skipped is None
    release.set()
    worker.join(10)
    assert box[0].batches == 1
    assert slow.run(USER, TraceLogSource(trace), now=NOW, wait=False).skipped is None


def test_two_users_consolidate_concurrently_without_crossing(
    memory: PraxMemory, tmp_path: Path
) -> None:
    traces = {}
    for user, topic in (("alice", "Rust"), ("bob", "Haskell")):
        path = tmp_path / f"{user}.log"
        write_lines(path, [f"user: I prefer {topic} for side project {i}." for i in range(40)])
        traces[user] = path
    consolidator = Consolidator(memory)
    results: dict[str, ConsolidationResult] = {}
    errors: list[BaseException] = []

    def work(user: str) -> None:
        try:
            results[user] = consolidator.run(user, TraceLogSource(traces[user]), now=NOW)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(u,)) for u in traces]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert results["alice"].memories_created == results["bob"].memories_created == 40
    assert all("Rust" in f for f in facts(memory, "alice"))
    assert all("Haskell" in f for f in facts(memory, "bob"))
    assert memory.graph.get_entity("alice", "Haskell") is None
    assert memory.graph.get_entity("bob", "Rust") is None
    assert consolidator.state_path("alice") != consolidator.state_path("bob")


def test_default_sources_include_the_workspace_trace(memory: PraxMemory) -> None:
    workspace = memory.config.users_dir / USER
    workspace.mkdir(parents=True)
    write_lines(workspace / "trace.log", ["user: I prefer dark mode."])
    result = Consolidator(memory).run(USER, now=NOW)
    assert result.sources == [f"trace:{workspace / 'trace.log'}"]
    assert facts(memory) == ["User prefers dark mode."]
