"""PostgreSQL-specific guarantees, on a real server (the ``pg_url`` fixture)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memgraph.documents import MemoryPatchCandidate, UpsertEdge, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import MemgraphError, StoreBusy, StoreError
from memgraph.snapshot import render_snapshot
from memgraph.store import open_store
from memgraph.store.schema import all_migrations
from memgraph.store.sqlite import SQLiteStore
from memgraph.validation import validate_snapshot

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _patches(f: Any) -> list[MemoryPatchCandidate]:
    """The same input for every store: fixed patch ids, one revision, odd text."""
    nodes = {
        k: f.node(k, claim=f"{k} handles the login flow" if k == "b" else f"{k} text é 中文")
        for k in ["a", "b", "c", "Z", "é", "a_b"]
    }
    nul = f.node("nul", claim="a\x00b")  # PostgreSQL text has no NUL: the doc escapes it
    edge = f.edge(nodes["a"], nodes["b"])
    revised = nodes["a"].model_copy(update={"claim": "a changed its mind"})
    return [
        new_patch(
            [UpsertNode(node=n) for n in [*nodes.values(), nul]] + [UpsertEdge(edge=edge)],
            patch_id="p-1",
        ),
        new_patch([UpsertNode(node=revised)], patch_id="p-2"),
    ]


def test_snapshot_is_byte_identical_to_sqlites(
    pg_url: str, mg_factory: Any, tmp_path: Path
) -> None:
    patches = _patches(mg_factory)
    texts = []
    for location in (tmp_path / "mg.db", pg_url):
        store = open_store(location)
        for p in patches:
            apply_patch(store, p, now=NOW)
        texts.append(render_snapshot(store.export_snapshot()))
        assert [h.node_id for h in store.search("login")] == [patches[0].ops[1].node.id]  # type: ignore[union-attr]
        store.close()
    assert texts[0] == texts[1]
    from memgraph.snapshot import parse_snapshot

    snap = parse_snapshot(texts[0])
    assert validate_snapshot(snap) == []


def test_import_from_sqlite_export_round_trips(
    pg_server: Any, mg_factory: Any, tmp_path: Path
) -> None:
    """Moving an existing SQLite store into PostgreSQL: export | import, same bytes."""
    sqlite = SQLiteStore(tmp_path / "mg.db")
    for p in _patches(mg_factory):
        apply_patch(sqlite, p, now=NOW)
    text = render_snapshot(sqlite.export_snapshot())
    sqlite.close()
    from memgraph.snapshot import parse_snapshot

    pg = open_store(pg_server.create_database())
    pg.import_snapshot(parse_snapshot(text))
    assert render_snapshot(pg.export_snapshot()) == text
    pg.close()


def test_schema_versions_match_sqlite(pg_url: str) -> None:
    store = open_store(pg_url)
    try:
        assert type(store).__name__ == "PostgresStore"
        # a snapshot carries max(version): it must be the SQLite store's
        assert max(store.schema_versions()) == max(m.version for m in all_migrations())  # type: ignore[attr-defined]
        core = {1, 100, 101, 102, 103}
        assert core <= set(store.schema_versions())  # type: ignore[attr-defined]
    finally:
        store.close()
    again = open_store(pg_url)  # an up-to-date store opens (no second migration)
    assert again.counts()["nodes"] == 0
    again.close()


def test_a_store_migrated_by_a_newer_memgraph_is_refused(pg_url: str) -> None:
    """One machine of the fleet upgraded first: an older memgraph elsewhere must not
    write into the newer schema (SQLite refuses a newer file the same way)."""
    import psycopg

    open_store(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (9999, 'from the future', 'x')")
    for readonly in (False, True):
        with pytest.raises(StoreError, match=r"newer memgraph \(schema version\(s\) 9999 "):
            open_store(pg_url, for_reading=readonly)
    env = {"MEMGRAPH_STORE": pg_url, "MEMGRAPH_SESSION": "s-1"}
    from typer.testing import CliRunner

    from memgraph.cli.app import app

    done = CliRunner().invoke(app, ["remember", "the etag decides"], env=env)
    assert done.exit_code == 1 and "newer memgraph" in done.output, done.output
    assert "Traceback" not in done.output
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM nodes").fetchone() == (0,)


def test_location_hides_the_password(pg_server: Any) -> None:
    from memgraph.store.postgres import redact

    url = f"postgresql://postgres:s3cret@127.0.0.1:{pg_server.port}/postgres"
    assert "s3cret" not in redact(url)
    assert redact(url) == f"postgresql://postgres@127.0.0.1:{pg_server.port}/postgres"


def test_connection_failure_is_one_clear_line() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(StoreError) as err:
        open_store(f"postgresql://u:pw@127.0.0.1:{port}/x?connect_timeout=2")
    message = str(err.value)
    assert message.startswith(
        f"cannot connect to PostgreSQL store postgresql://u@127.0.0.1:{port}/x"
    )
    assert "\n" not in message and "pw" not in message
    with pytest.raises(StoreError, match="invalid PostgreSQL store URL"):
        open_store("postgresql://[::1")


def test_server_gone_mid_session_is_one_line(pg_url: str) -> None:
    store = open_store(pg_url)
    try:
        killer = open_store(pg_url)
        pid = store.conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[attr-defined]
        killer.conn.execute("SELECT pg_terminate_backend(%s)", (pid,))  # type: ignore[attr-defined]
        killer.close()
        with pytest.raises(StoreError, match="connection"):
            store.counts()
    finally:
        store.close()


def test_receipts_cannot_be_rewritten_even_in_sql(pg_url: str, mg_factory: Any) -> None:
    store = open_store(pg_url)
    apply_patch(store, new_patch([UpsertNode(node=mg_factory.node("a"))]))
    for sql in ("UPDATE receipts SET doc = '{}'", "DELETE FROM receipts", "TRUNCATE receipts"):
        with pytest.raises(MemgraphError, match="append-only"), store.transaction() as txn:
            txn.conn.execute(sql)  # type: ignore[attr-defined]
    assert len(store.receipts()) == 1
    store.close()


def test_writer_waits_for_the_lock_then_reports_busy_past_its_deadline(
    pg_url: str, mg_factory: Any
) -> None:
    from memgraph.store.postgres.store import PostgresStore

    holder = PostgresStore(pg_url)
    waiter = PostgresStore(pg_url, busy_deadline=0.5, lock_timeout_ms=100)
    entered = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with holder.transaction():
            entered.set()
            release.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert entered.wait(30)
        with pytest.raises(StoreBusy, match="stayed locked"):
            apply_patch(waiter, new_patch([UpsertNode(node=mg_factory.node("x"))]))
    finally:
        release.set()
        t.join()
    # once the lock is free the same write goes through
    apply_patch(waiter, new_patch([UpsertNode(node=mg_factory.node("x"))]))
    assert waiter.counts()["nodes"] == 1
    holder.close()
    waiter.close()


def test_readonly_open_of_an_empty_database_refuses(pg_url: str) -> None:
    from memgraph.store.postgres import open_postgres

    with pytest.raises(StoreError, match="no memgraph store"):
        open_postgres(pg_url, readonly=True)
    open_postgres(pg_url).close()
    ro = open_postgres(pg_url, readonly=True)
    with pytest.raises(StoreError, match="read-only"), ro.transaction():
        pass
    ro.close()


def test_cli_moves_a_sqlite_store_into_postgres(
    pg_url: str, mg_factory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's migration: `snapshot export | snapshot import --store URL`, then
    validate, stats and export from PostgreSQL give the same graph, byte for byte."""
    from typer.testing import CliRunner

    from memgraph.cli.app import app

    runner = CliRunner()
    db = tmp_path / "mg.db"
    sqlite = SQLiteStore(db)
    for p in _patches(mg_factory):
        apply_patch(sqlite, p, now=NOW)
    sqlite.close()
    exported = runner.invoke(app, ["snapshot", "export", "--store", str(db)])
    assert exported.exit_code == 0, exported.output
    snap = tmp_path / "snap.json"
    snap.write_text(exported.stdout)
    imported = runner.invoke(app, ["snapshot", "import", str(snap), "--store", pg_url])
    assert imported.exit_code == 0, imported.output
    monkeypatch.setenv("MEMGRAPH_STORE", pg_url)  # the fleet setting: no --store needed
    again = runner.invoke(app, ["snapshot", "export"])
    assert again.exit_code == 0 and again.stdout == exported.stdout
    checked = runner.invoke(app, ["validate"])
    assert checked.exit_code == 0, checked.output
    assert checked.stderr.strip().endswith(": ok") and "postgresql://" in checked.stderr
    stats = runner.invoke(app, ["stats", "--json"])
    assert stats.exit_code == 0 and '"nodes":7' in stats.stdout


def test_validate_reports_an_index_out_of_step(pg_url: str, mg_factory: Any) -> None:
    from memgraph.store.postgres import validate_url

    store = open_store(pg_url)
    for p in _patches(mg_factory):
        apply_patch(store, p, now=NOW)
    assert validate_url(pg_url) == []
    store.conn.execute("UPDATE node_stats SET nodes = nodes + 1")  # type: ignore[attr-defined]
    store.close()
    problems = validate_url(pg_url)
    assert (
        len(problems) == 1
        and "node_stats" in problems[0]
        and problems[0].startswith("postgresql://")
    )
    empty_db = pg_url.rsplit("/", 1)[0] + "/postgres"
    assert "no memgraph store" in validate_url(empty_db)[0]


@pytest.mark.parametrize(
    "query", ["text", "login flow", '"handles the"', "log*", "é", "中文", "a_b", "nothing here"]
)
def test_search_ranks_like_sqlite(pg_url: str, mg_factory: Any, tmp_path: Path, query: str) -> None:
    patches = _patches(mg_factory)
    found = []
    for location in (tmp_path / "mg.db", pg_url):
        store = open_store(location)
        for p in patches:
            apply_patch(store, p, now=NOW)
        found.append([(h.node_id, h.score) for h in store.search(query)])
        store.close()
    want, got = found
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9)

    # SQL leaves the order of equal scores open: compare hits by score, then id
    def ordered(hits: list[tuple[str, float]]) -> list[str]:
        return [nid for nid, _ in sorted(hits, key=lambda h: (round(h[1], 9), h[0]))]

    assert ordered(got) == ordered(want)


@pytest.mark.parametrize("args", [["stats"], ["snapshot", "export"], ["session", "list"]])
def test_cli_on_an_unreachable_server_is_one_line(args: list[str], tmp_path: Path) -> None:
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "MEMGRAPH_STORE": f"postgresql://fleet:pw@127.0.0.1:{port}/memgraph"}
    exe = Path(sys.executable).with_name("memgraph")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memgraph.cli"]
    proc = subprocess.run([*cmd, *args], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"Error: cannot connect to PostgreSQL store postgresql://fleet@127.0.0.1:{port}/memgraph"
    )
    assert "pw" not in proc.stderr.replace("postgresql", "")


def test_voice_lean_path_reads_postgres_like_the_full_path(pg_url: str, tmp_path: Path) -> None:
    """`memgraph voice` on a store URL: the lean path (no pydantic) prints what the
    typer path prints, and what the same captures print from a SQLite store."""
    import os
    import subprocess
    import sys

    from profiles.voice.capture import CaptureRequest, capture_transcript

    sample = Path(__file__).resolve().parents[2] / "memgraph" / "sample"
    for location in (pg_url, tmp_path / "home" / "memgraph.db"):
        store = open_store(location)
        for transcript in sorted(sample.rglob("*.jsonl")):
            capture_transcript(store, CaptureRequest(transcript, tmp_path / "vault", now=NOW))
        store.close()
    exe = Path(sys.executable).with_name("memgraph")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memgraph.cli"]
    base = {**os.environ, "MEMGRAPH_HOME": str(tmp_path / "home")}

    def voice(*args: str, url: str | None, typer: bool = False) -> str:
        env = {**base, "MEMGRAPH_STORE": url} if url else base
        head = [*cmd, "--debug"] if typer else cmd  # --debug takes the typer path
        proc = subprocess.run([*head, "voice", *args], env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    for args in (["retry"], ["the", "--json"], ["--recent", "--json"], ["--stats", "--json"]):
        lean = voice(*args, url=pg_url)
        assert lean == voice(*args, url=pg_url, typer=True)
        assert lean == voice(*args, url=None)  # the SQLite store
        assert lean.strip()


def test_a_store_url_in_the_config_file_reaches_every_command(pg_url: str, tmp_path: Path) -> None:
    """Config drift regression: `store` in config.toml (no env) must send the lean
    `note` and `hook` paths and the typer commands to the same PostgreSQL store;
    nothing may land in the SQLite default under MEMGRAPH_HOME."""
    import json
    import os
    import subprocess
    import sys

    config = tmp_path / "config.toml"
    config.write_text(f'store = "{pg_url}"\n')
    home = tmp_path / "mg-home-drift"
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("MEMGRAPH_")}
    env.update(
        MEMGRAPH_CONFIG=str(config),
        memgraph_home=str(home),  # lower case: the same resolver must read it
        MEMGRAPH_WORKSPACE=str(tmp_path / "ws"),
        MEMGRAPH_VAULT=str(tmp_path / "vault"),
        MEMGRAPH_SESSION="drift-1",
    )
    exe = Path(sys.executable).with_name("memgraph")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memgraph.cli"]
    sample = next((Path(__file__).resolve().parents[2] / "memgraph" / "sample").rglob("*.jsonl"))
    hook = {"session_id": sample.stem, "transcript_path": str(sample), "reason": "exit"}
    for args, stdin in (
        (["note", "kept in the fleet store"], None),
        (["hook", "session-end"], hook),
    ):
        proc = subprocess.run(
            [*cmd, *args],
            env=env,
            input=json.dumps(stdin) if stdin else None,
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
    assert not (home / "memgraph.db").exists()
    store = open_store(pg_url)
    kinds = {(n.profile.value, n.kind) for n in store.iter_nodes()}
    store.close()
    assert ("session", "note") in kinds and ("voice", "message") in kinds


def test_voice_term_tables_follow_every_write(pg_url: str) -> None:
    """voice_terms (live messages' tf) and voice_df (live messages holding a
    lexeme) equal a recomputation from the nodes after inserts,
    a reclassification (an upsert) and a retirement; search agrees with SQLite."""
    from memgraph.documents import RetireNode
    from memgraph.store.interfaces import indexes
    from memgraph.store.voice_rows import VoiceSearch
    from tests.memgraph.test_store_indexes import _fill, _messages

    store = open_store(pg_url)
    try:
        _fill(store)
        ids = [n.id for n in _messages()]
        now = datetime(2027, 1, 1, tzinfo=UTC)
        first = _messages()[1]
        attrs = {**first.attributes, "classification": "command"}
        ops: list[Any] = [
            UpsertNode(node=first.model_copy(update={"attributes": attrs})),
            RetireNode(node_id=ids[3], reason="test"),
        ]
        apply_patch(store, new_patch(ops, patch_id="p-change"), now=now)
        want_terms = store.fetch_all(  # type: ignore[attr-defined]
            "SELECT u.lexeme, n.id, cardinality(u.positions), n.ntok, v.day, v.classification"
            " FROM voice_messages v JOIN nodes n ON n.id = v.node_id, unnest(n.fts_body) u"
            " WHERE v.lifecycle <> 'retired' ORDER BY 1, 2"
        )
        got_terms = store.fetch_all("SELECT * FROM voice_terms ORDER BY 1, 2")  # type: ignore[attr-defined]
        assert got_terms == want_terms
        want_df = store.fetch_all(  # type: ignore[attr-defined]
            "SELECT u, count(*) FROM nodes n, unnest(tsvector_to_array(n.fts_body)) u"
            " WHERE n.profile = 'voice' AND n.kind = 'message' AND n.lifecycle <> 'retired'"
            " GROUP BY u ORDER BY u"
        )
        got_df = store.fetch_all("SELECT term, n FROM voice_df WHERE n > 0 ORDER BY term")  # type: ignore[attr-defined]
        assert got_df == want_df
        hits = indexes(store).voice.search(VoiceSearch(query="login", limit=10))
        assert ids[3] not in [h.node_id for h in hits]  # retired
        assert hits[-1].node_id == ids[1]  # demoted after the reclassification
    finally:
        store.close()


def test_snapshot_import_fills_the_voice_term_tables(pg_url: str, pg_server: Any) -> None:
    """An import loads nodes with the voice_terms row trigger off and fills both
    tables set-based: the same rows as writing the messages one patch at a time."""
    from tests.memgraph.test_store_indexes import _fill

    source = open_store(pg_url)
    target = open_store(pg_server.create_database())
    try:
        _fill(source)
        target.import_snapshot(source.export_snapshot())
        for sql in (
            "SELECT * FROM voice_terms ORDER BY 1, 2",
            "SELECT term, n FROM voice_df WHERE n > 0 ORDER BY term",
        ):
            assert target.fetch_all(sql) == source.fetch_all(sql)  # type: ignore[attr-defined]
        assert target.fetch_all("SELECT count(*) FROM voice_terms")[0][0] > 0  # type: ignore[attr-defined]
    finally:
        source.close()
        target.close()


@pytest.mark.parametrize("lean", [True, False])
def test_stats_answer_on_a_store_an_older_memgraph_migrated(pg_url: str, lean: bool) -> None:
    """A store migrated before the ingest ledger existed on PostgreSQL (no voice_ledger,
    no version 9): a read-only open does not migrate, and `voice --stats` failed with
    'relation "voice_ledger" does not exist'. It answers, with an empty ledger."""
    import psycopg

    from memgraph.store.interfaces import indexes
    from memgraph.store.postgres.fast import voice_stats

    open_store(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE voice_ledger")
        conn.execute("DELETE FROM schema_migrations WHERE version = 9")
    stats = voice_stats(pg_url, lean=lean)
    assert stats is not None and stats.ledger == (0, 0, 0, 0)
    store = open_store(pg_url, for_reading=True)
    try:
        assert indexes(store).voice.stats().ledger == (0, 0, 0, 0)
        ledger = indexes(store).ledger
        assert ledger is not None and ledger.rows() == []
    finally:
        store.close()
