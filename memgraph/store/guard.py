"""Refuse to open what is not (yet) a memgraph store, and catch a vanished WAL.

memgraph never writes to a file that is not already a memgraph store unless a
new store is being created where no file exists. ``check_file`` runs before
SQLite touches the path (a 0-byte file, a non-SQLite file and a FIFO/device are
refused with one line); ``check_schema`` runs on the open connection before
any migration (a foreign SQLite database and a store written by a newer
memgraph are refused). A new store is built under a temporary name and linked
into place only once its schema is complete (``create_atomically``), so a
crash during creation never leaves a 0-byte or half-made store behind.

``WalWatch`` remembers the inode of the store's ``-wal`` and ``-shm`` files
while a writer has the store open; if either disappears or is replaced (a user
deleted them while processes were writing: SQLite then loses or mixes
committed pages), the next write is refused with the recovery steps instead of
writing into a split store.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

from memgraph.errors import StoreError

SQLITE_MAGIC = b"SQLite format 3\x00"
RECOVERY = (
    "stop every memgraph process, keep a copy of the store, then run `memgraph validate` "
    "(recovery: `sqlite3 STORE .recover | sqlite3 NEW.db`, or import the last good snapshot "
    "or `memgraph backup` copy)"
)


def check_file(path: Path) -> bool:
    """True when ``path`` holds an SQLite file, False when nothing is there yet.

    Raises ``StoreError`` (one line) for anything else: a 0-byte file (a
    truncated store is not silently re-initialised), a file that is not SQLite,
    a directory, FIFO or device.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StoreError(f"cannot open store {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        from memgraph.inputs import file_kind

        raise StoreError(f"store {path} is {file_kind(st.st_mode)}, not a store file; refused")
    if st.st_size == 0:
        raise StoreError(
            f"store {path} is empty (0 bytes): it was truncated or is not a memgraph store; "
            "refused (restore it from a backup or snapshot, or remove it to start a new store)"
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            head = os.read(fd, 16)
        finally:
            os.close(fd)
    except OSError as exc:
        raise StoreError(f"cannot open store {path}: {exc.strerror or exc}") from None
    if head != SQLITE_MAGIC:
        raise StoreError(f"{path} is not an SQLite file, so not a memgraph store; refused")
    return True


def unknown_versions(conn: sqlite3.Connection) -> list[int]:
    """Schema versions recorded in the store that this build does not know."""
    from memgraph.store.schema import all_migrations

    known = {m.version for m in all_migrations()}
    rows = conn.execute("SELECT version FROM schema_migrations").fetchall()
    return sorted(int(r[0]) for r in rows if int(r[0]) not in known)


def check_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a foreign SQLite database and a store from a newer memgraph.

    Called before any migration, so neither is ever written to.
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "schema_migrations" not in tables:
        what = f"{len(tables)} table(s)" if tables else "no tables"
        raise StoreError(
            f"{path} is an SQLite database but not a memgraph store ({what}, no "
            "schema_migrations); refused, nothing written"
        )
    newer = unknown_versions(conn)
    if newer:
        raise StoreError(
            f"store {path} was written by a newer memgraph (schema version(s) "
            f"{', '.join(map(str, newer[:5]))} unknown to this one); upgrade memgraph, "
            "nothing written"
        )


def create_atomically(path: Path, build: Callable[[Path], None]) -> None:
    """Build a new store at a temporary name beside ``path``, then link it in.

    ``build(tmp)`` creates and migrates the store at ``tmp`` and closes it. If
    another process created ``path`` meanwhile, theirs is kept.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.creating")
    _remove_with_sidecars(tmp)
    try:
        build(tmp)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # created concurrently: theirs is as good as ours
        except OSError:
            # filesystems without hard links: rename is atomic too, but replaces;
            # only do it when the path is still free
            if not path.exists():
                os.replace(tmp, path)
    finally:
        _remove_with_sidecars(tmp)


def _remove_with_sidecars(p: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{p}{suffix}")


class WalWatch:
    """Inodes of ``<store>-wal`` / ``-shm`` as this process opened them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: dict[str, tuple[int, int]] = {}

    def _stat(self, suffix: str) -> tuple[int, int] | None:
        try:
            st = os.stat(f"{self.path}{suffix}")
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def remember(self) -> None:
        for suffix in ("-wal", "-shm"):
            ident = self._stat(suffix)
            if ident is not None:
                self._seen[suffix] = ident

    def check(self) -> None:
        """Raise ``StoreError`` if a file seen before is gone or replaced.

        Call while holding the write lock (inside ``BEGIN IMMEDIATE``).
        """
        for suffix, ident in self._seen.items():
            now = self._stat(suffix)
            if now != ident:
                state = "was deleted" if now is None else "was replaced"
                raise StoreError(
                    f"store {self.path}: its {suffix[1:].upper()} file {state} while memgraph "
                    f"had the store open; write refused, nothing written. {RECOVERY}"
                )
        if not self._seen:
            self.remember()


__all__ = [
    "RECOVERY",
    "WalWatch",
    "check_file",
    "check_schema",
    "create_atomically",
    "unknown_versions",
]


LOW_SPACE_BYTES = 4 * 1024 * 1024  # less than this free beside a store: "full", for SQLite


def sqlite_reason(path: object, exc: BaseException) -> str:
    """SQLite's message for ``exc``, with what to do when the disk is the cause.

    On a full disk SQLite often says only "disk I/O error" (creating the ``-wal``
    or ``-shm`` file fails with ENOSPC), which reads like failing hardware; each
    command then said "store X: disk I/O error". When the store's filesystem has
    (almost) no room left, the line names that instead."""
    text = str(exc)
    if "disk" not in text:  # "disk I/O error", "database or disk is full"
        return text
    folder = os.path.dirname(os.path.abspath(str(path))) or "."
    try:
        st = os.statvfs(folder)
    except (OSError, ValueError):
        return text
    free = st.f_bavail * st.f_frsize
    if free >= LOW_SPACE_BYTES:
        return text
    return (
        f"{text}: the disk holding {folder} is full ({free // 1024} kB free); "
        "free some space and rerun"
    )
