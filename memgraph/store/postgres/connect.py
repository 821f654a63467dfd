"""Connection settings shared by the store and the lean paths (psycopg only, no pydantic)."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from memgraph.errors import StoreError
from memgraph.store.postgres.params import CONNECT_DEFAULTS, with_defaults
from memgraph.store.postgres.params import first_line as _first_line


def connect_params(
    url: str,
    *,
    lock_timeout_ms: int = 5000,
    statement_timeout_ms: int = 600_000,
    idle_in_transaction_timeout_ms: int = 600_000,
) -> str:
    """The connection string: ``url`` plus the defaults it does not set
    (``CONNECT_DEFAULTS``) and the session timeouts (``params.with_defaults``)."""
    try:
        params: dict[str, Any] = dict(conninfo_to_dict(url))
    except psycopg.ProgrammingError as exc:
        raise StoreError(f"invalid PostgreSQL store URL: {_first_line(exc)}") from None
    params = with_defaults(
        params,
        lock_timeout_ms=lock_timeout_ms,
        statement_timeout_ms=statement_timeout_ms,
        idle_in_transaction_timeout_ms=idle_in_transaction_timeout_ms,
    )
    return make_conninfo(**params)


__all__ = ["CONNECT_DEFAULTS", "_first_line", "connect_params"]
