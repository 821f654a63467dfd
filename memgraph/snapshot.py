"""Snapshot files (JSON) and whole-store validation."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from memgraph.documents import SNAPSHOT_FORMAT, MemoryGraphSnapshot
from memgraph.errors import SnapshotError, StoreError
from memgraph.fileio import atomic_write_text
from memgraph.validation import validate_snapshot

if TYPE_CHECKING:
    from memgraph.store.protocol import Store

SQLITE_MAGIC = b"SQLite format 3\x00"


def render_snapshot(snapshot: MemoryGraphSnapshot) -> str:
    return snapshot.model_dump_json(indent=1) + "\n"


def parse_snapshot(text: str | bytes, source: str = "snapshot") -> MemoryGraphSnapshot:
    try:
        snapshot = MemoryGraphSnapshot.model_validate_json(text)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
        raise SnapshotError(
            f"{source}: not a valid memgraph snapshot at {where}: {err.get('msg')} "
            f"({exc.error_count()} error(s))"
        ) from None
    if snapshot.format != SNAPSHOT_FORMAT:
        raise SnapshotError(f"{source}: unknown snapshot format {snapshot.format!r}")
    return snapshot


def read_snapshot_file(path: Path) -> MemoryGraphSnapshot:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SnapshotError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_snapshot(data, str(path))


def write_snapshot_file(snapshot: MemoryGraphSnapshot, path: Path) -> None:
    try:
        atomic_write_text(path, render_snapshot(snapshot))
    except OSError as exc:
        raise SnapshotError(f"cannot write {path}: {exc.strerror or exc}") from None


def is_sqlite_file(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def check_snapshot(snapshot: MemoryGraphSnapshot, source: str = "snapshot") -> None:
    """Raise ``SnapshotError`` (first problem + count) unless the graph is valid."""
    problems = validate_snapshot(snapshot)
    if problems:
        raise SnapshotError(
            f"{source}: {one_line(problems[0])} ({len(problems)} problem(s); "
            "run `memgraph validate` for all)"
        )


def load_snapshot(store: Store, snapshot: MemoryGraphSnapshot, source: str = "snapshot") -> None:
    """Validate ``snapshot`` as a whole graph, then import it into an empty store.

    Nothing is written when any problem is found (``SnapshotError``).
    """
    check_snapshot(snapshot, source)
    store.import_snapshot(snapshot)


def import_snapshot_file(store: Store, path: Path) -> MemoryGraphSnapshot:
    """Read, validate and import a snapshot file; returns what was imported."""
    snapshot = read_snapshot_file(path)
    load_snapshot(store, snapshot, str(path))
    return snapshot


def one_line(text: str, limit: int = 500) -> str:
    """Control characters escaped and length capped: input-derived text (ids,
    JSON keys) must never break the one-line-per-problem output."""
    escaped = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return escaped if len(escaped) <= limit else escaped[: limit - 3] + "..."


def validate_path(path: Path) -> list[str]:
    """Problems of a store file or a snapshot file, each as ``path: message``."""
    return [one_line(p) for p in _validate_path(path)]


def _validate_path(path: Path) -> list[str]:
    if not path.exists():
        return [f"{path}: no such file"]
    try:
        if is_sqlite_file(path):
            from memgraph.store.sqlite import read_store_file

            snapshot = read_store_file(path)
        else:
            snapshot = read_snapshot_file(path)
    except (SnapshotError, StoreError) as exc:
        msg = str(exc)
        return [msg if msg.startswith(str(path)) else f"{path}: {msg}"]
    except ValidationError as exc:
        return [f"{path}: stored document is malformed: {exc.errors()[0].get('msg')}"]
    return [f"{path}: {problem}" for problem in validate_snapshot(snapshot)]
