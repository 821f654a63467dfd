"""The scanner's reads never follow a folder swapped for a link out of the repository,
whenever the swap happens (files.py ``Folders``: no check-then-open gap), keep reading
through links that stay inside it, and leave no descriptor open."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from memgraph.store.memory import MemoryStore
from profiles.repo_scan import files
from profiles.repo_scan.scan import ScanRequest, scan_repo

SECRET = "TOP-SECRET-OUTSIDE-THE-REPO"
MINE = "THE-REPOSITORYS-OWN-TEXT"
OUT = "its folder is a symlink to outside the repository: not read"


def _repo(tmp_path: Path) -> tuple[Path, Path]:
    """``repo/pkg/mod.py`` (plus ``repo/top.py``) and a folder outside holding its
    namesake with a secret."""
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "mod.py").write_text(f'"""{MINE}"""\n')
    (repo / "top.py").write_text("X = 1\n")
    outside.mkdir()
    (outside / "mod.py").write_text(f'"""{SECRET}"""\nKEY = "{SECRET}"\n')
    return repo, outside


def _swapper(repo: Path, outside: Path) -> Callable[[], None]:
    """One swap, at most: ``pkg`` moved away and a link to ``outside`` put in its place."""
    done: list[bool] = []

    def swap() -> None:
        if not done:
            done.append(True)
            (repo / "pkg").rename(repo.parent / "moved")
            (repo / "pkg").symlink_to(outside, target_is_directory=True)

    return swap


def _snapshot(store: MemoryStore) -> str:
    return store.export_snapshot().model_dump_json()


def test_a_folder_swapped_for_a_link_out_after_the_check_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The swap lands between the folder's check and the file's open: right after the
    folder's realpath said "inside" (the check before), and right before the folder's
    own open (now). The open meets the link: refused, nothing of outside read."""
    repo, outside = _repo(tmp_path)
    swap = _swapper(repo, outside)
    realpath = os.path.realpath

    def checked(path: str | os.PathLike[str], **kw: bool) -> str:
        got = realpath(path, **kw)
        if os.fspath(path).endswith("/pkg"):
            swap()
        return got

    monkeypatch.setattr(os.path, "realpath", checked)
    if hasattr(files, "open_folder"):
        opened = files.open_folder

        def opening(name: str, dir_fd: int | None) -> int:
            if name == "pkg":
                swap()
            return opened(name, dir_fd)

        monkeypatch.setattr(files, "open_folder", opening)
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=repo, link_commits=False))
    assert (repo / "pkg").is_symlink()  # the swap happened
    assert {line.path: line.reason for line in result.ledger} == {"pkg/mod.py": OUT}
    assert result.files == 1  # top.py
    assert SECRET not in _snapshot(store)


def test_a_folder_swapped_after_it_was_opened_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The swap lands right before the file itself is looked at: the file is read from
    the folder that was opened (the repository's own text), never through the link."""
    repo, outside = _repo(tmp_path)
    swap = _swapper(repo, outside)
    lstat, names = os.lstat, ("mod.py", os.path.join(os.path.realpath(repo), "pkg", "mod.py"))

    def looking(path: str | os.PathLike[str], **kw: int | None) -> os.stat_result:
        if os.fspath(path) in names:
            swap()
        return lstat(path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "lstat", looking)
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=repo, link_commits=False))
    assert (repo / "pkg").is_symlink()
    assert result.ledger == [] and result.files == 2
    snapshot = _snapshot(store)
    assert SECRET not in snapshot and MINE in snapshot


def test_a_file_links_target_folder_swapped_after_the_resolve_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``alias.py`` links to ``real/orig.py``; right after the link is resolved (inside),
    ``real`` becomes a link out: the target is opened through its folder, which the
    open finds a link out, so nothing outside is read."""
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / "real").mkdir(parents=True)
    (repo / "real" / "orig.py").write_text(f'"""{MINE}"""\n')
    (repo / "alias.py").symlink_to(Path("real") / "orig.py")
    outside.mkdir()
    (outside / "orig.py").write_text(f'"""{SECRET}"""\n')
    realpath, done = os.path.realpath, []

    def resolving(path: str | os.PathLike[str], **kw: bool) -> str:
        got = realpath(path, **kw)
        if os.fspath(path).endswith("alias.py") and not done:
            done.append(True)
            (repo / "real").rename(tmp_path / "moved")
            (repo / "real").symlink_to(outside, target_is_directory=True)
        return got

    monkeypatch.setattr(os.path, "realpath", resolving)
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=repo, link_commits=False))
    assert done
    assert {line.path: line.reason for line in result.ledger} == {
        "alias.py": "symlink points outside the repository: not read",
        "real/orig.py": OUT,
    }
    assert SECRET not in _snapshot(store)


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, env=env)


def test_links_that_stay_inside_are_read_through(tmp_path: Path) -> None:
    """A tracked folder replaced by a link to another folder of the repository, a file
    link to a file of the repository (also through that folder link), and one to the
    root, a dangling one and one out: as before, the inside ones are read."""
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "mod.py").write_text("X = 1\n")
    (repo / "pkg" / "sub").mkdir()
    (repo / "pkg" / "sub" / "deep.py").write_text("D = 1\n")
    (repo / "real").mkdir()
    (repo / "real" / "orig.py").write_text(f'"""{MINE}"""\n')
    for name in ("alias.py", "via.py", "root.py", "dangling.py", "leak.py"):
        (repo / name).write_text("L = 1\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "init")
    (tmp_path / "outside.py").write_text(f'"""{SECRET}"""\n')
    # pkg becomes a link to a copy of it elsewhere in the repository (git still lists pkg/...)
    (repo / "pkg").rename(repo / "real" / "pkg")
    (repo / "pkg").symlink_to(Path("real") / "pkg", target_is_directory=True)
    links = {
        "alias.py": Path("real") / "orig.py",
        "via.py": Path("pkg") / "sub" / "up.py",
        "root.py": Path("."),
        "dangling.py": Path("nowhere.py"),
        "leak.py": tmp_path / "outside.py",
    }
    for name, target in links.items():
        (repo / name).unlink()
        (repo / name).symlink_to(target)
    (repo / "real" / "pkg" / "sub" / "up.py").symlink_to(Path("..") / ".." / "orig.py")
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=repo, link_commits=False))
    reasons = {line.path: line.reason for line in result.ledger}
    assert reasons == {
        "root.py": "not a regular file: not read",
        "dangling.py": "dangling or looping symlink: not read",
        "leak.py": "symlink points outside the repository: not read",
    }
    # pkg/mod.py, pkg/sub/deep.py (through pkg), real/orig.py, alias.py, via.py (through
    # pkg and up.py), and real/pkg/{mod,sub/deep,sub/up}.py (untracked, listed too)
    assert result.files == 8
    assert SECRET not in _snapshot(store)


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_folders_are_closed_after_a_scan_and_when_a_read_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    for i in range(6):
        for j in range(3):
            (repo / f"a{i}" / f"b{j}").mkdir(parents=True)
            (repo / f"a{i}" / f"b{j}" / "m.py").write_text(f"V = {i * 3 + j}\n")
        (repo / f"a{i}" / "n.py").write_text(f"W = {i}\n")
    monkeypatch.setattr(files.Folders, "CAP", 2)  # folders closed and opened again
    before = _open_fds()
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=repo, link_commits=False))
    assert result.files == 24 and result.ledger == []
    assert _open_fds() == before
    read, seen = files._read_at_most, []

    def failing(fd: int, limit: int, guess: int) -> bytes:
        seen.append(fd)
        if len(seen) == 10:
            raise KeyboardInterrupt
        return read(fd, limit, guess)

    monkeypatch.setattr(files, "_read_at_most", failing)
    (repo / "a5" / "n.py").write_text("W = 50\n")
    with pytest.raises(KeyboardInterrupt):
        scan_repo(store, ScanRequest(path=repo, link_commits=False))
    assert _open_fds() == before
