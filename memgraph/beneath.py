"""Opening paths beneath a root without following links out of it (stdlib only:
the lean paths use it, through ``fileio`` and directly).

- ``FileEscape``: a path that resolves outside its root, or a link met where memgraph
  does not follow one (a ``StoreError``: one line, exit 1).
- ``open_nofollow``: ``os.open`` that refuses a symlink, a FIFO or a device as the
  last component (every write of ``fileio`` opens through it).
- ``check_under``: a path whose folder resolves under a root and that is no link.
- ``safe_child``: a path built from input names that stays under its root.
- ``open_under``: read a file that must lie under a root, checked by the open itself
  (a folder or the file swapped for a link after a caller's check is refused).
- ``open_folder``, ``descend``: the folder opens ``open_under`` is made of, for a
  reader that keeps folders open across many files (the repository scanner).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from memgraph.errors import InvalidId, StoreError
from memgraph.ids import is_safe_name

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
# a file read without following a link, a FIFO or device never waited on
READ_FLAGS = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC


class FileEscape(StoreError):
    """A file memgraph would write is a symlink or resolves outside its root."""


def _refuse_link(path: Path, what: str) -> FileEscape:
    return FileEscape(
        f"{path} is a symlink; memgraph does not write {what} through links "
        "(remove the link and rerun)"
    )


def open_nofollow(path: Path, flags: int, mode: int = 0o644, *, what: str = "files") -> int:
    """``os.open`` with ``O_NOFOLLOW``; a symlink (or a non-regular file) is refused.

    Opened ``O_NONBLOCK`` so a FIFO in the way is refused at once: a blocking open
    waits for the other end forever (read) or fails only later (write: ENXIO).
    """
    try:
        fd = os.open(path, flags | _NOFOLLOW | _CLOEXEC | _NONBLOCK, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.EEXIST and path.is_symlink()):
            raise _refuse_link(path, what) from None
        if exc.errno == errno.ENXIO:  # a FIFO with no reader, a socket
            raise _not_regular(path, what) from None
        raise
    return _regular_or_close(fd, lambda: _not_regular(path, what))


def _regular_or_close(fd: int, refuse: Callable[[], FileEscape]) -> int:
    """``fd`` made blocking again when it is a regular file; else closed and ``refuse()``
    raised (a FIFO or device opened ``O_NONBLOCK`` so the open could not wait on it)."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise refuse()
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _not_regular(path: Path, what: str) -> FileEscape:
    return FileEscape(f"{path} is not a regular file; memgraph writes {what} only there")


def check_under(path: Path, root: Path) -> Path:
    """``path`` if its directory resolves under ``root`` and it is not a symlink."""
    if not _resolved(path.parent).is_relative_to(_resolved(root)):
        raise FileEscape(f"{path} escapes {root}")
    if path.is_symlink():
        raise _refuse_link(path, "views")
    return path


def safe_child(root: Path, *names: str) -> Path:
    """``root/name/...`` after checking each name is one safe path component.

    Raises ``InvalidId`` for separators, traversal, leading dots or overlong names,
    and ``StoreError`` if the result would still resolve outside ``root``.
    """
    for name in names:
        if not is_safe_name(name):
            raise InvalidId(
                f"unsafe name {name[:80]!r}: use letters, digits, '.', '_', '-', "
                "at most 128 characters, no path separators"
            )
    path = root.joinpath(*names)
    if not _resolved(path).is_relative_to(_resolved(root)):
        raise FileEscape(f"{path} escapes {root}")
    return path


def _resolved(path: Path) -> Path:
    """``path.resolve()``; a symlink loop on the way is ``FileEscape`` naming it (Python
    3.11 raises a bare RuntimeError there, which reached the CLI as a traceback)."""
    try:
        return path.resolve()
    except RuntimeError:
        raise FileEscape(f"{path} is a symlink loop; remove or fix the link") from None


def open_under(path: Path, root: Path, *, what: str = "files") -> int:
    """A read-only descriptor of the regular file ``path``, which must lie under ``root``.

    ``path`` is resolved (links inside ``root`` are fine) and must land under
    ``root``; then every folder from ``root`` down, and the file, is opened
    relative to the one before with ``O_NOFOLLOW``. So the open itself cannot leave
    ``root``: a folder on the way or the file swapped for a symlink after the
    resolve (or after any check of a caller's) is refused, never followed. A FIFO or
    device there is refused at once (``O_NONBLOCK``), never waited on.

    Raises ``FileEscape`` (outside ``root``, a link met, not a regular file) or
    ``OSError`` (absent, unreadable).
    """
    top = root.resolve()
    real = _resolved(path)
    if real == top or not real.is_relative_to(top):
        raise FileEscape(f"{path} escapes {root}")
    return _open_beneath(top, real.relative_to(top).parts, path, what)


def _open_beneath(top: Path, parts: tuple[str, ...], shown: Path, what: str) -> int:
    """``open_under``'s open: ``top/parts...`` one component at a time, no link followed."""
    try:
        fd = descend(os.open(top, os.O_RDONLY | _DIRECTORY | _CLOEXEC), parts[:-1])
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a folder on the way is a link
            raise _swapped(shown) from None
        raise
    try:
        try:
            file_fd = os.open(parts[-1], READ_FLAGS, dir_fd=fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _swapped(shown) from None
            if exc.errno == errno.ENXIO:  # a socket
                raise _not_readable(shown, what) from None
            raise
    finally:
        os.close(fd)
    return _regular_or_close(file_fd, lambda: _not_readable(shown, what))


def open_folder(name: str, dir_fd: int | None) -> int:
    """A descriptor of the folder ``name`` in ``dir_fd`` (None: the current folder),
    opened without following a link. A link there raises ``OSError`` ``ELOOP``,
    whatever the platform says for it."""
    try:
        return os.open(name, _FOLDER_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        # Linux says ENOTDIR for a link opened O_DIRECTORY|O_NOFOLLOW, others ELOOP
        if exc.errno in (errno.ENOTDIR, errno.ELOOP) and _is_link(name, dir_fd):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise


def descend(fd: int, names: Iterable[str]) -> int:
    """The folder ``names...`` below the folder ``fd``, each opened by ``open_folder``
    (a link met raises ``ELOOP``). ``fd`` is handed over: closed on the way down (also
    when this raises) or returned when ``names`` is empty."""
    try:
        for name in names:
            below = open_folder(name, fd)
            os.close(fd)
            fd = below
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_link(name: str, dir_fd: int | None) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _not_readable(path: Path, what: str) -> FileEscape:
    return FileEscape(f"{path} is not a regular file; memgraph reads {what} only there")


def _swapped(path: Path) -> FileEscape:
    return FileEscape(f"{path} became a symlink while memgraph opened it; not read")
