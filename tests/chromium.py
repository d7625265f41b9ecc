"""Chromium for the browser tests: the one on the machine, or installed by the test session.

Playwright drives the system's Chromium (``executable_path``); its own browser download is
never used. In order:

1. ``PRAX_CHROMIUM=/path/to/chromium``: that executable (it must exist);
2. ``chromium`` or ``chromium-browser`` on ``PATH``;
3. installed with the system's package manager when the session runs as root and the machine
   has ``apt-get`` (Debian, Ubuntu): ``apt-get update`` and ``apt-get install -y chromium``,
   once per machine at a time (an exclusive file lock, so pytest-xdist workers and parallel
   sessions wait for the first install instead of racing it; apt's own lock is waited for
   too). ``PRAX_INSTALL_CHROMIUM=0`` forbids it.

Otherwise the tests fail (never skip), naming what is missing and how to provide it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from filelock import FileLock, Timeout

from tests.services import announce, unavailable

NAMES = ("chromium", "chromium-browser")
PACKAGE = "chromium"
#: One install at a time on this machine (apt is machine-wide).
LOCK = Path(tempfile.gettempdir()) / "prax-chromium-install.lock"
LOCK_TIMEOUT = 1800.0
APT_TIMEOUT = 900.0

_PROVIDE = (
    "install it: `sudo apt-get install -y chromium` (Debian, Ubuntu), or run the test "
    "command as root (it then installs it itself), or set PRAX_CHROMIUM=/path/to/chromium"
)


def _missing(reason: str, hint: str = _PROVIDE) -> None:
    unavailable("Chromium", reason, hint=hint)


def find() -> str | None:
    """The Chromium executable ``PRAX_CHROMIUM`` names or ``PATH`` holds, if any."""
    explicit = os.environ.get("PRAX_CHROMIUM", "").strip()
    if explicit:
        return explicit if os.path.isfile(explicit) and os.access(explicit, os.X_OK) else None
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _install() -> None:
    """``apt-get update`` then ``apt-get install -y chromium``; fail the test if either fails."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    wait = ["-o", "DPkg::Lock::Timeout=600"]  # another apt (unattended-upgrades) may hold it
    for cmd in (
        ["apt-get", *wait, "update", "-qq"],
        ["apt-get", *wait, "install", "-y", "-qq", PACKAGE],
    ):
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=APT_TIMEOUT)
        except subprocess.TimeoutExpired:
            _missing(f"`{' '.join(cmd)}` did not finish within {APT_TIMEOUT:.0f} s")
        if done.returncode != 0:
            _missing(f"`{' '.join(cmd)}` exited {done.returncode}: {done.stderr.strip()[-800:]}")


def chromium(config: pytest.Config) -> str:
    """The path of a Chromium the tests can drive, installing it when the session can.

    Says on the terminal which one is used, and whether this session installed it.
    """
    explicit = os.environ.get("PRAX_CHROMIUM", "").strip()
    found = find()
    if explicit and not found:
        _missing(
            f"PRAX_CHROMIUM={explicit} is not an executable file",
            hint="point PRAX_CHROMIUM at Chromium's executable, or unset it",
        )
    if found:
        announce(config, f"Chromium: {found} (found on the machine)")
        return found
    absent = f"no {' or '.join(NAMES)} on PATH"
    if os.environ.get("PRAX_INSTALL_CHROMIUM", "").strip() == "0":
        _missing(f"{absent}, and PRAX_INSTALL_CHROMIUM=0 forbids installing it")
    if os.geteuid() != 0:
        _missing(
            f"{absent}, and this session runs as uid {os.geteuid()}, not root, so it cannot "
            "install it with the system's package manager"
        )
    if shutil.which("apt-get") is None:
        _missing(
            f"{absent}, and no apt-get to install it with (the test session installs "
            "Chromium on Debian and Ubuntu only)",
            hint="install Chromium with your package manager, or set PRAX_CHROMIUM",
        )
    try:
        with FileLock(str(LOCK), timeout=LOCK_TIMEOUT):
            found = find()  # installed meanwhile by the session that held the lock
            how = "found on the machine, installed by another test session"
            if not found:
                _install()
                found = find()
                how = f"installed for this session: apt-get install {PACKAGE}"
    except Timeout:
        _missing(f"{absent}, and another session held {LOCK} for {LOCK_TIMEOUT:.0f} s")
    if not found:
        _missing(f"apt-get installed {PACKAGE} but there is still {absent}")
    assert found is not None
    announce(config, f"Chromium: {found} ({how})")
    return found
