"""Self-calibration: each model's cosine settings measured on the background set."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from langgraph_prax_memory import MemoryConfig, PraxMemory, RetrievalConfig
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings
from langgraph_prax_memory.embeddings._background import BACKGROUND_PAIRS
from langgraph_prax_memory.embeddings._calibration import (
    SCALE_KEY,
    SCALE_VERSION,
    CosineCalibration,
    Hubness,
    _memo,
    apply_scale,
    measure_scale,
)
from langgraph_prax_memory.embeddings._partial import measured_texts, named
from tests.fakes import HashEmbeddings, SwitchableEmbeddings


def test_the_background_set_is_ours_and_big_enough() -> None:
    assert len(BACKGROUND_PAIRS) == 60
    assert len({q for q, _ in BACKGROUND_PAIRS}) == 60  # no repeated question


def test_minilm_lands_near_its_hand_set_values(tmp_path: Path) -> None:
    emb = PackagedMiniLMEmbeddings(tmp_path)
    scale = measure_scale("minilm", lambda t: [emb.embed_query(x) for x in t], emb.embed_documents)
    # hand-set for all-MiniLM-L6-v2: unrelated 0.0, min 0.3, companion 0.2
    assert 0.0 <= scale.unrelated_cosine <= 0.1
    assert abs(scale.min_cosine - 0.3) <= 0.05
    assert abs(scale.companion_cosine - 0.2) <= 0.05
    assert scale.unrelated_cosine < scale.companion_cosine < scale.min_cosine
    assert scale.min_cosine < scale.related_median
    assert (scale.unrelated_pairs, scale.related_pairs) == (3540, 60)


def test_settings_the_user_gave_override_the_calibration() -> None:
    scale = CosineCalibration("e5", 0.71, 0.76, 0.75, 0.82, 3540, 60)
    calibrated = apply_scale(RetrievalConfig(), scale)
    assert (calibrated.unrelated_cosine, calibrated.min_cosine) == (0.71, 0.76)
    assert calibrated.companion_cosine == 0.75
    mixed = apply_scale(RetrievalConfig(min_cosine=0.8, rrf_k=30), scale)
    assert (mixed.min_cosine, mixed.unrelated_cosine, mixed.rrf_k) == (0.8, 0.71, 30)
    assert apply_scale(RetrievalConfig(companion_cosine=None), scale).companion_cosine is None
    assert apply_scale(RetrievalConfig(), None) == RetrievalConfig()


def test_from_json_refuses_another_version() -> None:
    scale = CosineCalibration("m", 0.1, 0.3, 0.2, 0.6, 10, 2)
    assert CosineCalibration.from_json(scale.to_json()) == scale
    assert CosineCalibration.from_json({**scale.to_json(), "version": 0}) is None
    assert CosineCalibration.from_json(None) is None


class _Served(HashEmbeddings):
    """A served model (as OpenAI or Ollama would be), counting every text it embeds."""

    def __init__(self) -> None:
        super().__init__(384)
        self.model_name = f"served-{uuid.uuid4().hex[:8]}"
        self.texts = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.texts += 1
        return super().embed_query(text)


def _mem(tmp_path: Path, emb: HashEmbeddings, **config: object) -> PraxMemory:
    return PraxMemory(
        MemoryConfig(data_dir=tmp_path, **config),  # type: ignore[arg-type]
        embeddings=emb,
        embedding_dimension=384,
    )


def test_a_new_collection_stores_its_scale_and_recall_uses_it(tmp_path: Path) -> None:
    explicit = RetrievalConfig(min_cosine=0.42)
    with _mem(tmp_path, _Served(), retrieval=explicit) as mem:
        mem.remember("alice", "Alice prefers dark mode")
        assert mem.recall("alice", "dark mode")[0].memory.content == "Alice prefers dark mode"
        scale = mem.ltm.cosine_scale
        assert scale is not None
        assert CosineCalibration.from_json(mem.vectors.metadata()[SCALE_KEY]) == scale
        used = mem.ltm.retrieval_config
        assert used.min_cosine == 0.42  # the user's
        assert used.unrelated_cosine == scale.unrelated_cosine  # measured
        # a hand-set floor reads raw cosines: the companion bar of the raw pairs
        assert used.companion_cosine == min(scale.settings(False)["companion_cosine"], 0.42)


def test_a_served_model_is_measured_once_and_cached(tmp_path: Path) -> None:
    emb = _Served()
    with _mem(tmp_path, emb, collection_name="first") as mem:
        assert mem.ltm.cosine_scale is not None
    assert emb.texts == measured_texts() > 2 * len(BACKGROUND_PAIRS)
    # in the machine's model cache (MEMORY_MODELS_DIR), shared by every data folder
    assert len(list((mem.config.models_dir / "scales").glob("*.json"))) == 1
    _memo.clear()  # a new process: only the cache file is left
    with _mem(tmp_path, emb, collection_name="second") as mem:
        assert mem.ltm.cosine_scale is not None
    assert emb.texts == measured_texts()  # not asked again


def test_a_model_that_is_down_is_measured_once_it_is_back(tmp_path: Path) -> None:
    emb = SwitchableEmbeddings()
    emb.model_name = f"switch-{uuid.uuid4().hex[:8]}"
    with _mem(tmp_path, emb) as mem:
        assert mem.ltm.cosine_scale is None
        assert mem.ltm.retrieval_config == RetrievalConfig()  # the configured values meanwhile
        emb.down = False
        scale = mem.ltm.cosine_scale
        assert scale is not None
        assert mem.ltm.retrieval_config.min_cosine == scale.min_cosine


@pytest.mark.parametrize("field", ["min_cosine", "companion_cosine", "unrelated_cosine"])
def test_every_calibrated_field_is_a_retrieval_setting(field: str) -> None:
    assert field in RetrievalConfig.model_fields


class _Counting(SwitchableEmbeddings):
    """Fault injection: a served model that is down until told otherwise; counts the calls."""

    def __init__(self) -> None:
        super().__init__(384)
        self.model_name = f"flaky-{uuid.uuid4().hex[:8]}"
        self.calls = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        return super().embed_query(text)


def test_the_keeper_tries_a_down_model_again_after_a_growing_wait(tmp_path: Path) -> None:
    from langgraph_prax_memory.embeddings import ScaleKeeper, create_dense_embeddings
    from langgraph_prax_memory.embeddings._calibration import SCALE_RETRY_SECONDS

    emb, now = _Counting(), [1000.0]
    dense = create_dense_embeddings(MemoryConfig(data_dir=tmp_path), primary=emb, dimension=384)
    metadata: dict[str, Any] = {}
    keeper = ScaleKeeper(lambda: metadata, metadata.update, dense, None, clock=lambda: now[0])
    first, most = SCALE_RETRY_SECONDS
    assert keeper.get() is None and emb.calls == 1  # one failed call, not one per sentence
    assert not keeper.due()
    now[0] += first - 1
    assert not keeper.due()
    now[0] += 1
    assert keeper.due()
    assert keeper.get() is None and emb.calls == 2
    now[0] += first
    assert not keeper.due()  # the wait doubled
    now[0] += first
    assert keeper.due()
    for _ in range(12):  # a long outage: the wait stops growing at its ceiling
        keeper.get()
        now[0] += most
        assert keeper.due()
    emb.down = False
    scale = keeper.get()
    assert scale is not None and not keeper.due()
    assert CosineCalibration.from_json(metadata[SCALE_KEY]) == scale


def test_recall_ranks_on_the_measured_scale_once_the_model_is_back(tmp_path: Path) -> None:
    emb = _Counting()
    with _mem(tmp_path, emb, retrieval=RetrievalConfig(min_cosine=0.42)) as mem:
        mem.recall("alice", "dark mode")  # the model is down: ranked on the configured values
        built = mem.ltm._recaller()
        assert built.config.unrelated_cosine == RetrievalConfig().unrelated_cosine
        calls = emb.calls
        for _ in range(3):  # the wait has not passed: recall does not ask the model again
            mem.recall("alice", "dark mode")
        assert emb.calls - calls <= 3  # the queries' own embeddings only
        emb.down = False
        mem.recall("alice", "dark mode")
        assert mem.ltm._recaller() is built  # still waiting
        assert mem.ltm._scales is not None
        mem.ltm._scales._retry_at = 0.0  # the wait has passed
        mem.recall("alice", "dark mode")
        rebuilt = mem.ltm._recaller()
        scale = mem.ltm.cosine_scale
        assert rebuilt is not built and scale is not None
        assert rebuilt.config.unrelated_cosine == scale.unrelated_cosine
        assert rebuilt.config.min_cosine == 0.42  # the user's own value still wins


def test_the_scale_keeps_the_question_centroid_for_hubness(tmp_path: Path) -> None:
    emb = PackagedMiniLMEmbeddings(tmp_path)
    scale = measure_scale("minilm", lambda t: [emb.embed_query(x) for x in t], emb.embed_documents)
    hub = scale.hubness()
    assert hub is not None and len(scale.centroid) == 384
    statements = [s for _, s in BACKGROUND_PAIRS]
    offsets = hub.offsets(emb.embed_documents(statements))
    # the background statements' offsets average their own mean cosine to the questions
    # (the related pair included) less the unrelated mean: near 0, and spread both ways
    assert abs(sum(offsets) / len(offsets)) < 0.02
    assert min(offsets) < -0.02 and max(offsets) > 0.02
    # the round trip keeps the centroid; without one there is no correction
    assert CosineCalibration.from_json(scale.to_json()) == scale
    assert CosineCalibration("m", 0.1, 0.3, 0.2, 0.6, 10, 2).hubness() is None


def test_recall_corrects_the_floor_for_hubness_unless_the_floor_is_hand_set(
    tmp_path: Path,
) -> None:
    facts = [
        "The user's editor is Neovim with the gruvbox dark theme.",
        "The user is allergic to peanuts.",
    ]
    with PraxMemory(MemoryConfig(data_dir=tmp_path / "a")) as mem:
        for fact in facts:
            mem.remember("alice", fact)
        scale = mem.ltm.cosine_scale
        assert scale is not None and scale.centroid
        hub = scale.hubness()
        assert hub is not None
        expected = dict(zip(facts, hub.offsets(mem.ltm.dense.embed_documents(facts)), strict=True))
        hits = mem.recall("alice", "Which text editor does the user like?", k=2)
        assert {h.memory.content for h in hits} == set(facts)
        for h in hits:
            assert h.hubness == pytest.approx(expected[h.memory.content], abs=1e-3)
            assert h.hubness != 0.0
            assert "hubness" in h.calibration
    for config in (RetrievalConfig(min_cosine=0.3), RetrievalConfig(hubness_correction=False)):
        with PraxMemory(
            MemoryConfig(data_dir=tmp_path / uuid.uuid4().hex, retrieval=config)
        ) as mem:
            for fact in facts:
                mem.remember("alice", fact)
            hits = mem.recall("alice", "Which text editor does the user like?", k=2)
            assert [h.hubness for h in hits] == [0.0, 0.0]
            assert all("hubness" not in h.calibration for h in hits)
    # a floor tuned by hand on the corrected cosine keeps the correction
    tuned = RetrievalConfig(min_cosine=0.27, hubness_correction=True)
    with PraxMemory(MemoryConfig(data_dir=tmp_path / "tuned", retrieval=tuned)) as mem:
        for fact in facts:
            mem.remember("alice", fact)
        hits = mem.recall("alice", "Which text editor does the user like?", k=2)
        assert all(h.hubness != 0.0 for h in hits)
        assert mem.ltm.retrieval_config.min_cosine == 0.27


@pytest.mark.parametrize("fusion", ["evidence", "rrf"])
@pytest.mark.parametrize("expansion", [False, True])
def test_the_correction_holds_on_every_fusion_and_with_query_expansion(
    tmp_path: Path, fusion: str, expansion: bool
) -> None:
    facts = [
        "The user's editor is Neovim with the gruvbox dark theme.",
        "The user is allergic to peanuts.",
    ]
    config = RetrievalConfig(fusion=fusion, query_expansion=expansion)
    variants = '{"variants": ["favourite code editor", "text editor the user likes"]}'
    arithmetic = '{"variants": ["multiply 17 by 23", "the product of 17 and 23"]}'
    with PraxMemory(
        MemoryConfig(data_dir=tmp_path, retrieval=config),
        expansion_model=FakeListChatModel(responses=[variants, arithmetic]),
    ) as mem:
        for fact in facts:
            mem.remember("alice", fact)
        scale = mem.ltm.cosine_scale
        hub = scale.hubness() if scale is not None else None
        assert hub is not None
        expected = dict(zip(facts, hub.offsets(mem.ltm.dense.embed_documents(facts)), strict=True))
        hits = mem.recall("alice", "Which text editor does the user like?", k=2)
        assert hits[0].memory.content == facts[0] and hits[0].relevant
        for h in hits:
            assert h.hubness == pytest.approx(expected[h.memory.content], abs=1e-3)
            assert f"hubness-corrected {h.scores['dense'] - h.hubness:.2f}" in h.calibration
        # off topic: nothing opens the context, whichever fusion ranked it
        assert not any(h.relevant for h in mem.recall("alice", "What is 17 times 23?", k=2))


def test_without_the_correction_the_floor_comes_from_the_raw_pairs() -> None:
    scale = CosineCalibration(
        "m",
        0.07,
        0.30,
        0.20,
        0.6,
        3540,
        60,
        centroid=(0.1, 0.2),
        raw_min_cosine=0.32,
        raw_companion_cosine=0.21,
    )
    on = apply_scale(RetrievalConfig(), scale)
    off = apply_scale(RetrievalConfig(hubness_correction=False), scale)
    assert (on.min_cosine, on.companion_cosine) == (0.30, 0.20)
    assert (off.min_cosine, off.companion_cosine) == (0.32, 0.21)
    # a hand-set floor reads raw cosines: the raw companion, never above that floor
    assert apply_scale(RetrievalConfig(min_cosine=0.25), scale).companion_cosine == 0.21
    assert apply_scale(RetrievalConfig(min_cosine=0.15), scale).companion_cosine == 0.15
    tuned = RetrievalConfig(min_cosine=0.25, hubness_correction=True)
    assert apply_scale(tuned, scale).companion_cosine == 0.20


def test_a_scale_of_the_previous_version_is_measured_again_and_stored(tmp_path: Path) -> None:
    with PraxMemory(MemoryConfig(data_dir=tmp_path)) as mem:
        mem.remember("alice", "The user is allergic to peanuts.")
        current = mem.ltm.cosine_scale
        assert current is not None
        old = {
            k: v for k, v in current.to_json().items() if k not in ("centroid", "raw_min_cosine")
        }
        mem.vectors.merge_metadata({SCALE_KEY: {**old, "version": 2}})
    with PraxMemory(MemoryConfig(data_dir=tmp_path)) as mem:
        again = mem.ltm.cosine_scale
        assert again is not None and again.centroid and again.version == current.version
        stored = CosineCalibration.from_json(mem.vectors.metadata()[SCALE_KEY])
        assert stored == again
        assert mem.recall("alice", "What can't the user eat?", k=1)[0].hubness != 0.0


def test_an_older_library_sharing_the_collection_keeps_its_own_scale(tmp_path: Path) -> None:
    # an older release's scale (version 2) under the plain key is left alone; this version
    # keeps its own beside it, so the two do not overwrite each other on every open
    legacy = {"version": 2, "model": "all-MiniLM-L6-v2-int8", "min_cosine": 0.3}
    with PraxMemory(MemoryConfig(data_dir=tmp_path)) as mem:
        mem.vectors.merge_metadata({"prax_cosine_scale": legacy})
        mem.remember("alice", "The user is allergic to peanuts.")
        scale = mem.ltm.cosine_scale
        assert scale is not None and scale.version == SCALE_VERSION == 3
        metadata = mem.vectors.metadata()
        assert SCALE_KEY == "prax_cosine_scale.v3" and SCALE_KEY in metadata
        assert metadata["prax_cosine_scale"] == legacy
        # a recognisable value under this version's key: read back, not measured again
        mem.vectors.merge_metadata({SCALE_KEY: {**scale.to_json(), "min_cosine": 0.345}})
    with PraxMemory(MemoryConfig(data_dir=tmp_path)) as mem:
        again = mem.ltm.cosine_scale
        assert again is not None and again.min_cosine == 0.345
        assert mem.vectors.metadata()["prax_cosine_scale"] == legacy


def test_a_current_scale_under_the_unversioned_key_is_adopted_not_measured(
    tmp_path: Path,
) -> None:
    # the release before the versioned key stored a version-3 scale under the plain key: it is
    # taken as it is (a recognisable value proves it was not measured again) and copied over
    with PraxMemory(MemoryConfig(data_dir=tmp_path / "measured")) as mem:
        mem.remember("alice", "The user is allergic to peanuts.")
        measured = mem.ltm.cosine_scale
        assert measured is not None
    earlier = {**measured.to_json(), "min_cosine": 0.345}
    with PraxMemory(MemoryConfig(data_dir=tmp_path / "upgraded")) as mem:
        mem.vectors.merge_metadata({"prax_cosine_scale": earlier})
        mem.remember("alice", "The user is allergic to peanuts.")
        adopted = mem.ltm.cosine_scale
        assert adopted is not None and adopted.min_cosine == 0.345
        assert adopted == CosineCalibration.from_json(earlier)
        metadata = mem.vectors.metadata()
        assert CosineCalibration.from_json(metadata[SCALE_KEY]) == adopted
        assert metadata["prax_cosine_scale"] == earlier
        assert mem.ltm.retrieval_config.min_cosine == 0.345
    # a versioned entry of another model (the collection was migrated away and back): the
    # plain key's old measurement is not picked up, the model is measured
    other = {**measured.to_json(), "model": "another-model"}
    with PraxMemory(MemoryConfig(data_dir=tmp_path / "migrated")) as mem:
        mem.vectors.merge_metadata({"prax_cosine_scale": earlier, SCALE_KEY: other})
        mem.remember("alice", "The user is allergic to peanuts.")
        again = mem.ltm.cosine_scale
        assert again is not None and again.min_cosine == measured.min_cosine != 0.345


def test_a_correction_that_cannot_apply_leaves_recall_on_raw_cosines(tmp_path: Path) -> None:
    with PraxMemory(MemoryConfig(data_dir=tmp_path)) as mem:
        mem.remember("alice", "The user is allergic to peanuts.")
        recaller = mem.ltm._recaller()
        recaller.hubness = Hubness(np.ones(7, dtype=np.float32), 0.1)  # a centroid of another width
        hits = mem.recall("alice", "What can't the user eat?", k=1)
        assert (
            hits[0].memory.content == "The user is allergic to peanuts." and hits[0].hubness == 0.0
        )


def test_the_packaged_models_shipped_scale_is_what_measuring_it_gives(tmp_path: Path) -> None:
    """The scale shipped with the package is the packaged model's own, measured (issue 41)."""
    from langgraph_prax_memory.embeddings import create_dense_embeddings
    from langgraph_prax_memory.embeddings._calibration import (
        model_key,
        scale_digest,
        shipped_scale,
    )

    dense = create_dense_embeddings(MemoryConfig(data_dir=tmp_path))
    key = model_key(dense)
    shipped = shipped_scale(key)
    assert shipped is not None, f"no shipped scale for {key} (scale_digest {scale_digest(key)})"
    primary = dense.primary
    assert isinstance(primary, PackagedMiniLMEmbeddings)
    fresh = measure_scale(dense.model_name, primary.embed_queries, dense.embed_primary)
    for name in (
        "unrelated_cosine",
        "min_cosine",
        "companion_cosine",
        "related_median",
        "partial_unrelated_cosine",
        "partial_min_cosine",
        "partial_companion_cosine",
    ):
        assert getattr(shipped, name) == pytest.approx(getattr(fresh, name), abs=1e-4), name
    assert np.allclose(shipped.centroid, fresh.centroid, atol=1e-4)
    assert shipped_scale(key + "-other-weights") is None  # another model is measured


def test_a_new_folder_on_the_packaged_model_never_measures_inside_a_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first search of a fresh data folder reads the shipped scale (issue 41)."""
    import langgraph_prax_memory.embeddings._calibration as calibration

    def refuse(*args: Any, **kwargs: Any) -> CosineCalibration:
        raise AssertionError("the packaged model's scale was measured inside a user's call")

    monkeypatch.setattr(calibration, "measure_scale", refuse)
    _memo.clear()  # a new process
    with PraxMemory(MemoryConfig(data_dir=tmp_path / "fresh")) as mem:
        mem.remember("alice", "Alice keeps bees on her allotment.")
        # stored with the collection by the first write: the first search writes nothing
        assert SCALE_KEY in mem.vectors.metadata()
        hits = mem.recall("alice", "Does Alice keep any animals?")
        assert hits and hits[0].memory.content == "Alice keeps bees on her allotment."
        scale = mem.ltm.cosine_scale
        assert scale is not None and scale.model == mem.ltm.dense.model_name
        assert CosineCalibration.from_json(mem.vectors.metadata()[SCALE_KEY]) == scale


def test_a_scale_known_in_the_process_is_still_written_to_a_new_cache(tmp_path: Path) -> None:
    """``models pull`` into a cache must leave the scale's file there, even when this process
    measured the model before (the memo knew it: the file was never written)."""
    from langgraph_prax_memory.embeddings._calibration import cached_scale

    key = f"served-{uuid.uuid4().hex[:8]}|384|x"
    scale = CosineCalibration("served", 0.05, 0.3, 0.2, 0.6, 10, 2)
    assert cached_scale(key, tmp_path / "first", lambda: scale) == scale

    def again() -> CosineCalibration:
        raise AssertionError("measured twice")

    assert cached_scale(key, tmp_path / "second", again) == scale  # from the memo
    written = list((tmp_path / "second").glob("*.json"))
    assert len(written) == 1
    assert CosineCalibration.from_json(json.loads(written[0].read_text())) == scale


def test_the_scale_of_partial_cosines_is_measured_with_a_name_in_both_texts(
    tmp_path: Path,
) -> None:
    """A name both texts hold, its direction taken out: unrelated pairs sit higher than raw
    unrelated pairs, and the floor of the partial cosines above the raw floor (MiniLM)."""
    from langgraph_prax_memory.embeddings import create_dense_embeddings

    assert named("Is she allergic to anything?", "Alex") == "Is Alex allergic to anything?"
    assert named("How old is their daughter?", "Alex") == "How old is Alex's daughter?"
    dense = create_dense_embeddings(MemoryConfig(data_dir=tmp_path))
    primary = dense.primary
    assert isinstance(primary, PackagedMiniLMEmbeddings)
    scale = measure_scale(dense.model_name, primary.embed_queries, dense.embed_primary)
    partial = scale.partial_scale()
    assert partial is not None
    unrelated, floor, companion = partial
    assert scale.unrelated_cosine < unrelated < companion < floor
    assert scale.min_cosine < floor <= scale.related_median


def test_a_scale_file_without_the_partial_scale_still_loads() -> None:
    """Scales stored by releases before the partial scale: read, the partial scale unknown."""
    scale = CosineCalibration("m", 0.07, 0.3, 0.2, 0.6, 3540, 60, centroid=(0.1, 0.2))
    data = scale.to_json()
    del data["partial_unrelated_cosine"], data["partial_min_cosine"]
    del data["partial_companion_cosine"]
    loaded = CosineCalibration.from_json(data)
    assert loaded == scale and loaded is not None and loaded.partial_scale() is None
