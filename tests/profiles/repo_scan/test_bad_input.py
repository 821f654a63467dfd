"""Bad input: one ledger line each, the scan continues, nothing outside the repo is read."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from memgraph.errors import ReaderError
from memgraph.store.memory import MemoryStore
from profiles.repo_scan.scan import ScanRequest, scan_repo

SECRET = "TOP-SECRET-OUTSIDE-THE-REPO"


def test_bad_files_are_ledgered_and_the_scan_continues(
    shop: Path, tmp_path: Path, kit: Any
) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text(f'"""{SECRET}"""\nKEY = "{SECRET}"\n')
    (shop / "shop" / "leak.py").symlink_to(outside)
    (shop / "shop" / "broken.py").write_text("def oops(:\n    pass\n")
    (shop / "shop" / "blob.py").write_bytes(b"\x00\x01\x02binary\x00")
    (shop / "shop" / "latin.py").write_bytes('"""caf\xe9"""\n'.encode("latin-1"))
    (shop / "shop" / "generated.py").write_text("X = 1\n" * 50_000)
    (shop / "shop" / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    os.mkfifo(shop / "shop" / "pipe.py")
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=shop, max_bytes=100_000))
    reasons = {line.path: line.reason for line in result.ledger}
    assert "outside the repository" in reasons["shop/leak.py"]
    assert reasons["shop/broken.py"].startswith("syntax error line 1")
    assert "binary" in reasons["shop/blob.py"]
    assert "not UTF-8" in reasons["shop/latin.py"]
    assert "too large" in reasons["shop/generated.py"]
    assert "dangling" in reasons["shop/dangling.py"]
    assert "not a regular file" in reasons["shop/pipe.py"]
    assert len(result.ledger) == 7  # one line each
    # the good files are all there; unparsable ones still have module nodes
    find = kit.by_title(store, "shop")
    assert find("module", "shop/orders.py")
    assert find("module", "shop/broken.py").attributes["parsed"] is False
    assert find("module", "shop/latin.py").attributes["parsed"] is False
    assert result.unparsed == ["shop/broken.py", "shop/latin.py"]
    titles = {n.title for n in kit.live_nodes(store, "shop").values()}
    assert not any(t.startswith(("shop/leak", "shop/blob", "shop/generated")) for t in titles)
    # nothing outside the repository was read into the graph
    assert SECRET not in store.export_snapshot().model_dump_json()


def test_a_tracked_folder_replaced_by_a_symlink_to_outside_is_not_read(tmp_path: Path) -> None:
    """git still lists ``pkg/mod.py`` from its index after ``pkg`` became a symlink to a
    folder elsewhere: reading the path would follow the folder's link out of the repo
    (the file's own lstat and O_NOFOLLOW see a regular file)."""
    import subprocess

    from profiles.repo_scan.status import repo_status

    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "mod.py").write_text("X = 1\n")
    (repo / "inner").mkdir()
    (repo / "inner" / "ok.py").write_text("Y = 2\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "init"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env)
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=repo, link_commits=False))
    outside.mkdir()
    (outside / "mod.py").write_text(f'"""{SECRET}"""\nKEY = "{SECRET}"\n')
    for f in (repo / "pkg").iterdir():
        f.unlink()
    (repo / "pkg").rmdir()
    (repo / "pkg").symlink_to(outside, target_is_directory=True)
    (repo / "alias").symlink_to(repo / "inner", target_is_directory=True)  # inside: fine
    (repo / "alias.py").write_text("Z = 3\n")
    result = scan_repo(store, ScanRequest(path=repo, link_commits=False))
    reasons = {line.path: line.reason for line in result.ledger}
    assert "symlink to outside the repository" in reasons["pkg/mod.py"]
    assert len(result.ledger) == 1
    assert result.deleted == ["pkg/mod.py"]  # its nodes retire: the file is not the repo's
    assert SECRET not in store.export_snapshot().model_dump_json()
    status = repo_status(store, repo)  # status reads the files the same way
    assert SECRET not in str(status)


def test_not_a_directory_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ReaderError, match="not a directory"):
        scan_repo(MemoryStore(), ScanRequest(path=tmp_path / "file.txt"))
    with pytest.raises(ReaderError, match="not a directory"):
        scan_repo(MemoryStore(), ScanRequest(path=tmp_path / "missing"))


def test_git_repo_uses_ls_files_and_respects_gitignore(shop: Path, kit: Any) -> None:
    import subprocess

    (shop / ".gitignore").write_text("ignored/\n")
    (shop / "ignored").mkdir()
    (shop / "ignored" / "skip.py").write_text("X = 1\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", "init", "-q", str(shop)], check=True, env=env)
    subprocess.run(["git", "-C", str(shop), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(shop), "commit", "-qm", "init"], check=True, env=env)
    head = subprocess.run(
        ["git", "-C", str(shop), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=shop))
    assert result.git and result.head == head
    titles = {n.title for n in kit.live_nodes(store, "shop").values()}
    assert "shop/orders.py" in titles and "ignored/skip.py" not in titles
    orders = kit.by_title(store, "shop")("module", "shop/orders.py")
    assert orders.anchors[0].sha == head


@pytest.mark.parametrize("files", [{}, {"README.md": "# docs only\n", "data.bin": "\x00"}])
def test_a_folder_without_source_files_scans_to_an_empty_repo(
    tmp_path: Path, kit: Any, files: dict[str, str]
) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    for rel, text in files.items():
        (root / rel).write_text(text, encoding="utf-8")
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=root))
    assert result.files == 0 and result.summaries_written == 0
    assert kit.by_title(store, "empty")("repo", "repo empty")
    assert scan_repo(store, ScanRequest(path=root)).receipts == 0
    # the first source file brings the summaries
    (root / "a.py").write_text('"""The first module."""\n', encoding="utf-8")
    later = scan_repo(store, ScanRequest(path=root))
    assert later.added == ["a.py"] and later.summaries_written >= 2
