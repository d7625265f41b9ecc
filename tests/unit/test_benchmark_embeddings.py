"""``--embeddings MODULE:CALLABLE``: the quality benchmarks measure another model the same way.

The benchmarks themselves are not run by the suite (they take minutes); what is tested here is
that a model is found, checked and measured for width, and that a wrong spec is a clear error
before any work starts.
"""

from __future__ import annotations

import pytest

from benchmarks import locomo, personal_memory
from benchmarks._common import load_embeddings
from tests.fakes import HashEmbeddings


def test_a_factory_gives_the_model_and_its_width() -> None:
    model, width = load_embeddings("tests.fakes:HashEmbeddings")
    assert isinstance(model, HashEmbeddings)
    assert width == len(HashEmbeddings().embed_query("x"))


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("tests.fakes", "module:callable"),
        (":HashEmbeddings", "module:callable"),
        ("tests.fakes:", "module:callable"),
        ("tests.no_such_module:make", "no_such_module"),
        ("tests.fakes:no_such_factory", "no_such_factory"),
        ("json:__doc__", "not callable"),
        ("json:JSONDecoder", "JSONDecoder, not a LangChain Embeddings"),
    ],
)
def test_a_wrong_spec_is_a_clear_error(spec: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        load_embeddings(spec)


@pytest.mark.parametrize("main", [personal_memory.main, locomo.main])
def test_the_benchmarks_refuse_a_wrong_spec_before_running(
    main: object, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--embeddings", "tests.fakes:no_such_factory"])  # type: ignore[operator]
    assert exit_info.value.code == 2
    assert "no_such_factory" in capsys.readouterr().err
