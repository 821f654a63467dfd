"""Every file memgraph writes goes through here (stdlib only: the lean paths use it).

- ``atomic_write_text`` (``atomic_write_bytes``): temp file in the same directory,
  fsync, rename. A reader (or a crash, or kill -9) sees the old file or the new
  one, never a partial one.
  The temp file is created with ``O_EXCL`` (never follows a planted link) and the
  rename replaces a link at the destination rather than writing through it.
- ``replace_if_unchanged`` (``replace_text_if_unchanged``): the same, renamed only
  while the file still holds what the writer read (a person's save in between is
  not replaced); ``rewrite_if_unchanged`` is the read-plan-write loop every writer
  of a view a person edits runs (``race_attempts`` bounds its retries).
- ``append_line``: one ``O_APPEND`` write (concurrent writers never interleave
  within a line), ``O_NOFOLLOW``: a ``log.md`` that is a symlink is refused, its
  target is never appended to.
- ``file_lock``: an ``flock`` on a sidecar lock file opened ``O_NOFOLLOW`` (a
  planted ``<name>.lock`` symlink cannot make ``O_CREAT`` create a file elsewhere).
- ``read_text_nofollow``: read a file we are about to replace (bounded, no link);
  ``unreadable_view``: a file there that it cannot read (not UTF-8, too big).
- ``remove_stale_temps``: kill -9 inside ``atomic_write_text`` leaves
  ``.<name>.<rand>.tmp`` behind; the next writer of that file removes old ones.
- ``deferred_fsync``: inside it, ``atomic_write_text`` still syncs each file's data
  before renaming it into place, but the syncs of the directories holding those
  renames wait for the block's end, each directory once (one fsync per file
  instead of two). Backfill uses it per batch, the passes that re-render many pages
  (classify, render, windows, sleep) around them.

A user's own config file (settings.json, a unit file) is ``memgraph.configfile``'s:
the one writer that follows a link on purpose.

Paths that resolve outside their root or through a symlink raise ``FileEscape``
(a ``StoreError``: one line, exit 1). Opening beneath a root without following links
(``open_nofollow``, ``safe_child``, ``open_under``...) is ``memgraph.beneath``'s.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from memgraph.beneath import FileEscape, check_under, open_nofollow
from memgraph.errors import StoreError

STALE_TEMP_SECONDS = 300
MAX_VIEW_BYTES = 64 * 1024 * 1024
# directories holding renames made inside ``deferred_fsync`` whose fsync is still owed
_DEFERRED: contextvars.ContextVar[list[Path] | None] = contextvars.ContextVar(
    "memgraph_deferred_fsync", default=None
)


@contextlib.contextmanager
def deferred_fsync() -> Iterator[None]:
    """Durable writes inside the block sync their directories once, when it ends
    (also when it raises); a block inside another one joins it.

    Only the directory syncs wait: each file's data is still synced before its
    rename. A rename the filesystem commits before the data it names leaves an
    empty or partial file after a crash (ext4 for a new file, XFS for any), so
    deferring the file syncs too (as backfill did before 2026-12-07) could leave a
    torn page. This way a crash inside the block leaves each file as it was or as
    written, whole: at worst a rename made after the last directory sync is lost
    and the older complete file stays."""
    if _DEFERRED.get() is not None:  # nested: the outer block syncs
        yield
        return
    owed: list[Path] = []
    token = _DEFERRED.set(owed)
    try:
        yield
    finally:
        _DEFERRED.reset(token)
        for directory in dict.fromkeys(owed):
            _sync_directory(directory)


def _sync_directory(directory: Path) -> None:
    """fsync a directory, making the renames in it durable."""
    try:
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # some filesystems refuse fsync on directories; the renames are done
        pass


# mkstemp's names here: ".<file name>.<8 random chars>.tmp"
_TEMP_NAME = re.compile(r"^\..+\.[A-Za-z0-9_]+\.tmp$")
_SWEPT: dict[str, float] = {}  # directory -> when it was last swept (monotonic)
_SWEEP_EVERY = 60.0


def remove_stale_temps(path: Path, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Remove temp files of killed writers in ``path``'s directory.

    ``atomic_write_text`` names its temp files ``.<name>.<random>.tmp``; a kill -9
    between create and rename leaves one behind. Those older than ``older_than``
    seconds are removed (a young one may belong to a writer running right now).
    At most one scan per directory per minute and process: a backfill writing
    thousands of pages into one directory pays for one listing, not one per page.
    Returns how many were removed.
    """
    key = os.fspath(path.parent)
    now = time.monotonic()
    if now - _SWEPT.get(key, -_SWEEP_EVERY) < _SWEEP_EVERY:
        return 0
    _SWEPT[key] = now
    limit = time.time() - older_than
    removed = 0
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return 0
    for entry in entries:
        if not _TEMP_NAME.match(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(st.st_mode) and st.st_mtime < limit:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            pass
    return removed


def forget_swept() -> None:
    """Let ``remove_stale_temps`` scan every directory again (tests, long-lived servers)."""
    _SWEPT.clear()


def atomic_write_text(
    path: Path,
    text: str,
    *,
    root: Path | None = None,
    durable: bool = True,
    mode: int | None = None,
) -> None:
    """Replace ``path`` with ``text`` atomically (``root``: refuse escapes first).

    ``durable=False`` skips the fsyncs (for caches whose loss is harmless): the
    rename is still atomic, a crash may just leave the previous version. Inside
    ``deferred_fsync`` the directory's fsync happens at the end of that block.
    """
    data = text.encode("utf-8")
    atomic_write_bytes(path, data, root=root, durable=durable, mode=mode)


def atomic_write_bytes(
    path: Path,
    data: bytes,
    *,
    root: Path | None = None,
    durable: bool = True,
    mode: int | None = None,
) -> None:
    """``atomic_write_text`` for bytes (a vector matrix, a binary cache)."""
    _write(path, data, root, durable, mode, None)


def replace_if_unchanged(
    path: Path,
    data: bytes,
    expected: bytes | None,
    *,
    root: Path | None = None,
    durable: bool = True,
    mode: int | None = None,
) -> bool:
    """``atomic_write_bytes``, but only while ``path`` still holds ``expected``.

    A writer that read a view, planned and rendered (milliseconds) must not replace
    what a person saved meanwhile (Obsidian autosaves every ~2 s). Here the temp file
    is written and synced first (all the slow work), then ``path`` is read again
    without following a link (``expected`` None: it must still be absent; a link, a
    FIFO, an unreadable or too big file is never equal) and renamed over only when
    equal: True. Otherwise the temp file goes and nothing is written: False (the
    caller reads and plans again, see ``race_attempts``). This narrows the window
    from the whole read-plan-render to the re-read and the rename (microseconds); it
    cannot close it: no lock stops an editor that takes none.
    """
    return _write(path, data, root, durable, mode, lambda: _holds(path, expected))


def replace_text_if_unchanged(
    path: Path, text: str, expected: str | None, *, root: Path | None = None
) -> bool:
    """``replace_if_unchanged`` for text a writer read with ``read_text_nofollow``."""
    old = None if expected is None else expected.encode("utf-8")
    return replace_if_unchanged(path, text.encode("utf-8"), old, root=root)


RACE_TRIES = 3  # lost races (a person saving again and again) before giving up


def race_attempts(path: Path, tries: int = RACE_TRIES) -> Iterator[int]:
    """The attempts of a read-plan-``replace_if_unchanged`` loop over ``path`` (the
    loop breaks once its write went through); after ``tries`` lost races a one-line
    ``StoreError``, nothing overwritten."""
    yield from range(tries)
    raise StoreError(f"{path} kept changing while memgraph wrote it; nothing overwritten, rerun")


# plan(the file's text, None: absent or unreadable) -> the text it must hold, None: leave it
Plan = Callable[[str | None], str | None]


class Written(NamedTuple):
    """What ``rewrite_if_unchanged`` wrote: ``text`` over ``before`` (None: no file was there)."""

    before: str | None
    text: str


def rewrite_if_unchanged(path: Path, plan: Plan, *, root: Path | None = None) -> Written | None:
    """Read ``path`` (``read_text_nofollow``: a link or FIFO raises ``FileEscape``),
    ``plan`` its text from what it holds, write that with ``replace_text_if_unchanged``.
    A save landing in between is read and planned again, so it is carried over (or goes
    the plan's conflict way) as if it had been there at first; after ``race_attempts``'
    lost races, its one-line ``StoreError``.

    ``plan(current)``: the text the file must hold, or None to leave it (a plan that
    stops after a side effect, a conflict file, does it and returns None). It runs once
    per attempt, so what else it does must bear running again on newer text. ``current``
    None is an absent file or one ``unreadable_view`` names: the plan tells them apart
    (a text planned over an unreadable file never goes in: it is not absent).
    Returns what was written; None when nothing was (None planned, or already there).
    """
    for _ in race_attempts(path):
        current = read_text_nofollow(path)
        text = plan(current)
        if text is None or text == current:
            return None
        if replace_text_if_unchanged(path, text, current, root=root):
            return Written(current, text)
    raise AssertionError("race_attempts raises once its attempts are used up")


def _holds(path: Path, expected: bytes | None) -> bool:
    """``path`` (not followed) is absent and ``expected`` None, or is a regular file
    holding exactly ``expected``."""
    if expected is None:
        try:
            os.lstat(path)
        except FileNotFoundError:
            return True
        return False  # anything there, even a dangling link
    try:  # None: gone, unreadable or longer than ``expected``
        return read_bytes_nofollow(path, len(expected)) == expected
    except FileEscape:  # a link, a FIFO (opened without waiting)
        return False


def _write(
    path: Path,
    data: bytes,
    root: Path | None,
    durable: bool,
    mode: int | None,
    holds: Callable[[], bool] | None,
) -> bool:
    """Temp file beside ``path``, written and synced; renamed over ``path`` unless
    ``holds()`` says ``path`` changed (then removed: False)."""
    if root is not None:  # checked before any folder is made: none lands outside
        root.mkdir(parents=True, exist_ok=True)
        check_under(path, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            if durable:  # before the rename, inside deferred_fsync too: never a torn file
                os.fsync(fh.fileno())
        if holds is not None and not holds():
            os.unlink(tmp)
            return False
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if not durable:
        return True
    owed = _DEFERRED.get()
    if owed is not None:
        owed.append(path.parent)
    else:
        _sync_directory(path.parent)
    return True


def append_line(path: Path, data: bytes, *, what: str = "logs") -> None:
    """One ``O_APPEND`` write of ``data`` to ``path`` (created 0644), never through a link."""
    fd = open_nofollow(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644, what=what)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def read_text_nofollow(path: Path, limit: int = MAX_VIEW_BYTES) -> str | None:
    """The UTF-8 text of a regular file, or None when absent/unreadable/too big.

    A symlink raises ``FileEscape``: a view we would rewrite must be our own file.
    """
    data = read_bytes_nofollow(path, limit)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_bytes_nofollow(path: Path, limit: int = MAX_VIEW_BYTES) -> bytes | None:
    """``read_text_nofollow``'s bytes, undecoded (None: absent/unreadable/too big)."""
    try:
        fd = open_nofollow(path, os.O_RDONLY, what="views")
    except FileNotFoundError:
        return None
    except FileEscape:
        raise
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return None
    return data


def unreadable_view(path: Path, limit: int = MAX_VIEW_BYTES) -> bool:
    """True when ``path`` is a regular file (not followed) whose text
    ``read_text_nofollow`` cannot give: not UTF-8 (an editor saved it in Latin-1),
    over ``limit``, or not readable. A writer must not take such a file for absent:
    replacing it would lose what a person put there."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and read_text_nofollow(path, limit) is None


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[int]:
    """Exclusive advisory ``flock`` on ``<path>.lock`` (released on exit or process death).

    Yields the lock file's descriptor (callers may keep a little state in it).
    """
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(path.name + ".lock")
    fd = open_nofollow(lock, os.O_RDWR | os.O_CREAT, 0o644, what="lock files")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)  # closing drops the flock
