"""Atomic file writes: temp file in the same directory, fsync, rename.

A reader (or a crash, or kill -9) sees the old file or the new one, never a
partial one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from memgraph.errors import InvalidId, StoreError
from memgraph.ids import is_safe_name


def atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    try:
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # some filesystems refuse fsync on directories; the rename is done
        pass


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
    if not path.resolve().is_relative_to(root.resolve()):
        raise StoreError(f"{path} escapes {root}")
    return path
