"""Backfill: registry, skip/redo logic, filters, kill-and-rerun safety, the real corpus."""

from __future__ import annotations

import os
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from memgraph.store import Store, open_store
from profiles.voice.backfill import BackfillRequest, registry_rows, run_backfill
from profiles.voice.capture import CaptureRequest, capture_transcript
from profiles.voice.pages import parse_page

sys.path.insert(0, str(Path(__file__).parent))
from _capture_helpers import PROMPTS, claude_records, write_transcript

SIDS = [f"{i:08x}-aaaa-bbbb-cccc-00000000000{i}" for i in range(1, 4)]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(tmp_path / "mg.db")


def tree(root: Path) -> list[Path]:
    """Two sessions with a page, one with too few messages."""
    files = [
        write_transcript(
            root / "-w-atlas" / f"{SIDS[0]}.jsonl", claude_records(PROMPTS, sid=SIDS[0])
        ),
        write_transcript(
            root / "-w-zeta" / f"{SIDS[1]}.jsonl",
            claude_records([f"zeta task {i}" for i in range(5)], sid=SIDS[1], cwd="/w/zeta"),
        ),
        write_transcript(
            root / "-w-atlas" / f"{SIDS[2]}.jsonl", claude_records(["just one", "ok"], sid=SIDS[2])
        ),
    ]
    return files


def req(tmp_path: Path, **kw: object) -> BackfillRequest:
    base: dict[str, object] = {"roots": [tmp_path / "tx"], "vault": tmp_path / "v"}
    base.update(kw)
    return BackfillRequest(**base)  # type: ignore[arg-type]


def test_backfill_pages_skips_and_records(store: Store, tmp_path: Path) -> None:
    tree(tmp_path / "tx")
    report = run_backfill(store, req(tmp_path))
    assert report.counts() == {"paged": 2, "skipped": 1}
    rows = {r.session_id: r for r in registry_rows(store)}
    assert rows[SIDS[0]].status == "paged"
    assert rows[SIDS[0]].page == f"atlas/voice/2026-04-14-{SIDS[0][:8]}.md"
    assert rows[SIDS[0]].message_count == 4 and len(rows[SIDS[0]].sha256) == 64
    assert rows[SIDS[2]].status == "skipped" and rows[SIDS[2]].reason == "too_few_messages:1"
    assert rows[SIDS[1]].page is not None and rows[SIDS[1]].page.startswith("zeta/voice/")
    assert report.bytes_read == report.bytes_total > 0


def test_rerun_skips_everything_and_writes_nothing(store: Store, tmp_path: Path) -> None:
    tree(tmp_path / "tx")
    run_backfill(store, req(tmp_path))
    pages = {p: p.read_bytes() for p in (tmp_path / "v").rglob("*.md")}
    counts = store.counts()
    report = run_backfill(store, req(tmp_path))
    assert report.counts() == {"unchanged": 3}
    assert report.bytes_read == 0
    assert store.counts() == counts
    assert {p: p.read_bytes() for p in (tmp_path / "v").rglob("*.md")} == pages


def test_touched_but_identical_file_is_not_reprocessed(store: Store, tmp_path: Path) -> None:
    files = tree(tmp_path / "tx")
    run_backfill(store, req(tmp_path))
    os.utime(files[0], ns=(1, 1))
    report = run_backfill(store, req(tmp_path))
    assert report.counts() == {"unchanged": 3}
    row = next(r for r in registry_rows(store) if r.session_id == SIDS[0])
    assert row.mtime_ns == 1


def test_grown_transcript_is_recaptured(store: Store, tmp_path: Path) -> None:
    files = tree(tmp_path / "tx")
    run_backfill(store, req(tmp_path))
    write_transcript(
        files[2], claude_records(["just one", "ok", "and two", "and three"], sid=SIDS[2])
    )
    report = run_backfill(store, req(tmp_path))
    assert report.counts() == {"unchanged": 2, "paged": 1}
    row = next(r for r in registry_rows(store) if r.session_id == SIDS[2])
    assert row.status == "paged" and row.reason is None


def test_killed_after_capture_before_registry_is_repaired(store: Store, tmp_path: Path) -> None:
    files = tree(tmp_path / "tx")
    # what a kill between capture and registry row leaves behind
    capture_transcript(store, CaptureRequest(transcript=files[0], vault=tmp_path / "v"))
    counts = store.counts()
    report = run_backfill(store, req(tmp_path))
    assert report.counts() == {"paged": 2, "skipped": 1}
    assert store.counts()["nodes"] > counts["nodes"]  # only the other sessions were added
    log = (tmp_path / "v" / "log.md").read_text().splitlines()
    assert len(log) == 2  # the first page was not rewritten
    pages = list((tmp_path / "v").rglob("*-????????.md"))
    assert len(pages) == 2
    for p in pages:
        parse_page(p.read_text())


def test_errors_are_recorded_and_retried(store: Store, tmp_path: Path) -> None:
    tree(tmp_path / "tx")
    bad = tmp_path / "tx" / "-w-bad" / "broken.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"\xff\xfe garbage\n{not json\n" + b"[1,2]\n")
    unreadable = tmp_path / "tx" / "-w-bad" / "locked.jsonl"
    unreadable.write_text("{}\n")
    unreadable.chmod(0)
    try:
        report = run_backfill(store, req(tmp_path))
    finally:
        unreadable.chmod(0o644)
    statuses = {Path(o.path).name: o.status for o in report.outcomes}
    assert statuses["broken.jsonl"] == "skipped"
    if os.geteuid() != 0:  # root reads mode-0 files
        assert statuses["locked.jsonl"] == "error"
        report = run_backfill(store, req(tmp_path))
        assert {Path(o.path).name: o.status for o in report.outcomes}["locked.jsonl"] != "error"


def test_since_and_project_filters(store: Store, tmp_path: Path) -> None:
    files = tree(tmp_path / "tx")
    old = datetime(2020, 1, 1, tzinfo=UTC).timestamp()
    os.utime(files[1], (old, old))
    report = run_backfill(store, req(tmp_path, since=date(2021, 1, 1), project="atlas"))
    assert {Path(o.path).name for o in report.outcomes} == {f.name for f in (files[0], files[2])}
    assert len(registry_rows(store)) == 2
    report = run_backfill(store, req(tmp_path, project="zeta"))
    assert report.counts() == {"unchanged": 2, "paged": 1}


def test_missing_root_is_a_warning(store: Store, tmp_path: Path) -> None:
    report = run_backfill(store, req(tmp_path, roots=[tmp_path / "nope"]))
    assert report.outcomes == [] and "does not exist" in report.warnings[0]


def test_a_missing_default_root_is_quiet_while_another_root_exists(
    store: Store, tmp_path: Path
) -> None:
    """A harness this machine does not run (no ~/.gemini/tmp) is not a warning on
    every backfill; a root the user named is, and so is every root missing."""
    from memgraph.config import default_transcripts

    claude, codex, gemini = default_transcripts()  # under the test's HOME
    claude.mkdir(parents=True)
    report = run_backfill(store, req(tmp_path, roots=[claude, codex, gemini]))
    assert report.warnings == []
    named = tmp_path / "named"
    report = run_backfill(store, req(tmp_path, roots=[claude, codex, named]))
    assert report.warnings == [f"transcript root {named} does not exist; skipped"]
    claude.rmdir()
    report = run_backfill(store, req(tmp_path, roots=[claude, codex, gemini]))
    assert len(report.warnings) == 3 and all("does not exist" in w for w in report.warnings)


def test_registry_rows_since(store: Store, tmp_path: Path) -> None:
    tree(tmp_path / "tx")
    t = datetime(2026, 5, 1, tzinfo=UTC)
    run_backfill(store, req(tmp_path, now=t))
    assert len(registry_rows(store, since=t)) == 3
    assert registry_rows(store, since=t + timedelta(seconds=1)) == []


def test_memory_store_backfills_like_sqlite(tmp_path: Path) -> None:
    """The registry is a store interface now: the in-memory backend backfills too,
    with the same outcomes, registry rows and node counts as SQLite."""
    tree(tmp_path / "tx")
    t = datetime(2026, 5, 1, tzinfo=UTC)
    mem = open_store(":memory:")
    disk = open_store(tmp_path / "disk.db")
    a = run_backfill(mem, req(tmp_path, now=t, vault=tmp_path / "v1"))
    b = run_backfill(disk, req(tmp_path, now=t, vault=tmp_path / "v2"))
    assert a.counts() == b.counts()
    assert [(r.path, r.status, r.message_count) for r in registry_rows(mem)] == [
        (r.path, r.status, r.message_count) for r in registry_rows(disk)
    ]
    assert mem.counts()["nodes"] == disk.counts()["nodes"]
    again = run_backfill(mem, req(tmp_path, now=t, vault=tmp_path / "v1"))
    assert set(again.counts()) <= {"unchanged"}
    disk.close()


def test_corpus_backfill(corpus: Path, store: Store, tmp_path: Path) -> None:
    report = run_backfill(store, req(tmp_path, roots=[corpus / "claude-code", corpus / "codex"]))
    counts = report.counts()
    assert counts.get("error", 0) == 0
    assert counts["paged"] >= 10
    rows = registry_rows(store)
    assert len(rows) == len(report.outcomes)
    assert all(r.status in ("paged", "skipped") for r in rows)
    assert any(r.reason and r.reason.startswith("too_few_messages:") for r in rows)
    # nothing from tool output reached the store as operator text
    for word in ("toolu_", "tool_result", "<local-command", "This session is being continued"):
        assert store.search(f'"{word}"', profile="voice") == []
    again = run_backfill(store, req(tmp_path, roots=[corpus / "claude-code", corpus / "codex"]))
    assert set(again.counts()) == {"unchanged"}


@pytest.mark.slow
def test_sigkill_mid_backfill_then_rerun(tmp_path: Path) -> None:
    """A real kill -9 during a batched backfill (many sessions per patch, per fsync):
    the rerun completes it with nothing lost or duplicated -- the same nodes, edges,
    pages and registry as an uninterrupted run, one balanced ledger entry per file."""
    import signal
    import sqlite3
    import subprocess
    import time

    from profiles.voice.backfill import BATCH_FILES
    from profiles.voice.ledger import ledger_entries

    n = 6 * BATCH_FILES + 7  # several batches, the last one partial
    root = tmp_path / "tx"
    for i in range(n):
        sid = f"{i:08x}-dddd-4ddd-8ddd-{i:012x}"
        prompts = [f"task {i} step {k} about hooks and pages" for k in range(4)]
        write_transcript(root / "p" / f"{sid}.jsonl", claude_records(prompts, sid=sid, filler=2000))
    env = {
        **os.environ,
        "MEMGRAPH_HOME": str(tmp_path / "home"),
        "MEMGRAPH_VAULT": str(tmp_path / "v"),
        "MEMGRAPH_TRANSCRIPTS": str(root),
    }
    cmd = [sys.executable, "-c", "from memgraph.cli import main; main()", "voice", "--backfill"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = tmp_path / "home" / "memgraph.db"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            # mode=ro: a plain connect would create an empty file the backfill then
            # (rightly) refuses as a truncated store
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
                if conn.execute("SELECT count(*) FROM voice_registry").fetchone()[0] >= 1:
                    break
        except sqlite3.Error:
            pass
        time.sleep(0.01)
    # the kill must land while the backfill is still working, or the test proves nothing
    assert proc.poll() is None, "backfill finished before the kill: make the corpus larger"
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        done_at_kill = conn.execute("SELECT count(*) FROM voice_registry").fetchone()[0]
    assert 1 <= done_at_kill < n, done_at_kill  # killed mid-run: work was left to do
    rerun = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    assert rerun.returncode == 0, rerun.stderr
    store = open_store(db)
    rows = registry_rows(store)
    assert len(rows) == n and {r.status for r in rows} == {"paged"}
    assert len({r.path for r in rows}) == n
    pages = sorted(p for p in (tmp_path / "v").rglob("*.md") if p.name != "log.md")
    assert len(pages) == n
    for p in pages:
        assert len(parse_page(p.read_text()).messages) == 4
    clean = open_store(tmp_path / "clean.db")
    run_backfill(clean, BackfillRequest(roots=[root], vault=tmp_path / "v-clean"))
    assert store.counts()["nodes"] == clean.counts()["nodes"] == n * 5
    assert store.counts()["edges"] == clean.counts()["edges"] == n * 4
    assert {x.id for x in store.iter_nodes()} == {x.id for x in clean.iter_nodes()}
    clean_pages = sorted(p for p in (tmp_path / "v-clean").rglob("*.md") if p.name != "log.md")
    assert [p.relative_to(tmp_path / "v") for p in pages] == [
        p.relative_to(tmp_path / "v-clean") for p in clean_pages
    ]
    for mine, theirs in zip(pages, clean_pages, strict=True):
        assert parse_page(mine.read_text()).messages == parse_page(theirs.read_text()).messages
    # the ledger: one entry per transcript, each balanced, the same as the clean run's
    entries = ledger_entries(store)
    assert sorted(e.path for e in entries) == sorted(r.path for r in rows)
    for e in entries:
        assert e.lines == e.captured + sum(e.filtered.values()) + sum(e.dropped.values())
    assert sum(e.captured for e in entries) == sum(e.captured for e in ledger_entries(clean))
    # a kill inside atomic_write_text may leave a hidden temp file, never a half page
    for leftover in (tmp_path / "v").rglob("*.tmp"):
        assert leftover.name.startswith(".")


@pytest.mark.parametrize("size", [0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 7, 3 << 20])
def test_stream_sha256_is_the_files_sha256(tmp_path: Path, size: int) -> None:
    """The transcript hash (registry, ledger) is sha256 of the bytes, however it is read."""
    import hashlib
    import io

    from memgraph.inputs import open_regular
    from profiles.voice.backfill import file_sha256
    from profiles.voice.hooks import FileDigest, stream_sha256

    data = os.urandom(size)
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    want = hashlib.sha256(data).hexdigest()
    assert file_sha256(path) == want
    got = FileDigest(path).get()
    assert got is not None and got[2] == want
    assert stream_sha256(io.BytesIO(data)) == want
    with open_regular(path, "transcript") as fh:
        skip = min(size, 5)
        fh.read(skip)  # already read from: the rest, through the reader
        assert stream_sha256(fh) == hashlib.sha256(data[skip:]).hexdigest()


def test_digest_worker_hashes_each_file_in_turn(tmp_path: Path) -> None:
    """Backfill's one hashing thread: each submitted file gets its own digest, a
    missing or unreadable one None, whether or not the earlier ones were awaited."""
    import hashlib

    from profiles.voice.hooks import DigestWorker

    datas = [os.urandom(n) for n in (0, 10, (1 << 20) + 3, 5000)]
    paths = []
    for i, data in enumerate(datas):
        path = tmp_path / f"{i}.jsonl"
        path.write_bytes(data)
        paths.append(path)
    (tmp_path / "dir.jsonl").mkdir()
    worker = DigestWorker()
    try:
        jobs = [worker.submit(p) for p in paths]
        skipped = worker.submit(paths[0])  # never awaited: the later ones still arrive
        missing = worker.submit(tmp_path / "gone.jsonl")
        a_dir = worker.submit(tmp_path / "dir.jsonl")
        for job, data, path in zip(reversed(jobs), reversed(datas), reversed(paths), strict=True):
            got = job.get()
            assert got is not None and got[2] == hashlib.sha256(data).hexdigest()
            assert got[:2] == (path.stat().st_size, path.stat().st_mtime_ns)
            assert job.get() == got  # asking twice
        assert missing.get() is None and a_dir.get() is None
        assert skipped is not None
    finally:
        worker.close()
    worker.close()  # twice: nothing to stop
    assert worker.submit(paths[1]).get() is not None  # restarts after close
    worker.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_the_ledger_is_kept_on_a_shared_store_too(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A damaged line captured into the fleet's PostgreSQL store is counted in the ledger
    there (it was kept only in SQLite files: `voice --stats`, `probe` and `doctor` on a
    shared store said 0 lines read, 0 dropped)."""
    from profiles.voice.ledger import ledger_entries
    from profiles.voice.search import voice_stats

    where = request.getfixturevalue("pg_url") if backend == "postgres" else tmp_path / "mg.db"
    s = open_store(where)
    try:
        files = tree(tmp_path / "tx")
        with files[0].open("a") as f:
            f.write('{"type": "user", "message": \n')  # damaged: invalid JSON
        run_backfill(s, req(tmp_path))
        entries = {e.path: e for e in ledger_entries(s)}
        assert len(entries) == 3 and all(e.balanced for e in entries.values())
        assert entries[str(files[0])].dropped == {"invalid_json": 1}
        stats = voice_stats(s)
        assert stats.ledger[0] == sum(e.lines for e in entries.values()) > 0
        assert stats.ledger[3] == 1 and stats.ledger_dropped == (("invalid_json", 1),)
    finally:
        s.close()
