"""The README's quickstart code blocks run as written (with the real offline model)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

README = Path(__file__).parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(
    index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = BLOCKS[index]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the blocks' tempfile.mkdtemp()
    exec(compile(code, f"README block {index}", "exec"), {})
    out = capsys.readouterr().out
    assert out.strip(), "each quickstart block prints what it recalled"
    if "polars" in code:
        assert out.splitlines()[0].startswith("Alice prefers polars")
    if "green tea" in code:
        assert "green tea" in out
