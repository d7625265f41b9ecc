"""Non-ASCII text through the store, found by the dense and by the keyword arm (issue 17).

The values are nested dicts (not a plain string ``content``), the path where the text to index
used to be ``json.dumps`` output with ``\\uXXXX`` escapes; the queries are a word or two of
each text, not the text itself. The packaged embedding model embeds (no fake), in embedded
Qdrant. Each arm is queried on its own, then the store's own ``search`` is checked to rank
with both.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.embeddings import Embeddings

from langgraph_prax_memory import MemoryConfig, PraxMemoryStore
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings, tokenize

NS = ("memories", "alice")
TEXTS = {
    "ru": "Мой брат живёт в Новосибирске и работает врачом",  # Cyrillic
    "zh": "我每天早上喝绿茶",  # Chinese
    "ja": "私は毎朝コーヒーを飲みます",  # Japanese
    "latin": "Zoë Müller flew to Málaga last spring",  # Latin diacritics
    "fr": "Le café de la gare ferme à midi",  # Latin diacritics
    "en": "The quarterly budget review is on Friday",  # an ASCII neighbour
}
QUERIES = {
    "ru": "брат врач",
    "zh": "绿茶",
    "ja": "コーヒー",
    "latin": "Malaga",  # unaccented: the keyword arm folds diacritics
    "fr": "café gare",
}


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Embeddings:
    return PackagedMiniLMEmbeddings(tmp_path_factory.mktemp("models"))


@pytest.fixture
def store(model: Embeddings, tmp_path: Path) -> Iterator[PraxMemoryStore]:
    cfg = MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path / "d")
    with PraxMemoryStore.from_config(cfg, index={"embed": model, "dims": 384}) as s:
        for key, text in TEXTS.items():
            s.put(NS, key, {"note": {"text": text, "lang": key}})
        yield s


def test_the_indexed_text_keeps_its_characters(store: PraxMemoryStore) -> None:
    for point in store.memory.vectors.iter_points("alice"):
        text = TEXTS[point.payload["key"]]
        assert text in point.payload["content"] and "\\u" not in point.payload["content"]


@pytest.mark.parametrize("key", sorted(QUERIES))
def test_dense_arm_finds_non_ascii_text(
    store: PraxMemoryStore, model: Embeddings, key: str
) -> None:
    hits = store.memory.vectors.search_dense("alice", model.embed_query(QUERIES[key]), limit=1)
    assert [h.payload["key"] for h in hits] == [key]


@pytest.mark.parametrize("key", sorted(QUERIES))
def test_keyword_arm_finds_non_ascii_text(store: PraxMemoryStore, key: str) -> None:
    assert tokenize(QUERIES[key])  # the query has tokens at all
    sparse = store.memory.sparse_encoder.embed_query(QUERIES[key])
    hits = store.memory.vectors.search_sparse("alice", sparse, limit=3)
    assert [h.payload["key"] for h in hits] == [key]  # only the item sharing its words


@pytest.mark.parametrize("key", sorted(QUERIES))
def test_store_search_ranks_with_both_arms(store: PraxMemoryStore, key: str) -> None:
    assert store.search(NS, query=QUERIES[key])[0].key == key
    result = store.memory.recall_detailed("alice", QUERIES[key], k=1, reinforce=False)
    assert result.hits and result.hits[0].ranks.get("dense") == 1
    assert result.hits[0].ranks.get("sparse") == 1
