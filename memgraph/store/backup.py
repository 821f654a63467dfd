"""``memgraph backup DEST``: a consistent copy of a live store (SQLite online backup).

Copying ``memgraph.db`` with ``cp`` while writers run can miss the WAL or tear a
page; the backup API copies a consistent snapshot page by page, retrying while
other connections write. The copy is written under a temporary name beside
DEST and linked into place when complete, so DEST is either absent or a whole
store; an existing DEST is never overwritten.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from memgraph.errors import StoreError
from memgraph.store import guard


@dataclass(frozen=True)
class BackupResult:
    dest: Path
    bytes: int
    pages: int


def backup_store(source: Path, dest: Path) -> BackupResult:
    """Copy the store at ``source`` to the new file ``dest``; ``StoreError`` otherwise."""
    if not guard.check_file(source):
        raise StoreError(f"no store at {source}")
    if os.path.lexists(dest):
        raise StoreError(f"{dest} already exists; give a new file name (nothing written)")
    if not dest.parent.is_dir():
        raise StoreError(f"directory {dest.parent} does not exist (nothing written)")
    from memgraph.store.sqlite import SQLiteStore

    src = SQLiteStore(source, readonly=True)  # refuses foreign / newer stores
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.backup")
    try:
        out = sqlite3.connect(tmp)
        try:
            with src._lock:
                src.conn.backup(out, pages=1024)
            row = out.execute("PRAGMA quick_check").fetchone()
            if not row or row[0] != "ok":
                raise StoreError(f"backup of {source} failed its integrity check: {row}")
            pages = int(out.execute("PRAGMA page_count").fetchone()[0])
        finally:
            out.close()
        try:
            os.link(tmp, dest)
        except FileExistsError:
            raise StoreError(f"{dest} appeared while backing up; nothing overwritten") from None
    except sqlite3.Error as exc:
        reason = guard.sqlite_reason(dest, exc)
        raise StoreError(f"backup of {source} to {dest} failed: {reason}") from None
    except OSError as exc:
        raise StoreError(f"cannot write {dest}: {exc.strerror or exc}") from None
    finally:
        src.close()
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{tmp}{suffix}")
    return BackupResult(dest, dest.stat().st_size, pages)


__all__ = ["BackupResult", "backup_store"]
