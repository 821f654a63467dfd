"""Subject vectors stored at scan time (``context_cut/repo_vectors.py``): a repo cut
in a new process embeds only its task text, and ranks exactly as with the subjects
embedded afresh; a missing, damaged or foreign file is ignored with a notice.

The embedder is a fake under MiniLM's name (``test_repo_nearest.FakeMiniLM``) that
counts its calls; its vectors are float64 (``sqrt`` of a cosine), so a file that
rounded them (float32) would move the scores and fail the equality checks."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from context_cut import repo_nearest
from context_cut.repo_cut import RepoCutRequest, repo_cut
from context_cut.repo_vectors import (
    read_vectors,
    subject_key,
    sync_scanned,
    sync_subjects,
    vectors_path,
    write_vectors,
)
from memgraph.store import Store, open_store
from profiles.repo_scan.scan import ScanRequest, scan_repo
from tests.context_cut.test_repo_nearest import TASK, FakeMiniLM

MODEL = repo_nearest.MINILM
COSINES = {
    "make the importer faster": 0.83,
    "loader reads lazily": 0.71,
    "cache eviction policy": 0.3,
    "first": 0.1,
}
SUBJECTS = ["cache eviction policy", "loader reads lazily", "make the importer faster", "first"]


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


def _commit(root: Path, path: str, text: str, subject: str) -> None:
    (root / path).write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", subject)


@pytest.fixture(autouse=True)
def _fresh_memo() -> None:
    repo_nearest._MEMO.clear()  # each cut below is a new process's


def make_repo(tmp_path: Path) -> Path:
    """A git repo of four modules, one commit each (the subjects in ``COSINES``)."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    for name in ("__init__", "importer", "loader", "cache"):
        (root / "pkg" / f"{name}.py").write_text(f'"""The {name}."""\n')
    _git(root, "init", "-q")
    _commit(root, "pkg/__init__.py", '"""The package."""\n', "first")
    _commit(root, "pkg/importer.py", '"""Import rows fast."""\n', "make the importer faster")
    _commit(root, "pkg/loader.py", '"""Load lazily."""\n', "loader reads lazily")
    _commit(root, "pkg/cache.py", '"""Evict."""\n', "cache eviction policy")
    return root


@pytest.fixture
def scanned(tmp_path: Path) -> tuple[Store, Path]:
    root = make_repo(tmp_path)
    store = open_store(tmp_path / "g.db")
    scan_repo(store, ScanRequest(path=root))
    return store, root


def _never() -> FakeMiniLM:
    raise AssertionError("no embedder should be built")


def _cut(store: Store, root: Path, embedder: FakeMiniLM, where: Path | None) -> object:
    return repo_cut(store, RepoCutRequest(text=TASK, repo_path=root), embedder, where)


def test_a_cut_after_the_scan_embeds_only_its_task(
    scanned: tuple[Store, Path], tmp_path: Path
) -> None:
    store, root = scanned
    where = tmp_path / "repo-vectors"
    scan = FakeMiniLM(COSINES)
    report = sync_scanned(store, "proj", where, "minilm", lambda: scan)
    assert report is not None and report.written and (report.embedded, report.kept) == (4, 0)
    assert scan.calls == [SUBJECTS]  # one batch, in window order: what a cut would embed
    stored = FakeMiniLM(COSINES)
    with_file = _cut(store, root, stored, where)
    assert stored.calls == [[TASK]]  # exactly one text embedded
    repo_nearest._MEMO.clear()
    fresh = FakeMiniLM(COSINES)
    without = _cut(store, root, fresh, None)
    assert fresh.calls == [[TASK], SUBJECTS]
    # the signal is on (the near commits' files lead) and the floats are the same
    assert with_file.ranked[0][0] == "pkg/importer.py"  # type: ignore[attr-defined]
    assert with_file.ranked == without.ranked  # type: ignore[attr-defined]
    assert with_file.packet.notices == without.packet.notices  # type: ignore[attr-defined]


def test_a_rescan_with_no_change_writes_nothing_and_builds_no_embedder(
    scanned: tuple[Store, Path], tmp_path: Path
) -> None:
    store, root = scanned
    where = tmp_path / "repo-vectors"
    sync_scanned(store, "proj", where, "minilm", lambda: FakeMiniLM(COSINES))
    path = vectors_path(where, "proj", MODEL)
    before = os.stat(path)
    report = sync_scanned(store, "proj", where, "minilm", _never)
    assert report is not None and not report.written and report.kept == 4
    after = os.stat(path)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    # a new commit: only its subject is embedded, the gone-out-of-window rows dropped
    _commit(root, "pkg/cache.py", '"""Evict less."""\n', "cache keeps hot rows")
    scan_repo(store, ScanRequest(path=root))
    scan = FakeMiniLM(COSINES)
    report = sync_scanned(store, "proj", where, "minilm", lambda: scan)
    assert report is not None and (report.embedded, report.kept) == (1, 4)
    assert scan.calls == [["cache keeps hot rows"]]
    held, why = read_vectors(where, "proj", MODEL, 3)
    assert why is None and held is not None and len(held) == 5


def test_other_models_store_nothing(scanned: tuple[Store, Path], tmp_path: Path) -> None:
    store, _root = scanned
    where = tmp_path / "repo-vectors"
    assert sync_scanned(store, "proj", where, "hash", _never) is None
    assert sync_scanned(store, "proj", where, "ollama", _never) is None
    assert not where.exists()


def _damage(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:-8])  # the last number cut short


def _foreign(path: Path) -> None:
    # another repo's file under this repo's name
    other = path.parent / "elsewhere"
    rows = [(subject_key(s), [1.0, 0.0, 0.0]) for s in SUBJECTS]
    write_vectors(other, "another-repo", MODEL, 3, rows)
    os.replace(vectors_path(other, "another-repo", MODEL), path)


def _bad_number(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-8:] = b"\x00\x00\x00\x00\x00\x00\xf8\x7f"  # NaN
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("spoil", "reason"),
    [
        (_damage, "bytes after the header"),
        (_foreign, "another model or repo"),
        (_bad_number, "non-finite"),
    ],
)
def test_an_unusable_file_is_ignored_with_a_notice_and_rebuilt(
    scanned: tuple[Store, Path], tmp_path: Path, spoil: object, reason: str
) -> None:
    store, root = scanned
    where = tmp_path / "repo-vectors"
    sync_scanned(store, "proj", where, "minilm", lambda: FakeMiniLM(COSINES))
    path = vectors_path(where, "proj", MODEL)
    spoil(path)  # type: ignore[operator]
    cut = FakeMiniLM(COSINES)
    spoiled = _cut(store, root, cut, where)
    assert cut.calls == [[TASK], SUBJECTS]  # nothing taken from it
    notices = [n for n in spoiled.packet.notices if n.startswith("repo vectors")]  # type: ignore[attr-defined]
    assert len(notices) == 1 and reason in notices[0] and "memgraph repo scan" in notices[0]
    repo_nearest._MEMO.clear()
    assert spoiled.ranked == _cut(store, root, FakeMiniLM(COSINES), None).ranked  # type: ignore[attr-defined]
    scan = FakeMiniLM(COSINES)
    report = sync_scanned(store, "proj", where, "minilm", lambda: scan)
    assert report is not None and report.written and report.rebuilt and reason in report.rebuilt
    assert scan.calls == [SUBJECTS]
    assert read_vectors(where, "proj", MODEL, 3)[1] is None


def test_no_file_no_notice_same_ranking(scanned: tuple[Store, Path], tmp_path: Path) -> None:
    store, root = scanned
    cut = FakeMiniLM(COSINES)
    missing = _cut(store, root, cut, tmp_path / "repo-vectors")
    assert cut.calls == [[TASK], SUBJECTS]
    assert not [n for n in missing.packet.notices if n.startswith("repo vectors")]  # type: ignore[attr-defined]
    repo_nearest._MEMO.clear()
    assert missing.ranked == _cut(store, root, FakeMiniLM(COSINES), None).ranked  # type: ignore[attr-defined]


def test_the_file_round_trips_float64_and_refuses_duplicates_and_links(tmp_path: Path) -> None:
    vector = [0.1, 2.0 / 3.0, -(2.0**-40)]
    write_vectors(tmp_path, "r", MODEL, 3, [(subject_key("a"), vector)])
    held, why = read_vectors(tmp_path, "r", MODEL, 3)
    assert why is None and held == {subject_key("a"): vector}  # not rounded to float32
    assert read_vectors(tmp_path, "r", MODEL, 384)[1] is not None  # another dimension
    assert read_vectors(tmp_path, "r", "hash-v1-256", 3) == (None, None)  # another file
    write_vectors(tmp_path, "r", MODEL, 3, [(subject_key("a"), vector)] * 2)
    assert "duplicate" in str(read_vectors(tmp_path, "r", MODEL, 3)[1])
    path = vectors_path(tmp_path, "r", MODEL)
    write_vectors(tmp_path / "x", "r", MODEL, 3, [(subject_key("a"), vector)])
    path.unlink()
    path.symlink_to(vectors_path(tmp_path / "x", "r", MODEL))
    assert "symlink" in str(read_vectors(tmp_path, "r", MODEL, 3)[1])


def test_without_history_there_is_no_file(tmp_path: Path) -> None:
    where = tmp_path / "repo-vectors"
    report = sync_subjects(where, "r", MODEL, [], _never)
    assert not report.written and not where.exists()
    write_vectors(where, "r", MODEL, 3, [(subject_key("a"), [1.0, 0.0, 0.0])])
    report = sync_subjects(where, "r", MODEL, [], _never)  # the history node went away
    assert report.written and list(where.iterdir()) == []
