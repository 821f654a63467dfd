"""SQLite ingest ledger (schema version 9, in voice's 2-9 range).

``voice_ledger``: the latest accounting per transcript path (lines read,
captured, filtered by rule, dropped by reason, or why the whole file was not
read); see ``profiles.voice.ledger`` for the model and its invariant.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from memgraph.store.rows import LEDGER_REDACTED as REDACTED
from memgraph.store.rows import LedgerRow, ledger_columns, ledger_row
from memgraph.store.schema import Migration

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite_ext.base import Conns

MIGRATIONS: list[Migration] = [
    Migration(
        9,
        "voice: ingest ledger (per transcript: lines read, captured, filtered, dropped)",
        """
        CREATE TABLE voice_ledger (
            path TEXT PRIMARY KEY,
            lines INTEGER NOT NULL,
            captured INTEGER NOT NULL,
            filtered TEXT NOT NULL,
            dropped TEXT NOT NULL,
            file_error TEXT,
            recorded_at TEXT NOT NULL
        );
        """,
    )
]


def put_rows(conns: Conns, rows: Sequence[LedgerRow], recorded_at: str) -> None:
    """Keep the latest row per transcript path (one transaction)."""
    if not rows:
        return
    with conns.write() as conn:
        conn.executemany(
            "INSERT OR REPLACE INTO voice_ledger VALUES (?,?,?,?,?,?,?)",
            [(*ledger_columns(row), recorded_at) for row in rows],
        )


def all_rows(conns: Conns) -> list[LedgerRow]:
    """Every stored row; a row whose JSON is damaged comes back as a file_error."""
    with conns.read() as conn:
        if not _has_table(conn):
            return []
        raw = conn.execute(
            "SELECT path, lines, captured, filtered, dropped, file_error FROM voice_ledger "
            "ORDER BY path"
        ).fetchall()
    return [ledger_row(*r) for r in raw]


class SQLiteLedger:
    """``IngestLedger`` on a SQLite store (``memgraph.store.interfaces``)."""

    def __init__(self, conns: Conns) -> None:
        self.conns = conns

    def put(self, rows: Sequence[LedgerRow], recorded_at: str) -> None:
        put_rows(self.conns, rows, recorded_at)

    def rows(self) -> list[LedgerRow]:
        return all_rows(self.conns)


def totals_conn(
    conn: sqlite3.Connection,
) -> tuple[tuple[int, int, int, int], tuple[tuple[str, int], ...]]:
    """(lines, captured, filtered, dropped) and dropped counts by reason
    ("file:<reason>" for files not read); zeros on a store without the table."""
    if not _has_table(conn):
        return (0, 0, 0, 0), ()
    lines, captured = conn.execute(
        "SELECT coalesce(sum(lines), 0), coalesce(sum(captured), 0) FROM voice_ledger"
    ).fetchone()
    sums = {}
    for column in ("filtered", "dropped"):
        sums[column] = conn.execute(
            "SELECT coalesce(sum(j.value), 0) FROM voice_ledger, "
            f"json_each(voice_ledger.{column}) j WHERE json_valid(voice_ledger.{column}) "
            f"AND j.key NOT LIKE '{REDACTED}%'"
        ).fetchone()[0]
    reasons = conn.execute(
        "SELECT j.key, sum(j.value) FROM voice_ledger, json_each(voice_ledger.dropped) j "
        "WHERE json_valid(voice_ledger.dropped) GROUP BY j.key "
        "UNION ALL SELECT 'file:' || file_error, count(*) FROM voice_ledger "
        "WHERE file_error IS NOT NULL GROUP BY file_error ORDER BY 1"
    ).fetchall()
    totals = (int(lines), int(captured), int(sums["filtered"]), int(sums["dropped"]))
    return totals, tuple((str(k), int(c)) for k, c in reasons)


def _has_table(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'voice_ledger'"
    ).fetchone()
    return row is not None
