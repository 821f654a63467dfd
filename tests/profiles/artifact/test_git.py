from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgraph.errors import ReaderError
from memgraph.store import open_store
from profiles.artifact.git import find_toplevel, read_commits
from profiles.artifact.ingest import commit_node, ingest_commits

ID = ["-c", "user.name=Tester", "-c", "user.email=t@example.test"]


def git(
    repo: Path, *args: str, when: str = "2026-03-02T10:00:00+00:00", name: str | None = None
) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    ident = ["-c", f"user.name={name}", "-c", "user.email=w@example.test"] if name else ID
    subprocess.run(
        ["git", "-C", str(repo), *ident, *args], check=True, env=env, capture_output=True
    )


def commit(repo: Path, files: dict[str, str], msg: str, when: str, name: str | None = None) -> None:
    for rel, body in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(body)
    git(repo, "add", "-A", when=when)
    git(repo, "commit", "-q", "-m", msg, when=when, name=name)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    return path


def test_reads_commits_with_files_times_and_weird_names(repo: Path) -> None:
    commit(
        repo,
        {"a.py": "1", "dir with space/b\u00e9.md": "2"},
        "first\n\nbody",
        "2026-03-02T10:00:00+02:00",
        name='Zoë "Z" O\'Neil; rm -rf /',
    )
    commit(repo, {"a.py": "3"}, "second", "2026-03-02T11:00:00Z")
    read = read_commits(repo)
    assert read.repo == "proj" and read.bad_records == 0
    first, second = read.commits
    assert first.committed_at == datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    assert first.author.startswith("Zoë")
    assert set(first.files) == {"a.py", "dir with space/b\u00e9.md"}
    assert first.body == "body" and first.subject == "first"
    assert second.files == ("a.py",) and second.branch == "main"
    assert not first.is_bot and not first.is_merge


def test_merge_commit_lists_first_parent_changes(repo: Path) -> None:
    commit(repo, {"base.txt": "0"}, "base", "2026-03-02T10:00:00Z")
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, {"feat.txt": "1"}, "feat", "2026-03-02T10:05:00Z")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"main.txt": "1"}, "main work", "2026-03-02T10:06:00Z")
    git(repo, "merge", "-q", "--no-edit", "feat", when="2026-03-02T10:10:00Z")
    merges = [c for c in read_commits(repo).commits if c.is_merge]
    assert len(merges) == 1 and merges[0].files == ("feat.txt",)


def test_since_until_bound_committer_time(repo: Path) -> None:
    for hour in (8, 10, 12):
        commit(repo, {"f.txt": str(hour)}, f"h{hour}", f"2026-03-02T{hour:02d}:00:00Z")
    read = read_commits(
        repo, datetime(2026, 3, 2, 9, tzinfo=UTC), datetime(2026, 3, 2, 11, tzinfo=UTC)
    )
    assert [c.subject for c in read.commits] == ["h10"]


def test_bot_commits_are_flagged(repo: Path) -> None:
    commit(repo, {"req.txt": "1"}, "bump", "2026-03-02T03:00:00Z", name="dependabot[bot]")
    assert read_commits(repo).commits[0].is_bot


def test_empty_repo_and_non_repo_read_as_nothing(repo: Path, tmp_path: Path) -> None:
    assert read_commits(repo).commits == []
    plain = tmp_path / "plain"
    plain.mkdir()
    read = read_commits(plain)
    assert read.commits == [] and "not inside a git repository" in read.warnings[0]
    assert find_toplevel(plain) is None
    assert find_toplevel(tmp_path / "missing") is None
    assert find_toplevel("bad\x00path") is None


@pytest.mark.parametrize("bad", ["   ", "a\x00b", "/definitely/not/here", "--output=/tmp/x"])
def test_hostile_paths_are_one_line_errors(bad: str, tmp_path: Path) -> None:
    with pytest.raises(ReaderError) as exc:
        read_commits(Path(bad))
    assert "\n" not in str(exc.value)


def test_a_file_is_not_a_repo_path(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_text("x")
    with pytest.raises(ReaderError):
        read_commits(f)


def test_subdirectory_resolves_to_toplevel(repo: Path) -> None:
    commit(repo, {"sub/x.py": "1"}, "x", "2026-03-02T10:00:00Z")
    assert find_toplevel(repo / "sub") == repo.resolve()
    assert find_toplevel(repo / "sub" / "x.py") == repo.resolve()
    assert read_commits(repo / "sub").repo == "proj"


def test_ingest_is_idempotent(repo: Path, tmp_path: Path) -> None:
    commit(repo, {"a.py": "1"}, "one", "2026-03-02T10:00:00Z")
    commit(repo, {"b.py": "1"}, "two", "2026-03-02T10:01:00Z")
    store = open_store(tmp_path / "s.db")
    commits = read_commits(repo).commits
    assert ingest_commits(store, commits).written == 2
    assert ingest_commits(store, read_commits(repo).commits).written == 0
    node = commit_node(commits[0])
    refs = {a.ref for a in node.anchors}
    assert {"repo:proj", "project:proj", "branch:proj@main", "path:proj:a.py"} <= refs
    assert node.valid_from == commits[0].committed_at
    store.close()
