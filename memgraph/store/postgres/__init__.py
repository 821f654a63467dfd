"""The PostgreSQL backend (psycopg 3): one store for a fleet of machines.

Selected by a store URL (``MEMGRAPH_STORE=postgresql://...`` or ``--store``);
install with ``pip install 'memgraph[postgres]'``. ``is_store_url`` and
``redact`` are importable without psycopg.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

URL_SCHEMES = ("postgresql://", "postgres://")

if TYPE_CHECKING:
    from memgraph.store.postgres.store import PostgresStore


def is_store_url(location: object) -> bool:
    """Whether a store location names a PostgreSQL server rather than a file."""
    return isinstance(location, str) and location.startswith(URL_SCHEMES)


def redact(url: str) -> str:
    """The URL without its password (for messages and ``location``); stdlib only."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or "localhost"
        port = parts.port or 5432
        user = parts.username
    except ValueError:
        return "postgresql://(malformed URL)"
    db = parts.path.lstrip("/") or (user or "")
    return f"postgresql://{user + '@' if user else ''}{host}:{port}/{db}"


def validate_url(url: str) -> list[str]:
    """Problems of the PostgreSQL store at ``url``, each as ``location: message``:
    the graph's invariants (as for a SQLite store) and the index tables' agreement
    with the nodes."""
    from memgraph.errors import MemgraphError

    where = redact(url)
    try:
        store = open_postgres(url, readonly=True)
        try:
            problems = store.check()
            from memgraph.validation import validate_snapshot

            problems += validate_snapshot(store.export_snapshot())
        finally:
            store.close()
    except MemgraphError as exc:
        return [f"{where}: {exc}"]
    return [f"{where}: {p}" for p in problems]


def open_postgres(url: str, *, readonly: bool = False) -> PostgresStore:
    """Open (creating and migrating if needed) the PostgreSQL store at ``url``."""
    from memgraph.errors import StoreError

    try:
        from memgraph.store.postgres.store import PostgresStore
    except ImportError as exc:
        raise StoreError(
            f"a PostgreSQL store needs psycopg ({exc.name} is missing):"
            " pip install 'memgraph[postgres]'"
        ) from None
    return PostgresStore(url, readonly=readonly)


__all__ = ["URL_SCHEMES", "is_store_url", "open_postgres", "redact", "validate_url"]
