"""Running git: ``run_git``, and ``start_git`` / ``finish_git`` (``abandon_git``) for two at once.

Kept apart from ``profiles.artifact.git`` (the commit reader, its dataclasses and
regexes): ``memgraph repo scan`` runs git on every rescan and needs only this.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from memgraph.errors import ReaderError

GIT_TIMEOUT = 60.0


def start_git(cwd: Path, *args: str) -> subprocess.Popen[bytes]:
    """``git -C cwd args`` started without the caller's GIT_* environment; collect
    it with ``finish_git``. A missing git is one ``ReaderError`` line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    try:
        # ``-C`` takes the resolved absolute path: it can never be read as an option.
        return subprocess.Popen(
            ["git", "-C", str(cwd), "-c", "core.quotepath=off", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
    except FileNotFoundError:
        raise ReaderError("git is not installed (needed for commits and repositories)") from None


def finish_git(proc: subprocess.Popen[bytes], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """The output of a ``start_git`` process, bounded in time (``GIT_TIMEOUT`` from
    here): a timeout kills it and is one ``ReaderError`` line."""
    with proc:
        try:
            out, err = proc.communicate(timeout=GIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise ReaderError(f"git timed out after {GIT_TIMEOUT:.0f}s in {cwd}") from None
        except BaseException:
            proc.kill()
            raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def abandon_git(proc: subprocess.Popen[bytes]) -> None:
    """Stop a ``start_git`` process whose output is no longer wanted (and reap it)."""
    with proc:
        proc.kill()


def run_git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """``git -C cwd args`` without the caller's GIT_* environment, bounded in time;
    a missing git or a timeout is one ``ReaderError`` line (commits and repo scans)."""
    return finish_git(start_git(cwd, *args), cwd)
