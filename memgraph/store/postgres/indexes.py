"""The profile-owned indexes on PostgreSQL (``memgraph.store.interfaces``).

Tables and triggers are ``memgraph.store.postgres.schema_ext.EXTENSION_MIGRATIONS``
(the SQLite store's version numbers). Reads run in one REPEATABLE READ
snapshot (``PostgresStore.reader``), writes in the store's write transaction
(its advisory lock), so every writer of every machine is serialised exactly as
SQLite's ``BEGIN IMMEDIATE`` serialises the processes of one.

Voice search ranks with FTS5's BM25 (``memgraph.store.postgres.fts``):
PostgreSQL finds the rows and the corpus figures (``node_stats``, GIN counts),
Python scores them with the formula SQLite uses, so both stores return the
same hits in the same order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memgraph.store.rows import ledger_totals
from memgraph.store.voice_rows import VoiceIndexStats

if TYPE_CHECKING:
    from memgraph.documents import MemoryNode
    from memgraph.store.interfaces import StoreIndexes
    from memgraph.store.postgres.store import PostgresStore
from memgraph.store.postgres.voice_search import PgVoiceSearch
from memgraph.store.postgres.voice_sql import one


class PgVoiceIndex(PgVoiceSearch):
    """The voice index: ``PgVoiceSearch``'s search plus stats, sessions, reindex."""

    def stats(self) -> VoiceIndexStats:
        from memgraph.store.postgres.lookups import ledger_rows

        live = "FROM voice_messages WHERE lifecycle NOT IN ('retired', 'forgotten')"
        with self.store.reader() as txn:
            conn = txn.conn
            forgotten = one(
                conn.execute("SELECT count(*) FROM voice_messages WHERE lifecycle = 'forgotten'")
            )[0]
            messages, classified, first, last, sessions, pages = one(
                conn.execute(
                    "SELECT count(*), count(classification), min(ts), max(ts),"
                    f" count(DISTINCT session_id), count(DISTINCT voice_page) {live}"
                )
            )
            by_const = conn.execute(
                f"SELECT constellation, count(*) {live} GROUP BY constellation"
            ).fetchall()
            by_cls = conn.execute(
                f"SELECT classification, count(*) {live} GROUP BY classification"
            ).fetchall()
            ledger, ledger_dropped = ledger_totals(ledger_rows(conn))
        return VoiceIndexStats(
            messages=int(messages),
            sessions=int(sessions),
            pages=int(pages),
            classified=int(classified),
            first=first or None,
            last=last or None,
            by_constellation=tuple((str(k), int(c)) for k, c in by_const),
            by_classification=tuple((None if k is None else str(k), int(c)) for k, c in by_cls),
            ledger=ledger,
            ledger_dropped=ledger_dropped,
            forgotten=int(forgotten),
        )

    def session_messages(self, session_id: str) -> list[MemoryNode]:
        from memgraph.documents import MemoryNode

        with self.store.reader() as txn:
            rows = txn.conn.execute(
                "SELECT n.doc FROM voice_messages v JOIN nodes n ON n.id = v.node_id"
                " WHERE v.session_id = %s",
                (session_id,),
            ).fetchall()
        return [MemoryNode.model_validate_json(r[0]) for r in rows]

    def session_span(self, session_id: str) -> tuple[str, str] | None:
        with self.store.reader() as txn:
            row = txn.conn.execute(
                "SELECT min(ts), max(ts) FROM voice_messages WHERE session_id = %s AND ts <> ''",
                (session_id,),
            ).fetchone()
        if row is None or not row[0] or not row[1]:
            return None
        return str(row[0]), str(row[1])

    def reindex(self) -> tuple[int, int]:
        with self.store.transaction() as txn:
            conn = txn.conn
            # re-running every node's triggers rebuilds the index tables; the
            # tsvector columns are generated, so they cannot be stale
            conn.execute("DELETE FROM voice_messages")
            conn.execute(
                "UPDATE nodes SET lifecycle = lifecycle"
                " WHERE profile = 'voice' AND kind = 'message'"
            )
            messages = one(
                conn.execute("SELECT count(*) FROM voice_messages WHERE lifecycle <> 'retired'")
            )[0]
            nodes = one(conn.execute("SELECT count(*) FROM nodes"))[0]
        return int(messages), int(nodes)


def pg_indexes(store: PostgresStore) -> StoreIndexes:
    from memgraph.store.interfaces import StoreIndexes
    from memgraph.store.postgres.lookups import (
        PgActivity,
        PgLedger,
        PgNoteAppend,
        PgRegistry,
        PgSessionIndex,
        PgTermStats,
    )
    from memgraph.store.postgres.scrub import PgScrub

    return StoreIndexes(
        voice=PgVoiceIndex(store),
        registry=PgRegistry(store),
        sessions=PgSessionIndex(store),
        notes=PgNoteAppend(store),
        terms=PgTermStats(store),
        activity=PgActivity(store),
        scrub=PgScrub(store),
        ledger=PgLedger(store),
    )
