"""The user's workspace git repository, driven through the ``git`` executable.

Why the executable and not a Python git library: ``git`` is already on virtually every
machine that runs an agent, its on-disk format is the reference one (a user can inspect or
repair a workspace with ordinary git tools), and it adds no dependency. Pure-Python
implementations (dulwich) would be a new dependency with their own edge cases around
index locking; GitPython itself shells out to ``git`` anyway.

Every call runs with a scrubbed environment: no ``GIT_DIR``/``GIT_WORK_TREE``/``GIT_INDEX_FILE``
inherited from a surrounding hook, no global or system config (``GIT_CONFIG_GLOBAL`` is
``/dev/null``, ``GIT_CONFIG_NOSYSTEM=1``), so the user's hooks, signing settings or default
branch never interfere and the global config is never written. Identity and
``commit.gpgsign=false`` are set in the workspace repository's own ``.git/config``.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from langgraph_prax_memory.errors import DiskFullError, PraxMemoryError

__all__ = [
    "GIT_EMAIL",
    "GIT_NAME",
    "GitUnavailableError",
    "NotesDiskFullError",
    "NotesGitError",
    "WorkspaceRepo",
]

logger = logging.getLogger(__name__)

GIT_NAME = "langgraph-prax-memory"
GIT_EMAIL = "prax-memory@localhost"
_TIMEOUT = 60.0
# Lock files, atomic-write temporaries and the (unversioned) scratchpad never show up as
# untracked files. Written to .git/info/exclude, which is local and never committed.
_EXCLUDES = "\n# langgraph-prax-memory\n*.lock\n.*.tmp\n/memory/\n"


class NotesGitError(PraxMemoryError):
    """A git command on the notes workspace failed (the message carries git's stderr)."""


class GitUnavailableError(NotesGitError):
    """The ``git`` executable was not found; nothing was written."""


class NotesDiskFullError(NotesGitError, DiskFullError):
    """Git could not write the notes repository: the disk (or the user's quota) is full.

    A :class:`~langgraph_prax_memory.errors.MemoryWriteError` (the update did not land; the
    notes are as they were) and a :class:`NotesGitError`; free some space and retry.
    """


#: What git prints when the disk refuses a write (ENOSPC, EDQUOT).
_DISK_FULL = ("no space left on device", "out of diskspace", "disk quota exceeded")
#: What git prints when it could not write a file, often without saying why (a config or ref
#: lock on a full disk: "failed to write new configuration file", "couldn't write ...lock").
_WRITE_FAILED = (
    "failed to write",
    "couldn't write",
    "could not write",
    "unable to write",
    "unable to create",
    "could not create",
    "cannot create",
    "short write",
    "unable to append",
)
#: Below this much free space (or these many free inodes) a failed write is a full disk.
_NEARLY_FULL_BYTES = 1024 * 1024
_NEARLY_FULL_INODES = 64
#: A workspace repository whose initialisation stopped part-way is set aside under this name.
_BROKEN_PREFIX = ".git.broken-"
#: Where a new repository is made before it is moved into place in one rename.
_INIT_DIR = ".git-init.tmp"


def resolve_git(executable: str | None) -> str:
    """The absolute path of the git executable, or raise :class:`GitUnavailableError`."""
    name = executable or "git"
    found = shutil.which(name)
    if found is None:
        raise GitUnavailableError(
            f"the git executable {name!r} was not found on PATH; user notes are versioned "
            "with git, so install git (or pass git_executable=...) before updating notes"
        )
    return found


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
        LANG="C",
    )
    return env


class WorkspaceRepo:
    """The git repository at a user's workspace root.

    Args:
        root: The workspace folder (created on :meth:`ensure`).
        git: Absolute path of the git executable (see :func:`resolve_git`).
    """

    def __init__(self, root: Path, git: str) -> None:
        # absolute: git runs inside the folder, so a relative data folder ("./data") would
        # name paths relative to the wrong place
        self.root = Path(root).absolute()
        self.git = git

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run ``git <args>`` in the workspace and return the completed process."""
        cmd = [
            self.git,
            "-c",
            f"user.name={GIT_NAME}",
            "-c",
            f"user.email={GIT_EMAIL}",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.hooksPath=" + os.devnull,
            *args,
        ]
        try:
            proc = subprocess.run(
                cmd,
                cwd=self.root,
                env=_env(),
                capture_output=True,
                text=True,
                timeout=_TIMEOUT,
                check=False,
            )
        except FileNotFoundError as exc:
            if not self.root.is_dir():  # the working folder, not git, is what is missing
                raise NotesGitError(
                    f"the notes workspace {self.root} was removed while its notes were being "
                    "written (the user was deleted meanwhile?); nothing was committed, write "
                    "the notes again"
                ) from exc
            raise GitUnavailableError(f"git executable {self.git!r} disappeared: {exc}") from exc
        except subprocess.TimeoutExpired as exc:
            raise NotesGitError(f"git {' '.join(args)} timed out after {_TIMEOUT}s") from exc
        if check and proc.returncode != 0:
            said = proc.stderr.strip() or proc.stdout.strip()
            if _says_disk_full(said, self.root):
                raise NotesDiskFullError(
                    f"not enough free disk space to write the notes repository in {self.root} "
                    f"(git {' '.join(args)}: {said}); nothing was changed: the notes "
                    "are as they were before this update. Free some space and retry"
                )
            raise NotesGitError(
                f"git {' '.join(args)} failed in {self.root} (exit {proc.returncode}): {said}"
            )
        return proc

    def ensure(self) -> None:
        """Create the workspace and its repository on first use (idempotent).

        The repository is made in a scratch folder and moved into place with one rename, so
        a ``git init`` that fails part-way (a full disk) leaves no ``.git`` behind that later
        writes would take for a repository. A ``.git`` that git cannot use (no ``HEAD``,
        ``objects`` or ``refs``: left by an initialisation that stopped, in an earlier
        version) is removed when it holds no objects, else set aside as
        ``.git.broken-<time>`` (its history kept for a repair by hand), and made again.

        A stale ``.git/index.lock`` (left by a git process that was killed) is removed: the
        caller holds the workspace's notes lock, and nothing else runs git here.
        """
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _disk_error(self.root, exc) from exc
        git_dir = self.root / ".git"
        if git_dir.exists() and not _usable(git_dir):
            self._set_aside(git_dir)
        if not git_dir.exists():
            self._init(git_dir)
        stale = git_dir / "index.lock"
        if stale.exists():
            logger.warning("removing stale git index lock %s", stale)
            stale.unlink(missing_ok=True)

    def _init(self, git_dir: Path) -> None:
        scratch = self.root / _INIT_DIR
        try:
            shutil.rmtree(scratch, ignore_errors=True)
            self.run("init", "-q", "--template=", _INIT_DIR)
            made = scratch / ".git"
            for key, value in (
                ("user.name", GIT_NAME),
                ("user.email", GIT_EMAIL),
                ("commit.gpgsign", "false"),
            ):
                self.run("--git-dir", str(made), "config", "--local", key, value)
            exclude = made / "info" / "exclude"
            try:
                exclude.parent.mkdir(parents=True, exist_ok=True)
                with exclude.open("a", encoding="utf-8") as handle:
                    handle.write(_EXCLUDES)
                os.rename(made, git_dir)
            except OSError as exc:
                raise _disk_error(self.root, exc) from exc
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        logger.info("initialised notes git repository in %s", self.root)

    def _set_aside(self, git_dir: Path) -> None:
        objects = git_dir / "objects"
        if not (objects.is_dir() and any(p.is_file() for p in objects.rglob("*"))):
            logger.warning("removing %s: a git repository whose creation stopped part-way", git_dir)
            shutil.rmtree(git_dir)
            return
        aside = git_dir.with_name(_BROKEN_PREFIX + datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f"))
        logger.error(
            "%s is not a usable git repository (no HEAD, objects or refs); moved it to %s "
            "(its history is kept there) and starting a new one",
            git_dir,
            aside,
        )
        os.rename(git_dir, aside)

    def is_dirty(self, relpath: str) -> bool:
        """Whether ``relpath`` differs from HEAD (modified, or present but untracked)."""
        out = self.run("status", "--porcelain", "--untracked-files=all", "--", relpath).stdout
        return bool(out.strip())

    def commit_file(self, relpath: str, message: str) -> str | None:
        """Stage ``relpath`` and commit it; returns the new commit id, None when unchanged."""
        self.run("add", "--", relpath)
        staged = self.run("diff", "--cached", "--quiet", "--", relpath, check=False)
        if staged.returncode == 0:
            return None
        self.run("commit", "-q", "--no-verify", "-m", message, "--", relpath)
        return self.run("rev-parse", "HEAD").stdout.strip()


def _says_disk_full(said: str, root: Path) -> bool:
    """Whether git's failure ``said`` is a full disk (or quota) under ``root``.

    Git says so for some writes ("No space left on device") and not for others (a config or
    ref lock it could not write): those count when the disk is (nearly) out of space or
    inodes as well.
    """
    text = said.lower()
    if any(sign in text for sign in _DISK_FULL):
        return True
    if not any(sign in text for sign in _WRITE_FAILED):
        return False
    folder = root
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    if st.f_bavail * st.f_frsize < _NEARLY_FULL_BYTES:
        return True
    return bool(st.f_files) and st.f_favail < _NEARLY_FULL_INODES


def _usable(git_dir: Path) -> bool:
    """Whether git would take ``git_dir`` for a repository (what ``git init`` makes first)."""
    return (
        (git_dir / "HEAD").is_file()
        and (git_dir / "objects").is_dir()
        and (git_dir / "refs").is_dir()
    )


def _disk_error(root: Path, exc: OSError) -> NotesGitError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return NotesDiskFullError(
            f"not enough free disk space to write the notes repository in {root} ({exc}); "
            "nothing was changed: the notes are as they were before this update. Free some "
            "space and retry"
        )
    return NotesGitError(f"cannot write the notes repository in {root}: {exc}")
