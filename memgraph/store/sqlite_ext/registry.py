"""SQLite transcript registry (schema version 2; versions 2-4 are voice capture's).

``voice_registry``: one row per processed transcript file, so backfill skips
what it has done and ``memgraph probe`` can count sessions accounted for.
Implements ``memgraph.store.interfaces.TranscriptRegistry``.
"""

from __future__ import annotations

from memgraph.store.rows import RegistryRow
from memgraph.store.schema import Migration

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite_ext.base import Conns

MIGRATIONS: list[Migration] = [
    Migration(
        2,
        "voice: registry of processed transcripts",
        """
        CREATE TABLE voice_registry (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            session_id TEXT,
            status TEXT NOT NULL,
            reason TEXT,
            message_count INTEGER NOT NULL DEFAULT 0,
            page TEXT,
            processed_at TEXT NOT NULL
        );
        CREATE INDEX voice_registry_processed ON voice_registry(processed_at);
        CREATE INDEX voice_registry_session ON voice_registry(session_id);
        """,
    ),
]

_COLUMNS = "path, size, mtime_ns, sha256, session_id, status, reason, message_count, page, " + (
    "processed_at"
)


class SQLiteRegistry:
    def __init__(self, conns: Conns) -> None:
        self.conns = conns

    def rows(self, since: str | None = None) -> list[RegistryRow]:
        sql = f"SELECT {_COLUMNS} FROM voice_registry"
        args: list[str] = []
        if since is not None:
            sql += " WHERE processed_at >= ?"
            args.append(since)
        with self.conns.read() as conn:
            rows = conn.execute(sql + " ORDER BY processed_at, path", args).fetchall()
        return [RegistryRow(*r) for r in rows]

    def get(self, path: str) -> RegistryRow | None:
        with self.conns.read() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM voice_registry WHERE path = ?", (path,)
            ).fetchone()
        return RegistryRow(*row) if row else None

    def put(self, row: RegistryRow) -> None:
        with self.conns.write() as conn:
            conn.execute(
                f"INSERT OR REPLACE INTO voice_registry({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    row.path,
                    row.size,
                    row.mtime_ns,
                    row.sha256,
                    row.session_id,
                    row.status,
                    row.reason,
                    row.message_count,
                    row.page,
                    row.processed_at,
                ),
            )
