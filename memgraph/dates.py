"""The one date parser and time printer of the command line and the MCP server.

Stdlib only (the ``memgraph voice`` fast path parses its ``--since`` with it).

``parse_when(text)`` accepts, for every date option (``--since``, ``--until``,
``--as-of``, ``--at``, MCP ``since``):

- ``YYYY-MM-DD``: that calendar day (its first microsecond, or its last with
  ``end_of_day`` so ``--until 2026-04-14`` includes the whole day);
- an ISO timestamp (``2026-04-14T14:32``, ``...Z``, ``...+02:00``);
- ``today``, ``yesterday``, ``now``;
- a span back from now: ``7d``, ``2w``, ``12h``, ``30m`` (minutes), ``1y``
  (365 days), also spelled ``7 days`` or ``7 days ago``.

Calendar days and naive timestamps are the local time zone's, or UTC with
``utc=True`` (the CLI's ``--utc``), so a day means the same day the listing shows.
The result is always timezone-aware UTC.

``show(dt, utc=False)`` prints a time the way listings do: local time with the
zone's name (``2026-04-14 16:32 CEST``), or UTC with ``utc``.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from memgraph.errors import UsageError

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_SPAN = re.compile(
    r"(?P<n>\d{1,6})\s*(?P<unit>m|min|mins|minutes?|h|hours?|d|days?|w|weeks?|y|years?)"
    r"(?:\s+ago)?",
    re.IGNORECASE,
)
_UNIT = {"m": 60.0, "h": 3600.0, "d": 86400.0, "w": 7 * 86400.0, "y": 365 * 86400.0}
FORMS = "YYYY-MM-DD, an ISO time, today, yesterday, or a span back such as 7d, 2w, 12h"


def _zone(utc: bool) -> datetime:
    """Now, aware, in the zone calendar days are read in."""
    return datetime.now(UTC) if utc else datetime.now(UTC).astimezone()


def _day_start(d: date, like: datetime) -> datetime:
    """Local (or UTC) midnight starting ``d``, in the zone of ``like``."""
    naive = datetime(d.year, d.month, d.day)
    if like.tzinfo is UTC:
        return naive.replace(tzinfo=UTC)
    return naive.astimezone()  # the local zone's offset on that day (DST-correct)


def parse_when(
    text: str,
    *,
    end_of_day: bool = False,
    flag: str = "date",
    utc: bool = False,
    now: datetime | None = None,
) -> datetime:
    """``text`` as an aware UTC datetime (forms in the module doc); ``UsageError``
    naming ``flag`` and the accepted forms otherwise."""
    s = text.strip()
    low = s.lower()
    current = now.astimezone(UTC) if now is not None else datetime.now(UTC)
    here = current if utc else current.astimezone()
    try:
        if low in ("today", "yesterday"):
            d = here.date() - timedelta(days=1 if low == "yesterday" else 0)
            start = _day_start(d, here)
            dt = _end(start) if end_of_day else start
        elif low == "now":
            dt = current
        elif m := _SPAN.fullmatch(low):
            seconds = int(m["n"]) * _UNIT[m["unit"][0]]
            dt = current - timedelta(seconds=seconds)
        elif _DAY.fullmatch(s):
            start = _day_start(date.fromisoformat(s), here)
            dt = _end(start) if end_of_day else start
        else:
            dt = datetime.fromisoformat(s)
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=UTC) if utc else dt.astimezone()
        dt = dt.astimezone(UTC)
        if not 1000 <= dt.year <= 9999:
            raise ValueError("out of range")  # 4-digit years keep stored text in time order
    except (ValueError, OverflowError):
        raise UsageError(f"{flag}: bad date {text[:60]!r}; use {FORMS}") from None
    return dt


def _end(start: datetime) -> datetime:
    """The last microsecond of the calendar day starting at ``start`` (23 or 25
    hours on a DST change: the next day's midnight is computed, not added)."""
    nxt = start.date() + timedelta(days=1)
    return _day_start(nxt, start) - timedelta(microseconds=1)


def parse_day(text: str, *, flag: str = "date", utc: bool = False) -> date:
    """The calendar day ``text`` names (any ``parse_when`` form), in the local zone
    (UTC with ``utc``)."""
    dt = parse_when(text, flag=flag, utc=utc)
    return (dt if utc else dt.astimezone()).date()


def show(dt: datetime, utc: bool = False, seconds: bool = False) -> str:
    """``2026-04-14 16:32 CEST``: local time with the zone's name (UTC with ``utc``)."""
    when = dt.astimezone(UTC) if utc else dt.astimezone()
    clock = "%H:%M:%S" if seconds else "%H:%M"
    return when.strftime(f"%Y-%m-%d {clock} ") + zone_name(when)


def zone_name(dt: datetime) -> str:
    """``UTC``, ``CEST``; ``+0530`` when the zone has no abbreviation."""
    name = dt.tzname() or ""
    if name in ("", "UTC+00:00") or name.startswith(("+", "-", "UTC+", "UTC-")):
        offset = dt.strftime("%z")
        return "UTC" if offset in ("+0000", "") else offset
    return name
