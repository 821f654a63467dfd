"""Connection settings shared by psycopg and the lean libpq client (stdlib only).

``memgraph.store.postgres.connect`` (psycopg) and ``memgraph.store.postgres.libpq``
(ctypes, no psycopg) both build their connection parameters here, so a URL
connects with the same settings whichever client opens it.
"""

from __future__ import annotations

from typing import Any


def first_line(exc: BaseException) -> str:
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


def with_defaults(
    params: dict[str, Any],
    *,
    lock_timeout_ms: int = 5000,
    statement_timeout_ms: int = 600_000,
    idle_in_transaction_timeout_ms: int = 600_000,
) -> dict[str, Any]:
    """``params`` (a parsed URL) plus the defaults it does not set
    (``CONNECT_DEFAULTS``) and the session timeouts."""
    params = dict(params)
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
    return params
