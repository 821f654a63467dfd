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


# A snapshot is read whole; past this it is refused rather than exhausting memory.
MAX_SNAPSHOT_BYTES = 4 << 30


def read_snapshot_file(path: Path) -> MemoryGraphSnapshot:
    """Parse a snapshot file; a FIFO/device/directory is refused before any read."""
    from memgraph.errors import ReaderError
    from memgraph.inputs import read_bounded

    try:
        data = read_bounded(path, MAX_SNAPSHOT_BYTES, "snapshot")
    except ReaderError as exc:
        raise SnapshotError(str(exc)) from None
    return parse_snapshot(data, str(path))


def write_snapshot_file(snapshot: MemoryGraphSnapshot, path: Path) -> None:
    """Write ``path`` atomically: a new file, or a regular file replaced
    (``check_out_path`` first)."""
    check_out_path(path)
    try:
        atomic_write_text(path, render_snapshot(snapshot))
    except OSError as exc:
        raise SnapshotError(f"cannot write {path}: {exc.strerror or exc}") from None


def check_out_path(path: Path) -> None:
    """``SnapshotError`` unless ``path`` can take a snapshot: a new file in an existing
    directory, or a regular file to replace. Anything else in the way is refused
    before a byte is written: the atomic rename would replace a device
    (``-o /dev/full``), a FIFO or a symlink (``-o /dev/stdout``) with a regular file
    rather than write through it; and a missing directory is not created (a mistyped
    ``-o`` made a tree of folders), as ``memgraph backup DEST`` refuses it."""
    import os
    import stat

    from memgraph.inputs import file_kind, printable_path

    shown = printable_path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SnapshotError(f"cannot write {shown}: {reason}") from None
    if mode is not None and stat.S_ISLNK(mode):
        raise SnapshotError(
            f"cannot write {shown}: it is a symlink; give a new file name "
            "(or leave out --out to write to stdout)"
        )
    if mode is not None and not stat.S_ISREG(mode):
        raise SnapshotError(
            f"cannot write {shown}: it is {file_kind(mode)}, not a regular file; "
            "give a new file name (or leave out --out to write to stdout)"
        )
    parent = path.parent
    if mode is None and not parent.is_dir():
        what = "is not a directory" if os.path.lexists(parent) else "does not exist"
        raise SnapshotError(
            f"cannot write {shown}: directory {printable_path(parent)} {what} "
            "(nothing written); create it first or give another path"
        )


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
    import os
    import stat

    from memgraph.store.guard import RECOVERY

    try:
        st = os.stat(path)
    except FileNotFoundError:
        return [f"{path}: no such file"]
    except (OSError, ValueError) as exc:
        return [f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}"]
    if not stat.S_ISREG(st.st_mode):
        from memgraph.inputs import file_kind

        return [f"{path}: it is {file_kind(st.st_mode)}, not a store or snapshot file"]
    looks_like_store = path.suffix in (".db", ".sqlite", ".sqlite3")
    if st.st_size == 0:
        what = "store" if looks_like_store else "file"
        return [
            f"{path}: empty (0 bytes): a truncated {what}, not a valid store or snapshot; "
            "restore it from a backup or snapshot"
        ]
    try:
        if is_sqlite_file(path):
            from memgraph.store.sqlite import read_store_file

            snapshot = read_store_file(path)
        elif looks_like_store:
            return [f"{path}: not an SQLite file, so not a memgraph store"]
        else:
            snapshot = read_snapshot_file(path)
    except (SnapshotError, StoreError) as exc:
        msg = str(exc)
        return [msg if msg.startswith(str(path)) else f"{path}: {msg}"]
    except ValidationError as exc:
        return [
            f"{path}: damaged store: a stored document is malformed "
            f"({exc.errors()[0].get('msg')}). {RECOVERY}"
        ]
    return [f"{path}: {problem}" for problem in validate_snapshot(snapshot)]
