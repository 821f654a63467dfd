"""Store safety: refuse what is not a memgraph store, diagnose damage, survive
a vanished WAL, copy a live store, read a read-only one."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import contextlib

from _hostile import SAMPLE, assert_no_traceback, assert_one_error_line, env_for, run

from memgraph.errors import StoreError
from memgraph.store import open_store
from memgraph.store.sqlite import SQLiteStore

READ_COMMANDS = [
    ["stats"],
    ["voice", "--stats"],
    ["voice", "backoff"],
    ["voice", "--recent"],
    ["snapshot", "export"],
    ["session", "list"],
    ["wake"],
    ["context", "retry backoff"],
]
WRITE_COMMANDS = [["note", "a note", "--session", "s1"]]


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _seeded(root: Path) -> Path:
    env = env_for(root) | {"MEMGRAPH_TRANSCRIPTS": str(SAMPLE / "claude" / "projects")}
    r = run("voice", "--backfill", env=env)
    assert r.code == 0, r.err
    return root / "mg-home" / "memgraph.db"


def _make(kind: str, db: Path) -> None:
    db.parent.mkdir(parents=True, exist_ok=True)
    if kind == "empty":
        db.write_bytes(b"")
    elif kind == "not-sqlite":
        db.write_bytes(b"hello, I am a text file\n" * 50)
    elif kind == "foreign":
        conn = sqlite3.connect(db)
        conn.execute("CREATE TABLE contacts (name TEXT)")
        conn.execute("INSERT INTO contacts VALUES ('ada')")
        conn.commit()
        conn.close()
    elif kind == "newer":
        store = open_store(db)
        store.close()
        conn = sqlite3.connect(db)
        conn.execute("INSERT INTO schema_migrations VALUES (9999, 'from the future', 'x')")
        conn.commit()
        conn.close()


@pytest.mark.parametrize("kind", ["empty", "not-sqlite", "foreign", "newer"])
@pytest.mark.parametrize("argv", READ_COMMANDS + WRITE_COMMANDS, ids=lambda a: "-".join(a)[:20])
def test_not_a_memgraph_store_is_refused_and_never_written(
    sandbox: dict[str, Path], kind: str, argv: list[str]
) -> None:
    root = sandbox["root"]
    db = root / "mg-home" / "memgraph.db"
    _make(kind, db)
    before = _sha(db)
    r = run(*argv, env=env_for(root))
    if kind == "newer" and argv[0] == "voice":
        # the voice fast path reads with mode=ro and never writes: a newer store
        # is read, not refused (checking would cost its start-up budget)
        assert_no_traceback(r)
        assert _sha(db) == before
        return
    expect = {"empty": "0 bytes", "not-sqlite": "not an sqlite", "foreign": "not a memgraph",
              "newer": "newer memgraph"}[kind]  # fmt: skip
    assert_one_error_line(r, contains=expect)
    assert _sha(db) == before
    assert not Path(f"{db}-wal").exists() or kind == "newer"


@pytest.mark.parametrize("kind", ["empty", "not-sqlite", "foreign", "newer"])
def test_hook_and_backfill_refuse_too(sandbox: dict[str, Path], kind: str) -> None:
    root = sandbox["root"]
    db = root / "mg-home" / "memgraph.db"
    _make(kind, db)
    before = _sha(db)
    transcript = next((SAMPLE / "claude" / "projects").rglob("*.jsonl"))
    payload = json.dumps({"transcript_path": str(transcript)}).encode()
    assert_one_error_line(run("hook", "session-end", stdin=payload, env=env_for(root)))
    env = env_for(root) | {"MEMGRAPH_TRANSCRIPTS": str(SAMPLE / "claude" / "projects")}
    assert_one_error_line(run("voice", "--backfill", env=env))
    assert _sha(db) == before


def test_validate_explains_each_bad_store(sandbox: dict[str, Path]) -> None:
    root = sandbox["root"]
    for kind, expect in (
        ("empty", "empty (0 bytes)"),
        ("not-sqlite", "not an SQLite file"),
        ("foreign", "not a memgraph store"),
        ("newer", "newer memgraph"),
    ):
        db = root / kind / "memgraph.db"
        _make(kind, db)
        r = run("validate", str(db), env=env_for(root))
        assert_no_traceback(r)
        assert r.code == 1 and len(r.out.splitlines()) == 1 and expect in r.out, r.out


def _garble(db: Path) -> None:
    size = db.stat().st_size
    with db.open("r+b") as fh:
        for off in range(4096 * 3, size, 4096 * 5):
            fh.seek(off + 64)
            fh.write(b"\xde\xad\xbe\xef" * 300)


def test_garbled_pages_are_one_error_line_and_validate_says_damaged(
    sandbox: dict[str, Path],
) -> None:
    root = sandbox["root"]
    db = _seeded(root)
    _garble(db)
    for argv in (["voice", "--stats"], ["voice", "--recent"], ["voice", "backoff"],
                 ["snapshot", "export"]):  # fmt: skip
        r = run(*argv, env=env_for(root))
        assert_one_error_line(r, contains="store")
    r = run("validate", str(db), env=env_for(root))
    assert_no_traceback(r)
    assert r.code == 1 and "damaged store" in r.out and "recover" in r.out, r.out


def test_a_new_store_is_created_whole_or_not_at_all(tmp_path: Path) -> None:
    db = tmp_path / "new" / "memgraph.db"
    store = open_store(db)
    store.close()
    assert sorted(p.name for p in db.parent.iterdir() if not p.name.startswith("memgraph.db")) == []
    # the 0-byte refusal does not trap a store being created: creation is atomic
    with SQLiteStore(db) as again:
        assert again.schema_versions()


def test_deleting_the_wal_under_writers_fails_them_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "memgraph.db"
    a, b = open_store(db), open_store(db)
    try:
        with a.transaction():
            pass
        os.unlink(f"{db}-wal")
        os.unlink(f"{db}-shm")
        for store in (a, b):
            with (
                pytest.raises(StoreError, match=r"WAL file was (deleted|replaced)"),
                store.transaction(),
            ):
                pass
    finally:
        a.close()
        b.close()


def test_deleting_the_wal_under_a_running_cli_writer(sandbox: dict[str, Path]) -> None:
    """Two backfills on one store while the WAL disappears: no traceback, and the
    store afterwards is either intact or refused with recovery steps."""
    import subprocess

    root = sandbox["root"]
    db = _seeded(root)
    env = {**os.environ, **env_for(root), "PYTHONPATH": os.pathsep.join(sys.path),
           "MEMGRAPH_TRANSCRIPTS": str(SAMPLE)}  # fmt: skip
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "memgraph.cli", "note", f"note {i}", "--session", "s1"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(4)
    ]
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{db}{suffix}")
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert b"Traceback" not in err, err.decode()[-800:]
        lines = err.decode().strip().splitlines()
        assert p.returncode == 0 or (len(lines) == 1 and lines[0].startswith("Error:")), lines
    r = run("validate", str(db), env=env_for(root))
    assert_no_traceback(r)


def test_backup_copies_a_live_store_and_never_overwrites(sandbox: dict[str, Path]) -> None:
    root = sandbox["root"]
    db = _seeded(root)
    dest = root / "copy.db"
    r = run("backup", str(dest), env=env_for(root))
    assert r.code == 0, r.err
    assert run("validate", str(dest), env=env_for(root)).code == 0
    assert (
        run("stats", "--store", str(dest), env=env_for(root)).out
        == run("stats", env=env_for(root)).out
    )
    assert_one_error_line(run("backup", str(dest), env=env_for(root)), contains="exists")
    assert db.exists()


def test_read_commands_work_on_a_read_only_store(
    sandbox: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = sandbox["root"]
    db = _seeded(root)
    # in-process: the store is seen as not writable (root ignores file modes)
    monkeypatch.setattr("memgraph.store._writable", lambda path: False)
    store = open_store(db, for_reading=True)
    try:
        assert isinstance(store, SQLiteStore) and store.readonly
        assert store.counts()["nodes"] > 0
        assert store.search("backoff")
        with pytest.raises(StoreError, match="read-only"), store.transaction():
            pass
    finally:
        store.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file modes")
def test_read_commands_on_a_0444_store_in_a_read_only_dir(sandbox: dict[str, Path]) -> None:
    root = sandbox["root"]
    db = _seeded(root)
    for suffix in ("-wal", "-shm"):
        assert not Path(f"{db}{suffix}").exists()
    db.chmod(0o444)
    db.parent.chmod(0o555)
    try:
        for argv in [*READ_COMMANDS, ["validate", str(db)]]:
            r = run(*argv, env=env_for(root))
            assert_no_traceback(r)
            assert r.code == 0, (argv, r.err)
    finally:
        db.parent.chmod(0o755)
        db.chmod(0o644)
