"""Snapshot export/import (library and CLI) and `memgraph validate` on good,
bad, malformed, truncated, hostile and corrupt inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from memgraph import ops
from memgraph.cli.app import app
from memgraph.documents import (
    MemoryGraphSnapshot,
    NodeRevision,
    ReviewNode,
    SummarizeCluster,
    TransitionNode,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import SnapshotError
from memgraph.snapshot import (
    import_snapshot_file,
    load_snapshot,
    parse_snapshot,
    render_snapshot,
    validate_path,
    write_snapshot_file,
)
from memgraph.store.memory import MemoryStore
from memgraph.store.sqlite import SQLiteStore

runner = CliRunner()


def populate(store: Any, f: Any) -> None:
    a, b = f.node("a", anchors=[f.anchor()]), f.node("b", lifecycle="proposed")
    e = f.edge(a, b)
    s1 = f.summary(nodes=[a.id], edges=[e.id])
    apply_patch(
        store,
        new_patch(
            [
                UpsertNode(node=a),
                UpsertNode(node=b),
                UpsertEdge(edge=e),
                SummarizeCluster(summary=s1),
            ]
        ),
    )
    apply_patch(
        store,
        new_patch(
            [
                ReviewNode(node_id=b.id, reviewer="r"),
                TransitionNode(node_id=b.id, to_state="accepted"),
            ]
        ),
    )
    ops.revise_node(store, a.id, NodeRevision(claim="revised", attributes={"z": 1, "a": [1, 2]}))
    ops.summarize_cluster(store, f.summary(summaries=[s1.id], claim="top"))
    ops.upsert_edge(store, e.model_copy(update={"claim": "edge v2"}))


@pytest.fixture
def db(tmp_path: Path, mg_factory: Any) -> Path:
    path = tmp_path / "good.db"
    with SQLiteStore(path) as s:
        populate(s, mg_factory)
    return path


def run(*args: str) -> Any:
    return runner.invoke(app, list(args))


# -- library ---------------------------------------------------------------------------


def test_export_import_export_is_byte_identical(db: Path, tmp_path: Path) -> None:
    with SQLiteStore(db) as s:
        first = render_snapshot(s.export_snapshot())
    snap = parse_snapshot(first)
    assert snap.node_history and snap.receipts and snap.patches and snap.summaries
    assert snap.edge_history and snap.summary_history and snap.exported_at
    with SQLiteStore(tmp_path / "copy.db") as copy:
        load_snapshot(copy, snap)
        second = render_snapshot(copy.export_snapshot())
    assert second == first
    mem = MemoryStore()
    load_snapshot(mem, parse_snapshot(second))
    assert render_snapshot(mem.export_snapshot()).replace(
        f'"schema_version": {snap.schema_version}', '"schema_version": 1'
    ) == first.replace(f'"schema_version": {snap.schema_version}', '"schema_version": 1')


def test_write_snapshot_file_is_atomic_and_readable(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "snap.json"
    # made here: a missing directory is refused, not created (a mistyped -o made a
    # tree of folders; see test_export_to_a_missing_directory_creates_nothing)
    out.parent.mkdir()
    with SQLiteStore(db) as s:
        write_snapshot_file(s.export_snapshot(), out)
    assert [p.name for p in out.parent.iterdir()] == ["snap.json"]  # no temp files left
    with SQLiteStore(tmp_path / "n.db") as n:
        assert len(import_snapshot_file(n, out).nodes) == 2


@pytest.mark.parametrize("kind", ["fifo", "symlink", "directory"])
def test_export_out_never_replaces_what_is_not_a_regular_file(
    db: Path, tmp_path: Path, kind: str
) -> None:
    """`-o /dev/full` (as root) or `-o /dev/stdout` once replaced the device or the
    link with a regular file: the atomic rename does not write through them."""
    import os
    import stat

    target = tmp_path / "elsewhere.json"
    target.write_text("keep\n")
    out = tmp_path / "out.json"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "symlink":
        out.symlink_to(target)
    else:
        out.mkdir()
    before = os.lstat(out).st_mode
    result = run("snapshot", "export", "--store", str(db), "-o", str(out))
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: cannot write ") and len(result.stderr.splitlines()) == 1
    assert "--out" in result.stderr
    assert stat.S_IFMT(os.lstat(out).st_mode) == stat.S_IFMT(before)  # still what it was
    assert target.read_text() == "keep\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_export_out_replaces_a_regular_file(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "old.json"
    out.write_text("old\n")
    assert run("snapshot", "export", "--store", str(db), "-o", str(out)).exit_code == 0
    assert len(parse_snapshot(out.read_text()).nodes) == 2


def test_invalid_snapshot_is_not_imported(tmp_path: Path, mg_factory: Any) -> None:
    a = mg_factory.node("a")
    snap = MemoryGraphSnapshot(nodes=[a], edges=[mg_factory.edge(a, mg_factory.node("ghost"))])
    store = MemoryStore()
    with pytest.raises(SnapshotError, match=r"does not exist \(1 problem"):
        load_snapshot(store, snap)
    assert store.counts()["nodes"] == 0


# -- bad snapshots for `memgraph validate` ------------------------------------------------


def _bad_snapshots(f: Any) -> dict[str, tuple[MemoryGraphSnapshot, str]]:
    a = f.node("a")
    return {
        "dangling_edge": (
            MemoryGraphSnapshot(nodes=[a], edges=[f.edge(a, f.node("ghost"))]),
            "does not exist",
        ),
        "summary_of_missing_id": (
            MemoryGraphSnapshot(nodes=[a], summaries=[f.summary(nodes=[a.id, "n-gone"])]),
            "covers missing id n-gone",
        ),
        "accepted_repo_without_review": (
            MemoryGraphSnapshot(nodes=[f.node("c", lifecycle="accepted")]),
            "without an approving review receipt",
        ),
        "role_self_with_repo_truth": (
            MemoryGraphSnapshot(nodes=[f.node("r", profile="role_self", attributes={"sha": "x"})]),
            "cannot carry repo truth",
        ),
        "duplicate_node": (MemoryGraphSnapshot(nodes=[a, a]), "duplicate id"),
        "embedding_for_missing_node": (
            MemoryGraphSnapshot.model_validate(
                {
                    "embeddings": [
                        {
                            "node_id": "n-x",
                            "model": "m",
                            "dimension": 3,
                            "source_hash": "h",
                            "embedded_at": "2026-01-01T00:00:00Z",
                        }
                    ]
                }
            ),
            "no node, edge or summary has that id",
        ),
    }


@pytest.mark.parametrize(
    "case",
    [
        "dangling_edge",
        "summary_of_missing_id",
        "accepted_repo_without_review",
        "role_self_with_repo_truth",
        "duplicate_node",
        "embedding_for_missing_node",
    ],
)
def test_validate_reports_bad_snapshots(tmp_path: Path, mg_factory: Any, case: str) -> None:
    snap, message = _bad_snapshots(mg_factory)[case]
    path = tmp_path / f"{case}.json"
    write_snapshot_file(snap, path)
    result = run("validate", str(path))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines and all(line.startswith(f"{path}: ") for line in lines)
    assert any(message in line for line in lines), lines
    assert "Traceback" not in result.output
    # import refuses the same file with one line and creates no store
    target = tmp_path / "never.db"
    imp = run("snapshot", "import", str(path), "--store", str(target))
    assert (
        imp.exit_code == 1
        and imp.stderr.startswith("Error: ")
        and len(imp.stderr.splitlines()) == 1
    )
    assert not target.exists()


def test_validate_good_store_and_good_snapshot(db: Path, tmp_path: Path) -> None:
    ok = run("validate", str(db))
    assert ok.exit_code == 0, ok.output
    assert ok.stdout == "" and ok.stderr.strip() == f"{db}: ok"
    snap = tmp_path / "good.json"
    assert run("snapshot", "export", "--store", str(db), "-o", str(snap)).exit_code == 0
    assert run("validate", str(snap)).exit_code == 0


def test_validate_json_is_one_object_per_problem(db: Path, tmp_path: Path) -> None:
    """`--json` as everywhere data is printed (the objects of `wiki validate --json`);
    a good path prints nothing on stdout, a URL's password never shows."""
    missing = tmp_path / "gone.db"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    url = "postgresql://u:hunter2@127.0.0.1:1/x"
    done = run("validate", "--json", str(db), str(missing), str(bad), url)
    assert done.exit_code == 1
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["path"] for r in rows] == [str(missing), str(bad), "postgresql://u@127.0.0.1:1/x"]
    assert all(r["level"] == "error" and r["message"] for r in rows)
    assert rows[0]["message"] == "no such file"
    assert "hunter2" not in done.stdout + done.stderr
    assert done.stderr.strip() == f"{db}: ok"


def test_validate_defaults_to_the_home_store(tmp_path: Path, mg_factory: Any) -> None:
    missing = run("validate")
    assert missing.exit_code == 1 and "no such file" in missing.stdout
    home = tmp_path / "mg-home"  # MEMGRAPH_HOME from the autouse fixture
    with SQLiteStore(home / "memgraph.db") as s:
        populate(s, mg_factory)
    assert run("validate").exit_code == 0


HOSTILE: dict[str, bytes] = {
    "empty": b"",
    "truncated": b'{"format": "memgraph.snapshot/1", "nodes": [{"id": "n-1", "dom',
    "not_json": b"hello world",
    "binary": bytes(range(256)),
    "utf16": '{"nodes": []}'.encode("utf-16"),
    "deep_nesting": b"[" * 200_000 + b"]" * 200_000,
    "wrong_type": b'{"nodes": {"id": 1}}',
    "wrong_format": b'{"format": "evil/9"}',
    "extra_key_with_newline": b'{"format": "memgraph.snapshot/1", "x\\ny: 1": 1}',
    "naive_datetime": b'{"exported_at": "2026-01-01T00:00:00"}',
    "huge_number": b'{"schema_version": 1e99999}',
    "top_level_list": b"[]",
    "null": b"null",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_validate_malformed_files_one_line_exit_1(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.json"
    path.write_bytes(HOSTILE[name])
    result = run("validate", str(path))
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 1 and result.stdout.startswith(f"{path}: ")
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    imp = run("snapshot", "import", str(path), "--store", str(tmp_path / "x.db"))
    assert imp.exit_code == 1 and imp.stderr.startswith("Error: ")
    assert len(imp.stderr.splitlines()) == 1 and "Traceback" not in imp.output


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_validate_never_crashes_on_arbitrary_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.json"
    path.write_bytes(data)
    problems = validate_path(path)
    assert problems and all("\n" not in p and p.startswith(str(path)) for p in problems)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cut=st.integers(min_value=0, max_value=10_000))
def test_truncated_real_snapshots_are_rejected_cleanly(db: Path, tmp_path: Path, cut: int) -> None:
    with SQLiteStore(db) as s:
        text = render_snapshot(s.export_snapshot()).encode()
    cut = cut % len(text)
    path = tmp_path / "cut.json"
    path.write_bytes(text[:cut])
    problems = validate_path(path)
    stripped = text[:cut].strip()
    if stripped != text.strip():
        assert problems, cut
    assert all("\n" not in p for p in problems)


def test_validate_corrupt_sqlite_store(db: Path, tmp_path: Path) -> None:
    with SQLiteStore(db) as s:
        s.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    bad = tmp_path / "corrupt.db"
    data[4096:8192] = b"\x00\xff" * 2048  # clobber a b-tree page, keep the header
    bad.write_bytes(bytes(data))
    result = run("validate", str(bad))
    assert result.exit_code == 1 and result.stdout.startswith(f"{bad}: ")
    assert "Traceback" not in result.output
    header_only = tmp_path / "header.db"
    header_only.write_bytes(b"SQLite format 3\x00" + b"\x00" * 50)
    result = run("validate", str(header_only))
    assert result.exit_code == 1 and result.stdout.startswith(f"{header_only}: ")


def test_validate_a_directory_and_a_foreign_sqlite_file(tmp_path: Path) -> None:
    import sqlite3

    result = run("validate", str(tmp_path))
    assert result.exit_code == 1 and result.stdout.startswith(f"{tmp_path}: ")
    foreign = tmp_path / "foreign.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    result = run("validate", str(foreign))
    assert result.exit_code == 1 and "schema_migrations" in result.stdout


def test_validate_bad_store_contents(tmp_path: Path, mg_factory: Any) -> None:
    """A store whose rows were tampered with outside the engine is reported."""
    path = tmp_path / "tampered.db"
    with SQLiteStore(path) as s:
        populate(s, mg_factory)
        s.conn.execute(  # documents are packed (memgraph.store.docpack)
            "UPDATE edges SET doc = mg_pack(json_set(mg_doc(doc), '$.target_id', 'n-gone'))"
        )
        s.conn.execute("UPDATE nodes SET doc = '{\"id\": 1}' WHERE rowid = 1")
    result = run("validate", str(path))
    assert result.exit_code == 1 and "malformed" in result.stdout


# -- CLI snapshot round trip and stats ---------------------------------------------------


def test_cli_export_import_export_byte_identical(db: Path, tmp_path: Path) -> None:
    first = run("snapshot", "export", "--store", str(db))
    assert first.exit_code == 0
    snap = tmp_path / "s.json"
    snap.write_text(first.stdout)
    imp = run("snapshot", "import", str(snap), "--store", str(tmp_path / "copy.db"))
    assert imp.exit_code == 0 and "imported 2 nodes, 1 edges" in imp.stderr
    second = run("snapshot", "export", "--store", str(tmp_path / "copy.db"))
    assert second.stdout == first.stdout
    out = tmp_path / "s2.json"
    assert (
        run("snapshot", "export", "--store", str(tmp_path / "copy.db"), "-o", str(out)).exit_code
        == 0
    )
    assert out.read_text() == first.stdout
    again = run("snapshot", "import", str(snap), "--store", str(tmp_path / "copy.db"))
    assert again.exit_code == 1 and "not empty" in again.stderr


def test_cli_export_to_an_unwritable_place_is_one_line(db: Path, tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    result = run("snapshot", "export", "--store", str(db), "-o", str(tmp_path / "taken"))
    assert result.exit_code == 1 and result.stderr.startswith("Error: cannot write")
    assert len(result.stderr.splitlines()) == 1 and (tmp_path / "taken").is_dir()


def test_export_to_a_missing_directory_creates_nothing(db: Path, tmp_path: Path) -> None:
    """`snapshot export -o /no/such/dir/x` made /no/such/dir: a mistyped path became a
    tree of folders. Like `memgraph backup DEST`, a missing directory is refused."""
    out = tmp_path / "no" / "such" / "x.json"
    result = run("snapshot", "export", "--store", str(db), "-o", str(out))
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"Error: cannot write {out}: directory {out.parent} does not exist (nothing written); "
        "create it first or give another path\n"
    )
    assert not (tmp_path / "no").exists()
    (tmp_path / "file").write_text("")
    result = run("snapshot", "export", "--store", str(db), "-o", str(tmp_path / "file" / "x"))
    assert result.exit_code == 1 and result.stderr.startswith("Error: cannot write ")
    assert len(result.stderr.splitlines()) == 1


def test_reading_commands_never_create_a_store(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "mg.db"
    for args in (("stats",), ("snapshot", "export")):
        result = run(*args, "--store", str(missing))
        assert (
            result.exit_code == 1
            and result.stderr
            == f"Error: no store at {missing} (check --home/MEMGRAPH_HOME or --store/MEMGRAPH_STORE)\n"
        )
    assert not missing.parent.exists()


def test_cli_stats(db: Path) -> None:
    plain = run("stats", "--store", str(db))
    assert plain.exit_code == 0 and plain.stdout.startswith("nodes=2 edges=1 summaries=2 receipts=")
    as_json = run("stats", "--store", str(db), "--json")
    [line] = as_json.stdout.splitlines()
    data = json.loads(line)
    assert data["nodes"] == 2 and data["store"] == str(db)


def test_cli_store_errors_are_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("not a database, not a snapshot")
    result = run("stats", "--store", str(junk))
    assert result.exit_code == 1 and result.stderr.startswith("Error: ")
    assert len(result.stderr.splitlines()) == 1
    missing = run(
        "snapshot", "import", str(tmp_path / "nope.json"), "--store", str(tmp_path / "n.db")
    )
    assert missing.exit_code == 1 and "cannot read" in missing.stderr
