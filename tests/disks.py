"""Real small disks for the full-disk tests, as root or as a normal user.

A :class:`Disk` is a real tmpfs of a fixed size (a real ``ENOSPC``, not a mock), mounted in a
private mount namespace of its own, so mounting needs no root on the machine:

- as root, ``unshare --mount`` (a mount namespace: nothing is mounted on the host);
- as a normal user, ``unshare --user --map-root-user --mount`` (an unprivileged user namespace
  in which the user is root and may mount a tmpfs; the kernel allows it since Linux 4.x unless
  unprivileged user namespaces are turned off).

A holder process keeps the namespace (and its mounts) alive; whatever must see the disk runs
inside it through ``nsenter`` (:meth:`Disk.run`, :meth:`Disk.python`). Outside the namespace
the mount point is an empty folder of the host's disk, made read-only so that a test that
forgets to go through the disk cannot fill the host instead. The mounts go away with the
holder: when the fixture ends, or when the test session dies (the holder reads its stdin
until the session's end closes it).

When no namespace can be made (no ``unshare``/``nsenter``, user namespaces turned off), the
test fails naming what is missing and how to provide it (tests/services.py).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from tests.services import unavailable

ROOT = Path(__file__).resolve().parents[1]

#: The holder: mount the tmpfs, say so, and keep the namespace alive until stdin closes.
_HOLDER = 'mount -t tmpfs -o "$1" tmpfs "$2" || exit 3; echo mounted; read _ || true'

_USERNS_HINT = (
    "run the tests as root, or let normal users make user namespaces: "
    "`sudo sysctl -w user.max_user_namespaces=15000` if it is 0, "
    "`sudo sysctl -w kernel.unprivileged_userns_clone=1` where that setting exists, "
    "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` on Ubuntu 23.10+"
)


def _ways() -> list[tuple[str, list[str], list[str]]]:
    """(name, unshare arguments, nsenter arguments) to try, least privilege asked first."""
    userns = (
        "an unprivileged user namespace",
        ["--user", "--map-root-user", "--mount"],
        ["--user", "--mount", "--preserve-credentials"],
    )
    if os.geteuid() == 0:  # root mounts in a mount namespace; a user namespace if refused
        return [("a mount namespace", ["--mount"], ["--mount"]), userns]
    return [userns]


@dataclass(frozen=True)
class Disk:
    """A real tmpfs at ``path``, seen only by what runs through this object."""

    path: Path
    how: str  # "a mount namespace" or "an unprivileged user namespace"
    _holder: subprocess.Popen[str] = field(repr=False)
    _enter: list[str] = field(repr=False)

    def command(self, argv: list[str], *, cwd: Path = ROOT) -> list[str]:
        """``argv`` run inside the disk's namespace, in ``cwd``."""
        return [*self._enter, f"--wd={cwd}", "--", *argv]

    def run(
        self, argv: list[str], *, check: bool = True, timeout: float = 300, cwd: Path = ROOT
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` where the disk is mounted; raise with its output when it fails."""
        done = subprocess.run(
            self.command(argv, cwd=cwd), capture_output=True, text=True, timeout=timeout
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"{argv} exited {done.returncode} in the disk's namespace:\n"
                f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
            )
        return done

    def python(
        self, code: str, *args: str, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """Run ``python -c code args`` (this interpreter, the checkout as cwd) on the disk."""
        return self.run([sys.executable, "-c", code, *args], check=False, timeout=timeout)

    def mount(self, sub: str, options: str) -> Disk:
        """Another real tmpfs (``options``: ``size=8m``, ``size=400m,nr_inodes=3000``) at
        ``sub``, in the same namespace (it goes away with it)."""
        target = self.path / sub
        self.run(["mkdir", "-p", str(target)])
        self.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)])
        return replace(self, path=target)

    def close(self) -> None:
        """End the holder: the namespace and every mount in it go away."""
        holder = self._holder
        if holder.stdin is not None:
            holder.stdin.close()
        try:
            holder.wait(timeout=30)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.wait(timeout=30)
        for pipe in (holder.stdout, holder.stderr):
            if pipe is not None:
                pipe.close()


def _guard(mount_point: Path) -> None:
    """Make the host's side of the mount point read-only (and say what it is)."""
    (mount_point / "NOT-THE-TMPFS").write_text(
        "The test's tmpfs is mounted over this folder in a private mount namespace only.\n"
    )
    mount_point.chmod(stat.S_IRUSR | stat.S_IXUSR)


def make_disk(mount_point: Path, options: str) -> Disk:
    """Mount a tmpfs (``options``: ``size=400m``) at ``mount_point`` in a namespace of its own.

    Fails the test (never skips) when no namespace can be made, naming what is missing.
    """
    service = "a tmpfs mount (a real full disk)"
    missing = [tool for tool in ("unshare", "nsenter") if shutil.which(tool) is None]
    if missing:
        unavailable(
            service,
            f"no {' or '.join(missing)} on PATH",
            hint="install util-linux: `apt-get install -y util-linux`",
        )
    mount_point.mkdir(parents=True, exist_ok=True)
    _guard(mount_point)
    tried = []
    for how, unshare_args, nsenter_args in _ways():
        holder = subprocess.Popen(
            ["unshare", *unshare_args, "--", "sh", "-c", _HOLDER, "sh", options, str(mount_point)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert holder.stdout is not None
        if holder.stdout.readline().strip() == "mounted":
            enter = ["nsenter", f"--target={holder.pid}", *nsenter_args]
            disk = Disk(mount_point, how, holder, enter)
            seen = disk.run(["stat", "-f", "-c", "%T", str(mount_point)]).stdout.strip()
            if seen != "tmpfs":
                disk.close()
                raise AssertionError(f"{mount_point} is {seen!r} in the namespace, not tmpfs")
            return disk
        holder.kill()
        _, err = holder.communicate(timeout=30)
        tried.append(f"`unshare {' '.join(unshare_args)}` ({how}): {err.strip() or 'failed'}")
    who = "root" if os.geteuid() == 0 else f"uid {os.geteuid()}, not root"
    unavailable(service, f"as {who}: " + "; ".join(tried), hint=_USERNS_HINT)
    raise AssertionError("unreachable")  # unavailable() raises
