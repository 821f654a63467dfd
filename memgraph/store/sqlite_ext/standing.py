"""SQLite reads of the standing context material (``interfaces.StandingReads``).

Indexed lookups for the role/persona/coordinator cuts and the SessionStart hook
(``profiles.wakeup.standing``): agent memory by (domain, profile, lifecycle)
on ``nodes_domain``, the operator's classified messages of a project on
``voice_index``, a project's spark notes on ``session_notes``, summaries of a
domain, pending repo candidates, the latest agent-memory receipts. Stdlib only:
the hook reads through ``LightSQLite`` without importing pydantic. Documents
come back as parsed JSON dicts; absent index tables read as empty (``None``
where the caller must say "no such index").
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from memgraph.store.docpack import unpack

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite_ext.base import Conns

Doc = dict[str, Any]


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


def _marks(values: tuple[str, ...]) -> str:
    return ",".join("?" * len(values))


class SQLiteStanding:
    def __init__(self, conns: Conns) -> None:
        self.conns = conns

    def domain_docs(
        self, domain: str, profiles: tuple[str, ...], states: tuple[str, ...], limit: int
    ) -> list[Doc]:
        with self.conns.read() as conn:
            rows = conn.execute(
                f"SELECT doc FROM nodes WHERE domain_id = ? AND profile IN ({_marks(profiles)}) "
                f"AND lifecycle IN ({_marks(states)}) ORDER BY updated_at DESC, id LIMIT ?",
                (domain, *profiles, *states, limit),
            ).fetchall()
        return [json.loads(unpack(r[0])) for r in rows]

    def voice_docs(self, project: str, labels: tuple[str, ...], limit: int) -> list[Doc] | None:
        """The project's newest messages with one of ``labels``; None: no voice index."""
        with self.conns.read() as conn:
            if not _has_table(conn, "voice_index"):
                return None
            rows = conn.execute(
                "SELECT n.doc FROM voice_index AS v JOIN nodes AS n ON n.rowid = v.rowid "
                f"WHERE v.project = ? AND v.classification IN ({_marks(labels)}) "
                "ORDER BY v.ts DESC LIMIT ?",
                (project, *labels, limit),
            ).fetchall()
        return [json.loads(unpack(r[0])) for r in rows]

    def voice_counts(self, project: str) -> tuple[int, int]:
        """(messages, classified messages) of the project."""
        with self.conns.read() as conn:
            if not _has_table(conn, "voice_index"):
                return 0, 0
            row = conn.execute(
                "SELECT count(*), count(classification) FROM voice_index WHERE project = ?",
                (project,),
            ).fetchone()
        return int(row[0]), int(row[1])

    def project_notes(self, project: str, limit: int) -> list[tuple[str, str, str, str]] | None:
        """(node id, text, ts, session id) of the newest non-startup notes of sessions whose
        workspace is the project (by directory name); None: no session index."""
        with self.conns.read() as conn:
            if not _has_table(conn, "session_notes"):
                return None
            rows = conn.execute(
                "SELECT n.node_id, n.text, n.ts, n.session_id FROM session_notes AS n "
                "JOIN session_sessions AS s ON s.session_id = n.session_id "
                "WHERE (s.workspace = ? OR s.workspace LIKE ?) "
                "AND n.text NOT LIKE 'session % started (%' ORDER BY n.ts DESC LIMIT ?",
                (project, f"%/{project}", limit),
            ).fetchall()
        return [(str(a), str(b), str(c), str(d)) for a, b, c, d in rows]

    def latest_note(self, persona: str) -> tuple[str, str, str] | None:
        """(text, session id, ts) of the persona's newest note, a startup note
        ("session s9 started (cli)", `records.is_startup`) passed over."""
        with self.conns.read() as conn:
            if not _has_table(conn, "session_notes"):
                return None
            row = conn.execute(
                "SELECT text, session_id, ts FROM session_notes WHERE persona = ? "
                "AND text NOT GLOB 'session * started (*' "
                "ORDER BY ts DESC, node_id DESC LIMIT 1",
                (persona,),
            ).fetchone()
        return (str(row[0]), str(row[1]), str(row[2])) if row else None

    def summaries(self, domain: str, stale_only: bool, limit: int) -> list[Doc]:
        sql = "SELECT doc FROM summaries WHERE domain_id = ?"
        if stale_only:
            sql += " AND freshness = 'stale'"
        with self.conns.read() as conn:
            rows = conn.execute(sql + " ORDER BY id LIMIT ?", (domain, limit)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def summary_count(self, domain: str) -> int:
        with self.conns.read() as conn:
            row = conn.execute(
                "SELECT count(*) FROM summaries WHERE domain_id = ?", (domain,)
            ).fetchone()
        return int(row[0])

    def repo_candidates(self, domain: str, project: str, limit: int) -> list[Doc]:
        """repo_architecture/repo_dataflow nodes waiting for review in the project."""
        with self.conns.read() as conn:
            rows = conn.execute(
                "SELECT doc FROM nodes WHERE profile IN ('repo_architecture', 'repo_dataflow') "
                "AND lifecycle IN ('observed', 'proposed') AND (domain_id = ? OR domain_id LIKE ?) "
                "ORDER BY updated_at LIMIT ?",
                (domain, f"%:{project}", limit),
            ).fetchall()
        return [json.loads(unpack(r[0])) for r in rows]

    def recent_receipts(self, scan: int) -> list[Doc]:
        """The last ``scan`` receipts, newest first."""
        with self.conns.read() as conn:
            rows = conn.execute(
                "SELECT doc FROM receipts WHERE seq > "
                "(SELECT coalesce(max(seq), 0) - ? FROM receipts) ORDER BY seq DESC",
                (scan,),
            ).fetchall()
        return [json.loads(unpack(r[0])) for r in rows]


# `memgraph wake`'s lean path (memgraph/cli/wake_fast.py): the newest active note
# (of a persona, or of any) and the sessions whose YAML views it must check.
WAKE_NOTE = (
    "SELECT text, session_id, ts, persona, node_id, harness FROM session_notes "
    "WHERE lifecycle = 'active' AND text NOT GLOB 'session * started (*'{persona} "
    "ORDER BY ts DESC, session_id DESC, node_id DESC LIMIT 1"
)


def wake_reads(
    conn: sqlite3.Connection, persona: str | None
) -> tuple[tuple[str, ...] | None, list[tuple[str, str, str]], list[str]] | None:
    """(newest note row, (session id, persona, workspace) of the sessions, every
    persona with a session); None when the session tables are absent."""
    if not (_has_table(conn, "session_notes") and _has_table(conn, "session_sessions")):
        return None
    where, args = ("", ()) if persona is None else (" AND persona = ?", (persona,))
    row = conn.execute(WAKE_NOTE.format(persona=where), args).fetchone()
    sessions = conn.execute(
        "SELECT session_id, persona, workspace FROM session_sessions"
        + where.replace("AND", "WHERE"),
        args,
    ).fetchall()
    personas = [
        r[0] for r in conn.execute("SELECT DISTINCT persona FROM session_sessions ORDER BY 1")
    ]
    note = tuple(str(v) for v in row) if row else None
    return note, [(str(a), str(b), str(c)) for a, b, c in sessions], personas


def light_wake_reads(
    path: Any, persona: str | None
) -> tuple[tuple[str, ...] | None, list[tuple[str, str, str]], list[str]] | None:
    """``wake_reads`` on a store file opened read-only without the store class; None
    when this path cannot answer for sure (not a store, a foreign or newer one, older
    tables, busy): the caller takes the full path, which refuses or migrates."""
    from memgraph.errors import MemgraphError
    from memgraph.store.guard import check_file, check_schema
    from memgraph.store.sqlite_ext.base import LightSQLite

    try:
        check_file(path)
        light = LightSQLite(path, readonly=True)
        try:
            with light.read() as conn:
                check_schema(conn, path)
                return wake_reads(conn, persona)
        finally:
            light.close()
    except (sqlite3.Error, MemgraphError):
        return None


class LightStanding(SQLiteStanding):
    """``SQLiteStanding`` over a store file opened read-only without the store class
    (the SessionStart hook). Raises ``StoreError`` when the file is not a store."""

    def __init__(self, path: Any, timeout: float = 0.5) -> None:
        from memgraph.errors import StoreError
        from memgraph.store.sqlite_ext.base import LightSQLite

        try:
            self.light = LightSQLite(path, readonly=True, timeout=timeout)
            if not self.light.has_table("nodes"):
                raise StoreError(f"{path} is not a memgraph store (no nodes table)")
        except sqlite3.Error as exc:
            from memgraph.store.guard import sqlite_reason

            raise StoreError(
                f"{path}: cannot read the store ({sqlite_reason(path, exc)})"
            ) from None
        super().__init__(self.light)

    def close(self) -> None:
        self.light.close()
