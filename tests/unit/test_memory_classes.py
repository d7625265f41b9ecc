"""Memory classes (issue 37): every memory is classified when written, at every door.

The classifier runs on the packaged MiniLM model here (a real model, offline): its judgement is
what is under test. The statements below were written for these tests, apart from the
classifier's training statements (``langgraph_prax_memory/facts/statements.txt``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory._classes import CLASSES_KEY, CLASSES_VERSION
from langgraph_prax_memory._validation import utcnow
from langgraph_prax_memory.facts import (
    EPISODE,
    KINDS,
    SMALL_TALK,
    STANDING,
    FactClass,
    FactClassifier,
    goal_statements,
    resolve_class,
    states_a_goal,
    training_statements,
)
from langgraph_prax_memory.facts._notes import by_sentence
from langgraph_prax_memory.vectors import VectorRecord, build_payload, point_id

STANDING_TEXTS = [
    "User is allergic to hazelnuts.",
    "User's partner is called Imogen.",
    "I work as a radiographer at the county hospital.",
    "User prefers audiobooks to paper books.",
    "User swims every Tuesday and Saturday morning.",
    "User owns a red Vespa scooter.",
    "User speaks Dutch and a little Japanese.",
    "Bao is lactose intolerant.",
    "User's brother Callum lives in Aberdeen.",
    "User avoids gluten because of coeliac disease.",
]
EPISODE_TEXTS = [
    "User's boiler broke down on Sunday evening.",
    "User went to a wine tasting in Porto last month.",
    "User is meeting the accountant next Thursday at 2pm.",
    "User's aunt had a fall and is in hospital since yesterday.",
    "User missed the train this morning and was late for the meeting.",
    "User will fly to Nairobi on the 18th for a conference.",
    "User's cat knocked a glass off the table last night.",
    "User spilled coffee on the new keyboard.",
]
SMALL_TALK_TEXTS = [
    "User says hi.",
    "haha ok",
    "User is bored and wants to chat.",
    "User's tea is getting cold.",
]


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    """A memory on the packaged model and the embedded engine, shared by the module."""
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("classes")))
    yield mem
    mem.close()


def _classes(mem: PraxMemory, texts: list[str]) -> list[str]:
    return [c.fact_class for c in mem.ltm.classes.classifier().classify(texts)]


def test_none_of_the_test_statements_is_a_training_statement() -> None:
    training = {t for _, t in training_statements()}
    assert not training & set(STANDING_TEXTS + EPISODE_TEXTS + SMALL_TALK_TEXTS)


def test_statements_it_was_not_trained_on_are_classified(real: PraxMemory) -> None:
    got = _classes(real, STANDING_TEXTS + EPISODE_TEXTS + SMALL_TALK_TEXTS)
    want = (
        [STANDING] * len(STANDING_TEXTS)
        + [EPISODE] * len(EPISODE_TEXTS)
        + [SMALL_TALK] * len(SMALL_TALK_TEXTS)
    )
    right = sum(g == w for g, w in zip(got, want, strict=True))
    assert right / len(want) >= 0.9, list(zip(got, want, strict=True))
    # an episode taken for a standing fact would stay forever and show everywhere
    episodes_as_standing = sum(
        g == STANDING for g, w in zip(got, want, strict=True) if w == EPISODE
    )
    assert episodes_as_standing <= 1


def test_remember_classifies_untagged_memories(real: PraxMemory) -> None:
    allergy = real.remember("u-remember", "User is allergic to hazelnuts.")
    boiler = real.remember("u-remember", "User's boiler broke down on Sunday evening.")
    memory = real.ltm.get("u-remember", allergy)
    assert memory is not None and memory.fact_class == STANDING
    assert memory.fact_kind == "health" and memory.fact_by == "text"
    episode = real.ltm.get("u-remember", boiler)
    assert episode is not None and episode.fact_class == EPISODE


def test_the_callers_tags_and_importance_override_the_text(real: PraxMemory) -> None:
    user = "u-override"
    as_episode = real.remember(user, "User is allergic to hazelnuts.", tags=["episode"])
    as_standing = real.remember(user, "User spilled coffee on the keyboard.", tags=["preference"])
    important = real.remember(user, "User missed the train this morning.", importance=0.9)
    topical = real.remember(user, "User had a long shift on the ward.", tags=["work"])
    got = {mid: real.ltm.get(user, mid) for mid in (as_episode, as_standing, important, topical)}
    assert got[as_episode] is not None and got[as_episode].fact_class == EPISODE
    assert got[as_episode].fact_by == "tags"
    assert got[as_standing] is not None and got[as_standing].fact_class == STANDING
    assert got[important] is not None and got[important].fact_class == STANDING
    assert got[important].fact_by == "importance"
    # a topical tag says nothing about the class: the text decides
    assert got[topical] is not None and got[topical].fact_by == "text"


def test_store_put_and_batch_classify(real: PraxMemory) -> None:
    store = PraxMemoryStore(real)
    store.put(("memories", "u-store"), "a", {"content": "User owns a red Vespa scooter."})
    store.batch([])
    item = store.get(("memories", "u-store"), "a")
    assert item is not None
    [memory] = real.ltm.list_memories("u-store")
    assert memory.fact_class == STANDING and memory.fact_kind == "possession"
    point = real.ltm.store().scroll("u-store", limit=1)[0]
    assert {"own", "red", "vespa", "scooter"} <= set(point.payload["terms"])


def test_remember_many_classifies_each_item(real: PraxMemory) -> None:
    ids = real.remember_many("u-many", ["haha ok", "User speaks Dutch and a little Japanese."])
    classes = [real.ltm.get("u-many", i) for i in ids]
    assert [c.fact_class if c else None for c in classes] == [SMALL_TALK, STANDING]


def test_small_talk_and_episodes_stay_out_of_the_profile(real: PraxMemory) -> None:
    user = "u-profile"
    real.remember_many(
        user,
        [
            "User's brother Callum lives in Aberdeen.",
            "User's boiler broke down on Sunday evening.",
            "User says hi.",
        ],
    )
    standing = [h.memory.content for h in real.standing_facts(user, "Plan my weekend.")]
    assert standing == ["User's brother Callum lives in Aberdeen."]


PROFILE_FACTS = [
    "User works as a sound engineer at a theatre.",
    "User's partner is called Imogen.",
    "User lives in a flat in Leith.",
    "User plays bass in a covers band.",
    "User drives an old Volvo estate.",
    "User collects vinyl records.",
]


@pytest.mark.parametrize(("importance", "first"), [(None, True), (0.3, False)])
def test_an_untagged_health_fact_leads_the_profile_as_a_tagged_constraint_would(
    real: PraxMemory, importance: float | None, first: bool
) -> None:
    """Fails when the profile tier orders an untagged allergy by its faint relevance alone."""
    from langgraph_prax_memory.context import assemble_context

    user = f"u-constraint-{importance}"
    real.remember_many(user, PROFILE_FACTS)
    allergy = "User is allergic to sesame."
    if importance is None:
        real.remember(user, allergy)  # the writer said nothing of its importance
    else:
        real.remember(user, allergy, importance=importance)  # the writer said: less
    ctx = assemble_context(real, user, "Write me a haiku about autumn.", profile_chars=60)
    assert ([h.memory.content for h in ctx.profile][:1] == [allergy]) is first


def test_a_90_day_gap_loses_no_standing_fact_and_episodes_decay(real: PraxMemory) -> None:
    user = "u-decay"
    long_ago = utcnow() - timedelta(days=90)
    kept = [
        real.remember(user, text, created_at=long_ago)
        for text in ("User is allergic to hazelnuts.", "User's partner is called Imogen.")
    ]
    gone = real.remember(user, "User's cat knocked a glass off the table.", created_at=long_ago)
    pruned = real.decay(user)
    assert pruned == [gone]
    assert all(real.ltm.get(user, mid) is not None for mid in kept)


def test_explain_names_the_class(real: PraxMemory) -> None:
    real.remember("u-explain", "User prefers audiobooks to paper books.")
    [hit] = real.recall("u-explain", "What kind of books does the user like?", k=1)
    assert "standing fact (preference, from its text)" in hit.explain()


def _as_an_earlier_release_wrote(mem: PraxMemory, user: str, items: list[dict]) -> list[str]:
    """Points with the payload an earlier release wrote: no class, no terms."""
    ns = ("memories", user)
    texts = [it["content"] for it in items]
    dense = mem.ltm.dense.embed_documents(texts)
    sparse = mem.ltm.sparse.embed_documents(texts)
    records = []
    for i, it in enumerate(items):
        key = f"old-{i}"
        value = {"importance": 0.5, "tags": [], "source": "conversation", **it}
        payload = build_payload(
            user_id=user,
            namespace=ns,
            key=key,
            value=value,
            text=it["content"],
            now=utcnow(),
            previous=None,
            embedding_model=mem.ltm.dense.model_name,
            dense_pending=False,
        )
        records.append(VectorRecord(point_id(ns, key), payload, dense[i], sparse[i]))
    return mem.ltm.store().upsert(user, records)


def test_memories_written_before_classes_get_theirs_on_upgrade(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path)
    mem = PraxMemory(config)
    ids = _as_an_earlier_release_wrote(
        mem,
        "u-old",
        [
            {"content": "User is allergic to hazelnuts."},
            {"content": "User's boiler broke down on Sunday evening.", "importance": 0.4},
            {"content": "User went to a concert.", "tags": ["preference"]},
        ],
    )
    mem.ltm.store().merge_metadata({CLASSES_KEY: None})  # nor the mark on the collection
    assert mem.ltm.get("u-old", ids[0]).fact_class is None  # type: ignore[union-attr]
    # before the upgrade, the tagged one is a standing fact by the old rule, the others not
    assert [h.memory.id for h in mem.standing_facts("u-old", "hello")] == [ids[2]]
    mem.close()

    upgraded = PraxMemory(config)
    try:
        got = [upgraded.ltm.get("u-old", i) for i in ids]
        assert [m.fact_class if m else None for m in got] == [STANDING, EPISODE, STANDING]
        assert got[2] is not None and got[2].fact_by == "tags"
        point = upgraded.ltm.store().retrieve("u-old", [ids[0]])[0]
        assert "hazelnut" in point.payload["terms"]
        assert upgraded.ltm.store().metadata()[CLASSES_KEY] == CLASSES_VERSION
        # a second pass finds nothing left to do
        assert upgraded.ltm.classes.upgrade() == 0
    finally:
        upgraded.close()


def test_resolve_class_precedence() -> None:
    text = FactClass(EPISODE, "event", 0.9)
    profile = ["preference", "constraint"]
    assert resolve_class(text, {"tags": ["Constraint"]}, profile_tags=profile, min_importance=0.8)
    tagged = resolve_class(text, {"tags": ["constraint"]}, profile_tags=profile, min_importance=0.8)
    assert tagged is not None and (tagged.fact_class, tagged.kind) == (STANDING, "health")
    heavy = resolve_class(text, {"importance": 0.85}, profile_tags=profile, min_importance=0.8)
    assert heavy is not None and heavy.by == "importance"
    assert resolve_class(text, {"tags": ["work"]}, profile_tags=profile, min_importance=0.8) is text
    assert resolve_class(None, {}, profile_tags=profile, min_importance=0.8) is None


def test_the_memory_tool_classifies(real: PraxMemory) -> None:
    from langgraph_prax_memory import create_memory_tools

    [tool] = create_memory_tools(real, user_id="u-tool", include=["memory_remember"])
    tool.invoke({"content": "User owns a red Vespa scooter."})
    tool.invoke({"content": "User's boiler broke down on Sunday evening."})
    got = {m.content: m.fact_class for m in real.ltm.list_memories("u-tool")}
    assert got == {
        "User owns a red Vespa scooter.": STANDING,
        "User's boiler broke down on Sunday evening.": EPISODE,
    }


def test_rule_based_consolidation_classifies_and_drops_nothing_it_stores(
    real: PraxMemory, tmp_path: Path
) -> None:
    from langgraph_prax_memory.consolidation import Consolidator, TraceLogSource

    trace = tmp_path / "trace.log"
    trace.write_text(
        "user: I'm allergic to hazelnuts.\nuser: I went to a wine tasting in Porto last month.\n",
        encoding="utf-8",
    )
    Consolidator(real).run("u-consolidated", TraceLogSource(trace))
    raw = [m for m in real.ltm.list_memories("u-consolidated") if m.summary_level == "raw"]
    assert raw, "the rule path stored nothing"
    assert all(m.fact_class is not None for m in raw)
    allergy = [m for m in raw if "hazelnut" in m.content.lower()]
    assert allergy and all(m.fact_class == STANDING for m in allergy)


def test_a_turn_ending_in_a_question_keeps_its_statement(real: PraxMemory, tmp_path: Path) -> None:
    from langgraph_prax_memory.consolidation import Consolidator, TraceLogSource

    trace = tmp_path / "question.log"
    trace.write_text(
        "user: I started a new job at Globex as a data engineer, any tips for the first week?\n",
        encoding="utf-8",
    )
    Consolidator(real).run("u-question", TraceLogSource(trace))
    contents = [m.content for m in real.ltm.list_memories("u-question")]
    assert any("Globex" in c and "?" not in c for c in contents), contents


def test_consolidation_stores_no_small_talk(real: PraxMemory, tmp_path: Path) -> None:
    import json

    from langchain_core.messages import AIMessage

    from langgraph_prax_memory.consolidation import Consolidator, LLMExtractor, TraceLogSource
    from tests.scripted import ScriptedChatModel

    answer = {
        "entities": [],
        "relations": [],
        "facts": [
            {"content": "User says hi.", "importance": 0.5, "confidence": 0.9},
            {"content": "User is allergic to hazelnuts.", "importance": 0.9, "confidence": 0.9},
        ],
    }
    model = ScriptedChatModel(script=[AIMessage(content=json.dumps(answer))])
    trace = tmp_path / "talk.log"
    trace.write_text("user: hi! oh and I'm allergic to hazelnuts\n", encoding="utf-8")
    result = Consolidator(real, extractor=LLMExtractor(model)).run("u-talk", TraceLogSource(trace))
    raw = [m.content for m in real.ltm.list_memories("u-talk") if m.summary_level == "raw"]
    assert raw == ["User is allergic to hazelnuts."]
    assert result.small_talk_dropped == 1


def test_exports_carry_the_class_and_an_import_classifies_again(real: PraxMemory) -> None:
    import io
    import json

    real.remember("u-export", "User is allergic to hazelnuts.")
    real.remember("u-export", "User's boiler broke down on Sunday evening.")
    out = io.StringIO()
    real.export_user("u-export", out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    classes = {r["content"]: r.get("fact_class") for r in rows if r.get("type") == "memory"}
    assert classes == {
        "User is allergic to hazelnuts.": STANDING,
        "User's boiler broke down on Sunday evening.": EPISODE,
    }
    real.import_user(out.getvalue().splitlines(), user_id="u-imported")
    again = {m.content: m.fact_class for m in real.ltm.list_memories("u-imported")}
    assert again == classes


def test_a_memory_stored_while_the_model_was_down_is_classified_again_on_reembed(
    tmp_path: Path,
) -> None:
    from tests.fakes import SwitchableEmbeddings

    emb = SwitchableEmbeddings()  # down until switched
    config = MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path)
    mem = PraxMemory(config, embeddings=emb, embedding_dimension=384)
    try:
        mid = mem.remember("u-down", "User is allergic to hazelnuts.")
        before = mem.ltm.get("u-down", mid)
        assert before is not None and before.dense_pending and before.fact_by == "cues"
        emb.down = False
        assert mem.reembed("u-down") == 1
        after = mem.ltm.get("u-down", mid)
        assert after is not None and after.fact_by == "text" and after.fact_class is not None
    finally:
        mem.close()


BASE_FACTS = [
    "User works at Initech as an analyst.",
    "User lives in Glasgow.",
    "User's partner is Sam.",
    "User has a Pixel 7 phone.",
    "User drives a Toyota Corolla.",
    "User trains at PureGym.",
    "User speaks Spanish.",
]


def _replaced(mem: PraxMemory, user: str, news: str) -> list[str]:
    then = utcnow() - timedelta(days=30)
    mem.remember_many(user, [{"content": c, "created_at": then} for c in BASE_FACTS])
    ids = mem.remember_many(user, [news])
    pairs = mem.ltm.classes.replace_by_attribute(user, ids)
    return [mem.ltm.get(user, old).content for old, _ in pairs]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("news", "retired"),
    [
        ("User started a new job at Globex on Monday.", "User works at Initech as an analyst."),
        ("User got an iPhone 15.", "User has a Pixel 7 phone."),
        ("User sold the Corolla and bought a Polestar.", "User drives a Toyota Corolla."),
        ("User joined the Gym Group.", "User trains at PureGym."),
        ("User broke up with Sam.", "User's partner is Sam."),
    ],
)
def test_a_new_value_retires_the_old_one_by_meaning(
    real: PraxMemory, news: str, retired: str
) -> None:
    user = f"u-new-{abs(hash(news))}"
    assert _replaced(real, user, news) == [retired]
    old = next(m for m in real.ltm.list_memories(user) if m.content == retired)
    assert old.valid_until is not None  # kept in history, with its end
    new = next(m for m in real.ltm.list_memories(user) if m.content == news)
    assert new.valid_until is None  # a record of a change stays current


def test_a_new_value_of_an_attribute_no_template_names_retires_the_old_by_nearness(
    real: PraxMemory,
) -> None:
    """Where a person shops has no template: the two statements' nearness says it (issue 38)."""
    user = "u-near-grocer"
    then = utcnow() - timedelta(days=30)
    real.remember_many(user, [{"content": "User buys their groceries at Lidl every Saturday.",
                               "created_at": then}])  # fmt: skip
    ids = real.remember_many(user, ["User does the weekly grocery shop at Sainsbury's now."])
    pairs = real.ltm.classes.replace_by_attribute(user, ids)
    assert [real.ltm.get(user, old).content for old, _ in pairs] == [  # type: ignore[union-attr]
        "User buys their groceries at Lidl every Saturday."
    ]


def test_parallel_facts_of_a_many_valued_kind_are_not_a_change(real: PraxMemory) -> None:
    user = "u-near-tools"
    then = utcnow() - timedelta(days=30)
    real.remember_many(user, [{"content": "User decided to use Go for project 1.",
                               "created_at": then}])  # fmt: skip
    ids = real.remember_many(user, ["User decided to use Rust for project 3."])
    assert real.ltm.classes.replace_by_attribute(user, ids) == []


@pytest.mark.parametrize(
    "news",
    [
        "User is learning Japanese.",  # an addition to a many-valued attribute
        "Sam cooked a lovely dinner last night.",  # about someone else
        "User's sister moved to Leeds.",  # someone near the person
        "User had a job interview at Google yesterday.",  # an event, no new value
        "User is meeting a friend at a gym next week.",  # a plan
        "User's bank sent a new debit card.",
    ],
)
def test_what_changes_no_value_retires_nothing(real: PraxMemory, news: str) -> None:
    assert _replaced(real, f"u-same-{abs(hash(news))}", news) == []


def test_the_inspector_shows_the_class_and_never_prunes_a_standing_fact(tmp_path: Path) -> None:
    from tests.unit.test_inspector import client, get

    mem = PraxMemory(MemoryConfig(data_dir=tmp_path))
    try:
        long_ago = utcnow() - timedelta(days=400)
        allergy = mem.remember("u-page", "User is allergic to hazelnuts.", created_at=long_ago)
        boiler = mem.remember(
            "u-page", "User's boiler broke down on Sunday evening.", created_at=long_ago
        )
        c = client(mem)
        page = get(c, "/memories", user="u-page").text  # type: ignore[attr-defined]
        assert "standing <span" in page and "never (standing fact)" in page
        due = get(c, "/memories", user="u-page", state="due").text  # type: ignore[attr-defined]
        assert f'data-id="{boiler}"' in due and f'data-id="{allergy}"' not in due
    finally:
        mem.close()


# Statements of a goal (session 11): an undated to-do is a one-off plan, a lasting obligation
# a standing fact; written for these tests, apart from statements.txt and goals.txt.
TODO_TEXTS = [
    "Needs to get the boiler serviced",
    "Has to return the library books",
    "Need to call the landlord about the damp",
    "Must pick up the dry cleaning",
    "Needs someone to water the plants while she's in Spain",
    "User needs to book a vet appointment for the cat",
    "Needs to replace the bike chain",
    "Has to move the car for the street cleaning",
]
LASTING_GOAL_TEXTS = [
    "Needs to avoid gluten",
    "Has to wear a knee brace when running",
    "Must take his blood pressure pills with food",
    "Needs to keep her sugar intake low",
    "Has to use an inhaler before exercise",
]


def test_the_goal_statements_are_not_test_statements() -> None:
    trained = {t.rstrip(".") for _, t in goal_statements()}
    assert not trained & {t.rstrip(".") for t in TODO_TEXTS + LASTING_GOAL_TEXTS}
    assert all(states_a_goal(t) for t in TODO_TEXTS + LASTING_GOAL_TEXTS)


def test_an_undated_to_do_is_a_plan_and_a_lasting_obligation_a_standing_fact(
    real: PraxMemory,
) -> None:
    got = real.ltm.classes.classifier().classify(TODO_TEXTS + LASTING_GOAL_TEXTS)
    todo, lasting = got[: len(TODO_TEXTS)], got[len(TODO_TEXTS) :]
    assert [c.fact_class for c in todo] == [EPISODE] * len(TODO_TEXTS), todo
    assert all(c.kind == "plan" for c in todo), todo
    assert [c.fact_class for c in lasting] == [STANDING] * len(LASTING_GOAL_TEXTS), lasting


def test_a_statement_of_no_goal_is_read_as_before(real: PraxMemory) -> None:
    """The goal block reads statements of a goal only: the rest keep the first block's class."""
    texts = STANDING_TEXTS + EPISODE_TEXTS
    assert not any(states_a_goal(t) for t in texts)
    clf = real.ltm.classes.classifier()
    vectors = real.ltm.dense.embed_documents(texts)
    weights, _, _ = clf._ready()
    assert weights is not None and weights.shape[1] == 2 * len(KINDS)
    first = clf.classify(texts, vectors)
    clf._weights = weights[:, : len(KINDS)].copy()  # the first block alone
    try:
        alone = FactClassifier.classify(clf, texts, vectors)
    finally:
        clf._weights = weights
    assert first == alone


def test_a_note_of_several_sentences_called_small_talk_is_read_by_sentence(
    real: PraxMemory,
) -> None:
    """Session 11: a constraint with its details read as chatter whole (small talk before)."""
    notes = [
        "Allergic to penicillin. Amoxicillin too; paracetamol is ok",
        "Coeliac. Toast ok if gluten free; beer and normal pasta are not",
        "Vegan. Honey ok now and then; eggs and cheese are not",
    ]
    got = real.ltm.classes.classifier().classify([*notes, "Ha. So tired today."])
    assert [c.fact_class for c in got] == [STANDING, STANDING, STANDING, SMALL_TALK], got
    assert all(c.kind == "health" and c.by == "text" for c in got[:3]), got
    # a caller's tags still decide
    tagged = real.remember("u-notes", notes[0], tags=["episode"])
    memory = real.ltm.get("u-notes", tagged)
    assert memory is not None and memory.fact_class == EPISODE and memory.fact_by == "tags"


def test_a_conversations_turn_is_not_read_by_sentence(real: PraxMemory) -> None:
    """A speaker's turn, a question or an exclamation: its sentences are the turn's."""
    clf = real.ltm.classes.classifier()
    note = "Allergic to penicillin. Amoxicillin too; paracetamol is ok"
    turns = [f"Mel: {note}", f"{note}!", f"Thanks. {note}?"]
    whole = [FactClass(SMALL_TALK, SMALL_TALK, 0.9, "text")] * 3
    asked: list[list[str]] = []

    def classify(texts: list[str]) -> list[FactClass]:
        asked.append(texts)
        return clf.classify(texts)

    assert by_sentence(turns, whole, classify, small_talk=SMALL_TALK, wanted=[STANDING]) == whole
    assert asked == []
    got = by_sentence([note], whole[:1], classify, small_talk=SMALL_TALK, wanted=[STANDING])
    assert got[0].fact_class == STANDING
    assert asked == [["Allergic to penicillin.", "Amoxicillin too; paracetamol is ok"]]


def test_memories_dated_by_an_earlier_reading_are_dated_again_on_upgrade(tmp_path: Path) -> None:
    """Version 5: the days each memory names are read again (session 12: a range of days is
    one span, "next Thursday" said on a Wednesday is next week's); only those that change
    are written, and a day no longer read is cleared."""
    from datetime import UTC, datetime

    from langgraph_prax_memory._dated import dated_episodes
    from langgraph_prax_memory.vectors._plan import payloads_plan

    said = datetime(2027, 3, 3, 9, tzinfo=UTC)  # a Wednesday
    config = MemoryConfig(data_dir=tmp_path)
    mem = PraxMemory(config)
    tour = mem.remember("u-dates", "User booked an onsen trip, 17–19 March.", created_at=said)
    roof = mem.remember("u-dates", "Snow clearing next Thursday; move the bikes.", created_at=said)
    same = mem.remember("u-dates", "User flies to Lisbon on 20 March.", created_at=said)
    store = mem.ltm.store()
    day = 86400.0
    march = {d: datetime(2027, 3, d, tzinfo=UTC).timestamp() for d in (4, 11, 17, 19, 20)}
    # as the reading before session 12 stored them: the last day; the next day; a weekday
    old = {
        tour: {"when_start": march[19], "when_end": march[19] + day},
        roof: {"when_start": march[4], "when_end": march[4] + day, "weekdays": [3]},
    }
    store.client.batch_update_points(store.collection, payloads_plan("u-dates", old))
    store.merge_metadata({CLASSES_KEY: 4})
    before = {p.id: dict(p.payload) for p in store.scroll("u-dates", limit=10)}
    mem.close()

    with PraxMemory(config) as upgraded:
        store = upgraded.ltm.store()
        upgraded.ltm.classes.upgrade_once(store)
        got = {p.id: p.payload for p in store.scroll("u-dates", limit=10)}
        assert (got[tour]["when_start"], got[tour]["when_end"]) == (march[17], march[20])
        assert (got[roof]["when_start"], got[roof]["when_end"]) == (march[11], march[11] + day)
        assert not got[roof].get("weekdays")  # cleared: "next Thursday" is no routine
        assert got[same] == before[same]  # unchanged, and not written
        assert store.metadata()[CLASSES_KEY] == CLASSES_VERSION == 7
        # the dated tier finds the tour on a day inside it (the engine's filter on the days)
        hits, _ = dated_episodes(
            upgraded, "u-dates", "What have I got on the 18th?", limit=3, now=said
        )
        assert [h.memory.id for h in hits] == [tour]


def test_a_habit_with_a_month_in_it_stays_standing(real: PraxMemory) -> None:
    """A habit's month is no date ("all year round, even in January").

    Before session 12 the month made the habit an episode (``fact_by`` "date"), to decay away.
    """
    from datetime import UTC, datetime

    mid = real.remember(
        "u-habit",
        "Ingrid swims in the sea all year round, even in January.",
        created_at=datetime(2026, 12, 1, tzinfo=UTC),
    )
    got = real.get("u-habit", mid)
    assert got is not None and got.fact_class == STANDING and got.fact_by != "date"


def test_upgrade_reads_a_weekday_in_its_own_clause_again(tmp_path: Path) -> None:
    """Version 7: an episode its days made a plan, whose weekday's own clause is past, is an
    event of last week on upgrade (fails on the code before: it stayed next week's plan)."""
    from datetime import UTC, datetime

    from langgraph_prax_memory.vectors._plan import payloads_plan

    said = datetime(2027, 3, 3, 9, tzinfo=UTC)  # a Wednesday
    config = MemoryConfig(data_dir=tmp_path)
    mem = PraxMemory(config)
    text = "User's broadband is with Gigaclear now, the engineer fitted it on Tuesday."
    mid = mem.remember("u-tense", text, created_at=said)
    store = mem.ltm.store()
    tuesday = {d: datetime(2027, 3, d, tzinfo=UTC).timestamp() for d in (2, 9)}
    old = {  # as the reading before session 14 stored it: next Tuesday, a plan by its days
        mid: {
            "fact_class": "episode",
            "fact_kind": "plan",
            "fact_by": "date",
            "when_start": tuesday[9],
            "when_end": tuesday[9] + 86400.0,
        }
    }
    store.client.batch_update_points(store.collection, payloads_plan("u-tense", old))
    store.merge_metadata({CLASSES_KEY: 6})
    mem.close()
    with PraxMemory(config) as upgraded:
        upgraded.ltm.classes.upgrade_once(upgraded.ltm.store())
        got = upgraded.ltm.store().retrieve("u-tense", [mid])[0].payload
        assert (got["fact_class"], got["fact_kind"]) == ("episode", "event")
        assert got["when_start"] == tuesday[2]
