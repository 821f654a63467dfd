"""The session YAML view: where it lives and how it is (re)written (stdlib only).

``<workspace>/.memgraph/personas/<persona>/sessions/<session_id>.yaml`` is
re-rendered from the store after every note. Writers serialise on an
``flock`` of a sidecar ``.lock`` file and read the store *after* taking it, so
whichever writer renders last renders every note committed before it: no
racing writer can drop a note from the file. The file itself is replaced with
``replace_text_if_unchanged`` (temp + fsync + rename): kill -9 leaves the old or the
new file, never a partial one, and a save landing after the read (an editor takes no
lock) is not replaced: the file is read, imported and rendered again.

Hand edits are never erased: the lock file holds the sha256 of the text the last
writer rendered. When the file on disk differs from it (a person or a harness
appended a note), ``on_edit`` runs first, under the same lock: it imports the
appended notes into the store (``profiles.session.handedit``) so the new render
carries them, and asks for a verbatim copy (``<session>.conflict.yaml``) when an
edit touched text memgraph owns. A copy never replaces an earlier one holding other
text (the next is ``<session>.conflict-2.yaml``, ...), and a file that cannot be read
as UTF-8 text (an editor saved it in Latin-1) is moved aside whole, byte for byte,
before the new render takes its place. Nothing here follows a symlink
(``memgraph.fileio``); stale temp files of killed writers are removed.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memgraph.beneath import FileEscape, open_nofollow, safe_child
from memgraph.errors import StoreError
from memgraph.fileio import (
    atomic_write_text,
    file_lock,
    read_text_nofollow,
    remove_stale_temps,
    rewrite_if_unchanged,
    unreadable_view,
)
from memgraph.store.rows import NoteIndexRow, SessionRow
from profiles.session.emit import NoteRow, render_yaml

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store import Store

CONFLICT_SUFFIX = ".conflict.yaml"
# on_edit(text on disk) -> True when that text must be kept beside the new render
OnEdit = Callable[[str], bool]


def session_file(workspace: Path, persona: str, session_id: str) -> Path:
    root = workspace / ".memgraph" / "personas"
    path = safe_child(root, persona, "sessions", f"{session_id}.yaml")
    # ``.memgraph`` itself may not lead out of the workspace either
    if not path.parent.resolve().is_relative_to(workspace.resolve()):
        raise FileEscape(f"{path} escapes the workspace {workspace}")
    return path


MAX_CONFLICTS = 1000  # verbatim copies kept beside one view


def conflict_file(path: Path, number: int = 1) -> Path:
    stem = path.name.removesuffix(".yaml")
    if number == 1:
        return path.with_name(stem + CONFLICT_SUFFIX)
    return path.with_name(f"{stem}.conflict-{number}.yaml")


def _free_conflict(path: Path, text: str | None) -> tuple[Path, bool]:
    """(where to keep the edited view, whether it must be written there): the copy
    already holding ``text``, else the first free name; an earlier copy holding
    other text is never replaced (``text`` None: a file moved aside, never equal)."""
    for number in range(1, MAX_CONFLICTS + 1):
        target = conflict_file(path, number)
        if not os.path.lexists(target):
            return target, True
        if text is not None and read_text_nofollow(target) == text:
            return target, False
    raise StoreError(f"{MAX_CONFLICTS} conflict copies beside {path}; resolve and remove them")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _recorded(fd: int) -> str:
    try:
        return os.pread(fd, 128, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""


def _record(fd: int, text: str) -> None:
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, digest(text).encode("ascii") + b"\n", 0)
    except OSError:
        pass  # only an optimisation: a missing record means "check the file"


@dataclass(frozen=True)
class ViewWrite:
    path: Path
    written: bool
    edited: bool = False  # the file on disk was not what memgraph last rendered
    conflict: Path | None = None  # where the edited file was kept verbatim


def write_view(path: Path, render: Callable[[], str], on_edit: OnEdit | None = None) -> ViewWrite:
    """Render (reading the store now, under the lock) and replace ``path`` atomically."""
    conflict: Path | None = None
    edited = False
    text = ""  # plan's render: rewrite_if_unchanged runs it at least once
    try:
        with file_lock(path) as fd:
            remove_stale_temps(path)

            def plan(existing: str | None) -> str:
                nonlocal conflict, edited, text  # a conflict made on an earlier attempt stays
                if existing is None and unreadable_view(path):
                    # not text we can read (nor import): moved aside whole, never replaced
                    conflict, _ = _free_conflict(path, None)
                    os.rename(path, conflict)
                edited = conflict is not None or (
                    existing is not None and digest(existing) != _recorded(fd)
                )
                keep = bool(edited and on_edit is not None and existing and on_edit(existing))
                text = render()
                if keep and existing is not None and existing != text:
                    conflict, new = _free_conflict(path, existing)
                    if new:
                        atomic_write_text(conflict, existing)
                return text

            # a person's save between the read and the write (the lock binds only
            # memgraph's writers): read, import and render again over it
            written = rewrite_if_unchanged(path, plan) is not None
            _record(fd, text)  # the render: written now, or the file already held it
    except OSError as exc:
        raise StoreError(f"cannot write session view {path}: {exc.strerror or exc}") from None
    return ViewWrite(path, written, edited, conflict)


def view_edited(path: Path) -> bool:
    """True when ``path`` exists and differs from what memgraph last rendered there.

    Lock-free (a read-only check; a stale answer only costs one sync, which takes
    the lock): wake runs it over every session of a persona.
    """
    try:
        existing = read_text_nofollow(path)
    except StoreError:
        return True  # a symlink: let the sync report it
    if existing is None:
        return False
    lock = path.with_name(path.name + ".lock")
    try:
        fd = open_nofollow(lock, os.O_RDONLY, what="lock files")
    except (OSError, StoreError):
        return True  # no record yet (a view written before records existed)
    try:
        return digest(existing) != _recorded(fd)
    finally:
        os.close(fd)


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
