"""The browser tests' Chromium set-up (tests/chromium.py), without touching the machine.

Each case runs a small test session in a fresh pytest process whose ``PATH`` holds only a
stand-in ``apt-get`` (it logs its arguments and "installs" a ``chromium`` into that folder)
and whose ``TMPDIR`` keeps the install lock private. The real apt-get run is what the browser
tests do on a machine without Chromium.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SAMPLE = """
import pytest

from tests.chromium import chromium


@pytest.fixture(scope="session")
def chromium_path(request):
    return chromium(request.config)


def test_one(chromium_path):
    assert chromium_path.endswith("/chromium")


def test_two(chromium_path):
    assert chromium_path.endswith("/chromium")
"""

FAKE_APT = """#!/bin/sh
echo "$*" >> {log}
case "$*" in
  *" install "*)
    /bin/sleep 3; printf '#!/bin/sh\\n' > {bin}/chromium; /bin/chmod 755 {bin}/chromium;;
esac
"""


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    bin_dir, log = tmp_path / "bin", tmp_path / "apt.log"
    bin_dir.mkdir()
    apt = bin_dir / "apt-get"
    apt.write_text(FAKE_APT.format(log=log, bin=bin_dir))
    apt.chmod(0o755)
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    (tmp_path / "tmp").mkdir()
    return bin_dir, log


def _session(tmp_path: Path, bin_dir: Path, **env: str) -> subprocess.Popen[str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("PRAX_", "PYTEST_"))}
    run_env = {
        **keep,
        "PATH": str(bin_dir),
        "TMPDIR": str(tmp_path / "tmp"),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        **env,
    }
    argv = [sys.executable, "-m", "pytest", str(tmp_path / "test_sample.py"), "-q",
            "-p", "no:cacheprovider", "--rootdir", str(tmp_path), "-c", os.devnull]  # fmt: skip
    return subprocess.Popen(
        argv, cwd=ROOT, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _wait(proc: subprocess.Popen[str]) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=300)
    return proc.returncode, out


def test_parallel_sessions_install_chromium_once_when_root_and_name_the_fix_otherwise(
    tmp_path: Path,
) -> None:
    bin_dir, log = _setup(tmp_path)
    sessions = [_session(tmp_path, bin_dir) for _ in range(3)]  # started together: they race
    results = [_wait(s) for s in sessions]
    if os.geteuid() == 0:
        for code, out in results:
            assert code == 0 and "2 passed" in out, out
        calls = log.read_text().splitlines()
        assert [c for c in calls if " install " in c] == [
            "-o DPkg::Lock::Timeout=600 install -y -qq chromium"
        ], calls  # one install for the three sessions (and one update before it)
        assert [c for c in calls if " update" in c] == ["-o DPkg::Lock::Timeout=600 update -qq"]
        said = "\n".join(out for _, out in results)
        assert said.count("(installed for this session: apt-get install chromium)") == 1, said
        # the others waited for the lock (or came after the install), each said which
        assert said.count("Chromium: ") == 3, said
    else:  # a normal user: nothing is run, each test fails naming what is missing and the fix
        assert not log.exists()
        for code, out in results:
            assert code == 1 and "2 errors" in out, out
            assert "not root, so it cannot install it" in out
            assert "sudo apt-get install -y chromium" in out and "PRAX_CHROMIUM=" in out


def test_chromium_on_the_machine_is_used_and_nothing_installed(tmp_path: Path) -> None:
    bin_dir, log = _setup(tmp_path)
    (bin_dir / "chromium").write_text("#!/bin/sh\n")
    (bin_dir / "chromium").chmod(0o755)
    code, out = _wait(_session(tmp_path, bin_dir))
    assert code == 0 and "2 passed" in out, out
    assert not log.exists()


def test_installing_can_be_forbidden_and_a_wrong_prax_chromium_is_named(tmp_path: Path) -> None:
    bin_dir, log = _setup(tmp_path)
    code, out = _wait(_session(tmp_path, bin_dir, PRAX_INSTALL_CHROMIUM="0"))
    assert code == 1 and "2 errors" in out, out
    assert "Chromium is required but is unavailable" in out
    assert "PRAX_INSTALL_CHROMIUM=0 forbids installing it" in out
    assert not log.exists()
    code, out = _wait(_session(tmp_path, bin_dir, PRAX_CHROMIUM=str(tmp_path / "nope")))
    assert (
        code == 1
        and "2 errors" in out
        and f"PRAX_CHROMIUM={tmp_path / 'nope'} is not an executable file" in out
    )
    assert not log.exists()
