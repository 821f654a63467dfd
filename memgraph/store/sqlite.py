"""The canonical store: SQLite (stdlib), WAL, one transaction per apply.

Several agent harnesses write at once, so every write transaction starts with
``BEGIN IMMEDIATE`` (the write lock is taken up front, never upgraded from a
read lock, which is what deadlocks into SQLITE_BUSY) and lock waits are retried
with jittered backoff until a deadline; only then does ``StoreBusy`` surface.
The read-only connection and the schema migrations: ``memgraph.store.sqlite_open``.
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from memgraph.errors import SnapshotError, StoreBusy, StoreError

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from memgraph.documents import MemoryGraphSnapshot
    from memgraph.store.protocol import Neighbourhood, SearchHit
from memgraph.store import docpack, guard
from memgraph.store.checkpoint import SAFETY_NET_PAGES, Checkpointer
from memgraph.store.decode import DocStore, load_snapshot, snapshot_from, walk_neighbourhood
from memgraph.store.identity import read_sqlite_id, settle_sqlite_id
from memgraph.store.interfaces import StoreIndexes, register_indexes
from memgraph.store.sqlite_open import Retry, connect_read_only, migrate
from memgraph.store.sqlite_txn import SQLiteTxn, _chunks, iso, node_row

T = TypeVar("T")


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class SQLiteStore(DocStore):
    """Implements ``memgraph.store.protocol.Store`` on one SQLite file."""

    def __init__(
        self,
        path: str | Path,
        *,
        busy_deadline: float = 120.0,
        readonly: bool = False,
        _creating: bool = False,
    ) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        self.store_id: str | None = None  # memgraph.store.identity (set by _identify)
        self.busy_deadline = busy_deadline
        self.readonly = readonly
        self._lock = threading.RLock()
        self._checkpointer: Checkpointer | None = None  # writable stores only
        self._helper: ThreadPoolExecutor | None = None  # ditto: see SQLiteTxn
        self._pooled = False
        self._wal = guard.WalWatch(self.path)
        # never write to a file that is not already a memgraph store: refuse a
        # 0-byte/non-SQLite/non-regular file here, foreign or newer schemas below
        exists = _creating or guard.check_file(self.path)
        try:
            if readonly:
                if not exists:
                    raise StoreError(f"no store at {self.path}")
                self.conn = connect_read_only(self.path)
                docpack.register(self.conn)
                guard.check_schema(self.conn, self.path)
                self._identify(None)
                return
            if not exists:
                guard.create_atomically(
                    self.path,
                    lambda tmp: SQLiteStore(
                        tmp, busy_deadline=busy_deadline, _creating=True
                    ).close(),
                )
            self.conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=5.0
            )
            docpack.register(self.conn)  # mg_doc: index statements read node fields
        except (OSError, sqlite3.Error) as exc:
            if isinstance(exc, sqlite3.DatabaseError) and not isinstance(
                exc, sqlite3.OperationalError
            ):
                raise StoreError(f"damaged store {self.path}: {exc}. {guard.RECOVERY}") from None
            raise StoreError(
                f"cannot open store {self.path}: {guard.sqlite_reason(self.path, exc)}"
            ) from None
        try:
            if not _creating:  # before anything writes (even the journal mode)
                self._retry(lambda: guard.check_schema(self.conn, self.path))
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise StoreError(f"{self.path} is not a usable memgraph store: {exc}") from None
        except StoreError:
            self.conn.close()
            raise
        try:
            self._retry(lambda: self.conn.execute("PRAGMA journal_mode=WAL").fetchone())
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA temp_store=MEMORY")
            self.conn.execute("PRAGMA cache_size=-65536")
            migrate(self.conn, self._retry)
            self._identify(None if _creating else self._retry)
            self.conn.execute(f"PRAGMA wal_autocheckpoint={SAFETY_NET_PAGES}")
            self._checkpointer = Checkpointer(self.path)
            self._pooled = True  # the index helper thread starts on a bulk patch
            self._wal.remember()
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise StoreError(f"{self.path} is not a usable memgraph store: {exc}") from None

    # -- plumbing ----------------------------------------------------------
    def _identify(self, retry: Retry | None) -> None:
        """``store_id`` (``memgraph.store.identity``): settled when writable (not
        while the file is being made under a temporary name), else only read; the
        home's caches of this store are keyed by it (``memgraph.home_dirs``)."""
        if retry is not None:
            self.store_id = settle_sqlite_id(self.conn, self.path, retry)
        elif not self.readonly:
            return  # being created: the first real open makes the id
        else:
            self.store_id = read_sqlite_id(self.conn, self.path)

    def _retry(self, fn: Callable[[], T]) -> T:
        deadline = time.monotonic() + self.busy_deadline
        delay = 0.002
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc):
                    raise StoreError(
                        f"store {self.path}: {guard.sqlite_reason(self.path, exc)}"
                    ) from None
                if time.monotonic() > deadline:
                    raise StoreBusy(
                        f"store {self.path} stayed locked for {self.busy_deadline:g}s; "
                        "another writer holds it, retry later"
                    ) from None
            except sqlite3.DatabaseError as exc:  # malformed image, not a database
                raise StoreError(f"damaged store {self.path}: {exc}. {guard.RECOVERY}") from None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.1)

    @contextmanager
    def transaction(self) -> Iterator[SQLiteTxn]:
        with self._lock:
            if self.readonly:
                raise StoreError(f"store {self.path} is opened read-only; nothing written")
            self._retry(lambda: self.conn.execute("BEGIN IMMEDIATE"))
            try:
                self._wal.check()  # under the write lock: a vanished WAL is caught here
            except StoreError:
                self.conn.execute("ROLLBACK")
                raise
            txn = SQLiteTxn(self.conn, self._pool if self._pooled else None)
            try:
                yield txn
                txn.settle()
            except sqlite3.Error as exc:
                # e.g. a constraint or an append-only trigger: the whole
                # transaction is undone and the caller gets one clear line
                with contextlib.suppress(sqlite3.Error):
                    txn.settle()  # the helper's statement ends before ROLLBACK
                self.conn.execute("ROLLBACK")
                raise StoreError(
                    f"store {self.path}: write refused, nothing written: {exc}"
                ) from None
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    txn.settle()
                self.conn.execute("ROLLBACK")
                raise
            try:
                self._retry(lambda: self.conn.execute("COMMIT"))
                if self._checkpointer is not None:
                    self._checkpointer.poke()
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise

    @contextmanager
    def reader(self) -> Iterator[SQLiteTxn]:
        """A consistent read snapshot (WAL readers never block writers)."""
        with self._lock:
            self.conn.execute("BEGIN")
            try:
                yield self._reading(SQLiteTxn(self.conn))  # plain docs: decode.use_plain
            finally:
                self.conn.execute("COMMIT")

    # -- Conns for the index implementations (memgraph.store.sqlite_ext.base) --
    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection inside a read snapshot (the caller's, when one is open)."""
        with self._lock:
            if self.conn.in_transaction:
                yield self.conn
            else:
                with self.reader() as txn:
                    yield txn.conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        with self.transaction() as txn:
            yield txn.conn

    def integrity(self) -> str:
        """SQLite's ``quick_check`` verdict: ``ok`` or the first problem (and how many)."""
        with self._lock:
            rows = self.conn.execute("PRAGMA quick_check(20)").fetchall()
        if not rows or rows[0][0] == "ok":
            return "ok"
        lines = [ln for r in rows for ln in str(r[0]).splitlines()]
        first = next((ln for ln in lines if not ln.startswith("***")), lines[0])
        return f"{first} ({len(lines)} problem line(s))"

    def _pool(self) -> ThreadPoolExecutor:
        """The helper thread of bulk patches, started on first use: importing
        concurrent.futures (logging, traceback) costs ~10 ms of every short
        process's start-up, and most writes (a hook, a note) never need it."""
        if self._helper is None:
            from concurrent.futures import ThreadPoolExecutor

            self._helper = ThreadPoolExecutor(1, thread_name_prefix="memgraph-index")
        return self._helper

    def close(self) -> None:
        if self._helper is not None:
            self._helper.shutdown(wait=True)
        if self._checkpointer is not None:
            self._checkpointer.close()
        self.conn.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reads -------------------------------------------------------------
    def schema_versions(self) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]

    def neighbourhood(self, node_id: str, hops: int = 2) -> Neighbourhood:
        """Nodes within ``hops`` edges (either direction) and the edges walked."""

        def touching(frontier: list[str]) -> Iterator[tuple[str, str]]:
            for chunk in _chunks(frontier):
                marks = ",".join("?" * len(chunk))
                yield from self.conn.execute(
                    f"SELECT id, target_id FROM edges WHERE source_id IN ({marks}) "
                    f"UNION ALL SELECT id, source_id FROM edges WHERE target_id IN ({marks})",
                    [*chunk, *chunk],
                )

        with self.reader() as txn:
            return walk_neighbourhood(txn, node_id, hops, touching)

    def search(self, query: str, limit: int = 20, profile: str | None = None) -> list[SearchHit]:
        from memgraph.fts import to_fts5_query
        from memgraph.store.protocol import SearchHit

        match = to_fts5_query(query)
        if not match:
            return []
        sql = (
            "SELECT n.id, bm25(node_fts) AS score FROM node_fts JOIN nodes n "
            "ON n.rowid = node_fts.rowid WHERE node_fts MATCH ?"
        )
        args: list[object] = [match]
        if profile is not None:
            sql += " AND n.profile = ?"
            args.append(profile)
        args.append(limit)
        with self._lock:
            rows = self.conn.execute(sql + " ORDER BY score LIMIT ?", args).fetchall()
        return [SearchHit(node_id=r[0], score=float(r[1])) for r in rows]

    def counts(self) -> dict[str, int]:
        tables = ("nodes", "edges", "summaries", "receipts", "patches", "embeddings", "domains")
        with self._lock:
            return {
                t: int(self.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in tables
            }

    # -- snapshots ---------------------------------------------------------
    def export_snapshot(self) -> MemoryGraphSnapshot:
        with self.reader():
            version = max(self.schema_versions())
            return snapshot_from(lambda sql: [r[0] for r in self.conn.execute(sql)], version)

    def _column(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        with self._lock:
            return [r[0] for r in self.conn.execute(sql, args).fetchall()]

    def import_snapshot(self, snapshot: MemoryGraphSnapshot) -> None:
        with self.transaction() as txn:
            row = self.conn.execute(
                "SELECT (SELECT count(*) FROM nodes) + (SELECT count(*) FROM receipts)"
            ).fetchone()
            if row[0]:
                raise SnapshotError(
                    f"store {self.path} is not empty; import a snapshot into a new store path"
                )
            load_snapshot(txn, snapshot)


def read_store_file(path: Path) -> MemoryGraphSnapshot:
    """The snapshot of a store file opened read-only, after SQLite's quick_check.

    Problems of the file are one ``StoreError`` line (``sqlite integrity: ...``,
    ``unreadable store: ...``); a malformed stored document raises pydantic's
    ``ValidationError``.
    """
    try:
        store = SQLiteStore(path, readonly=True)
        try:
            verdict = store.integrity()
            if verdict != "ok":
                raise StoreError(
                    f"damaged store: sqlite integrity check failed: {verdict}. {guard.RECOVERY}"
                )
            return store.export_snapshot()
        finally:
            store.close()
    except sqlite3.Error as exc:
        raise StoreError(f"damaged store: {exc}. {guard.RECOVERY}") from None


def _sqlite_indexes(store: SQLiteStore) -> StoreIndexes:
    from memgraph.store.sqlite_ext.activity import SQLiteActivity
    from memgraph.store.sqlite_ext.ledger import SQLiteLedger
    from memgraph.store.sqlite_ext.registry import SQLiteRegistry
    from memgraph.store.sqlite_ext.scrub import SQLiteScrub
    from memgraph.store.sqlite_ext.session import (
        SQLiteCaptureAppend,
        SQLiteNoteAppend,
        SQLiteSessionIndex,
    )
    from memgraph.store.sqlite_ext.standing import SQLiteStanding
    from memgraph.store.sqlite_ext.terms import SQLiteTermStats
    from memgraph.store.sqlite_ext.voice_index import SQLiteTurnIndex, SQLiteVoiceIndex

    return StoreIndexes(
        voice=SQLiteVoiceIndex(store),
        registry=SQLiteRegistry(store),
        sessions=SQLiteSessionIndex(store),
        notes=SQLiteNoteAppend(store),
        terms=SQLiteTermStats(store),
        activity=SQLiteActivity(store),
        standing=SQLiteStanding(store),
        turns=SQLiteTurnIndex(store),
        scrub=SQLiteScrub(store),
        captures=SQLiteCaptureAppend(store),
        ledger=SQLiteLedger(store),
    )


register_indexes(SQLiteStore, _sqlite_indexes)


__all__ = ["SQLiteStore", "SQLiteTxn", "iso", "node_row", "read_store_file"]
