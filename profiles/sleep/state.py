"""When sleep last ran, per store: ``<home>/sleep.json`` (the default ``--since``;
``probe`` and ``doctor`` report it).

One home can point at several stores (``MEMGRAPH_STORE``, ``--store``): each
store has its own entry under ``"stores"``, keyed by ``memgraph.home_dirs.store_key``
(the store's id; a store without one by its location: a file by its real path, a
PostgreSQL URL without its password). An entry under the location, from before
ids, is the store's until its next pass moves it under the id. A store slept
nowhere else starts from the beginning, not from another store's last run.

A file from before (one flat ``last_run`` for whatever store the home pointed
at) is still read: for a store without an entry of its own it is the last run,
and the first pass that writes moves it under that pass's store.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

STATE_FILE = "sleep.json"
MAX_STATE_BYTES = 16 * 1024 * 1024  # an entry per store, ~200 bytes each
# the fields of one store's entry (and of the flat file from before)
FIELDS = ("last_run", "last_status", "last_receipts", "last_changed")


def iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat().replace("+00:00", "Z")


def read_state(path: Path | None) -> dict[str, Any]:
    """The whole file (``{}`` when missing or unreadable). Read without following a
    link and never from a FIFO or device: a plain read of a FIFO there waited for a
    writer, and `sleep` and `doctor` with it."""
    if path is None:
        return {}
    from memgraph.beneath import FileEscape
    from memgraph.fileio import read_bytes_nofollow

    try:
        raw = read_bytes_nofollow(path, MAX_STATE_BYTES)
    except FileEscape:  # a link or not a regular file: the write says so, by name
        return {}
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


Keys = str | Sequence[str]


def _keys(key: Keys) -> list[str]:
    return [key] if isinstance(key, str) else list(key)


def store_state(path: Path | None, key: Keys) -> dict[str, Any]:
    """The entry of store ``key`` (``memgraph.home_dirs.store_keys``: its id, then
    its location as keyed before ids); else the flat state from before, if any."""
    data = read_state(path)
    stores = data.get("stores")
    for name in _keys(key):
        entry = stores.get(name) if isinstance(stores, dict) else None
        if isinstance(entry, dict):
            return entry
    return {k: data[k] for k in FIELDS if k in data}


def last_run(path: Path | None, key: Keys) -> datetime | None:
    value = store_state(path, key).get("last_run")
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def sleep_status(path: Path, key: Keys, utc: bool = False) -> dict[str, Any]:
    """When sleep last ran on store ``key`` (for ``memgraph probe``), in one line too
    (times in local time with the zone, UTC with ``utc``; the dict keeps ISO UTC)."""
    state = store_state(path, key)
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


def write_state(path: Path, key: Keys, until: datetime, status: str, receipts: int) -> None:
    """Record a pass over store ``key`` (under the first of its keys: an entry
    under a later one, or the flat state from before, moves there). Under a lock:
    passes over two stores from one home at once both keep their entry."""
    from memgraph.fileio import atomic_write_text, file_lock

    names = _keys(key)
    with file_lock(path):
        data = read_state(path)
        entry = store_state(path, names)
        for k in FIELDS:
            data.pop(k, None)
        entry.update({"last_run": iso(until), "last_status": status, "last_receipts": receipts})
        if receipts:
            entry["last_changed"] = iso(until)
        stores = data.get("stores")
        kept = dict(stores) if isinstance(stores, dict) else {}
        for before in names[1:]:
            kept.pop(before, None)
        data["stores"] = {**kept, names[0]: entry}
        atomic_write_text(path, json.dumps(data, sort_keys=True) + "\n")


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
