"""SQLite specifics: WAL, recorded migrations, append-only receipts, FTS kept in
the same transaction, clear errors for unusable files and held locks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memgraph import ops
from memgraph.documents import NodeRevision, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import PatchRejected, StoreBusy, StoreError
from memgraph.store import open_store
from memgraph.store.memory import MemoryStore
from memgraph.store.schema import MIGRATIONS, all_migrations
from memgraph.store.sqlite import SQLiteStore, iso


def fts_ids(store: SQLiteStore, word: str) -> set[str]:
    return {h.node_id for h in store.search(word)}


def test_open_store_picks_the_backend(tmp_path: Path) -> None:
    assert isinstance(open_store(":memory:"), MemoryStore)
    s = open_store(tmp_path / "deep" / "dir" / "mg.db")
    assert isinstance(s, SQLiteStore) and (tmp_path / "deep" / "dir" / "mg.db").is_file()
    s.close()


def test_wal_mode(mg_sqlite: SQLiteStore) -> None:
    assert mg_sqlite.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_migrations_are_recorded_once(tmp_path: Path) -> None:
    path = tmp_path / "mg.db"
    with SQLiteStore(path) as s:
        rows = s.conn.execute(
            "SELECT version, description, applied_at FROM schema_migrations"
        ).fetchall()
    assert [r[0] for r in rows] == [m.version for m in all_migrations()]
    assert {1, 100} <= {r[0] for r in rows}
    assert all(r[1] and r[2].endswith("Z") for r in rows)
    with SQLiteStore(path) as again:  # reopening applies nothing twice
        assert again.conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(
            rows
        )
        assert again.schema_versions() == sorted(r[0] for r in rows)
    assert [m.version for m in MIGRATIONS] == sorted(m.version for m in MIGRATIONS)


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE receipts SET op = 'forged'",
        "DELETE FROM receipts",
        "UPDATE receipts SET doc = '{}' WHERE seq = 1",
    ],
)
def test_receipts_refuse_update_and_delete(mg_sqlite: SQLiteStore, mg_factory, sql: str) -> None:  # type: ignore[no-untyped-def]
    ops.upsert_node(mg_sqlite, mg_factory.node("a"))
    with pytest.raises(sqlite3.DatabaseError, match="receipts are append-only"):
        mg_sqlite.conn.execute(sql)
    assert len(mg_sqlite.receipts()) == 1
    # through the store API the same refusal is one clear StoreError
    with pytest.raises(StoreError, match="append-only"), mg_sqlite.transaction() as txn:
        txn.conn.execute(sql)  # type: ignore[attr-defined]


def test_fts_follows_inserts_updates_and_rollbacks(mg_sqlite: SQLiteStore, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a", title="zebra crossing", claim="giraffes everywhere")
    ops.upsert_node(mg_sqlite, a)
    assert fts_ids(mg_sqlite, "zebra") == {a.id} == fts_ids(mg_sqlite, "giraffes")
    ops.revise_node(mg_sqlite, a.id, NodeRevision(claim="okapi only"))
    assert fts_ids(mg_sqlite, "giraffes") == set() and fts_ids(mg_sqlite, "okapi") == {a.id}
    # a rejected patch leaves no FTS trace either: index and rows share one transaction
    b = mg_factory.node("b", claim="narwhal")
    with pytest.raises(PatchRejected):
        apply_patch(mg_sqlite, new_patch([UpsertNode(node=b), ops.RetireNode(node_id="n-x")]))  # type: ignore[attr-defined]
    assert fts_ids(mg_sqlite, "narwhal") == set()
    mg_sqlite.conn.execute("INSERT INTO node_fts(node_fts, rank) VALUES ('integrity-check', 1)")


def test_fts_rows_commit_with_their_nodes(mg_sqlite: SQLiteStore, mg_factory) -> None:  # type: ignore[no-untyped-def]
    """Another connection never sees a node without its FTS row or vice versa."""
    nodes = [mg_factory.node(f"n{i}", claim=f"walrus number {i}") for i in range(50)]
    with mg_sqlite.transaction() as txn:
        txn.put_nodes(nodes, [])
        other = sqlite3.connect(mg_sqlite.path)
        seen = other.execute(
            "SELECT count(*) FROM node_fts WHERE node_fts MATCH 'walrus'"
        ).fetchone()
        assert seen[0] == 0  # not committed yet
    assert (
        other.execute("SELECT count(*) FROM node_fts WHERE node_fts MATCH 'walrus'").fetchone()[0]
        == 50
    )
    assert other.execute("SELECT count(*) FROM nodes").fetchone()[0] == 50
    other.close()


def test_fts_matches_unicode_without_diacritics(mg_sqlite: SQLiteStore, mg_factory) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a", claim="Crème brûlée für Müller")
    ops.upsert_node(mg_sqlite, a)
    assert fts_ids(mg_sqlite, "creme brulee") == {a.id}
    assert fts_ids(mg_sqlite, "muller") == {a.id}


def test_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(
        StoreError, match=r"not a usable memgraph store|cannot open|not a memgraph store"
    ):
        SQLiteStore(junk)
    assert junk.read_bytes().startswith(b"this is not sqlite")  # untouched


def test_corrupt_database_is_a_store_error(tmp_path: Path, mg_factory) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "mg.db"
    with SQLiteStore(path) as s:
        ops.upsert_node(s, mg_factory.node("a"))
        s.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # smash the schema page
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError):
        SQLiteStore(path)


def test_directory_and_missing_readonly_paths(tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    with pytest.raises(StoreError):
        SQLiteStore(tmp_path / "adir")
    with pytest.raises(StoreError, match="no store at"):
        SQLiteStore(tmp_path / "none.db", readonly=True)


def test_readonly_store_refuses_writes(tmp_path: Path, mg_factory) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "mg.db"
    SQLiteStore(path).close()
    ro = SQLiteStore(path, readonly=True)
    with pytest.raises(StoreError):
        ops.upsert_node(ro, mg_factory.node("a"))
    ro.close()


def test_lock_held_past_deadline_is_store_busy(tmp_path: Path, mg_factory) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "mg.db"
    SQLiteStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    store = SQLiteStore(path, busy_deadline=0.3)
    store.conn.execute("PRAGMA busy_timeout = 50")
    try:
        with pytest.raises(StoreBusy, match="stayed locked"):
            ops.upsert_node(store, mg_factory.node("a"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    ops.upsert_node(store, mg_factory.node("a"))  # free again: works
    store.close()


def test_iso_is_fixed_width_utc() -> None:
    from datetime import UTC, datetime, timedelta, timezone

    assert iso(None) is None
    assert iso(datetime(1, 1, 1, tzinfo=UTC)) == "0001-01-01T00:00:00.000000Z"
    plus5 = timezone(timedelta(hours=5))
    assert iso(datetime(2026, 1, 1, 5, tzinfo=plus5)) == "2026-01-01T00:00:00.000000Z"
    assert len({len(iso(datetime(y, 1, 1, tzinfo=UTC)) or "") for y in (1, 999, 2026, 9999)}) == 1


def _wal_pages(path: Path) -> int:
    wal = Path(f"{path}-wal")
    return wal.stat().st_size // 4096 if wal.exists() else 0


def test_background_checkpoint_copies_commits_into_the_database(tmp_path: Path, mg_factory) -> None:  # type: ignore[no-untyped-def]
    from memgraph.store.checkpoint import SAFETY_NET_PAGES

    path = tmp_path / "mg.db"
    store = SQLiteStore(path)
    assert store._checkpointer is not None
    assert store.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == SAFETY_NET_PAGES
    size_before = path.stat().st_size
    nodes = [mg_factory.node(f"n{i}", claim="ballast " * 200) for i in range(400)]
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]))
    assert store._checkpointer.wait_idle(timeout=30)
    # the writer's own autocheckpoint is far off (SAFETY_NET_PAGES), so only the
    # helper thread can have moved these pages from the WAL into the file
    assert path.stat().st_size > size_before + 400 * 1000
    # and it did not truncate under anyone: a fresh reader sees every row
    other = sqlite3.connect(path)
    assert other.execute("SELECT count(*) FROM nodes").fetchone()[0] == 400
    other.close()
    store.close()
    assert not store._checkpointer._thread.is_alive()  # close joins the helper


def test_wal_stays_bounded_over_many_commits(tmp_path: Path, mg_factory) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "mg.db"
    store = SQLiteStore(path)
    assert store._checkpointer is not None
    for batch in range(30):
        nodes = [mg_factory.node(f"b{batch}-{i}", claim="ballast " * 100) for i in range(100)]
        apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]))
        store._checkpointer.wait_idle(timeout=30)
    # ~30 x 100 x ~2.5 KB went through; with checkpoints the WAL is reused from
    # its start, so it stays near one commit's size, not the sum of them all
    assert _wal_pages(path) < 400
    store.close()


def test_readonly_store_runs_no_checkpointer(tmp_path: Path) -> None:
    path = tmp_path / "mg.db"
    SQLiteStore(path).close()
    ro = SQLiteStore(path, readonly=True)
    assert ro._checkpointer is None
    ro.close()


def test_checkpointer_survives_a_busy_database_and_closes(tmp_path: Path) -> None:
    from memgraph.store.checkpoint import Checkpointer

    path = tmp_path / "plain.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t(x)")
    conn.execute("INSERT INTO t VALUES (1)")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN")
    holder.execute("SELECT * FROM t").fetchall()  # a reader pins the WAL snapshot
    ck = Checkpointer(path)
    for _ in range(5):
        ck.poke()
        assert ck.wait_idle(timeout=10)
    holder.execute("COMMIT")
    holder.close()
    ck.close()
    assert not ck._thread.is_alive()
    ck.close()  # twice is harmless
    conn.close()


def test_no_per_row_insert_triggers_on_nodes(mg_sqlite: SQLiteStore) -> None:
    """Inserted rows are indexed set-based (schema.NEW_NODE_ROWS), never per row."""
    triggers = mg_sqlite.conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'nodes'"
        " AND sql LIKE '%AFTER INSERT%'"
    ).fetchall()
    assert triggers == []


def test_new_row_statements_scan_only_the_new_rows(mg_sqlite: SQLiteStore) -> None:
    from memgraph.store.schema import new_node_statements

    statements = new_node_statements()
    assert any("node_fts" in s for s in statements)
    assert any("voice_index" in s for s in statements)
    assert any("session_notes" in s for s in statements)
    for sql in statements:
        plan = [r[3] for r in mg_sqlite.conn.execute("EXPLAIN QUERY PLAN " + sql, (0,))]
        on_nodes = [p for p in plan if p.startswith(("SEARCH n ", "SEARCH nodes ", "SCAN n"))]
        # the rowid range of this write, not a profile index over every row ever stored
        assert on_nodes and all("INTEGER PRIMARY KEY (rowid>?)" in p for p in on_nodes), plan


def test_big_insert_indexes_on_the_helper_and_matches_inline(tmp_path: Path, mg_factory) -> None:  # type: ignore[no-untyped-def]
    from memgraph.store.sqlite_txn import OVERLAP_MIN_ROWS

    nodes = [mg_factory.node(f"n{i}", claim=f"walrus {i}") for i in range(OVERLAP_MIN_ROWS)]
    big, small = SQLiteStore(tmp_path / "big.db"), SQLiteStore(tmp_path / "small.db")
    apply_patch(big, new_patch([UpsertNode(node=n) for n in nodes]))  # one patch: the helper
    for i in range(0, len(nodes), 100):  # many small ones: inline
        apply_patch(small, new_patch([UpsertNode(node=n) for n in nodes[i : i + 100]]))
    q = "SELECT rowid FROM node_fts WHERE node_fts MATCH ? ORDER BY rowid"
    for word in ("walrus", "n7", "1999"):
        assert big.conn.execute(q, (word,)).fetchall() == small.conn.execute(q, (word,)).fetchall()
    assert len(big.conn.execute(q, ("walrus",)).fetchall()) == OVERLAP_MIN_ROWS
    big.conn.execute("INSERT INTO node_fts(node_fts, rank) VALUES ('integrity-check', 1)")
    big.close()
    small.close()


def test_helper_failure_rolls_back_the_whole_patch(
    tmp_path: Path, mg_factory, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from memgraph.store import schema, sqlite_txn
    from memgraph.store.schema import new_node_statements

    store = SQLiteStore(tmp_path / "mg.db")
    ops.upsert_node(store, mg_factory.node("kept"))
    before = store.export_snapshot().model_copy(update={"exported_at": None})
    broken = (*new_node_statements(), "INSERT INTO no_such_table SELECT ?")
    monkeypatch.setattr(schema, "new_node_statements", lambda: broken)
    nodes = [mg_factory.node(f"n{i}") for i in range(sqlite_txn.OVERLAP_MIN_ROWS)]
    with pytest.raises(StoreError, match=r"nothing written.*no_such_table"):
        apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]))
    assert not store.conn.in_transaction
    assert store.export_snapshot().model_copy(update={"exported_at": None}) == before
    monkeypatch.undo()
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]))  # usable again
    assert store.counts()["nodes"] == len(nodes) + 1
    store.close()
    assert store._helper is not None and store._helper._shutdown  # close stops it


def test_one_patch_inserts_new_nodes_and_updates_changed_ones(
    mg_sqlite: SQLiteStore, mg_factory
) -> None:  # type: ignore[no-untyped-def]
    old = mg_factory.node("old", claim="aardvark")
    ops.upsert_node(mg_sqlite, old)
    rowid = mg_sqlite.conn.execute("SELECT rowid FROM nodes WHERE id = ?", (old.id,)).fetchone()
    new = mg_factory.node("new", claim="bonobo")
    apply_patch(
        mg_sqlite,
        new_patch([UpsertNode(node=new), UpsertNode(node=old.model_copy(update={"claim": "cat"}))]),
    )
    with mg_sqlite.reader() as r:
        assert r.get_nodes([old.id])[old.id].claim == "cat"
    # the update kept its row (an upsert), the new node got a row of its own
    assert (
        mg_sqlite.conn.execute("SELECT rowid FROM nodes WHERE id = ?", (old.id,)).fetchone()
        == rowid
    )
    assert fts_ids(mg_sqlite, "cat") == {old.id} and fts_ids(mg_sqlite, "aardvark") == set()
    assert fts_ids(mg_sqlite, "bonobo") == {new.id}
    assert mg_sqlite.conn.execute("SELECT count(*) FROM node_history").fetchone()[0] == 1


def test_an_existing_node_claimed_new_is_refused_not_overwritten(
    mg_sqlite: SQLiteStore, mg_factory
) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a", claim="original")
    ops.upsert_node(mg_sqlite, a)
    with pytest.raises(StoreError, match="nothing written"), mg_sqlite.transaction() as txn:
        txn.put_nodes([a.model_copy(update={"claim": "forged"})], [])  # no previous: "new"
    with mg_sqlite.reader() as r:
        assert r.get_nodes([a.id])[a.id].claim == "original"
    assert fts_ids(mg_sqlite, "original") == {a.id}


def test_upgrade_indexes_nodes_an_old_writer_left_out_of_fts(tmp_path: Path, mg_factory) -> None:  # type: ignore[no-untyped-def]
    """Before migration 11 the lean note path inserted node rows without FTS rows."""
    path = tmp_path / "mg.db"
    with SQLiteStore(path) as s:
        ops.upsert_node(s, mg_factory.node("a", claim="indexed normally"))
        # a row as the old lean path wrote it: no node_fts row
        s.conn.execute(
            "INSERT INTO nodes(id, profile, kind, domain_id, lifecycle, updated_at, title, body,"
            " doc) SELECT 'n-old', profile, kind, domain_id, lifecycle, updated_at, title,"
            " 'forgotten quokka', doc FROM nodes"
        )
        assert fts_ids(s, "quokka") == set()
        s.conn.execute("DELETE FROM schema_migrations WHERE version = 103")
    with SQLiteStore(path) as s:
        assert fts_ids(s, "quokka") == {"n-old"}
        assert len(fts_ids(s, "indexed")) == 1
        s.conn.execute("INSERT INTO node_fts(node_fts, rank) VALUES ('integrity-check', 1)")


def test_a_full_disk_is_named_not_called_an_io_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a full disk SQLite says "disk I/O error" (the -wal/-shm file cannot be made),
    which reads like failing hardware: every command said "store X: disk I/O error"
    (seen with a store on a full 600 kB tmpfs). With (almost) no room beside the
    store the line says so; with room, SQLite's text is kept as it is."""
    import os
    import sqlite3

    from memgraph.errors import StoreError
    from memgraph.store import guard
    from memgraph.store.sqlite_ext.base import begin_immediate

    real = os.statvfs(tmp_path)

    class Full:
        f_bavail, f_frsize = 3, real.f_frsize

    store = tmp_path / "mh" / "memgraph.db"
    io_error = sqlite3.OperationalError("disk I/O error")
    assert guard.sqlite_reason(store, io_error) == "disk I/O error"  # room enough here
    assert guard.sqlite_reason(store, sqlite3.OperationalError("no such table: x")) == (
        "no such table: x"
    )
    monkeypatch.setattr(guard.os, "statvfs", lambda _p: Full)
    reason = guard.sqlite_reason(store, io_error)
    assert reason.startswith(f"disk I/O error: the disk holding {store.parent} is full (")
    assert reason.endswith("kB free); free some space and rerun")

    class Conn:
        def execute(self, _sql: str) -> None:
            raise io_error

    with pytest.raises(StoreError, match=r"^store .*memgraph.db: disk I/O error: the disk .* full"):
        begin_immediate(Conn(), store, 1.0)  # type: ignore[arg-type]
