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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from memgraph.errors import StoreError
from memgraph.fileio import atomic_write_text, safe_child
from memgraph.store.rows import NoteIndexRow, SessionRow
from profiles.session.emit import NoteRow, render_yaml

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store import Store


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


def render_view(session_id: str, head: SessionRow | None, notes: list[NoteIndexRow]) -> str:
    """The session's YAML from the session index's rows (``SessionIndex.view``)."""
    if head is None:
        raise StoreError(f"session {session_id} vanished from the store")
    rows = [NoteRow(timestamp=r.ts, text=r.text, harness=r.harness, id=r.node_id) for r in notes]
    return render_yaml(session_id, head.persona, head.started_at, rows)


def render_from_sql(db_path: Path, session_id: str) -> str:
    """The session's YAML from a fresh read of the store file's session index."""
    from memgraph.store.sqlite_ext.session import session_view_at

    return render_view(session_id, *session_view_at(db_path, session_id))


def render_from_store(store: Store, session_id: str) -> str:
    """The same from an open store of any backend."""
    from memgraph.store.interfaces import indexes

    return render_view(session_id, *indexes(store).sessions.view(session_id))
