"""``memgraph voice`` on a PostgreSQL store without the store class (no pydantic).

The SQLite fast path (``memgraph.store.sqlite_ext.fast``) has this module's
twin: one connection, the same ``PgVoiceIndex`` the store registers, one
statement per search. Returns None when the database is not a current
memgraph store (absent or older schema): the caller then takes the full path,
which opens the store and migrates or reports. A server that cannot be reached
is one ``StoreError`` line, as on the full path.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memgraph.store.postgres import redact
from memgraph.store.voice_rows import VoiceIndexStats, VoiceRow, VoiceSearch

# the newest PostgreSQL schema version this path reads (schema.all_migrations)
READY_VERSION = 103


class LightPostgres:
    """One autocommit connection with the store's connection settings: the libpq
    client (``memgraph.store.postgres.libpq``, no psycopg import) when a libpq
    loads, else psycopg. Both satisfy ``execute(sql, params)`` -> ``fetchone`` /
    ``fetchall``, so ``PgVoiceIndex`` runs the same SQL through either."""

    def __init__(self, url: str, *, lean: bool = True) -> None:
        from memgraph.errors import StoreError
        from memgraph.store.postgres.params import first_line

        self.location = redact(url)
        self.conn: Any = None
        if lean:
            from memgraph.store.postgres import libpq

            self.errors: tuple[type[Exception], ...] = (libpq.PgError,)
            try:
                self.conn = libpq.connect(url)
            except libpq.BadUrl as exc:
                raise StoreError(f"invalid PostgreSQL store URL: {first_line(exc)}") from None
            except libpq.PgError as exc:
                raise StoreError(
                    f"cannot connect to PostgreSQL store {self.location}: {first_line(exc)}"
                ) from None
        if self.conn is None:
            import psycopg

            from memgraph.store.postgres.connect import connect_params

            self.errors = (psycopg.Error,)
            try:
                self.conn = psycopg.connect(connect_params(url), autocommit=True)
            except psycopg.Error as exc:
                raise StoreError(
                    f"cannot connect to PostgreSQL store {self.location}: {first_line(exc)}"
                ) from None

    @contextmanager
    def reader(self) -> Iterator[LightPostgres]:
        """One read snapshot (``txn.conn`` is this connection)."""
        self.conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try:
            yield self
        finally:
            self.conn.execute("ROLLBACK")

    def fetch_all(self, sql: str, args: Any = ()) -> list[tuple[Any, ...]]:
        return list(self.conn.execute(sql, args).fetchall())

    def ready(self) -> bool:
        row = self.conn.execute(
            "SELECT to_regclass('schema_migrations') IS NOT NULL"
            " AND to_regclass('voice_messages') IS NOT NULL"
            " AND to_regclass('voice_terms') IS NOT NULL"  # migration 8 (below 103)
        ).fetchone()
        if not row or not row[0]:
            return False
        version = self.conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
        return bool(version and version[0] is not None and int(version[0]) >= READY_VERSION)

    def close(self) -> None:
        self.conn.close()


def _run(url: str, what: str, request: VoiceSearch | None = None, *, lean: bool = True) -> Any:
    from memgraph.errors import StoreError
    from memgraph.store.postgres.indexes import PgVoiceIndex

    if lean and _psycopg_only():
        lean = False
    light = LightPostgres(url, lean=lean)
    try:
        if not light.ready():
            return None
        index = PgVoiceIndex(light)  # type: ignore[arg-type]
        return index.stats() if request is None else index.search(request)
    except light.errors as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StoreError(f"store {light.location}: {what} failed: {first}") from None
    except Exception as exc:
        from memgraph.store.postgres.libpq import Unsupported

        if not isinstance(exc, Unsupported):
            raise
    finally:
        light.close()
    # a result type the libpq client does not read: psycopg answers (reads only)
    return _run(url, what, request, lean=False)


def _psycopg_only() -> bool:
    """``MEMGRAPH_PG_CLIENT=psycopg``: the lean path through psycopg (tests compare
    the two clients' output byte for byte)."""
    from memgraph.config import env_value

    return env_value("pg_client") == "psycopg"


def voice_search(url: str, request: VoiceSearch, *, lean: bool = True) -> list[VoiceRow] | None:
    found: list[VoiceRow] | None = _run(url, "voice search", request, lean=lean)
    return found


def voice_stats(url: str, *, lean: bool = True) -> VoiceIndexStats | None:
    found: VoiceIndexStats | None = _run(url, "voice stats", lean=lean)
    return found
