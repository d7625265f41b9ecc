"""Change by meaning on the LLM path (issue 38): the model is shown the user's current memories
the batch may change (short ids) and says in a fact's ``replaces`` which it makes untrue.

Those memories are retired (superseded with their interval, kept in history) and the graph
edge they stated is closed; the summaries built from them are rebuilt or marked. A fact that
records a change stays current; an addition to a many-valued attribute retires nothing; ids
the model invents or ids of another user's memories are ignored.

Real parts: the packaged MiniLM model, the embedded vector engine, the SQLite graph, the STM;
only the chat model is scripted (tests/scripted.py), answering as a good model would (it reads
the memories listed in its prompt) or adversarially.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import Consolidator, LLMExtractor, TraceLogSource
from langgraph_prax_memory.context import build_memory_context
from langgraph_prax_memory.errors import BackendUnavailable
from langgraph_prax_memory.models import Memory
from langgraph_prax_memory.prompts.extraction import CANDIDATES_HEADER
from tests.scripted import ScriptedChatModel, tool_call
from tests.unit.consolidation.conftest import write_lines

DAY1 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday (ISO week 2026-W10)
DAY15 = DAY1 + timedelta(days=14)
_users = (f"dana{i}" for i in itertools.count())


@pytest.fixture(scope="module")
def real_memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("replaces") / "data"))
    yield mem
    mem.close()


# -- a scripted model that reads the memories listed in its prompt ---------------------------
def shown(messages: Sequence[BaseMessage]) -> dict[str, str]:
    """The memories the prompt listed: short id -> text."""
    human = next(str(m.content) for m in messages if m.type == "human")
    if CANDIDATES_HEADER not in human:
        return {}
    listed = human.split(CANDIDATES_HEADER, 1)[1].strip().splitlines()
    out = {}
    for line in listed:
        short, _, text = line.partition(": ")
        out[short] = re.sub(r" \(\d{4}-\d\d-\d\d\)$", "", text)
    return out


def ideal(
    answer: dict[str, Any], replacing: dict[str, list[str]] | None = None
) -> Callable[..., AIMessage]:
    """``answer``, each fact stating ``replaces``: the listed memories holding one of the texts
    ``replacing[fact content]`` names (a good model's judgement; ``[]`` for the rest)."""

    def step(messages: list[BaseMessage]) -> AIMessage:
        listed = shown(messages)
        out = copy.deepcopy(answer)
        for fact in out.get("facts", []):
            olds = (replacing or {}).get(fact["content"], [])
            fact["replaces"] = [s for s, text in listed.items() if any(o in text for o in olds)]
        return AIMessage(content=json.dumps(out))

    return step


def _model(*steps: Any) -> ScriptedChatModel:
    model = ScriptedChatModel()
    model.script.extend(  # functions of the prompt are not messages: not validated as such
        s if callable(s) else AIMessage(content=json.dumps(s)) for s in steps
    )
    return model


def _line(when: datetime, text: str) -> str:
    return f"{when.isoformat()} user: {text}"


def _run(
    memory: PraxMemory,
    tmp_path: Path,
    user: str,
    model: ScriptedChatModel,
    lines: Sequence[str],
    now: datetime,
    *,
    structured: bool = False,
) -> Any:
    trace = tmp_path / f"{user}.log"
    write_lines(trace, lines, mode="a")
    consolidator = Consolidator(memory, extractor=LLMExtractor(model, structured=structured))
    return consolidator.run(user, TraceLogSource(trace), now=now)


def _raw(memory: PraxMemory, user: str) -> list[Memory]:
    return [m for m in memory.list_memories(user, limit=500) if m.summary_level == "raw"]


def _one(memory: PraxMemory, user: str, text: str) -> Memory:
    (found,) = [m for m in memory.list_memories(user, limit=500) if m.content == text]
    return found


def _current(memory: PraxMemory, user: str, kind: str) -> list[str]:
    return [e.name for e in memory.graph.current_targets(user, "user", kind)]


# -- a change worded apart from the old memory -------------------------------------------------
VEG = "User doesn't eat meat or fish."
PESC = "User eats fish again and is pescatarian now."
BEFORE_DIET = {
    "entities": [{"name": "User", "type": "person", "confidence": 0.9}],
    "relations": [{"source": "User", "type": "prefers", "target": "vegetarian diet",
                   "confidence": 0.9}],
    "facts": [
        {"content": VEG, "importance": 0.8, "confidence": 0.9, "tags": ["preference"]},
        {"content": "User works at Acme Corp as a designer.", "importance": 0.7,
         "confidence": 0.9, "tags": ["profile"]},
    ],
}  # fmt: skip
AFTER_DIET = {
    "relations": [{"source": "User", "type": "prefers", "target": "pescatarian diet",
                   "supersedes": "vegetarian diet", "confidence": 0.9}],
    "facts": [{"content": PESC, "importance": 0.8, "confidence": 0.9, "tags": ["preference"]}],
}  # fmt: skip
SESSION2 = [
    _line(DAY15, "haha what a week, my phone is at 3 percent"),
    _line(DAY15 + timedelta(minutes=1), "oh and I started eating fish again, pescatarian now"),
    _line(DAY15 + timedelta(minutes=2), "anyway, any tips for grilling salmon?"),
]


def test_a_change_worded_apart_from_the_old_memory_retires_it_by_id(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """The relation's old target ("vegetarian diet") is not in the memory's text: matching
    labels left it current; the model names it by id and it is retired, kept in history."""
    user = next(_users)
    model = _model(ideal(BEFORE_DIET), ideal(AFTER_DIET, {PESC: [VEG]}))
    _run(real_memory, tmp_path, user, model, [_line(DAY1, "I'm vegetarian, I work at Acme.")],
         DAY1 + timedelta(hours=1))  # fmt: skip
    result = _run(real_memory, tmp_path, user, model, SESSION2, DAY15 + timedelta(hours=1))
    # the old memory was shown to the model with a short id
    assert VEG in shown(model.received[-1]).values()
    old = _one(real_memory, user, VEG)
    assert old.valid_until == DAY15 + timedelta(minutes=1)  # when the change was said
    assert old.superseded_by == PESC
    assert _one(real_memory, user, "User works at Acme Corp as a designer.").valid_until is None
    assert _current(real_memory, user, "prefers") == ["pescatarian diet"]
    assert result.memories_superseded >= 1 and result.replaces_ignored == 0
    question = "What do I eat these days?"
    hits = real_memory.recall(user, question, k=3, now=DAY15 + timedelta(days=1))
    assert hits[0].memory.content == PESC
    context = build_memory_context(real_memory, user, question, now=DAY15 + timedelta(days=1))
    assert PESC in context and VEG not in context
    history = real_memory.recall(user, question, k=5, include_history=True, reinforce=False)
    assert VEG in [h.memory.content for h in history]
    then = real_memory.recall(user, question, k=3, as_of=DAY1 + timedelta(days=3))
    assert VEG in [h.memory.content for h in then]


def test_the_edge_closes_when_the_model_names_the_memory_but_not_the_old_target(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    user = next(_users)
    before = {
        "relations": [{"source": "User", "type": "lives_in", "target": "Lisbon",
                       "confidence": 0.9}],
        "facts": [{"content": "User lives in Lisbon.", "confidence": 0.9, "importance": 0.8}],
    }  # fmt: skip
    after = {  # no `supersedes`: only the memory's id says what changed
        "relations": [{"source": "User", "type": "lives_in", "target": "Berlin",
                       "confidence": 0.9}],
        "facts": [{"content": "User lives in Berlin.", "confidence": 0.9, "importance": 0.8}],
    }  # fmt: skip
    model = _model(ideal(before), ideal(after, {"User lives in Berlin.": ["Lisbon"]}))
    _run(real_memory, tmp_path, user, model, [_line(DAY1, "I live in Lisbon.")], DAY1)
    _run(real_memory, tmp_path, user, model, [_line(DAY15, "We finally moved to Berlin!")], DAY15)
    assert _current(real_memory, user, "lives_in") == ["berlin"]
    me = real_memory.graph.get_entity(user, "user", include_superseded=True)
    assert me is not None
    assert [r.valid_until is not None for r in me.relations if r.target == "lisbon"] == [True]
    assert _one(real_memory, user, "User lives in Lisbon.").valid_until is not None
    assert _one(real_memory, user, "User lives in Berlin.").valid_until is None


# -- a break-up: the record of the change stays, the old partner goes --------------------------
PARTNER = "User's partner is Leo."
TOGETHER = "User and Leo love hiking together."
SPLIT = "User and Leo broke up."
BEFORE_LEO = {
    "relations": [{"source": "User", "type": "partner_of", "target": "Leo", "confidence": 0.9}],
    "facts": [
        {"content": PARTNER, "importance": 0.9, "confidence": 0.9, "tags": ["relationship"]},
        {"content": TOGETHER, "importance": 0.6, "confidence": 0.9},
    ],
}
AFTER_LEO = {
    "relations": [{"source": "User", "type": "partner_of", "target": "Leo", "supersedes": "Leo",
                   "confidence": 0.9}],
    "facts": [{"content": SPLIT, "importance": 0.9, "confidence": 0.9,
               "tags": ["relationship"]}],
}  # fmt: skip
BREAK_UP = [
    _line(DAY15, "ugh, long story"),
    _line(DAY15 + timedelta(minutes=1), "Leo and I broke up last week"),
    _line(DAY15 + timedelta(minutes=2), "anyway, what should I cook tonight? any ideas?"),
]


def _break_up(memory: PraxMemory, tmp_path: Path, second: Any) -> tuple[str, ScriptedChatModel]:
    user = next(_users)
    model = _model(ideal(BEFORE_LEO), second)
    _run(memory, tmp_path, user, model, [_line(DAY1, "My boyfriend Leo and I love hiking.")],
         DAY1)  # fmt: skip
    _run(memory, tmp_path, user, model, BREAK_UP, DAY15 + timedelta(hours=1))
    return user, model


def test_a_break_up_keeps_its_record_and_retires_only_what_the_model_names(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """The model judged the memories it saw: "love hiking together" is history it did not
    name (a label match on "Leo" + "together" would have retired it), the partner fact goes,
    and the break-up itself is current although small talk follows it in the batch."""
    user, _ = _break_up(real_memory, tmp_path, ideal(AFTER_LEO, {SPLIT: [PARTNER]}))
    assert _one(real_memory, user, PARTNER).valid_until == DAY15 + timedelta(minutes=1)
    assert _one(real_memory, user, SPLIT).valid_until is None
    assert _one(real_memory, user, TOGETHER).valid_until is None
    assert _current(real_memory, user, "partner_of") == []
    hits = real_memory.recall(user, "Am I still with Leo?", k=3, now=DAY15 + timedelta(days=1))
    assert SPLIT in [h.memory.content for h in hits]
    assert not any(PARTNER in h.memory.content for h in hits)
    context = build_memory_context(
        real_memory, user, "Am I still with Leo?", now=DAY15 + timedelta(days=1)
    )
    assert SPLIT in context and PARTNER not in context


def test_without_replaces_the_record_of_a_change_is_not_retired_by_its_own_batch(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """A model that answers no ``replaces`` (a custom prompt): the old target's name retires
    the memories stating it, but never the batch's own fact stated on the change's line —
    the batch's latest time (small talk after it) is not the time of the change."""
    user, _ = _break_up(real_memory, tmp_path, AFTER_LEO)
    assert _one(real_memory, user, SPLIT).valid_until is None
    assert _one(real_memory, user, PARTNER).valid_until == DAY15 + timedelta(minutes=1)
    hits = real_memory.recall(user, "Am I still with Leo?", k=3, now=DAY15 + timedelta(days=1))
    assert SPLIT in [h.memory.content for h in hits]
    assert not any(PARTNER in h.memory.content for h in hits)


# -- an addition retires nothing ---------------------------------------------------------------
def test_an_addition_to_a_many_valued_attribute_retires_nothing(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    user = next(_users)
    before = {
        "relations": [
            {"source": "User", "type": "interested_in", "target": "Spanish", "confidence": 0.9},
            {"source": "User", "type": "prefers", "target": "guitar", "confidence": 0.9},
        ],
        "facts": [
            {"content": "User speaks Spanish.", "confidence": 0.9, "importance": 0.7},
            {"content": "User plays the guitar as a hobby.", "confidence": 0.9,
             "importance": 0.7},
        ],
    }  # fmt: skip
    after = {
        "relations": [
            {"source": "User", "type": "interested_in", "target": "Japanese", "confidence": 0.9},
            {"source": "User", "type": "prefers", "target": "bouldering", "confidence": 0.9},
        ],
        "facts": [
            {"content": "User is learning Japanese.", "confidence": 0.9, "importance": 0.7},
            {"content": "User took up bouldering as a hobby.", "confidence": 0.9,
             "importance": 0.7},
        ],
    }  # fmt: skip
    model = _model(ideal(before), ideal(after))
    _run(real_memory, tmp_path, user, model,
         [_line(DAY1, "I speak Spanish and play the guitar.")], DAY1)  # fmt: skip
    result = _run(
        real_memory, tmp_path, user, model,
        [_line(DAY15, "I started learning Japanese, and I took up bouldering!")], DAY15,
    )  # fmt: skip
    assert result.memories_superseded == 0
    assert all(m.valid_until is None for m in _raw(real_memory, user))
    assert sorted(_current(real_memory, user, "interested_in")) == ["japanese", "spanish"]
    assert sorted(_current(real_memory, user, "prefers")) == ["bouldering", "guitar"]


# -- adversarial ids ---------------------------------------------------------------------------
def test_invented_malformed_and_foreign_ids_are_ignored(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """Tenancy: only the short ids shown for this user resolve. Another user's real memory
    id, in ``replaces`` or forced into ``replaces_ids``, changes nothing of theirs."""
    victim, user = next(_users), next(_users)
    (theirs,) = real_memory.remember_many(victim, ["User lives in Lisbon."])
    model = _model(ideal({"facts": [{"content": "User lives in Lisbon.", "confidence": 0.9}]}))
    _run(real_memory, tmp_path, user, model, [_line(DAY1, "I live in Lisbon.")], DAY1)
    mine = _one(real_memory, user, "User lives in Lisbon.")

    def adversarial(messages: list[BaseMessage]) -> AIMessage:
        listed = shown(messages)
        (lisbon,) = [s for s, text in listed.items() if "Lisbon" in text]
        fact = {
            "content": "User lives in Berlin.",
            "confidence": 0.9,
            "replaces": [lisbon, "m99", theirs, "m0", "", "m1; DROP", 7, mine.id],
            "replaces_ids": [theirs],
        }
        other = {"content": "User's neighbour is Ana.", "confidence": 0.9, "replaces": theirs}
        return AIMessage(content=json.dumps({"facts": [fact, other]}))

    result = _run(real_memory, tmp_path, user, _model(adversarial),
                  [_line(DAY15, "I moved to Berlin.")], DAY15)  # fmt: skip
    assert result.batches == 1
    assert result.replaces_ignored == 7  # m99, their id twice, m0, "m1; drop", 7, my own id
    assert real_memory.list_memories(victim)[0].valid_until is None  # theirs: untouched
    assert real_memory.list_memories(victim)[0].id == theirs
    assert _one(real_memory, user, "User lives in Lisbon.").valid_until is not None  # by m-id
    assert _one(real_memory, user, "User's neighbour is Ana.").valid_until is None


def test_a_low_confidence_fact_retires_nothing_and_says_what_it_would_replace(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    user = next(_users)
    before = {"facts": [{"content": "User drinks coffee every morning.", "confidence": 0.9}]}
    after = {"facts": [{"content": "User might switch to tea.", "confidence": 0.3}]}
    model = _model(ideal(before), ideal(after, {"User might switch to tea.": ["coffee"]}))
    _run(real_memory, tmp_path, user, model, [_line(DAY1, "Coffee every morning.")], DAY1)
    _run(real_memory, tmp_path, user, model, [_line(DAY15, "Maybe I'll switch to tea.")], DAY15)
    assert _one(real_memory, user, "User drinks coffee every morning.").valid_until is None
    review = [e.content for e in real_memory.stm.all(user)]
    assert "User might switch to tea. (would replace: User drinks coffee every morning.)" in review


def test_a_memory_newer_than_the_replacing_fact_is_kept(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """An old session read late (a replay): a fact of day 1 never retires a memory of day 15,
    whatever the model says."""
    user = next(_users)
    new = {"facts": [{"content": "User lives in Berlin.", "confidence": 0.9}]}
    old = {"facts": [{"content": "User lives in Lisbon.", "confidence": 0.9}]}
    model = _model(ideal(new), ideal(old, {"User lives in Lisbon.": ["Berlin"]}))
    _run(real_memory, tmp_path, user, model, [_line(DAY15, "I live in Berlin.")], DAY15)
    late = tmp_path / f"{user}-old.log"
    write_lines(late, [_line(DAY1, "I live in Lisbon.")])
    Consolidator(real_memory, extractor=LLMExtractor(model, structured=False)).run(
        user, TraceLogSource(late), now=DAY15 + timedelta(hours=1)
    )
    assert _one(real_memory, user, "User lives in Berlin.").valid_until is None


def test_structured_output_answers_replaces_too(real_memory: PraxMemory, tmp_path: Path) -> None:
    user = next(_users)

    def answer(content: str, olds: list[str]) -> Callable[..., AIMessage]:
        def step(messages: list[BaseMessage]) -> AIMessage:
            ids = [s for s, text in shown(messages).items() if any(o in text for o in olds)]
            fact = {"content": content, "confidence": 0.9, "replaces": ids}
            return AIMessage(content="", tool_calls=[tool_call("Extraction", "c1", facts=[fact])])

        return step

    model = _model(answer("User uses VS Code.", []), answer("User uses Helix.", ["VS Code"]))
    _run(real_memory, tmp_path, user, model, [_line(DAY1, "I code in VS Code.")], DAY1,
         structured=True)  # fmt: skip
    _run(real_memory, tmp_path, user, model, [_line(DAY15, "Helix is my editor now.")], DAY15,
         structured=True)  # fmt: skip
    assert _one(real_memory, user, "User uses VS Code.").valid_until is not None
    assert _one(real_memory, user, "User uses Helix.").valid_until is None


def test_retiring_that_does_not_land_is_retried_by_the_next_run(
    real_memory: PraxMemory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fault injection: the store refuses the payload update that marks the old memory; the
    run says so and the next run (the store back) retires it. Nothing is left half done."""
    user = next(_users)
    before = {"facts": [{"content": "User's manager is Tom.", "confidence": 0.9}]}
    after = {"facts": [{"content": "User's manager is Priya.", "confidence": 0.9}]}
    model = _model(ideal(before), ideal(after, {"User's manager is Priya.": ["Tom"]}))
    _run(real_memory, tmp_path, user, model, [_line(DAY1, "My manager is Tom.")], DAY1)
    store = real_memory.ltm.vectors
    real_set = store.set_payload

    def refusing(user_id: str, ids: Sequence[str], payload: dict[str, Any], **kw: Any) -> None:
        if "valid_until" in payload:
            raise BackendUnavailable("injected: the vector store is down")
        real_set(user_id, ids, payload, **kw)

    monkeypatch.setattr(store, "set_payload", refusing)
    result = _run(real_memory, tmp_path, user, model, [_line(DAY15, "Priya is my boss now.")],
                  DAY15)  # fmt: skip
    assert any("replaced memories" in e for e in result.errors)
    assert _one(real_memory, user, "User's manager is Tom.").valid_until is None
    monkeypatch.undo()
    again = Consolidator(real_memory).run(user, [], now=DAY15 + timedelta(hours=1))
    assert again.memories_superseded == 1
    assert _one(real_memory, user, "User's manager is Tom.").valid_until is not None
    assert _one(real_memory, user, "User's manager is Priya.").valid_until is None


# -- summaries never restate a retired fact ----------------------------------------------------
def _summaries(memory: PraxMemory, user: str, *, current: bool = True) -> dict[str, Memory]:
    return {
        m.key: m
        for m in memory.list_memories(user, limit=500)
        if m.summary_level != "raw" and (m.valid_until is None or not current)
    }


def test_the_summaries_built_from_a_replaced_memory_are_rebuilt(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """Day 1's summary, its week's and the global one repeat "doesn't eat meat" (no word of
    "vegetarian diet"): they are rebuilt from what is current when the memory is replaced."""
    user = next(_users)
    model = _model(ideal(BEFORE_DIET), ideal(AFTER_DIET, {PESC: [VEG]}))
    _run(real_memory, tmp_path, user, model, [_line(DAY1, "I'm vegetarian, I work at Acme.")],
         DAY1 + timedelta(hours=1))  # fmt: skip
    consolidator = Consolidator(real_memory)
    consolidator.run(user, [], now=DAY1 + timedelta(days=1))  # day 1 summarised
    consolidator.run(user, [], now=DAY1 + timedelta(days=8))  # its week, and the global one
    before = _summaries(real_memory, user)
    assert set(before) == {"daily_summary:2026-03-02", "weekly_summary:2026-W10", "global_summary"}
    assert all("meat" in m.content for m in before.values())
    veg = _one(real_memory, user, VEG)
    assert veg.id in _summary_of(real_memory, user, "daily_summary:2026-03-02")
    _run(real_memory, tmp_path, user, model, SESSION2, DAY15 + timedelta(hours=1))
    after = _summaries(real_memory, user)
    assert set(after) == set(before)
    for key, summary in after.items():
        assert "meat" not in summary.content, (key, summary.content)
        assert "Acme" in summary.content, (key, summary.content)
    assert veg.id not in _summary_of(real_memory, user, "daily_summary:2026-03-02")
    question = "Do I eat meat or fish?"
    context = build_memory_context(real_memory, user, question, now=DAY15 + timedelta(days=1))
    assert "meat" not in context


def test_a_summary_left_with_nothing_current_is_marked(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    user = next(_users)
    only_veg = {"facts": [BEFORE_DIET["facts"][0]]}
    model = _model(ideal(only_veg), ideal(AFTER_DIET, {PESC: [VEG]}))
    _run(real_memory, tmp_path, user, model, [_line(DAY1, "I'm vegetarian.")], DAY1)
    consolidator = Consolidator(real_memory)
    consolidator.run(user, [], now=DAY1 + timedelta(days=1))
    consolidator.run(user, [], now=DAY1 + timedelta(days=8))
    assert len(_summaries(real_memory, user)) == 3
    _run(real_memory, tmp_path, user, model, SESSION2, DAY15 + timedelta(hours=1))
    assert _summaries(real_memory, user) == {}  # nothing current to build them from
    history = _summaries(real_memory, user, current=False)
    assert len(history) == 3  # marked when what they were built from ended
    assert {m.valid_until for m in history.values()} == {DAY15 + timedelta(minutes=1)}
    question = "Do I eat meat or fish?"
    context = build_memory_context(real_memory, user, question, now=DAY15 + timedelta(days=1))
    assert "meat" not in context and PESC in context


def _summary_of(memory: PraxMemory, user: str, key: str) -> list[str]:
    (point,) = [p for p in memory.ltm.vectors.iter_points(user) if p.payload.get("key") == key]
    return list(point.payload.get("summary_of") or [])
