"""``files.git_state``: the top folder and HEAD from one git process."""

from __future__ import annotations

import subprocess
from pathlib import Path

from profiles.repo_scan.files import git_state, list_files


def _git(root: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return proc.stdout.strip()


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
