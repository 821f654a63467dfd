"""The PostgreSQL store: one database shared by every machine of a fleet.

Writers: every write transaction first takes one transaction-scoped advisory
lock, so write transactions run one at a time, exactly as SQLite's
``BEGIN IMMEDIATE`` makes them: the engine validates a patch against what it
reads inside its transaction, and no concurrent writer can change that under
it (no lost update, no serialization failure to replay). The lock wait is
PostgreSQL's own queue, bounded by ``lock_timeout`` and retried with jitter
until ``busy_deadline``; only then does ``StoreBusy`` surface.

Never a hang: ``connect_timeout``, TCP keepalives and ``tcp_user_timeout`` bound
a dead network, ``statement_timeout`` a runaway statement, and
``idle_in_transaction_session_timeout`` a client that died holding the lock.
Every failure is one ``StoreError`` line naming the server (never the password).
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from psycopg import errors as pg_errors

from memgraph.documents import (
    utcnow,
)
from memgraph.errors import SnapshotError, StoreBusy, StoreError, StoreMissing
from memgraph.store.decode import DocStore, load_snapshot, snapshot_from, walk_neighbourhood
from memgraph.store.interfaces import StoreIndexes, register_indexes
from memgraph.store.postgres import redact
from memgraph.store.postgres.connect import _first_line, connect_params
from memgraph.store.postgres.fts import search_nodes
from memgraph.store.postgres.schema import all_migrations
from memgraph.store.postgres.schema_ext import VOICE_TERMS_FILL
from memgraph.store.postgres.store_id import read_pg_id, settle_pg_id
from memgraph.store.postgres.txn import PostgresTxn
from memgraph.store.protocol import Neighbourhood, SearchHit
from memgraph.store.sqlite_txn import iso

if TYPE_CHECKING:
    from memgraph.documents import MemoryGraphSnapshot

T = TypeVar("T")

# pg_advisory_xact_lock keys (two int4: namespace, lock)
_NAMESPACE = 0x6D67  # "mg"
WRITE_LOCK = 1
MIGRATE_LOCK = 2


class PostgresStore(DocStore):
    PARAM = "%s"
    """Implements ``memgraph.store.protocol.Store`` on a PostgreSQL database."""

    def __init__(
        self,
        url: str,
        *,
        busy_deadline: float = 120.0,
        lock_timeout_ms: int = 5000,
        statement_timeout_ms: int = 600_000,
        idle_in_transaction_timeout_ms: int = 600_000,
        readonly: bool = False,
    ) -> None:
        self.url = url
        self.location = redact(url)
        self.busy_deadline = busy_deadline
        self.readonly = readonly
        self._lock = threading.RLock()
        self._open: str | None = None  # "read" | "write" while a transaction is open
        self._conninfo = connect_params(
            url,
            lock_timeout_ms=lock_timeout_ms,
            statement_timeout_ms=statement_timeout_ms,
            idle_in_transaction_timeout_ms=idle_in_transaction_timeout_ms,
        )
        self.conn = self._connect()
        try:
            self._check_server()
            self._retry(self._refuse_newer)
            if readonly:
                if not self._has_schema():
                    raise StoreMissing(f"no memgraph store in {self.location}")
                self.store_id: str | None = read_pg_id(self)
            else:
                self._migrate()
                self.store_id = settle_pg_id(self, _NAMESPACE, MIGRATE_LOCK)
        except BaseException:
            self.conn.close()
            raise

    # -- plumbing ----------------------------------------------------------
    def _connect(self) -> psycopg.Connection[tuple[Any, ...]]:
        # A server that answers but is too busy to start a backend within
        # connect_timeout gets one more try (seen on a loaded 2-core machine); a
        # refused or rejected connection fails at once. Bounded: 2 x connect_timeout.
        for attempt in (1, 2):
            try:
                return psycopg.connect(self._conninfo, autocommit=True)
            except psycopg.Error as exc:
                reason = _first_line(exc)
                if attempt == 1 and "timeout expired" in reason:
                    continue
                raise StoreError(
                    f"cannot connect to PostgreSQL store {self.location}: {reason}"
                ) from None
        raise AssertionError("unreachable")

    def _fail(self, exc: psycopg.Error, what: str = "") -> StoreError:
        """One line for a server error; ``StoreBusy`` for lock contention."""
        if isinstance(exc, psycopg.OperationalError) and self.conn.broken:
            return StoreError(
                f"lost the connection to PostgreSQL store {self.location}: {_first_line(exc)}"
            )
        if isinstance(exc, pg_errors.UniqueViolation) and "receipts_id_unique" in str(exc):
            return StoreError(
                f"store {self.location}: {what}receipt id already exists (receipts are append-only)"
            )
        return StoreError(f"store {self.location}: {what}{_first_line(exc)}")

    def _retry(self, fn: Callable[[], T]) -> T:
        """Run ``fn``; lock timeouts, deadlocks and serialization failures are
        retried with jittered backoff until ``busy_deadline``."""
        deadline = time.monotonic() + self.busy_deadline
        delay = 0.005
        while True:
            try:
                return fn()
            except (
                pg_errors.LockNotAvailable,
                pg_errors.DeadlockDetected,
                pg_errors.SerializationFailure,
            ):
                self._rollback()
                if time.monotonic() > deadline:
                    raise StoreBusy(
                        f"store {self.location} stayed locked for {self.busy_deadline:g}s; "
                        "another writer holds it, retry later"
                    ) from None
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.2)
            except psycopg.Error as exc:
                self._rollback()
                raise self._fail(exc) from None

    def _rollback(self) -> None:
        if self.conn.broken or self.conn.closed:
            return
        with contextlib.suppress(psycopg.Error):
            if self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                self.conn.execute("ROLLBACK")

    def _check_server(self) -> None:
        def check() -> None:
            encoding = self.conn.execute("SHOW server_encoding").fetchone()
            if encoding is None or str(encoding[0]).upper() not in ("UTF8", "UTF-8"):
                raise StoreError(
                    f"PostgreSQL store {self.location} must use UTF8 encoding (has {encoding})"
                )

        self._retry(check)

    def _has_schema(self) -> bool:
        row = self.conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
        return bool(row and row[0])

    def _refuse_newer(self) -> None:
        """A store migrated by a newer memgraph (another machine of the fleet upgraded
        first) is refused before any write, as ``guard.check_schema`` refuses a newer
        SQLite file: this version would write rows the newer schema does not expect."""
        if not self._has_schema():
            return
        known = {m.version for m in all_migrations()}
        newer = sorted(
            int(r[0])
            for r in self.conn.execute("SELECT version FROM schema_migrations")
            if int(r[0]) not in known
        )
        if newer:
            raise StoreError(
                f"store {self.location} was migrated by a newer memgraph (schema version(s) "
                f"{', '.join(map(str, newer[:5]))} unknown to this one); upgrade memgraph on "
                "this machine, nothing written"
            )

    def _pending(self) -> list[int]:
        done: set[int] = set()
        if self._has_schema():
            done = {int(r[0]) for r in self.conn.execute("SELECT version FROM schema_migrations")}
        return [m.version for m in all_migrations() if m.version not in done]

    def _migrate(self) -> None:
        # a plain read first: opening an up-to-date store takes no lock
        if not self._retry(self._pending):
            return

        def run() -> None:
            with self._lock:
                self.conn.execute("BEGIN")
                self.conn.execute(
                    "SELECT pg_advisory_xact_lock(%s, %s)", (_NAMESPACE, MIGRATE_LOCK)
                )
                self.conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY,"
                    " description text NOT NULL, applied_at text NOT NULL)"
                )
                pending = set(self._pending())  # re-read under the lock
                for m in all_migrations():
                    if m.version not in pending:
                        continue
                    self.conn.execute(m.sql.encode())
                    self.conn.execute(
                        "INSERT INTO schema_migrations VALUES (%s, %s, %s)",
                        (m.version, m.description, iso(utcnow())),
                    )
                self.conn.execute("COMMIT")

        self._retry(run)

    @contextmanager
    def transaction(self) -> Iterator[PostgresTxn]:
        if self.readonly:
            raise StoreError(f"store {self.location} was opened read-only")
        with self._lock:
            if self._open is not None:
                # inside this store's own transaction (an index write during a
                # capture): join it; it commits or rolls back as one
                yield self._reading(PostgresTxn(self.conn))
                return

            def begin() -> None:
                self.conn.execute("BEGIN")
                self.conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_NAMESPACE, WRITE_LOCK))

            self._retry(begin)
            self._open = "write"
            try:
                yield self._reading(PostgresTxn(self.conn))  # plain docs: decode.use_plain
            except psycopg.Error as exc:
                # a constraint or the append-only trigger: all undone, one line
                self._rollback()
                raise self._fail(exc, "write refused, nothing written: ") from None
            except BaseException:
                self._rollback()
                raise
            finally:
                self._open = None
            try:
                self.conn.execute("COMMIT")
            except psycopg.Error as exc:
                self._rollback()
                raise self._fail(exc, "commit failed, nothing written: ") from None

    @contextmanager
    def reader(self) -> Iterator[PostgresTxn]:
        """A consistent read snapshot (readers never block writers)."""
        with self._lock:
            if self._open is not None:  # inside a transaction: read what it sees
                yield self._reading(PostgresTxn(self.conn))
                return
            self._retry(
                lambda: self.conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            )
            self._open = "read"
            try:
                yield self._reading(PostgresTxn(self.conn))  # plain docs: decode.use_plain
            except psycopg.Error as exc:
                self._rollback()
                raise self._fail(exc) from None
            finally:
                self._open = None
                self._rollback()

    def fetch_all(self, sql: str, args: Any = ()) -> list[tuple[Any, ...]]:
        """One statement in autocommit (its own snapshot), or inside the open
        transaction; lock waits retried, failures one line."""
        with self._lock:
            return self._retry(lambda: self.conn.execute(sql, args).fetchall())

    def close(self) -> None:
        with contextlib.suppress(psycopg.Error):
            self.conn.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check(self) -> list[str]:
        """The index tables and corpus figures agree with the nodes (validate)."""
        from memgraph.store.postgres.check import index_problems

        with self.reader() as txn:
            return index_problems(txn.conn)

    # -- reads -------------------------------------------------------------
    def schema_versions(self) -> list[int]:
        return [
            int(r[0]) for r in self.fetch_all("SELECT version FROM schema_migrations ORDER BY 1")
        ]

    def neighbourhood(self, node_id: str, hops: int = 2) -> Neighbourhood:
        """Nodes within ``hops`` edges (either direction) and the edges walked."""

        def touching(frontier: list[str]) -> Iterable[tuple[str, str]]:
            return self.conn.execute(
                "SELECT id, target_id FROM edges WHERE source_id = ANY(%s) "
                "UNION ALL SELECT id, source_id FROM edges WHERE target_id = ANY(%s)",
                (frontier, frontier),
            )

        with self.reader() as txn:
            return walk_neighbourhood(txn, node_id, hops, touching)

    def search(self, query: str, limit: int = 20, profile: str | None = None) -> list[SearchHit]:
        """FTS5's ``bm25`` ranking (``memgraph.store.postgres.fts.search_nodes``)."""
        with self.reader() as txn:
            found = search_nodes(txn.conn, query, limit, profile)
        return [SearchHit(node_id=nid, score=score) for nid, score in found]

    def counts(self) -> dict[str, int]:
        tables = ("nodes", "edges", "summaries", "receipts", "patches", "embeddings", "domains")
        sql = "SELECT " + ", ".join(f"(SELECT count(*) FROM {t})" for t in tables)
        row = self.fetch_all(sql)[0]
        return {t: int(v) for t, v in zip(tables, row, strict=True)}

    # -- snapshots ---------------------------------------------------------
    def export_snapshot(self) -> MemoryGraphSnapshot:
        version = max(self.schema_versions(), default=0)
        with self.reader():
            return snapshot_from(lambda sql: [r[0] for r in self.conn.execute(sql)], version)

    def _column(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        return [r[0] for r in self.fetch_all(sql, args)]

    def import_snapshot(self, snapshot: MemoryGraphSnapshot) -> None:
        with self.transaction() as txn:
            row = self.conn.execute(
                "SELECT (SELECT count(*) FROM nodes) + (SELECT count(*) FROM receipts)"
            ).fetchone()
            if row and row[0]:
                raise SnapshotError(
                    f"store {self.location} is not empty; import a snapshot into a new database"
                )
            # a bulk load into an empty store: no statement deadline, and the voice
            # term tables filled set-based after the nodes, not row by row
            self.conn.execute("SET LOCAL statement_timeout = 0")
            # a durable commit (one for the whole import): a server run with
            # synchronous_commit=off could not hint the rows committed before its
            # WAL writer's next flush, and the VACUUM below would then mark no page
            # all-visible (index-only scans need that)
            self.conn.execute("SET LOCAL synchronous_commit = on")
            self.conn.execute("ALTER TABLE nodes DISABLE TRIGGER nodes_voiceterms_ins")

            def fill_terms() -> None:
                self.conn.execute("ALTER TABLE nodes ENABLE TRIGGER nodes_voiceterms_ins")
                self.conn.execute(VOICE_TERMS_FILL.encode())

            load_snapshot(txn, snapshot, fill_terms)
            # a bulk load: give the planner statistics and merge the text index's
            # pending list now, not when autovacuum gets to it
            self.conn.execute("ANALYZE")
            self.conn.execute(
                "SELECT gin_clean_pending_list('nodes_fts'::regclass),"
                " gin_clean_pending_list('nodes_fts_body_voice'::regclass),"
                " gin_clean_pending_list('nodes_fts_body_other'::regclass)"
            )
        # after the commit (VACUUM runs outside a transaction): the visibility map
        # of the term postings, so voice search reads them index-only from the start
        with self._lock, contextlib.suppress(psycopg.Error):
            self.conn.execute("VACUUM voice_terms")


def _pg_indexes(store: PostgresStore) -> StoreIndexes:
    import dataclasses

    from memgraph.store.postgres.indexes import pg_indexes
    from memgraph.store.postgres.standing import PgStanding
    from memgraph.store.postgres.turns import PgTurnIndex

    found = pg_indexes(store)
    return dataclasses.replace(found, standing=PgStanding(store), turns=PgTurnIndex(store))


register_indexes(PostgresStore, _pg_indexes)
