"""Commit history per file (profiles/repo_scan/history.py): parsing hostile
``git log`` output, the history node keyed on HEAD (incremental, written only
when HEAD moves, no summary staled by it), and folders without git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph.snapshot import validate_path
from memgraph.store import open_store
from memgraph.store.memory import MemoryStore
from memgraph.store.protocol import Store
from profiles.repo_scan.history import (
    MAX_FILES,
    MAX_SUBJECT,
    history_node_id,
    parse_log,
    read_history,
)
from profiles.repo_scan.scan import ScanRequest, scan_repo

SHA1 = "a" * 40
SHA2 = "b" * 40
_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}


def _git(root: Path, *args: str, data: bytes | None = None) -> str:
    proc = subprocess.run(
        ["git", "-C", str(root), *args], input=data, capture_output=True, check=True, env=_ENV
    )
    return proc.stdout.decode("utf-8", "replace").strip()


def _commit(root: Path, message: bytes | str) -> str:
    raw = message.encode() if isinstance(message, str) else message
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-F", "-", data=raw)
    return _git(root, "rev-parse", "HEAD")


def _init(root: Path) -> Path:
    _git(root, "init", "-q")
    _commit(root, "initial shop")
    return root


def _history(store: Store, repo: str = "shop") -> Any:
    nid = history_node_id(repo)
    with store.reader() as reader:
        return reader.get_nodes([nid]).get(nid)


# -- parsing ---------------------------------------------------------------------------
def test_parse_records_files_and_hostile_subjects() -> None:
    big = b"x" * 1_000_000
    data = (
        b"\0" + SHA1.encode() + b"\0fix \x1b[31mred\x07 \xff\xfe bytes\x1e\x1f\0\na.py\0b/c.py\0"
        b"\0" + SHA2.encode() + b"\0" + big + b"\0"
        b"\0not-a-sha\0junk\0\nz.py\0"
        b"\0" + b"c" * 40 + b"\0\0\n\nnewline-first.py\0"
    )
    got = parse_log(data)
    assert [c.sha for c in got] == [SHA1, SHA2, "c" * 40]
    first = got[0]
    assert first.files == ("a.py", "b/c.py")
    assert "\x1b" not in first.subject and "\x07" not in first.subject
    assert "\x1e" not in first.subject and "\ufffd" in first.subject
    assert first.subject.startswith("fix") and "red" in first.subject
    assert got[1].subject == "x" * MAX_SUBJECT and got[1].files == ()
    assert got[2].subject == "" and got[2].files == ("\nnewline-first.py",)


def test_a_sweep_commit_keeps_its_subject_without_files() -> None:
    names = b"\0".join(f"f{i}.py".encode() for i in range(MAX_FILES + 1))
    got = parse_log(b"\0" + SHA1.encode() + b"\0ruff format\0\n" + names + b"\0")
    assert got[0].subject == "ruff format" and got[0].files == ()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=60),
            st.sampled_from([b"", b"\n", SHA1.encode(), SHA2.encode(), b"\x00", b"\xff"]),
        ),
        max_size=40,
    )
)
def test_parse_never_fails_and_keeps_its_bounds(parts: list[bytes]) -> None:
    for c in parse_log(b"\0".join(parts)):
        assert len(c.sha) in (40, 64) and all(ch in "0123456789abcdef" for ch in c.sha)
        assert len(c.subject) <= MAX_SUBJECT
        assert not any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in c.subject)
        assert len(c.files) <= MAX_FILES and all(c.files)


# -- the history node ------------------------------------------------------------------
def test_non_git_folder_has_no_history_and_scans(shop: Path) -> None:
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=shop))
    assert result.git is False and result.files > 5
    assert _history(store) is None
    assert read_history(shop, 10) is None


def test_hostile_commit_messages_in_a_real_repo(shop: Path) -> None:
    _init(shop)
    (shop / "shop" / "orders.py").write_text("X = 1\n")
    _commit(shop, b"orders: \x01ctl\x1f \xe9t\xe9 latin-1\n\nbody text")
    (shop / "shop" / "payments.py").write_text("Y = 2\n")
    _commit(shop, "refund " + "long " * 50_000)
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=shop))
    node = _history(store)
    assert node is not None and node.attributes["head"] == _git(shop, "rev-parse", "HEAD")
    rows = node.attributes["commits"]
    assert [r[2] for r in rows[:2]] == [["shop/payments.py"], ["shop/orders.py"]]
    assert len(rows[0][1]) == MAX_SUBJECT and rows[0][1].startswith("refund long")
    assert rows[1][1].startswith("orders:") and "\x01" not in rows[1][1]
    assert "body" not in rows[1][1]  # subjects only
    assert node.anchors and node.anchors[0].sha == node.attributes["head"]


def test_no_change_rescan_writes_nothing_with_history(shop: Path, tmp_path: Path) -> None:
    _init(shop)
    store = open_store(tmp_path / "g.db")
    first = scan_repo(store, ScanRequest(path=shop))
    assert first.receipts > 50 and _history(store) is not None
    before = store.counts()
    again = scan_repo(store, ScanRequest(path=shop))
    assert again.receipts == 0 and again.parsed_now == []
    assert store.counts() == before
    store.close()
    assert validate_path(tmp_path / "g.db") == []


def _stale(store: Store) -> set[str]:
    return {s.id for s in store.export_snapshot().summaries if s.freshness.state.value == "stale"}


def test_head_moves_history_follows_incrementally_and_stales_no_summary(
    shop: Path, tmp_path: Path
) -> None:
    _init(shop)
    store = open_store(tmp_path / "g.db")
    scan_repo(store, ScanRequest(path=shop))
    # a commit that changes no source file: only the history node is written
    (shop / "README.md").write_text("# shop\nmore\n")
    head = _commit(shop, "docs: readme")
    result = scan_repo(store, ScanRequest(path=shop))
    receipts = store.receipts()
    written = {r.target_id for r in receipts if r.patch_id == receipts[-1].patch_id}
    assert written == {history_node_id("shop")} and result.changed == []
    assert _stale(store) == set()
    node = _history(store)
    assert node.attributes["head"] == head
    assert [r[1] for r in node.attributes["commits"][:2]] == ["docs: readme", "initial shop"]
    # more commits: the stored window grows from the front, same as a fresh read
    for i in range(3):
        (shop / "shop" / f"extra{i}.py").write_text(f"V = {i}\n")
        _commit(shop, f"extra module {i}")
        scan_repo(store, ScanRequest(path=shop))
    rows = _history(store).attributes["commits"]
    fresh = [c.as_json() for c in read_history(shop, 400) or []]
    assert rows == fresh and rows[0][1] == "extra module 2"
    store.close()


def test_window_is_bounded_and_a_reset_rereads_it(shop: Path) -> None:
    _init(shop)
    for i in range(4):
        (shop / "shop" / "orders.py").write_text(f"N = {i}\n")
        _commit(shop, f"orders step {i}")
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=shop, history=3))
    rows = _history(store).attributes["commits"]
    assert [r[1] for r in rows] == ["orders step 3", "orders step 2", "orders step 1"]
    _git(shop, "reset", "-q", "--hard", "HEAD~2")
    (shop / "shop" / "orders.py").write_text("N = 9\n")
    _commit(shop, "orders rewritten")
    scan_repo(store, ScanRequest(path=shop, history=3))
    rows = _history(store).attributes["commits"]
    assert [r[1] for r in rows] == ["orders rewritten", "orders step 1", "orders step 0"]


def test_history_off_and_git_removed_retire_the_node(shop: Path) -> None:
    _init(shop)
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=shop, history=0))
    assert _history(store) is None
    scan_repo(store, ScanRequest(path=shop))
    assert _history(store).lifecycle == "observed"
    scan_repo(store, ScanRequest(path=shop, history=0))
    assert _history(store).lifecycle == "retired"


@settings(max_examples=8, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("commit"), st.integers(0, 2)),
            st.tuples(st.just("reset"), st.integers(1, 2)),
            st.tuples(st.just("readme"), st.just(0)),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_incremental_window_matches_a_fresh_read(steps: list[tuple[str, int]]) -> None:
    """After any sequence of commits, resets and commits outside the sources, the
    stored window equals a fresh bounded read at HEAD (linear histories)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "r"
        (root / "pkg").mkdir(parents=True)
        for k in range(3):
            (root / "pkg" / f"m{k}.py").write_text(f"X = {k}\n")
        _init(root)
        store = MemoryStore()
        scan_repo(store, ScanRequest(path=root, history=3))
        for i, (op, k) in enumerate(steps):
            if op == "commit":
                (root / "pkg" / f"m{k}.py").write_text(f"X = {i}\n")
                _commit(root, f"step {i} on m{k}")
            elif op == "readme":
                (root / "README.md").write_text(f"r{i}\n")
                _commit(root, f"readme {i}")
            elif int(_git(root, "rev-list", "--count", "HEAD")) > k:
                _git(root, "reset", "-q", "--hard", f"HEAD~{k}")
            scan_repo(store, ScanRequest(path=root, history=3))
            node = _history(store, "r")
            assert node.attributes["head"] == _git(root, "rev-parse", "HEAD")
            fresh = [c.as_json() for c in read_history(root, 3) or []]
            assert node.attributes["commits"] == fresh


def test_a_failing_git_leaves_the_scan_without_history(shop: Path, monkeypatch: Any) -> None:
    from memgraph.errors import ReaderError
    from profiles.repo_scan import history

    _init(shop)

    def timed_out(*_a: Any, **_k: Any) -> None:
        raise ReaderError("git timed out after 60s")

    monkeypatch.setattr(history, "read_history", timed_out)
    store = MemoryStore()
    result = scan_repo(store, ScanRequest(path=shop))
    assert result.git and result.files > 5 and _history(store) is None
