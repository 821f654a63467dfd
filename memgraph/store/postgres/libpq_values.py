"""Values between Python and libpq's text format, as psycopg converts them.

The lean client (``libpq``) sends parameters as text with the type OIDs psycopg
gives them and reads results as text converted by column type, so the SAME SQL
gives the same Python values through either client. Also the client's errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class PgError(Exception):
    """A statement or connection failure, with psycopg's message text."""


class Unsupported(Exception):
    """A result column type this client does not convert (the caller uses psycopg)."""


def convert(sql: str, count: int) -> str:
    """psycopg's placeholder conversion: ``%s`` -> ``$1..$n`` in order, ``%%`` -> ``%``;
    any other ``%`` is an error, as psycopg makes it. ``count`` placeholders expected."""
    out: list[str] = []
    n = 0
    i = 0
    while True:
        j = sql.find("%", i)
        if j < 0:
            out.append(sql[i:])
            break
        out.append(sql[i:j])
        nxt = sql[j + 1 : j + 2]
        if nxt == "%":
            out.append("%")
        elif nxt in ("s", "b", "t"):
            n += 1
            out.append(f"${n}")
        else:
            raise PgError(f"only '%s', '%b', '%t' are allowed as placeholders, got '%{nxt}'")
        i = j + 2
    if n != count:
        raise PgError(f"the query has {n} placeholders but {count} parameters were passed")
    return "".join(out)


def array_text(items: Sequence[object]) -> str:
    parts = []
    for item in items:
        if item is None:
            parts.append("NULL")
        elif isinstance(item, str):
            parts.append('"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"')
        else:
            raise Unsupported(f"array of {type(item).__name__}")
    return "{" + ",".join(parts) + "}"


def dump(value: object) -> tuple[int, bytes | None]:
    """(type OID, text) of a parameter, the OIDs psycopg gives them."""
    if value is None:
        return 0, None
    if isinstance(value, bool):
        return 16, b"t" if value else b"f"
    if isinstance(value, int):
        if -(2**15) <= value < 2**15:
            oid = 21
        elif -(2**31) <= value < 2**31:
            oid = 23
        elif -(2**63) <= value < 2**63:
            oid = 20
        else:
            oid = 1700
        return oid, str(value).encode()
    if isinstance(value, float):
        if value != value:
            text = "NaN"
        elif value in (float("inf"), float("-inf")):
            text = "Infinity" if value > 0 else "-Infinity"
        else:
            text = repr(value)
        return 701, text.encode()
    if isinstance(value, str):
        text = value
    elif isinstance(value, list | tuple):
        text = array_text(value)
    else:
        raise Unsupported(f"parameter of type {type(value).__name__}")
    if "\x00" in text:
        raise PgError("PostgreSQL text fields cannot contain NUL (0x00) bytes")
    return 0, text.encode()


def _decimal(raw: bytes) -> object:
    from decimal import Decimal

    return Decimal(raw.decode())


LOAD: dict[int, Any] = {
    16: lambda raw: raw == b"t",
    20: int,
    21: int,
    23: int,
    26: int,
    700: float,
    701: float,
    1700: _decimal,
    25: lambda raw: raw.decode(),
    1043: lambda raw: raw.decode(),
    1042: lambda raw: raw.decode(),
    19: lambda raw: raw.decode(),
    18: lambda raw: raw.decode(),
    705: lambda raw: raw.decode(),
}
