"""``benchmarks/context.py``: its data is sound and it counts what the block holds.

The benchmark itself is not run by the suite (it stores every persona three times); what is
tested here is the data file's rules, the injected-memory test, the figures, and one small
persona end to end through the real door (packaged model, embedded engine).
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from benchmarks import context as bench
from langgraph_prax_memory._untrusted import quote_for_prompt

RAW: dict[str, Any] = json.loads(bench.DEFAULT_DATA.read_text())


def test_the_data_file_validates() -> None:
    assert bench.check_data(RAW) == []
    data = bench.load(bench.DEFAULT_DATA)
    assert len(data.personas) >= 3
    for kind in bench.KINDS:
        assert len(data.requests(kind)) >= 30, kind
    ids = [p.id for p in data.personas]
    ids += [m.id for p in data.personas for m in p.memories]
    ids += [r.id for p in data.personas for r in p.requests]
    assert len(ids) == len(set(ids))
    for p in data.personas:
        own = {m.id for m in p.memories}
        assert {m.kind for m in p.memories} == {"durable", "episodic"}
        for r in p.requests:
            assert set(r.gold) <= own, r.id
            assert bool(r.gold) == (r.kind != "off_topic"), r.id


def test_the_check_command_accepts_the_data(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--check"]) == 0
    assert "data OK" in capsys.readouterr().err


def _broken(edit: Any) -> list[str]:
    raw = copy.deepcopy(RAW)
    edit(raw)
    return bench.check_data(raw)


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda r: r["personas"][0]["memories"].append(r["personas"][0]["memories"][0]), "dup"),
        (lambda r: r["personas"][0]["requests"][0]["gold"].append("nope-d99"), "nope-d99"),
        (
            lambda r: r["personas"][0]["requests"][0]["gold"].append(
                r["personas"][1]["memories"][0]["id"]
            ),
            "is not a memory of",
        ),
        (lambda r: r.update(personas=r["personas"][:1]), "too few personas"),
        (
            lambda r: [p.update(requests=p["requests"][:5]) for p in r["personas"]],
            "too few task requests",
        ),
        (
            lambda r: next(
                m for m in r["personas"][0]["memories"] if m["kind"] == "episodic"
            ).update(tags=["preference"]),
            "episodic with durable tags",
        ),
        (
            lambda r: next(
                m for m in r["personas"][0]["memories"] if m["kind"] == "durable"
            ).update(tags=[], importance=0.7),
            "durable without a durable tag",
        ),
        (
            lambda r: next(
                q for q in r["personas"][0]["requests"] if q["kind"] == "off_topic"
            ).update(gold=[r["personas"][0]["memories"][0]["id"]]),
            "off-topic request has gold",
        ),
        (
            lambda r: r["personas"][0]["memories"][0].update(content="User likes `code`."),
            "escapes",
        ),
        (
            lambda r: r["personas"][0]["memories"][1].update(
                content=r["personas"][0]["memories"][0]["content"] + " Really."
            ),
            "is inside",
        ),
    ],
)
def test_the_check_finds_broken_data(edit: Any, says: str) -> None:
    errors = _broken(edit)
    assert any(says in e for e in errors), errors


def _persona() -> bench.Persona:
    return bench.Persona(
        "t",
        "Test",
        (
            bench.Memory("t-d01", "durable", "User likes tea.", 0.9, ("preference",), 100),
            bench.Memory("t-d02", "durable", "User likes tea with milk.", 0.9, (), 100),
            bench.Memory("t-e01", "episodic", "User went to Oslo.", 0.4, (), 3),
        ),
        (),
    )


def test_injected_memories_are_found_by_their_rendered_text() -> None:
    persona = _persona()
    block = "\n".join(
        [
            "## Relevant Memories",
            f"- [conversation, 2026-11-01] {quote_for_prompt('User likes tea with milk.')}",
            f"- {quote_for_prompt('User went to Oslo.')}",
        ]
    )
    # "User likes tea." is inside the milk line's text: only the longer memory counts there
    assert bench.injected_ids(block, persona) == ["t-d02", "t-e01"]
    assert bench.injected_ids("", persona) == []


def test_the_figures_count_gold_and_unrelated_memories() -> None:
    kinds = {"t-d01": "durable", "t-d02": "durable", "t-e01": "episodic"}

    def outcome(kind: str, gold: tuple[str, ...], injected: tuple[str, ...]) -> bench.Outcome:
        request = bench.Request(f"r{len(gold)}{len(injected)}", kind, "text", gold)
        return bench.Outcome(
            "t",
            request,
            injected,
            {i: kinds[i] for i in injected},
            chars=100 * len(injected),
            budget=150,
            literal=dict.fromkeys(gold, False),
        )

    figures = bench.summarise(
        [
            outcome("task", ("t-d01", "t-d02"), ("t-d01", "t-e01")),
            outcome("direct", ("t-e01",), ("t-e01",)),
            outcome("off_topic", (), ("t-e01",)),
            outcome("off_topic", (), ()),
        ]
    )
    assert figures["gold_kept_task"] == 0.5
    assert figures["gold_kept_task_paraphrased"] == 0.5
    assert figures["gold_kept_direct"] == 1.0
    assert figures["unrelated_episodic_per_on_topic"] == 0.5  # one over two on-topic requests
    assert figures["off_topic_episodic_share"] == 0.5
    assert figures["over_budget"] == 1 and figures["over_budget_max_chars"] == 50
    assert figures["within_budget"] == 0.0
    assert figures["chars_max"] == 200


def test_the_baselines_switch_the_floor_and_only_the_floor() -> None:
    configs = bench.configurations()
    assert list(configs) == ["product", "floor off (top-k)", "today's floor"]
    assert configs["product"] is None
    floor_off, floor = configs["floor off (top-k)"], configs["today's floor"]
    assert floor_off is not None and floor is not None
    assert floor_off.relevance_floor is False and floor.relevance_floor is True
    if "profile_chars" in type(floor).model_fields:
        assert floor.profile_chars == 0 and floor_off.profile_chars == 0  # type: ignore[attr-defined]


def test_one_persona_through_the_real_door(tmp_path: Path) -> None:
    """Packaged model, embedded engine: floor off injects the top k; the product keeps a
    direct question's gold; every block is within the budgets passed."""
    persona = bench.Persona(
        "mini",
        "Mini",
        (
            bench.Memory(
                "mini-d01",
                "durable",
                "User's sister Hannah lives in Bristol.",
                0.85,
                ("relationship",),
                200,
            ),
            bench.Memory(
                "mini-e01", "episodic", "User watched Dune Part Two last weekend.", 0.3, (), 5
            ),
        ),
        (
            bench.Request("mini-q01", "direct", "Where does my sister live?", ("mini-d01",)),
            bench.Request("mini-o01", "off_topic", "What's the capital of Peru?", ()),
        ),
    )
    now = datetime(2026, 11, 30, 12, tzinfo=UTC)
    configs = bench.configurations()
    top_k = bench.run_persona(
        persona, persona.requests, configs["floor off (top-k)"], tmp_path / "off", now
    )
    assert [set(o.injected) for o in top_k] == [{"mini-d01", "mini-e01"}] * 2
    product = bench.run_persona(persona, persona.requests, None, tmp_path / "product", now)
    direct, off_topic = product
    assert "mini-d01" in direct.injected
    assert "mini-e01" not in off_topic.injected
    for o in top_k + product:
        assert o.budget > 0 and o.chars <= o.budget


def test_the_budgets_passed_follow_the_config_and_are_summed() -> None:
    from types import SimpleNamespace

    now = datetime(2026, 11, 30, 12, tzinfo=UTC)

    def today(
        memory: object,
        user_id: str,
        message: str,
        *,
        k: int = 5,
        stm_chars: int = 1500,
        ltm_chars: int = 2000,
        now: datetime | None = None,
    ) -> str:
        return ""

    def with_profile(
        memory: object,
        user_id: str,
        message: str,
        *,
        stm_chars: int = 1500,
        ltm_chars: int = 2000,
        profile_chars: int = 800,
        notes_chars: int | None = None,
    ) -> str:
        return ""

    plain: Any = SimpleNamespace(config=SimpleNamespace(retrieval=SimpleNamespace()))
    knob: Any = SimpleNamespace(config=SimpleNamespace(retrieval=SimpleNamespace(profile_chars=0)))
    wide: Any = SimpleNamespace(
        config=SimpleNamespace(retrieval=SimpleNamespace(profile_chars=600))
    )
    assert bench.context_kwargs(plain, now, today) == (
        {"stm_chars": 1500, "ltm_chars": 2000, "now": now},
        3500,
    )
    # the config's knob counts in the budget when the function does not take it ...
    assert bench.context_kwargs(wide, now, today)[1] == 4100
    # ... and wins over the function's default when it does (a baseline's 0 holds)
    assert bench.context_kwargs(knob, now, with_profile) == (
        {"stm_chars": 1500, "ltm_chars": 2000, "profile_chars": 0},
        3500,
    )
    assert bench.context_kwargs(plain, now, with_profile)[1] == 4300
