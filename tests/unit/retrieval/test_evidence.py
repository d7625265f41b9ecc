"""Evidence weighed by what it tells apart within one user's memories (issue 37)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.retrieval._evidence import (
    MIN_MEMORIES,
    asked_names,
    off_subject,
    partial_cosines,
    subject_of,
    term_weights,
    weighted_coverage,
    weighted_pair_coverage,
    without_shared_names,
)


def test_a_term_every_memory_holds_weighs_nothing() -> None:
    weights = term_weights({"alice": 20, "allerg": 1, "dog": 10}, 20)
    assert weights["alice"] == 0.0
    assert weights["allerg"] > 0.9
    assert weights["dog"] == 1.0  # in half of them: full weight
    # too few memories to tell anything apart: every word weighs 1
    assert term_weights({"alice": 3}, MIN_MEMORIES - 1) == {"alice": 1.0}


def test_weighted_coverage_counts_only_what_distinguishes() -> None:
    w = {"alice": 0.0, "allerg": 1.0}
    assert weighted_coverage({"alice", "allerg"}, {"alice", "dog"}, w) == 0.0
    assert weighted_coverage({"alice", "allerg"}, {"alice", "allerg", "peanut"}, w) == 1.0
    assert weighted_coverage({"alice"}, {"alice"}, w) == 0.0  # nothing tells them apart
    assert weighted_pair_coverage({"alice", "allerg", "food"}, {"alice", "food"}, w) == 0.0
    assert weighted_coverage({"dark", "mode"}, {"dark"}, {}) == 0.5  # plain share without weights


def test_names_and_subjects() -> None:
    assert subject_of("Noah is allergic to pollen.") == "noah"
    assert subject_of("Ingrid's dog Bamse is nine.") == "ingrid"
    assert subject_of("User is allergic to peanuts.") is None
    assert subject_of("The dentist is on Monday.") is None
    assert asked_names("What is Carol allergic to?", ["carol", "noah"]) == {"carol"}
    # a first-person question also asks about the person most memories are about
    assert asked_names("Plan a meal; Daan and I cook.", ["priya"] * 3 + ["daan"]) == {
        "daan",
        "priya",
    }
    # a capitalised word no memory is about names no one here
    assert asked_names("Plan a dinner for Saturday.", ["priya", "daan"]) == set()


def test_a_memory_about_someone_else_is_off_subject() -> None:
    contents = {
        "a": "Carol is allergic to nuts.",
        "b": "Noah is allergic to pollen.",
        "c": "Noah's mother Carol drives him to school.",
        "d": "User likes tea.",
    }
    terms = {
        k: set(v.lower().replace(".", "").replace("'s", "").split()) for k, v in contents.items()
    }
    off = off_subject("What is Carol allergic to?", contents, terms)
    assert set(off) == {"b"}  # c mentions Carol; d is about the user
    assert "Noah" in off["b"]


def test_shared_names_leave_the_question_and_the_cosine() -> None:
    def tokens(word: str) -> list[str]:
        return [t for t in word.casefold().replace("?", "").split() if t]

    text, dropped = without_shared_names(
        "What is Alice allergic to?", tokens, {"alice": 10, "allergic": 1}, 10
    )
    assert (text, dropped) == ("What is allergic to?", ["Alice"])
    # held by few memories: kept
    assert without_shared_names("Where does Bob live?", tokens, {"bob": 2}, 10)[1] == []
    # only the name would remain: kept
    assert without_shared_names("Alice?", tokens, {"alice": 10}, 10)[1] == []
    # the name's direction taken out of both vectors
    name = [1.0, 0.0, 0.0]
    assert partial_cosines([0.8, 0.6, 0.0], [[0.8, 0.0, 0.6]], [name]) == [pytest.approx(0.0)]
    assert partial_cosines([0.6, 0.8, 0.0], [[0.3, 0.9, 0.0]], [name]) == [pytest.approx(1.0)]


PEOPLE = [
    ("m1", "Alice is allergic to peanuts."),
    ("m2", "Alice has a dog called Biscuit."),
    ("m3", "Alice works as a pharmacist in Leeds."),
    ("m4", "Alice plays the cello in a community orchestra."),
    ("m5", "Alice's brother Tom lives in Bristol."),
    ("m6", "Alice prefers trains to planes."),
    ("m7", "Noah is allergic to pollen."),
    ("m8", "Alice goes swimming every Saturday morning."),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemoryStore]:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("evidence")))
    store = PraxMemoryStore(memory)
    for key, text in PEOPLE:  # as LangMem's tools write: untagged, third person
        store.put(("memories", "alice"), key, {"content": text})
    yield store
    memory.close()


def test_a_question_naming_the_person_recalls_what_it_asks(store: PraxMemoryStore) -> None:
    items = store.search(("memories", "alice"), query="What is Alice allergic to?", limit=8)
    scores = {i.key: i.score or 0.0 for i in items}
    assert max(scores, key=lambda k: scores[k]) == "m1"
    assert scores["m1"] >= 0.5
    # her other memories share only her name: not relevant; Noah's allergy is about Noah
    assert all(s < 0.5 for k, s in scores.items() if k != "m1"), scores
    result = store.memory.ltm.recall_detailed(
        "alice", "What is Alice allergic to?", k=8, reinforce=False
    )
    assert result.shared_names == ["Alice"]
    noah = [h for h in result.hits if h.memory.key == "m7"]
    assert noah and noah[0].off_subject and not noah[0].relevant


def test_a_question_naming_another_person_finds_that_person(store: PraxMemoryStore) -> None:
    items = store.search(("memories", "alice"), query="What is Noah allergic to?", limit=8)
    top = items[0]
    assert top.key == "m7" and (top.score or 0.0) >= 0.5
    # Alice's allergy is about Alice, not Noah
    alice = [i for i in items if i.key == "m1"]
    assert not alice or (alice[0].score or 0.0) < 0.5


def test_the_plain_share_below_a_few_memories(tmp_path: Path) -> None:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path))
    try:
        memory.remember("few", "Alice is allergic to peanuts.")
        result = memory.ltm.recall_detailed("few", "What is Alice allergic to?", k=1)
        assert result.shared_names == [] and result.hits[0].relevant
    finally:
        memory.close()


def test_a_failing_count_never_fails_a_recall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph_prax_memory.vectors import QdrantVectorStore
    from tests.fakes import HashEmbeddings

    mem = PraxMemory(
        MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path),
        embeddings=HashEmbeddings(),
        embedding_dimension=384,
    )
    try:
        mem.remember_many("u", [f"Alice note {i} about tea" for i in range(8)])
        real_count = QdrantVectorStore.count

        def broken(self: QdrantVectorStore, user_id: str, flt: object = None) -> int:
            if "terms" in repr(flt):  # fault injection: the per-term counts fail
                raise RuntimeError("count refused")
            return real_count(self, user_id, flt)  # type: ignore[arg-type]

        monkeypatch.setattr(QdrantVectorStore, "count", broken)
        hits = mem.recall("u", "Which tea does Alice like?", k=3, reinforce=False)
        assert len(hits) == 3
    finally:
        mem.close()
