"""PostgreSQL reads of the standing context material (``interfaces.StandingReads``).

The twin of ``memgraph.store.sqlite_ext.standing``: the role/persona/coordinator
cuts and the SessionStart hook read agent memory by (domain, profile, lifecycle)
on ``nodes_domain``, a project's classified live messages on ``voice_messages``,
a project's notes on ``session_notes``, summaries, pending repo candidates and
the latest receipts. Each read is one statement in one REPEATABLE READ snapshot.

SQLite's ``LIKE`` folds ASCII letters; PostgreSQL's ``ILIKE`` in the store's C
collation does the same. ``voice_messages`` keeps retired messages too (SQLite's
``voice_index`` drops them): they are filtered here.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgraph.store.postgres.store import PostgresStore

Doc = dict[str, Any]


class PgStanding:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def _rows(self, sql: str, args: Any) -> list[tuple[Any, ...]]:
        with self.store.reader() as txn:
            return list(txn.conn.execute(sql, args).fetchall())

    def domain_docs(
        self, domain: str, profiles: tuple[str, ...], states: tuple[str, ...], limit: int
    ) -> list[Doc]:
        rows = self._rows(
            "SELECT doc FROM nodes WHERE domain_id = %s AND profile = ANY(%s)"
            " AND lifecycle = ANY(%s) ORDER BY updated_at DESC, id LIMIT %s",
            (domain, list(profiles), list(states), limit),
        )
        return [json.loads(r[0]) for r in rows]

    def voice_docs(self, project: str, labels: tuple[str, ...], limit: int) -> list[Doc] | None:
        """The project's newest live messages with one of ``labels``."""
        rows = self._rows(
            "SELECT n.doc FROM voice_messages v JOIN nodes n ON n.id = v.node_id"
            " WHERE v.project = %s AND v.classification = ANY(%s)"
            " AND v.lifecycle <> 'retired' ORDER BY v.ts DESC, n.seq DESC LIMIT %s",
            (project, list(labels), limit),
        )
        return [json.loads(r[0]) for r in rows]

    def voice_counts(self, project: str) -> tuple[int, int]:
        """(messages, classified messages) of the project (live ones)."""
        rows = self._rows(
            "SELECT count(*), count(classification) FROM voice_messages"
            " WHERE project = %s AND lifecycle <> 'retired'",
            (project,),
        )
        return int(rows[0][0]), int(rows[0][1])

    def project_notes(self, project: str, limit: int) -> list[tuple[str, str, str, str]] | None:
        """(node id, text, ts, session id) of the newest non-startup notes of sessions
        whose workspace is the project (by directory name)."""
        rows = self._rows(
            "SELECT n.node_id, n.text, n.ts, n.session_id FROM session_notes n"
            " JOIN session_sessions s ON s.session_id = n.session_id"
            " WHERE (s.workspace = %s OR s.workspace ILIKE %s)"
            " AND n.text NOT ILIKE 'session %% started (%%' ORDER BY n.ts DESC LIMIT %s",
            (project, f"%/{project}", limit),
        )
        return [(str(a), str(b), str(c), str(d)) for a, b, c, d in rows]

    def latest_note(self, persona: str) -> tuple[str, str, str] | None:
        """(text, session id, ts) of the persona's newest note, a startup note
        ("session s9 started (cli)", `records.is_startup`) passed over."""
        rows = self._rows(
            "SELECT text, session_id, ts FROM session_notes WHERE persona = %s"
            " AND text NOT LIKE 'session %% started (%%'"
            " ORDER BY ts DESC, node_id DESC LIMIT 1",
            (persona,),
        )
        return (str(rows[0][0]), str(rows[0][1]), str(rows[0][2])) if rows else None

    def summaries(self, domain: str, stale_only: bool, limit: int) -> list[Doc]:
        sql = "SELECT doc FROM summaries WHERE domain_id = %s"
        if stale_only:
            sql += " AND freshness = 'stale'"
        rows = self._rows(sql + " ORDER BY id LIMIT %s", (domain, limit))
        return [json.loads(r[0]) for r in rows]

    def summary_count(self, domain: str) -> int:
        rows = self._rows("SELECT count(*) FROM summaries WHERE domain_id = %s", (domain,))
        return int(rows[0][0])

    def repo_candidates(self, domain: str, project: str, limit: int) -> list[Doc]:
        """repo_architecture/repo_dataflow nodes waiting for review in the project."""
        rows = self._rows(
            "SELECT doc FROM nodes WHERE profile IN ('repo_architecture', 'repo_dataflow')"
            " AND lifecycle IN ('observed', 'proposed') AND (domain_id = %s OR domain_id ILIKE %s)"
            " ORDER BY updated_at, id LIMIT %s",
            (domain, f"%:{project}", limit),
        )
        return [json.loads(r[0]) for r in rows]

    def recent_receipts(self, scan: int) -> list[Doc]:
        """The last ``scan`` receipts, newest first."""
        rows = self._rows(
            "SELECT doc FROM receipts WHERE seq >"
            " (SELECT coalesce(max(seq), 0) - %s FROM receipts) ORDER BY seq DESC",
            (scan,),
        )
        return [json.loads(r[0]) for r in rows]


__all__ = ["PgStanding"]
