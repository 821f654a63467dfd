"""The session YAML view: where it lives and how it is (re)written (stdlib only).

``<workspace>/.memgraph/personas/<persona>/sessions/<session_id>.yaml`` is
re-rendered from the store after every note. Writers serialise on an
``flock`` of a sidecar ``.lock`` file and read the store *after* taking it, so
whichever writer renders last renders every note committed before it: no
racing writer can drop a note from the file. The file itself is replaced with
``atomic_write_text`` (temp + fsync + rename): kill -9 leaves the old or the new
file, never a partial one.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from memgraph.errors import StoreError
from memgraph.fileio import atomic_write_text, safe_child
from profiles.session.emit import NoteRow, render_yaml


def session_file(workspace: Path, persona: str, session_id: str) -> Path:
    root = workspace / ".memgraph" / "personas"
    return safe_child(root, persona, "sessions", f"{session_id}.yaml")


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Exclusive advisory lock on ``<path>.lock`` (released on exit or process death)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing drops the flock


def write_view(path: Path, render: Callable[[], str]) -> None:
    """Render (reading the store now, under the lock) and replace ``path`` atomically."""
    try:
        with file_lock(path):
            atomic_write_text(path, render())
    except OSError as exc:
        raise StoreError(f"cannot write session view {path}: {exc.strerror or exc}") from None


def sql_session(conn: sqlite3.Connection, session_id: str) -> tuple[str, str, str] | None:
    """(persona, workspace, started_at) of a started session, from the index table."""
    row = conn.execute(
        "SELECT persona, workspace, started_at FROM session_sessions WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]), str(row[2]))


def sql_notes(conn: sqlite3.Connection, session_id: str) -> list[NoteRow]:
    rows = conn.execute(
        "SELECT ts, text, harness, node_id FROM session_notes "
        "WHERE session_id = ? AND lifecycle = 'active' ORDER BY ts, node_id",
        (session_id,),
    ).fetchall()
    return [NoteRow(timestamp=r[0], text=r[1], harness=r[2], id=r[3]) for r in rows]


def render_from_sql(db_path: Path, session_id: str) -> str:
    """The session's YAML from a fresh read of the store's index tables."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30.0, isolation_level=None)
    try:
        conn.execute("BEGIN")  # one read snapshot: header and notes agree
        head = sql_session(conn, session_id)
        notes = sql_notes(conn, session_id)
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read store {db_path}: {exc}") from None
    finally:
        conn.close()
    if head is None:
        raise StoreError(f"session {session_id} vanished from the store")
    persona, _, started_at = head
    return render_yaml(session_id, persona, started_at, notes)
