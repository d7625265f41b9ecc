"""What recall reads of the user's memories, computed once (issue 41): kept counts, written
terms and hubness dots give the same recall as reading them afresh."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.retrieval._features import (
    AbsentFields,
    SoleNamespaces,
    TermCounts,
    candidate_terms,
    filter_key,
    kept_offsets,
    lacks_any,
    lean_filter,
)
from langgraph_prax_memory.retrieval._feedback import indexed_text
from langgraph_prax_memory.retrieval._recall import ltm_filter, validity_filter
from tests.fakes import HashEmbeddings

TURNS = [
    ("Melanie: I painted a sunrise over the lake last week.", "Caroline: What did you paint?"),
    ("Caroline: The support group met on Tuesday, it helped a lot.", None),
    ("Dr. O'Brien: take the v1.2 pills twice a day", "Melanie: any news?"),
    ("Zoë Müller flew to Málaga for the E-4012 conference.", None),
    ("这是中文: 我们明天见", None),
    ("  Bob:   tea, please", "Alice: coffee or tea?"),
]


def test_a_kept_count_serves_until_the_store_is_written(tmp_path: Path) -> None:
    with PraxMemory(
        MemoryConfig(data_dir=tmp_path), embeddings=HashEmbeddings(), embedding_dimension=384
    ) as mem:
        mem.remember_many("u", [f"note {i} about the garden" for i in range(8)])
        ask = "What is Alice allergic to?"
        assert mem.ltm.recall_detailed("u", ask, k=3, reinforce=False).shared_names == []
        # now nearly every memory names her: counted again after the write, she is what
        # they share (a count kept from before the write would still say she is in none)
        mem.remember_many("u", [f"Alice note {i} about her day" for i in range(40)])
        again = mem.ltm.recall_detailed("u", ask, k=3, reinforce=False)
        assert again.shared_names == ["Alice"]
        # forgetting them is a write too
        for hit in mem.ltm.list_memories("u", limit=100):
            if hit.content.startswith("Alice"):
                mem.forget("u", hit.id)
        assert mem.ltm.recall_detailed("u", ask, k=3, reinforce=False).shared_names == []


def test_kept_counts_are_per_filter_whatever_the_clock() -> None:
    counts = TermCounts(max_age=60.0)
    a, b = filter_key(ltm_filter("u")), filter_key(ltm_filter("u", tags=["x"]))
    assert a == filter_key(ltm_filter("u")) != b
    counts.keep(("u", a), 1, 50, {"tea": 3})
    assert counts.known(("u", a), 1, {"tea", "dog"}) == (50, {"tea": 3})
    assert counts.known(("u", b), 1, {"tea"}) == (None, {})
    assert counts.known(("u", a), 2, {"tea"}) == (None, {})  # written since
    stale = TermCounts(max_age=0.0)
    stale.keep(("u", a), 1, 50, {"tea": 3})
    assert stale.known(("u", a), 1, {"tea"}) == (None, {})  # too old (TTLs, other writers)


def test_written_terms_are_the_indexed_texts_terms(tmp_path: Path) -> None:
    with PraxMemory(
        MemoryConfig(data_dir=tmp_path), embeddings=HashEmbeddings(), embedding_dimension=384
    ) as mem:
        items = [{"content": c, **({"context": ctx} if ctx else {})} for c, ctx in TURNS]
        mem.remember_many("u", items)
        points = mem.vectors.scroll("u", limit=100)
        tokens = mem.ltm.sparse.tokens
        assert len(points) == len(TURNS)
        for p in points:
            assert "terms" in p.payload
            assert candidate_terms(p.payload, tokens) == set(tokens(indexed_text(p.payload)))
        # a memory written before terms existed is tokenized
        bare = {k: v for k, v in points[0].payload.items() if k != "terms"}
        assert candidate_terms(bare, tokens) == set(tokens(indexed_text(bare)))


def test_written_hubness_dots_give_the_offsets_of_the_stored_vectors(tmp_path: Path) -> None:
    facts = [
        "The user's editor is Neovim with the gruvbox dark theme.",
        "The user is allergic to peanuts.",
        "Melanie: I painted a sunrise over the lake last week.",
    ]
    with PraxMemory(MemoryConfig(data_dir=tmp_path)) as mem:
        mem.remember_many("alice", facts)  # before any recall: the shipped scale is known
        hub = mem.ltm._recaller().hubness
        assert hub is not None
        points = mem.vectors.scroll("alice", limit=10, with_vector=True)
        kept = kept_offsets({p.id: p.payload for p in points}, hub)
        fresh = hub.offsets([p.extras["vector"] for p in points])
        # the same float32 arithmetic, to a rounding of the last bit
        assert [kept[p.id] for p in points] == pytest.approx(fresh, abs=1e-6)
        hits = mem.recall("alice", "Which text editor does the user like?", k=3)
        by_id = dict(zip((p.id for p in points), fresh, strict=True))
        assert all(h.hubness != 0.0 for h in hits)
        assert [h.hubness for h in hits] == pytest.approx(
            [by_id[h.memory.id] for h in hits], abs=1e-6
        )
        # a new dense vector (reembed) drops the kept dot: the stored vector corrects it
        mem.ltm.reembed("alice", force=True)
        assert all(p.payload.get("hubness") is None for p in mem.vectors.scroll("alice", limit=10))
        again = mem.recall("alice", "Which text editor does the user like?", k=3)
        assert [h.hubness for h in again] == pytest.approx([h.hubness for h in hits], abs=1e-6)


def test_conditions_no_memory_can_fail_are_left_out_until_a_memory_can(tmp_path: Path) -> None:
    with PraxMemory(
        MemoryConfig(data_dir=tmp_path), embeddings=HashEmbeddings(), embedding_dimension=384
    ) as mem:
        tea, coffee = mem.remember_many(
            "u", ["the user drinks green tea", "the user drinks coffee"]
        )
        absent = AbsentFields()
        # no TTL'd item and no superseded memory: both conditions hold for every point
        assert absent.of(mem.vectors) == {"expires_at", "valid_until_ts"}
        flt = validity_filter(ltm_filter("u"))
        lean, left_out = lean_filter(flt, absent.of(mem.vectors))
        assert left_out == {"expires_at", "valid_until_ts"} and len(lean.must) == len(flt.must) - 2
        assert mem.vectors.count("u", lean) == mem.vectors.count("u", flt) == 2
        assert tea in {h.memory.id for h in mem.recall("u", "green tea", k=2, reinforce=False)}
        # a superseded memory: the write is seen, the condition is back, the memory left out
        mem.ltm.classes.mark_superseded("u", [tea], datetime.now(UTC), "tea no more")
        assert absent.of(mem.vectors) == {"expires_at"}
        hits = mem.recall("u", "green tea", k=2, reinforce=False)
        assert [h.memory.id for h in hits] == [coffee]
        history = mem.recall("u", "green tea", k=2, reinforce=False, include_history=True)
        assert tea in {h.memory.id for h in history}


def test_only_the_embedded_engine_has_its_filters_leaned() -> None:
    # a server may be written by another process: nothing is known absent
    server: Any = SimpleNamespace(client=object(), collection="memories")
    assert AbsentFields().of(server) == frozenset()


def test_the_namespace_condition_is_left_out_while_every_memory_of_the_user_holds_it(
    tmp_path: Path,
) -> None:
    with PraxMemory(
        MemoryConfig(data_dir=tmp_path), embeddings=HashEmbeddings(), embedding_dimension=384
    ) as mem:
        mem.remember_many("u", ["the user drinks green tea", "the user drinks coffee"])
        mem.remember_many("v", ["another user's note about green tea"])
        spaces = SoleNamespaces()
        flt = ltm_filter("u")
        lean, sole = spaces.lean(mem.vectors, "u", flt)
        assert sole == {"memories\x1fu"} and len(lean.must) == len(flt.must) - 1
        assert mem.vectors.count("u", lean) == mem.vectors.count("u", flt) == 2
        # an item of the user outside long-term memory: the condition is back
        store = PraxMemoryStore(mem)
        store.put(("docs", "u"), "d1", {"content": "green tea brewing guide"})
        assert spaces.lean(mem.vectors, "u", flt) == (flt, frozenset())
        hits = mem.recall("u", "green tea guide", k=5, reinforce=False)
        assert hits and all(h.memory.content != "green tea brewing guide" for h in hits)
        assert mem.vectors.count("u", flt) == 2
        # the other user's memories all hold their own namespace
        assert spaces.lean(mem.vectors, "v", ltm_filter("v"))[1] == {"memories\x1fv"}
        assert lacks_any({"ns_prefixes": ["docs", "docs\x1fu"]}, sole)


def test_a_memory_written_outside_the_namespace_after_the_check_is_not_recalled(
    tmp_path: Path,
) -> None:
    with PraxMemory(
        MemoryConfig(data_dir=tmp_path), embeddings=HashEmbeddings(), embedding_dimension=384
    ) as mem:
        mem.remember_many("u", ["the user drinks green tea", "the user drinks coffee"])
        recaller = mem.ltm._recaller()
        # the check ran before the write (as in a race): the lean filter is served stale
        spaces = recaller._spaces
        lean, sole = spaces.lean(mem.vectors, "u", ltm_filter("u"))
        assert sole
        spaces.lean = lambda store, user_id, flt: (lean, sole)  # type: ignore[method-assign]
        PraxMemoryStore(mem).put(("docs", "u"), "d1", {"content": "green tea brewing guide"})
        hits = mem.recall("u", "green tea brewing guide", k=5, reinforce=False)
        assert hits and all(h.memory.content != "green tea brewing guide" for h in hits)


def test_only_the_embedded_engine_has_its_namespace_leaned() -> None:
    server: Any = SimpleNamespace(client=object(), collection="memories")
    flt = ltm_filter("u")
    assert SoleNamespaces().lean(server, "u", flt) == (flt, frozenset())
