"""``files.git_state``: the top folder and HEAD from one git process; ``list_files``
runs it beside ``git ls-files``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memgraph.errors import ReaderError
from profiles.repo_scan.files import git_state, list_files
from tests.repo_tree import git as _git


def test_git_state_outside_git_without_commit_and_in_a_sub_folder(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n")
    assert git_state(plain) == (None, None)
    assert list_files(plain).git is False and list_files(plain).paths == ["a.py"]
    repo = tmp_path / "with space"
    (repo / "sub").mkdir(parents=True)
    (repo / "sub" / "b.py").write_text("y = 2\n")
    _git(repo, "init", "-q")
    assert git_state(repo) == (repo.resolve(), None)  # no commit yet: no HEAD
    listing = list_files(repo)
    assert listing.git is True and listing.head is None and listing.paths == ["sub/b.py"]
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "first")
    head = _git(repo, "rev-parse", "HEAD")
    assert git_state(repo) == (repo.resolve(), head)
    assert git_state(repo / "sub") == (repo.resolve(), head)
    assert list_files(repo / "sub").head == head and list_files(repo / "sub").paths == ["b.py"]


def test_list_files_runs_both_gits_at_once_and_stops_the_listing_on_a_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``rev-parse`` and ``ls-files`` start together; a ``rev-parse`` that times out is
    one ``ReaderError`` line and the listing started beside it is killed and reaped."""
    import profiles.artifact.gitrun as gitrun
    import profiles.repo_scan.files as files

    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    _git(repo, "init", "-q")
    started: list[tuple[str, ...]] = []
    real_start = gitrun.start_git

    def start(cwd: Path, *args: str) -> subprocess.Popen[bytes]:
        started.append(args[:1])
        return real_start(cwd, *args)

    monkeypatch.setattr(files, "start_git", start)
    assert files.list_files(repo).paths == ["a.py"]
    assert started == [("rev-parse",), ("ls-files",)]
    stopped: list[subprocess.Popen[bytes]] = []
    monkeypatch.setattr(files, "abandon_git", lambda p: (stopped.append(p), p.kill(), p.wait()))
    monkeypatch.setattr(gitrun, "GIT_TIMEOUT", 0.0)  # communicate() times out at once
    with pytest.raises(ReaderError, match="git timed out"):
        files.list_files(repo)
    assert len(stopped) == 1 and stopped[0].args[5] == "ls-files"
    assert stopped[0].returncode is not None  # reaped
