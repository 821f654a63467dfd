"""Background WAL checkpoints for a writable SQLite store.

A commit in WAL mode appends pages to the ``-wal`` file; a checkpoint copies
them back into the database. SQLite's automatic checkpoint runs inside the
committing call, so a bulk ingest paid for it on its own thread (about a
quarter of a large patch's time, measured in notes/benchmarks.md). Here a
helper thread with its own connection runs a PASSIVE checkpoint after each
commit instead: one SQL statement, which releases the GIL for its whole run,
so on a second core it overlaps with the writer's next patch. PASSIVE never
blocks readers or writers, and a checkpoint that is busy (another process is
checkpointing) just waits for the next commit. The writer keeps a large
automatic checkpoint as a safety net, so the WAL stays bounded even if this
thread falls behind.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path

# pages (4 KiB): the writer checkpoints by itself only past this WAL size
SAFETY_NET_PAGES = 16384


class Checkpointer:
    """Runs ``PRAGMA wal_checkpoint(PASSIVE)`` on a helper thread when poked."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._stop = False
        # connected here, not on the thread, and never creating: a thread that
        # connected late (a busy machine) after the store was deleted made a
        # 0-byte file at its path, which every later open then refused
        uri = str(path.resolve()).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
        self._conn = sqlite3.connect(
            f"file:{uri}?mode=rw", uri=True, isolation_level=None, check_same_thread=False
        )
        self._thread = threading.Thread(target=self._run, name="memgraph-checkpoint", daemon=True)
        self._thread.start()

    def poke(self) -> None:
        """Ask for a checkpoint (after a commit); returns at once."""
        self._idle.clear()
        self._wake.set()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no checkpoint is pending or running (tests, benchmarks)."""
        return self._idle.wait(timeout)

    def _run(self) -> None:
        conn = self._conn
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stop:
                    return
                # busy (another process checkpoints) or closing: the next commit asks again
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if not self._wake.is_set():
                    self._idle.set()
        finally:
            conn.close()
            self._idle.set()

    def close(self) -> None:
        self._stop = True
        self._wake.set()
        self._thread.join()
