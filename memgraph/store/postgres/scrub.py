"""PostgreSQL ``TextScrub``: forgotten text out of history, then out of the tables' files.

The history documents are rewritten in one transaction (the receipts'
append-only trigger disabled for that transaction's statements only: ALTER
TABLE is transactional), then, when compacting, ``VACUUM FULL`` rewrites each
table whose rows changed (plus ``nodes``, whose tombstoned rows left dead
tuples holding the old text) so no dead tuple keeps it. PostgreSQL's own WAL
segments keep it until the server recycles them (notes/privacy.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memgraph.store.scrub import DOC_TABLES, ScrubReport, ScrubRequest, scrub_doc

if TYPE_CHECKING:
    from memgraph.store.postgres.store import PostgresStore

_KEY = {
    "node_history": "seq",
    "edges": "id",
    "edge_history": "seq",
    "summaries": "id",
    "summary_history": "seq",
    "receipts": "seq",
    "patches": "id",
}


class PgScrub:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def scrub(self, request: ScrubRequest) -> ScrubReport:
        report = ScrubReport()
        probes = list(request.probes())
        with self.store.transaction() as txn:
            conn = txn.conn
            for table in DOC_TABLES:
                key = _KEY[table]
                where = " OR ".join("strpos(doc, %s) > 0" for _ in probes) if probes else "true"
                rows = conn.execute(f"SELECT {key}, doc FROM {table} WHERE {where}", probes)
                changed = [
                    (new, k) for k, doc in rows.fetchall() if (new := scrub_doc(doc, request))
                ]
                if changed and table == "receipts":
                    conn.execute("ALTER TABLE receipts DISABLE TRIGGER receipts_no_update")
                if changed:
                    with conn.cursor() as cur:
                        cur.executemany(f"UPDATE {table} SET doc = %s WHERE {key} = %s", changed)
                if changed and table == "receipts":
                    conn.execute("ALTER TABLE receipts ENABLE TRIGGER receipts_no_update")
                report.rows[table] = len(changed)
            if request.node_ids:
                cur = conn.execute(
                    "DELETE FROM embeddings WHERE node_id = ANY(%s)", (list(request.node_ids),)
                )
                report.manifests = max(cur.rowcount, 0)
            # a word no live message holds any more keeps a zero row in voice_df
            # (migration 8's trigger only decrements): its text is the forgotten word
            conn.execute("DELETE FROM voice_df WHERE n <= 0")
        if request.compact:
            # voice_terms/voice_df: the per-lexeme tables of migration 8 (dead
            # tuples and index entries still hold the forgotten words)
            tables = ["nodes", "node_history", "voice_messages", "voice_terms", "voice_df"]
            tables += [t for t, n in report.rows.items() if n and t not in tables]
            with self.store._lock:
                for table in tables:
                    self.store.conn.execute(f"VACUUM FULL {table}")
            report.compacted = True
        return report

    def quoting(self, request: ScrubRequest) -> list[str]:
        probes = list(request.probes())
        where = " OR ".join("strpos(doc, %s) > 0" for _ in probes) if probes else "true"
        rows = self.store.fetch_all(f"SELECT id, doc FROM nodes WHERE {where}", probes)
        skip = set(request.node_ids)
        return sorted(
            str(nid) for nid, doc in rows if nid not in skip and scrub_doc(doc, request) is not None
        )


__all__ = ["PgScrub"]
