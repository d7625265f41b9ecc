"""Family members and friends of the person are other persons (issue 37, evidence)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.retrieval._evidence import off_subject, people_of
from langgraph_prax_memory.retrieval._persons import asked_people, person_of


def test_who_a_memory_is_about() -> None:
    husband = person_of("Maria's husband Jonas drives trains for Deutsche Bahn.")
    assert husband is not None
    assert (husband.owner, husband.relation, husband.name) == (
        "maria",
        ("spouse", "husband"),
        "jonas",
    )
    friend = person_of("Maria's best friend Rosa runs a flower shop.")
    assert friend is not None and friend.relation == ("friend", "friend") and friend.name == "rosa"
    boss = person_of("Maria's boss is Dr Feld, who hates meetings.")
    assert boss is not None and boss.relation == ("boss", "boss") and boss.name == "feld"
    # a title is not the name; a pet or a thing stays hers; "User" is the user
    titled = person_of("Dr Feld retires next year.")
    assert titled is not None and titled.owner == "feld"
    pet = person_of("Maria's cat Pixel is twelve.")
    assert pet is not None and pet.owner == "maria" and pet.relation is None
    assert person_of("User's wife Anna is a nurse.") is None
    assert person_of("The dentist is on Monday.") is None


def test_who_a_question_asks_about() -> None:
    known = {"maria", "jonas", "lea"}
    a = asked_people("Where does Maria's husband work?", known)
    assert not a.names and a.relations == {("maria", ("spouse", "husband"))}
    assert not a.people_words  # the relation asked about is not a question about people
    b = asked_people("Who raised Maria?", known)
    assert b.names == {"maria"} and b.people_words
    # a generic word matches each specific one of its kind
    c = asked_people("How old are Maria's kids?", known)
    assert c.relations == {("maria", ("child", None))}
    assert not asked_people("Plan a dinner for Saturday.", known)


def test_family_members_are_other_persons() -> None:
    contents = {
        "own": "Maria works as a nurse at the Charité.",
        "husband": "Maria's husband Jonas drives trains for Deutsche Bahn.",
        "by_name": "Jonas has a bad back.",
        "daughter": "Maria's daughter Lea is six.",
        "with_son": "Maria and Jonas have a son, Tim.",
        "mentions": "Maria walks Lea to school every morning.",
    }
    # a question about Maria: her husband's and daughter's memories are about them
    off = off_subject("What does Maria do for a living?", contents)
    assert set(off) == {"husband", "by_name", "daughter"}
    # a question about her husband: Maria's own memories are not about him; his name is
    off = off_subject("Where does Maria's husband work?", contents)
    assert "husband" not in off and "by_name" not in off
    assert {"own", "daughter", "mentions"} <= set(off)
    # a memory about Maria that mentions the relation asked about answers for it
    assert "with_son" not in off_subject("How old is Maria's son?", contents)
    # a memory that only mentions Lea is about Maria; a question about people keeps it
    assert "mentions" in off_subject("What is Lea allergic to?", contents)
    assert "mentions" not in off_subject("Who takes Lea to school?", contents)
    # who-questions ask for the people of her life
    assert "daughter" not in off_subject("Who does Maria live with?", contents)
    # "a children's ward" is a kind of ward, not her children
    ward = {"ward": "Maria works on a children's ward.", "son": "Maria's son Tim is two."}
    assert "ward" in off_subject("Does Maria's son have allergies?", ward)


def test_a_relation_is_also_read_by_the_name_the_memories_give() -> None:
    contents = {
        "husband": "Maria's husband Jonas drives trains.",
        "father": "Tomasz's father Zbigniew welded ships.",
        "son": "Maria's son Tim is two.",
        "other_son": "Maria's son Ben is five.",
    }
    assert people_of("Which club does Maria's husband support?", contents) == [
        ("Which club does Jonas support?", "Jonas")
    ]
    assert people_of("What was Tomasz's father's job?", contents) == [
        ("What was Zbigniew's job?", "Zbigniew")
    ]
    # two sons by name: the question does not say which
    assert people_of("How old is Maria's son?", contents) == []
    assert people_of("What does Maria do?", contents) == []


PEOPLE = [
    ("m01", "Maria works as a nurse on a children's ward."),
    ("m02", "Maria is allergic to penicillin."),
    ("m03", "Maria's husband Jonas drives trains for Deutsche Bahn."),
    ("m04", "Maria's daughter Lea is six and loves drawing horses."),
    ("m05", "Lea is allergic to wasp stings."),
    ("m06", "Maria plays volleyball on Wednesday evenings."),
    ("m07", "Maria prefers green tea to coffee."),
    ("m08", "Maria grew up in Leipzig."),
    ("m09", "Maria drives a blue Skoda Fabia."),
    ("m10", "Maria's mother Helga lives in Dresden."),
    ("m11", "Maria is learning Spanish for a trip to Valencia."),
    ("m12", "Maria has a cat called Pixel."),
    ("m13", "Lea has been vegetarian since she was four."),
    ("m14", "Jonas supports Union Berlin."),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemoryStore]:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("persons")))
    store = PraxMemoryStore(memory)
    for key, text in PEOPLE:  # as LangMem's tools write: untagged, third person
        store.put(("memories", "maria"), key, {"content": text})
    yield store
    memory.close()


def _scores(store: PraxMemoryStore, query: str) -> dict[str, float]:
    items = store.search(("memories", "maria"), query=query, limit=len(PEOPLE))
    return {i.key: i.score or 0.0 for i in items}


def test_a_question_about_her_husband_is_not_about_her(store: PraxMemoryStore) -> None:
    scores = _scores(store, "Where does Maria's husband work?")
    assert max(scores, key=lambda k: scores[k]) == "m03"
    assert scores["m03"] >= 0.5
    # her own work and her daughter are other persons than her husband
    assert scores["m01"] < 0.5 and scores["m04"] < 0.5, scores
    result = store.memory.ltm.recall_detailed(
        "maria", "Where does Maria's husband work?", k=5, reinforce=False
    )
    own = [h for h in result.hits if h.memory.key == "m01"]
    assert not own or (own[0].off_subject and not own[0].relevant)


def test_a_question_about_her_daughter_finds_the_daughter_by_name(
    store: PraxMemoryStore,
) -> None:
    # "Lea is allergic to wasp stings" names the daughter only by her name ("Maria's
    # daughter Lea" says who she is); Maria's own allergy is about Maria
    scores = _scores(store, "What is Maria's daughter allergic to?")
    assert scores.get("m05", 0.0) >= 0.5, scores
    assert scores.get("m02", 0.0) < 0.5, scores
    # the memory about the daughter stays in a short list: memories about someone else
    # are put after the others before the list is cut
    result = store.memory.ltm.recall_detailed(
        "maria", "What is Maria's daughter allergic to?", k=2, reinforce=False
    )
    assert "m05" in {h.memory.key for h in result.hits}


def test_a_question_about_her_is_not_about_her_family(store: PraxMemoryStore) -> None:
    scores = _scores(store, "What does Maria do for a living?")
    assert max(scores, key=lambda k: scores[k]) == "m01"
    assert scores["m03"] < 0.5, scores  # her husband's job is his


def test_a_question_about_her_husband_finds_him_by_name(store: PraxMemoryStore) -> None:
    # "Jonas supports Union Berlin" never says he is her husband: the question is also read
    # as "Which football club does Jonas support?" (Jonas left out of its meaning)
    scores = _scores(store, "Which football club does Maria's husband support?")
    assert scores.get("m14", 0.0) >= 0.5, scores
    scores = _scores(store, "What diet does Maria's daughter follow?")
    assert max(scores, key=lambda k: scores[k]) == "m13", scores
    assert scores.get("m02", 0.0) < 0.5 and scores.get("m07", 0.0) < 0.5, scores
