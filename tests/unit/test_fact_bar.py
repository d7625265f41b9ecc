"""The standing-fact and small-talk bars come from the training statements (issue 37).

:data:`STANDING_CONFIDENCE` is documented as the lowest bar at which 10-fold
cross-validation on ``facts/statements.txt`` gives a standing precision of at least 0.98.
This re-measures it with the packaged MiniLM (a real model, offline), so a change of the
statements, the cues or the model that moves the bar fails here rather than silently
changing what becomes a standing fact.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings
from langgraph_prax_memory.facts import (
    SMALL_TALK,
    SMALL_TALK_CONFIDENCE,
    STANDING,
    STANDING_CONFIDENCE,
    FactClassifier,
    cross_validated_bars,
    cue_features,
)

GRID = [round(0.5 + 0.05 * i, 2) for i in range(10)]  # 0.50 ... 0.95


Figures = dict[str, list[tuple[float, float, float]]]


@pytest.fixture(scope="module")
def by_class(tmp_path_factory: pytest.TempPathFactory) -> Figures:
    model = PackagedMiniLMEmbeddings(tmp_path_factory.mktemp("bar") / "models")
    return {
        c: cross_validated_bars(model.embed_documents, GRID, fact_class=c)
        for c in (STANDING, SMALL_TALK)
    }


@pytest.fixture
def figures(by_class: Figures) -> list[tuple[float, float, float]]:
    return by_class[STANDING]


@pytest.mark.parametrize(
    ("fact_class", "bar"), [(STANDING, STANDING_CONFIDENCE), (SMALL_TALK, SMALL_TALK_CONFIDENCE)]
)
def test_each_bar_is_the_lowest_with_precision_098(
    by_class: Figures, fact_class: str, bar: float
) -> None:
    good = [b for b, precision, _ in by_class[fact_class] if precision >= 0.98]
    assert good, by_class[fact_class]
    assert min(good) == bar, by_class[fact_class]


def test_a_higher_bar_is_more_precise_and_recalls_less(
    figures: list[tuple[float, float, float]],
) -> None:
    at = {bar: (p, r) for bar, p, r in figures}
    assert at[0.95][1] < at[STANDING_CONFIDENCE][1] <= at[0.5][1]
    assert at[0.95][0] >= at[0.5][0]
    # the chosen bar still recalls most standing statements it was not trained on
    assert at[STANDING_CONFIDENCE][1] >= 0.85


@pytest.mark.parametrize(
    "text",
    [
        "User visits her brother every March.",
        "User goes to choir on Thursday evenings.",
        "User has been going to the same barber since 2010.",
        # a weekday named as recurring (session 9)
        "Plays five-a-side on a Tuesday night with old school friends.",
        "Sings in the choir: Sunday services and Thursday evening rehearsals.",
        "The shop is open Monday to Saturday, closed Sundays.",
        "Watches the weekend matches with his dad.",
        # an ordinal counting the noun after it, not a date
        "User lives on the 4th floor, no lift.",
        "User's son is in 2nd grade.",
    ],
)
def test_a_recurring_time_is_not_an_episode_date(text: str) -> None:
    anchor, _, _, future, *_ = cue_features(text)
    assert (anchor, future) == (0.0, 0.0)


@pytest.mark.parametrize(
    "text",
    [
        "User visited her brother in March.",
        "User has choir on Thursday.",
        "User is going to the barber tomorrow.",
        "User got Lena a scarf for Christmas.",  # a feast dates like a month
        "User is thinking of buying a kayak.",  # an intention is a plan
        "User is considering a move to Leeds.",
        "Dentist on the 4th at 9:30.",  # an ordinal with nothing it counts
        "Her 40th birthday party is on the 12th.",
        "Moved into the new flat on the 2nd.",
        "Dinner with Tom on Saturday evening.",
    ],
)
def test_a_dated_or_coming_time_still_is(text: str) -> None:
    anchor, _, _, future, *_ = cue_features(text)
    assert anchor or future


def test_the_packaged_model_ships_its_trained_weights(tmp_path: Path) -> None:
    """A new machine's first write does not train: the weights ship with the package.

    Fails when the statements or the features change until ``scripts/ship-fact-weights``
    ships the weights again.
    """
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"))
    try:
        dense = memory.ltm.dense
        clf = FactClassifier(dense.embed_documents, dense.model_name, cache=False)
        shipped = clf.shipped_file()
        assert shipped.is_file(), "run scripts/ship-fact-weights"
        assert sorted(shipped.parent.glob("*.npz")) == [shipped]  # no stale file ships
        with np.load(shipped) as saved:
            np.testing.assert_allclose(saved["w"], clf.trained_weights(), atol=1e-5)
        # used without training: the trained weights are never computed
        clf.trained_weights = None  # type: ignore[method-assign,assignment]
        clf.warm()
        found = clf.classify(["User is allergic to cats."])[0]
        # "text": the full model answered (a failed training would leave the cues alone)
        assert (found.fact_class, found.by) == (STANDING, "text")
    finally:
        memory.close()


def test_a_model_of_the_same_name_but_other_weights_trains(tmp_path: Path) -> None:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"))
    try:
        dense = memory.ltm.dense

        def other(texts: list[str]) -> list[list[float]]:  # the same name, other vectors
            return [list(reversed(v)) for v in dense.embed_documents(texts)]

        clf = FactClassifier(other, dense.model_name, cache=False)
        assert clf.shipped_file().is_file()  # the same name: the same file
        trained: list[np.ndarray] = []
        train = clf.trained_weights

        def spy() -> np.ndarray:
            trained.append(train())
            return trained[-1]

        clf.trained_weights = spy  # type: ignore[method-assign]
        clf.warm()
        assert len(trained) == 1  # its probe differs: trained, the shipped file not used
        with np.load(clf.shipped_file()) as saved:
            assert not np.allclose(trained[0], saved["w"], atol=1e-3)
    finally:
        memory.close()
