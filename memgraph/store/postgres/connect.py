"""Connection settings shared by the store and the lean paths (psycopg only, no pydantic)."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from memgraph.errors import StoreError


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


# Defaults a URL may override (``?connect_timeout=30``).
CONNECT_DEFAULTS: dict[str, Any] = {
    "connect_timeout": 5,
    "application_name": "memgraph",
    "client_encoding": "UTF8",
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 30000,
}


def connect_params(
    url: str,
    *,
    lock_timeout_ms: int = 5000,
    statement_timeout_ms: int = 600_000,
    idle_in_transaction_timeout_ms: int = 600_000,
) -> str:
    """The connection string: ``url`` plus the defaults it does not set
    (``CONNECT_DEFAULTS``) and the session timeouts."""
    try:
        params: dict[str, Any] = dict(conninfo_to_dict(url))
    except psycopg.ProgrammingError as exc:
        raise StoreError(f"invalid PostgreSQL store URL: {_first_line(exc)}") from None
    for key, value in CONNECT_DEFAULTS.items():
        params.setdefault(key, value)
    options = str(params.get("options") or "")
    options += (
        f" -c statement_timeout={statement_timeout_ms} -c lock_timeout={lock_timeout_ms}"
        f" -c idle_in_transaction_session_timeout={idle_in_transaction_timeout_ms}"
        # JIT compiles for 100+ ms when a plan's estimate is large; no statement here
        # runs long enough to win it back (a turn ranking: 132 ms of JIT in a 523 ms statement)
        " -c jit=off"
    )
    params["options"] = options.strip()
    return make_conninfo(**params)
