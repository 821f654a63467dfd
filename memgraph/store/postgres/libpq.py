"""A small libpq client through ctypes, for the lean ``memgraph voice`` path.

``import psycopg`` costs 100-160 ms of CPU (asyncio, importlib.metadata, every
type adapter), more than a whole SQLite search process. This client speaks to
libpq directly and satisfies the part of psycopg's connection protocol the
voice index reads through (``conn.execute(sql, params)`` -> ``fetchone()`` /
``fetchall()``), so ``PgVoiceIndex`` runs the SAME SQL on either client:

- placeholders as psycopg converts them (``%s`` -> ``$n``, ``%%`` -> ``%``;
  without parameters the text is sent as is), parameters with the type OIDs
  psycopg gives them (str and lists of str untyped, ints by size, floats float8);
- results read as text and converted by column type as psycopg's loaders do
  (integers, floats, numeric, booleans, text); any other type raises
  ``Unsupported`` and the caller takes the psycopg path;
- connection as ``psycopg.connect``: one attempt per address of the host, the
  connect timeout enforced here, the same error text (``connection failed:``,
  ``connection timeout expired``, ``failed to resolve host``).

``connect(url)`` returns None when no libpq loads or the URL asks for something
this client leaves to psycopg (several hosts, load balancing, another client
encoding): the caller then uses psycopg, which is correct, only slower.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from typing import Any

from memgraph.store.postgres.libpq_values import LOAD, PgError, Unsupported, convert, dump
from memgraph.store.postgres.params import with_defaults

__all__ = [
    "BadUrl",
    "LibpqConnection",
    "PgError",
    "Result",
    "Unsupported",
    "connect",
    "convert",
    "parse_url",
]

# libpq's enums (libpq-fe.h)
_CONNECTION_OK, _CONNECTION_BAD = 0, 1
_POLL_FAILED, _POLL_READING, _POLL_WRITING, _POLL_OK = 0, 1, 2, 3
_COMMAND_OK, _TUPLES_OK = 1, 2
_DIAG_SEVERITY = ord("S")
_DEFAULT_CONNECT_TIMEOUT = 130  # psycopg's, when connect_timeout is 0 or less

_lib: Any = None
_tried = False


class BadUrl(PgError):
    """A URL libpq cannot parse (psycopg's ``ProgrammingError`` of ``conninfo_to_dict``)."""


class _Option(ctypes.Structure):
    _fields_ = [
        ("keyword", ctypes.c_char_p),
        ("envvar", ctypes.c_char_p),
        ("compiled", ctypes.c_char_p),
        ("val", ctypes.c_char_p),
        ("label", ctypes.c_char_p),
        ("dispchar", ctypes.c_char_p),
        ("dispsize", ctypes.c_int),
    ]


def _candidates() -> list[str]:
    """Where a libpq may be, after the usual names: ``find_library`` (it runs a
    subprocess, so only when those fail), then the one psycopg[binary] bundles."""
    import ctypes.util
    import sys

    names = []
    found = ctypes.util.find_library("pq")
    if found:
        names.append(found)
    for entry in sys.path:
        folder = os.path.join(entry or ".", "psycopg_binary.libs")
        if os.path.isdir(folder):
            names += sorted(
                os.path.join(folder, f) for f in os.listdir(folder) if f.startswith("libpq")
            )
    return names


def _usual() -> list[str]:
    return ["libpq.so.5", "libpq.5.dylib"]


def _load() -> Any:
    """libpq, loaded once; None when none loads."""
    global _lib, _tried
    if _tried:
        return _lib
    _tried = True
    for names in (_usual, _candidates):
        for name in names():
            try:
                lib = ctypes.CDLL(name)
            except OSError:
                continue
            _declare(lib)
            _lib = lib
            return lib
    return None


def _declare(lib: Any) -> None:
    p, i, u, s = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_char_p
    pp = ctypes.POINTER(ctypes.c_char_p)
    for name, args, res in [
        ("PQconnectStartParams", [pp, pp, i], p),
        ("PQconnectPoll", [p], i),
        ("PQstatus", [p], i),
        ("PQsocket", [p], i),
        ("PQerrorMessage", [p], s),
        ("PQfinish", [p], None),
        ("PQexec", [p, s], p),
        (
            "PQexecParams",
            [p, s, i, ctypes.POINTER(u), pp, ctypes.POINTER(i), ctypes.POINTER(i), i],
            p,
        ),
        ("PQresultStatus", [p], i),
        ("PQresultErrorMessage", [p], s),
        ("PQresultErrorField", [p, i], s),
        ("PQntuples", [p], i),
        ("PQnfields", [p], i),
        ("PQftype", [p, i], u),
        ("PQgetvalue", [p, i, i], s),
        ("PQgetisnull", [p, i, i], i),
        ("PQclear", [p], None),
        ("PQconninfoParse", [s, pp], p),
        ("PQconninfoFree", [p], None),
        ("PQfreemem", [p], None),
        ("PQsetNoticeProcessor", [p, p, p], p),
    ]:
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = res


def _message(raw: bytes | None) -> str:
    """psycopg's ``_clean_error_message`` for text whose severity is unknown."""
    text = (raw or b"").decode("utf-8", "replace")
    if not text:
        return "no error details available"
    for severity in ("ERROR", "FATAL", "PANIC", "WARNING", "NOTICE", "INFO", "LOG", "DEBUG"):
        if text.startswith(severity + ":"):
            return text[len(severity) + 1 :].strip()
    return text.strip()


def parse_url(url: str) -> dict[str, str]:
    """``psycopg.conninfo.conninfo_to_dict(url)``: the options libpq parses from it.
    Raises BadUrl with libpq's message for a malformed URL."""
    lib = _load()
    err = ctypes.c_char_p()
    opts = lib.PQconninfoParse(url.encode(), ctypes.byref(err))
    if not opts:
        if not err:
            raise MemoryError("couldn't allocate on conninfo parse")
        text = (err.value or b"").decode("utf8", "replace")
        lib.PQfreemem(ctypes.cast(err, ctypes.c_void_p))
        raise BadUrl(text)
    try:
        found: dict[str, str] = {}
        array = ctypes.cast(opts, ctypes.POINTER(_Option))
        k = 0
        while array[k].keyword is not None:
            if array[k].val is not None:
                found[array[k].keyword.decode()] = array[k].val.decode()
            k += 1
        return found
    finally:
        lib.PQconninfoFree(opts)


_ENV = {"host": "PGHOST", "hostaddr": "PGHOSTADDR", "port": "PGPORT"}


def _param(params: dict[str, str], name: str) -> str | None:
    """psycopg's ``get_param``: the URL's value, else the PG* environment variable."""
    if name in params:
        return str(params[name])
    env = {
        **_ENV,
        "target_session_attrs": "PGTARGETSESSIONATTRS",
        "load_balance_hosts": "PGLOADBALANCEHOSTS",
        "client_encoding": "PGCLIENTENCODING",
    }.get(name)
    return os.environ.get(env) if env else None


def _leaves_to_psycopg(params: dict[str, str]) -> bool:
    """What this client does not reproduce exactly: several hosts (psycopg splits
    them into attempts), standby preference, load balancing, a non-UTF8 client."""
    if any("," in (_param(params, k) or "") for k in _ENV):
        return True
    if _param(params, "target_session_attrs") == "prefer-standby":
        return True
    if _param(params, "load_balance_hosts") == "random":
        return True
    enc = (_param(params, "client_encoding") or "UTF8").upper().replace("-", "").replace("_", "")
    return enc not in ("UTF8", "UNICODE")


def _attempts(params: dict[str, str]) -> list[dict[str, str]]:
    """psycopg's ``conninfo_attempts`` for one host: a name resolves to one attempt
    per address (``failed to resolve host`` when it does not resolve)."""
    host = _param(params, "host")
    if not host or host.startswith("/") or host[1:2] == ":" or _param(params, "hostaddr"):
        return [params]
    from ipaddress import ip_address

    try:
        ip_address(host)
        return [{**params, "hostaddr": host}]
    except ValueError:
        pass
    import socket

    port = _param(params, "port") or "5432"
    try:
        found = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise PgError(f"failed to resolve host {host!r}: {exc}") from None
    return [{**params, "hostaddr": str(item[4][0])} for item in found]


def _timeout(params: dict[str, str]) -> int:
    """psycopg's ``timeout_from_conninfo`` (libpq's convention: at least 2 s)."""
    value = _param(params, "connect_timeout") or os.environ.get("PGCONNECT_TIMEOUT")
    try:
        timeout = int(float(value)) if value is not None else _DEFAULT_CONNECT_TIMEOUT
    except ValueError:
        raise PgError(f"bad value for connect_timeout: {value!r}") from None
    if timeout <= 0:
        return _DEFAULT_CONNECT_TIMEOUT
    return max(timeout, 2)


def _connect_one(lib: Any, attempt: dict[str, str], timeout: int) -> Any:
    """One non-blocking connection attempt (psycopg's ``_connect`` + ``wait_conn``)."""
    import select
    import time

    keys = (ctypes.c_char_p * (len(attempt) + 1))(*[k.encode() for k in attempt], None)
    vals = (ctypes.c_char_p * (len(attempt) + 1))(*[str(v).encode() for v in attempt.values()])
    conn = lib.PQconnectStartParams(keys, vals, 0)
    if not conn:
        raise MemoryError("couldn't allocate PGconn")
    deadline = time.monotonic() + timeout
    try:
        if lib.PQstatus(conn) == _CONNECTION_BAD:
            raise PgError(f"connection is bad: {_message(lib.PQerrorMessage(conn))}")
        status = _POLL_WRITING
        while True:
            if status == _POLL_OK:
                return conn
            if status == _POLL_FAILED:
                raise PgError(f"connection failed: {_message(lib.PQerrorMessage(conn))}")
            sock = lib.PQsocket(conn)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise PgError("connection timeout expired")
                reading = [sock] if status == _POLL_READING else []
                writing = [] if status == _POLL_READING else [sock]
                if any(select.select(reading, writing, [], min(left, 0.1))[:2]):
                    break
            status = lib.PQconnectPoll(conn)
    except BaseException:
        lib.PQfinish(conn)
        raise


def connect(url: str) -> LibpqConnection | None:
    """An autocommit connection to ``url`` with the store's settings
    (``params.with_defaults``); None when psycopg should connect instead."""
    lib = _load()
    if lib is None:
        return None
    try:
        url.encode()
    except UnicodeEncodeError:
        return None
    params = with_defaults(parse_url(url))
    params = {k: str(v) for k, v in params.items()}
    if _leaves_to_psycopg(params):
        return None
    timeout = _timeout(params)
    last: PgError | None = None
    for attempt in _attempts(params):
        try:
            return LibpqConnection(lib, _connect_one(lib, attempt, timeout))
        except PgError as exc:
            last = exc
    raise last or PgError("connection failed")


_NOTICE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


class Result:
    """The rows of one statement (``fetchone`` / ``fetchall`` as psycopg's cursor)."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.rows = rows
        self.pos = 0

    def fetchone(self) -> tuple[Any, ...] | None:
        if self.pos >= len(self.rows):
            return None
        self.pos += 1
        return self.rows[self.pos - 1]

    def fetchall(self) -> list[tuple[Any, ...]]:
        rest = self.rows[self.pos :]
        self.pos = len(self.rows)
        return rest


class LibpqConnection:
    """An autocommit connection: ``execute(sql, params)`` like psycopg's."""

    def __init__(self, lib: Any, conn: Any) -> None:
        self.lib = lib
        self.conn = conn
        # notices and warnings are not printed (libpq's default writes them to
        # stderr; psycopg logs them)
        self._quiet = _NOTICE(lambda arg, message: None)
        lib.PQsetNoticeProcessor(conn, ctypes.cast(self._quiet, ctypes.c_void_p), None)

    def execute(self, sql: str, params: Sequence[object] | None = None) -> Result:
        lib = self.lib
        if params is None:
            res = lib.PQexec(self.conn, sql.encode())
        else:
            text = convert(sql, len(params)).encode()
            n = len(params)
            dumped = [dump(v) for v in params]
            types = (ctypes.c_uint * max(n, 1))(*[t for t, _ in dumped])
            values = (ctypes.c_char_p * max(n, 1))(*[v for _, v in dumped])
            res = lib.PQexecParams(self.conn, text, n, types, values, None, None, 0)
        if not res:
            raise PgError(_message(lib.PQerrorMessage(self.conn)))
        try:
            status = lib.PQresultStatus(res)
            if status not in (_COMMAND_OK, _TUPLES_OK):
                raise PgError(self._error(res))
            return Result(self._rows(res) if status == _TUPLES_OK else [])
        finally:
            lib.PQclear(res)

    def _error(self, res: Any) -> str:
        raw = self.lib.PQresultErrorMessage(res) or b""
        severity = self.lib.PQresultErrorField(res, _DIAG_SEVERITY)
        text = raw.decode("utf-8", "replace")
        if not text:
            return "no error details available"
        if severity and text.startswith(severity.decode("utf-8", "replace") + ":"):
            text = text[len(severity.decode("utf-8", "replace")) + 1 :]
        return text.strip()

    def _rows(self, res: Any) -> list[tuple[Any, ...]]:
        lib = self.lib
        nrows, ncols = lib.PQntuples(res), lib.PQnfields(res)
        loads = []
        for c in range(ncols):
            oid = lib.PQftype(res, c)
            if oid not in LOAD:
                raise Unsupported(f"column type {oid}")
            loads.append(LOAD[oid])
        get, isnull = lib.PQgetvalue, lib.PQgetisnull
        rows = []
        cols = list(enumerate(loads))
        for r in range(nrows):
            row: list[Any] = []
            for c, load in cols:
                raw = get(res, r, c)
                if raw == b"" and isnull(res, r, c):
                    row.append(None)
                else:
                    row.append(load(raw))
            rows.append(tuple(row))
        return rows

    def close(self) -> None:
        if self.conn:
            self.lib.PQfinish(self.conn)
            self.conn = None
