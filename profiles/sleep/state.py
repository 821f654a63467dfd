"""When sleep last ran: ``<home>/sleep.json`` (the default ``--since``; ``probe`` reports it)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

STATE_FILE = "sleep.json"


def iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat().replace("+00:00", "Z")


def read_state(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def last_run(path: Path | None) -> datetime | None:
    value = read_state(path).get("last_run")
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def sleep_status(path: Path, utc: bool = False) -> dict[str, Any]:
    """When sleep last ran (for ``memgraph probe``): the state file, in one line too
    (times in local time with the zone, UTC with ``utc``; the dict keeps ISO UTC)."""
    state = read_state(path)
    last = state.get("last_run")
    if not last:
        line = "sleep: never run (`memgraph sleep --now`, or `memgraph sleep --install`)"
    else:
        changed = _shown(state.get("last_changed"), utc) or "never"
        line = (
            f"sleep: last run {_shown(last, utc)} ({state.get('last_status')}, "
            f"{state.get('last_receipts', 0)} receipts); last change {changed}"
        )
    return {
        "last_run": last,
        "last_status": state.get("last_status"),
        "last_changed": state.get("last_changed"),
        "line": line,
    }


def write_state(path: Path, until: datetime, status: str, receipts: int) -> None:
    from memgraph.fileio import atomic_write_text

    state = read_state(path)
    state.update(
        {
            "last_run": iso(until),
            "last_status": status,
            "last_receipts": receipts,
        }
    )
    if receipts:
        state["last_changed"] = iso(until)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(state, sort_keys=True) + "\n")


def _shown(value: Any, utc: bool) -> str | None:
    """An ISO time from the state file as people read it (``memgraph.dates.show``)."""
    from memgraph.dates import show

    if not value:
        return None
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return str(value)
    return show(when if when.tzinfo else when.replace(tzinfo=UTC), utc)
