"""The repo cut's history signal (context_cut/repo_history.py): a module's past
commit subjects rank it for a task in their words; no history, no signal."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

from context_cut.repo_cut import RepoCutRequest, repo_cut
from context_cut.repo_history import history_docs, windowed_history_docs
from memgraph.store.memory import MemoryStore
from profiles.repo_scan.scan import ScanRequest, scan_repo

TREE = {
    "app/__init__.py": '"""App."""\n',
    "app/alpha.py": '"""Alpha: reads the input rows."""\n\n\ndef read_rows() -> None:\n    pass\n',
    "app/beta.py": '"""Beta: writes the output rows."""\n\n\ndef write_rows() -> None:\n    pass\n',
    "app/gamma.py": '"""Gamma: rows in between."""\n\n\ndef middle_rows() -> None:\n    pass\n',
}
_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=_ENV)


def _repo(root: Path) -> Path:
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "initial rows")
    return root


def _touch(root: Path, rel: str, subject: str) -> None:
    path = root / rel
    path.write_text(path.read_text() + "# edit\n")
    _git(root, "commit", "-qam", subject)


def _ranked(store: MemoryStore, text: str) -> list[str]:
    cut = repo_cut(store, RepoCutRequest(text=text, repo="repo", voice=False))
    return [p for p, _s in cut.ranked]


def test_past_subjects_rank_the_module_they_touched(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    query = "throttle the quota limiter"  # no module says these words
    before = _ranked(store, query)
    assert "app/gamma.py" not in before[:1]
    _touch(root, "app/gamma.py", "quota limiter: throttle bursts")
    scan_repo(store, ScanRequest(path=root))  # HEAD moved: the cut's index is rebuilt
    assert _ranked(store, query)[0] == "app/gamma.py"
    # the same repo scanned without history: no signal
    plain = MemoryStore()
    scan_repo(plain, ScanRequest(path=root, history=0))
    assert "app/gamma.py" not in _ranked(plain, query)[:1]


def test_non_git_folder_cut_works_without_history(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    assert _ranked(store, "write the output rows")[0] == "app/beta.py"


def test_history_docs_skip_bad_rows_and_unknown_paths() -> None:
    rows = [
        ["a" * 40, "quota limiter", ["app/gamma.py", "gone.py", 7]],
        ["b" * 40, "older quota", ["app/gamma.py"]],
        "not a row",
        ["c" * 40, None, ["app/alpha.py"]],
        ["d" * 40, "no files", None],
    ]
    docs = history_docs(rows, {"app/gamma.py", "app/alpha.py"})
    assert docs == {"app/gamma.py": Counter({"quota": 2, "limiter": 1, "older": 1})}
    assert history_docs(rows, {"app/gamma.py"}, window=1) == {
        "app/gamma.py": Counter({"quota": 1, "limiter": 1})
    }
    # several windows in one pass: each the same as its own history_docs
    paths = {"app/gamma.py", "app/alpha.py"}
    assert windowed_history_docs(rows, paths, (1, 3, 50)) == [
        history_docs(rows, paths, window=w) for w in (1, 3, 50)
    ]
