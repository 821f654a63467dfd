"""SQLite ``TextScrub``: forgotten text out of history, then out of the file.

One write transaction rewrites the history documents that carry the text
(``memgraph.store.scrub``), with the receipts' append-only triggers lifted for
that transaction only (they are recreated from their own stored SQL before it
commits), and drops the forgotten nodes' embedding manifests. Compaction then
merges the FTS5 indexes (a deleted row's tokens otherwise linger in older
segments), VACUUMs (freed pages still hold old row images) and truncates the
WAL (which holds the pages written before).
"""

from __future__ import annotations

import sqlite3

from memgraph.store.docpack import pack, unpack
from memgraph.store.scrub import DOC_TABLES, ScrubReport, ScrubRequest, scrub_doc
from memgraph.store.sqlite_ext.voice_substring import TABLE as VOICE_TRI

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite import SQLiteStore

RECEIPT_TRIGGERS = ("receipts_no_update", "receipts_no_delete")
FTS_TABLES = ("node_fts", VOICE_TRI)


def _exists(conn: sqlite3.Connection, kind: str, name: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?", (kind, name)
    ).fetchone()
    return row is not None


def _rewrite(conn: sqlite3.Connection, table: str, request: ScrubRequest) -> int:
    probes = request.probes()
    # packed documents (memgraph.store.docpack) are inflated by mg_doc for the
    # substring pre-filter; the ones that match are scrubbed and packed again
    where = " OR ".join("instr(mg_doc(doc), ?) > 0" for _ in probes) if probes else "1"
    sql = f"SELECT rowid, doc FROM {table} WHERE {where}"
    changed: list[tuple[str | bytes, int]] = []
    for rowid, doc in conn.execute(sql, probes).fetchall():
        new = scrub_doc(unpack(doc), request)
        if new is not None:
            changed.append((pack(new) if isinstance(doc, bytes) else new, rowid))
    if not changed:
        return 0
    saved: list[str] = []
    if table == "receipts":  # append-only, except for this one removal
        for name in RECEIPT_TRIGGERS:
            row = conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", (name,)
            ).fetchone()
            if row is not None:
                saved.append(str(row[0]))
                conn.execute(f"DROP TRIGGER {name}")
    conn.executemany(f"UPDATE {table} SET doc = ? WHERE rowid = ?", changed)
    for sql in saved:
        conn.execute(sql)
    return len(changed)


class SQLiteScrub:
    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def scrub(self, request: ScrubRequest) -> ScrubReport:
        report = ScrubReport()
        with self.store.write() as conn:
            for table in DOC_TABLES:
                report.rows[table] = _rewrite(conn, table, request)
            ids = list(request.node_ids)
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                cur = conn.execute(
                    f"DELETE FROM embeddings WHERE node_id IN ({','.join('?' * len(chunk))})",
                    chunk,
                )
                report.manifests += max(cur.rowcount, 0)
            for fts in FTS_TABLES:
                if _exists(conn, "table", fts):
                    conn.execute(f"INSERT INTO {fts}({fts}) VALUES ('optimize')")
        if request.compact:
            self.compact()
            report.compacted = True
        return report

    def quoting(self, request: ScrubRequest) -> list[str]:
        probes = request.probes()
        where = " OR ".join("instr(mg_doc(doc), ?) > 0" for _ in probes) if probes else "1"
        with self.store.reader() as txn:
            rows = txn.conn.execute(f"SELECT id, doc FROM nodes WHERE {where}", probes).fetchall()
        skip = set(request.node_ids)
        return sorted(
            str(nid)
            for nid, doc in rows
            if nid not in skip and scrub_doc(unpack(doc), request) is not None
        )

    def compact(self) -> None:
        """VACUUM and truncate the WAL: no freed page or old frame keeps a row image."""
        store = self.store
        with store._lock:
            store._retry(lambda: store.conn.execute("VACUUM"))
            store._retry(lambda: store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone())
            store._wal.remember()


__all__ = ["SQLiteScrub"]
