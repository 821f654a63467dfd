"""Backfill's read-ahead process: the same backfill whoever read each file."""

from __future__ import annotations

import hashlib
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgraph.store import open_store
from profiles.voice import readahead
from profiles.voice.backfill import BackfillRequest, read_options, registry_rows, run_backfill
from profiles.voice.readers import read_transcript

sys.path.insert(0, str(Path(__file__).parent))
from _capture_helpers import claude_records, write_transcript


def make_tree(root: Path, n: int = 6) -> list[Path]:
    files = []
    for i in range(n):
        sid = f"{i:08x}-aaaa-bbbb-cccc-0000000000{i:02d}"
        prompts = [f"task {i} step {k}" for k in range(3 + i % 3)]
        files.append(
            write_transcript(
                root / f"-w-p{i % 2}" / f"{sid}.jsonl", claude_records(prompts, sid=sid)
            )
        )
    (root / "-w-p0" / "broken.jsonl").write_bytes(b'{"type":"user","message":\n\x00\xff\n')
    return files


def wait_for(ahead: readahead.ReadAhead, i: int) -> None:
    """Until the child's read of file ``i`` arrived (generous: a loaded machine)."""
    deadline = time.monotonic() + 60
    while i not in ahead._reads and time.monotonic() < deadline:
        time.sleep(0.01)


def test_the_childs_reads_are_the_readers(tmp_path: Path) -> None:
    files = make_tree(tmp_path / "tx")
    files.append(tmp_path / "gone.jsonl")  # cannot be read: the backfill reads (and reports)
    ahead = readahead.ReadAhead(files, read_options())
    try:
        wait_for(ahead, 3)
        assert 3 in ahead._reads
        got = ahead.take(files[3])
        assert got == read_transcript(files[3], read_options())
        assert ahead.take(files[3]) is None  # taken once
        assert ahead.take(tmp_path / "not-asked.jsonl") is None
        wait_for(ahead, len(files) - 2)
        assert ahead.take(files[-1]) is None  # the child could not read it either
        assert ahead.taken == 1
    finally:
        ahead.close()
    assert ahead._child.returncode == 0  # ended cleanly, not killed nor aborted
    assert ahead.take(files[4]) is None  # closed: nothing left


def test_a_child_that_dies_costs_nothing(tmp_path: Path) -> None:
    files = make_tree(tmp_path / "tx")
    ahead = readahead.ReadAhead(files, read_options())
    ahead._child.kill()
    ahead._child.wait()
    for path in files:
        ahead.take(path)  # never waits, never raises
    ahead.close()


@pytest.mark.parametrize("kill", [False, True])
def test_backfill_is_the_same_with_and_without_the_read_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kill: bool
) -> None:
    make_tree(tmp_path / "tx")
    now = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)

    def backfill(name: str) -> tuple[object, ...]:
        store = open_store(tmp_path / f"{name}.db")
        request = BackfillRequest(roots=[tmp_path / "tx"], vault=tmp_path / name, now=now)
        report = run_backfill(store, request)
        rows = sorted((r.path, r.status, r.reason, r.message_count) for r in registry_rows(store))
        snapshot = store.export_snapshot()
        store.close()
        pages = {
            p.relative_to(tmp_path / name).as_posix(): p.read_bytes()
            for p in sorted((tmp_path / name).rglob("*.md"))
            if p.name != "log.md"
        }
        return report.counts(), report.ledger.totals(), rows, len(snapshot.nodes), pages

    monkeypatch.setattr(readahead, "start", lambda *a: None)
    alone = backfill("alone")
    started: list[readahead.ReadAhead] = []

    def start(paths: list[Path], sizes: list[int], options: object) -> readahead.ReadAhead:
        ahead = readahead.ReadAhead(paths, read_options())
        if kill:
            ahead._child.kill()
        else:
            wait_for(ahead, len(paths) - 1)  # every read from the child
        started.append(ahead)
        return ahead

    monkeypatch.setattr(readahead, "start", start)
    both = backfill("both")
    assert len(started) == 1
    if not kill:
        assert started[0].taken == 7  # every file's read came from the child
        assert started[0]._child.returncode == 0
    assert both == alone
    assert alone[0] == {"paged": 6, "skipped": 1}  # the broken file: read, nothing in it
    assert alone[1]["dropped_by_reason"] == {"invalid_json": 1}  # type: ignore[index]


def test_only_files_that_may_need_reading_are_read_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a rerun the child gets the files whose stat moved and the new ones, from the
    first of them on; unchanged files are never read ahead."""
    files = sorted(make_tree(tmp_path / "tx"))
    store = open_store(tmp_path / "mg.db")
    request = BackfillRequest(roots=[tmp_path / "tx"], vault=tmp_path / "v")
    monkeypatch.setattr(readahead, "start", lambda *a: None)
    run_backfill(store, request)
    asked: list[list[Path]] = []

    def start(paths: list[Path], sizes: list[int], options: object) -> None:
        asked.append(paths)

    monkeypatch.setattr(readahead, "start", start)
    with files[4].open("ab") as fh:
        fh.write(b"\n")  # stat moved (content too)
    with files[1].open("ab") as fh:
        fh.write(b"\n")
    new = tmp_path / "tx" / "-w-p1" / "ffffffff-aaaa-bbbb-cccc-000000000099.jsonl"
    write_transcript(new, claude_records(["a new one", "and more"], sid="ffffffff-aaaa"))
    report = run_backfill(store, request)
    order = [p for p in sorted((tmp_path / "tx").rglob("*.jsonl"))]
    first = min(order.index(files[1]), order.index(files[4]), order.index(new))
    assert asked == [[p for p in order[first:] if p in (files[1], files[4], new)]]
    assert report.counts()["unchanged"] == len(order) - 3
    # the files hashed ahead (new, and moved ones) are recorded with their own hash
    sha = {r.path: r.sha256 for r in registry_rows(store)}
    for p in order:
        assert sha[str(p)] == hashlib.sha256(p.read_bytes()).hexdigest(), p
    store.close()


def test_no_child_on_a_busy_or_single_core_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = make_tree(tmp_path / "tx")
    sizes = [1 << 20] * len(files)
    monkeypatch.setattr(readahead.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(readahead.os, "getloadavg", lambda: (1.5, 1.0, 1.0))
    assert not readahead.core_free() and readahead.start(files, sizes, read_options()) is None
    monkeypatch.setattr(readahead.os, "getloadavg", lambda: (0.4, 1.0, 1.0))
    assert readahead.core_free()
    assert readahead.start(files[:2], sizes[:2], read_options()) is None  # too few files
    assert readahead.start(files, [10] * len(files), read_options()) is None  # too few bytes
    ahead = readahead.start(files, sizes, read_options())
    assert ahead is not None
    ahead.close()
    monkeypatch.setattr(readahead.os, "cpu_count", lambda: 1)
    assert not readahead.core_free()
