"""A batch of memories gets the classes each would get alone (issue 41: the write path's cost).

The classifier reads a batch at once (one product for the batch's vectors, the cue features
read once and reused by the grammar's pre-check, the grammar's parses in one ``nlp.pipe``);
none of it may change what any one memory is. Over the packaged MiniLM model and the real
parser; the statements were written for this test, apart from the training statements and
every benchmark set.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.facts import _classifier as classifier
from langgraph_prax_memory.facts._grammar import holds_now

MIXED = [
    # standing facts
    "User is allergic to shellfish.",
    "User's sister Ines teaches maths in Braga.",
    "I work night shifts at the sorting office.",
    "User cycles to work every weekday.",
    # a present state told with the past event it came from (the grammar's)
    "User sold the café in 2015 and now runs a pottery class on Thursdays.",
    "User lost most of the hearing in his left ear after a fever as a child and lip-reads.",
    "User's dog Biscuit is a greyhound they rescued four years ago.",
    "Doesn't drive any more since the cataract operation.",
    "User has not touched alcohol since 2018.",
    "User says his back is fine on long walks.",
    "User is not allowed to eat after 20:00 before a scan.",
    # episodes: dated, near now, planned
    "User's washing machine flooded the kitchen on Monday.",
    "User went to a jazz concert in Lyon last week.",
    "User is seeing the dentist next Wednesday at 9am.",
    "User will drive to Cardiff on the 21st for the match.",
    "User's nephew broke a window with a football yesterday.",
    "User burnt the toast.",
    "User painted the garden fence.",
    "User took the bus into town and bought new boots.",
    "User's mum phoned about the Christmas plans.",
    "User joked that the cat runs the house.",
    # small talk, questions, interjections, the here and now
    "User says hello.",
    "lol fair enough",
    "What time is it over there?",
    "User is tired today.",
    "User's coffee has gone cold right now.",
    "Thanks, that helps!",
    # long-ago history, short notes, odd shapes
    "User got married in June 2009.",
    "User grew up on a farm in Galicia.",
    "Vegan.",
    "User's flat has a damp problem, so she keeps the windows open.",
    "It was raining.",
    "User finished the marathon in under four hours.",
    "User keeps bees, and one hive swarmed in May.",
]


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("batch-classes")))
    yield mem
    mem.close()


def _decided(found: list[classifier.FactClass]) -> list[tuple[str, str, str]]:
    return [(c.fact_class, c.kind, c.by) for c in found]


def test_a_batch_gets_the_classes_each_text_gets_alone(memory: PraxMemory) -> None:
    clf = memory.ltm.classes.classifier()
    vectors = memory.embeddings.embed_documents(MIXED)
    together = clf.classify(MIXED, vectors)
    alone = [clf.classify([t], [v])[0] for t, v in zip(MIXED, vectors, strict=True)]
    assert _decided(together) == _decided(alone)
    for a, b in zip(together, alone, strict=True):
        assert a.confidence == pytest.approx(b.confidence, abs=1e-9)
    # the set reaches every way a class is decided, so the test means something
    assert {c.fact_class for c in together} == {"standing", "episode", "small_talk"}
    assert {"text", "grammar"} <= {c.by for c in together}
    # the texts alone, embedded by the classifier itself
    assert _decided(clf.classify(MIXED)) == _decided(together)


def test_the_grammars_pre_check_reads_the_cues_the_classifier_read(memory: PraxMemory) -> None:
    clf = memory.ltm.classes.classifier()
    clf.grammar = False
    try:
        plain = clf.classify(MIXED, memory.embeddings.embed_documents(MIXED))
    finally:
        clf.grammar = True
    kinds = {i: "preference" for i in range(len(MIXED))}
    cues = classifier.cue_rows(MIXED)
    assert [list(r) for r in cues] == [classifier.cue_features(t) for t in MIXED]
    reused = classifier._reread(MIXED, plain, kinds, cues)
    afresh = classifier._reread(MIXED, plain, kinds)
    assert reused == afresh
    by_text = [classifier._may_hold_now(t, c) for t, c in zip(MIXED, plain, strict=True)]
    with_cues = [
        classifier._may_hold_now(t, c, row) for t, c, row in zip(MIXED, plain, cues, strict=True)
    ]
    assert by_text == with_cues
    assert any(by_text) and not all(by_text)


def test_the_parser_reads_a_batch_as_it_reads_each_statement() -> None:
    assert holds_now(MIXED) == [holds_now([t])[0] for t in MIXED]


def test_remember_many_stores_the_classes_one_remember_stores(memory: PraxMemory) -> None:
    ids = memory.remember_many("batch", MIXED)
    one_by_one = [memory.remember("single", t) for t in MIXED]
    fields = ("fact_class", "fact_kind", "fact_by")

    def stored(user: str, ids: list[str]) -> list[tuple[object, ...]]:
        points = {p.id: p.payload for p in memory.vectors.retrieve(user, ids)}
        return [tuple(points[i].get(f) for f in fields) for i in ids]

    assert stored("batch", ids) == stored("single", one_by_one)
