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


__all__ = ["URL_SCHEMES", "is_store_url", "open_postgres"]
