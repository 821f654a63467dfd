"""Opening input files without hanging: regular files only, reads bounded.

A path argument may name a FIFO, ``/dev/zero``, ``/dev/urandom``, a socket or a
directory. Opening a FIFO blocks until a writer appears and reading a character
device never ends, so every input file memgraph reads goes through
``open_regular``: the file is opened ``O_NONBLOCK`` (a FIFO open returns at
once), checked with ``fstat`` on the descriptor (no race between check and use)
and refused with one ``ReaderError`` line unless it is a regular file.
``read_bounded`` reads at most ``limit`` bytes and refuses a larger file.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Any, BinaryIO

from memgraph.errors import ReaderError

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str:
    """'a FIFO (named pipe)', 'a directory', ... for a non-regular st_mode."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def printable_path(path: str | os.PathLike[str]) -> str:
    """A path as one printable line: lone surrogates, NUL and control characters escaped."""
    text = os.fspath(path)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)[:500]


def non_utf8_name(path: str | os.PathLike[str]) -> str | None:
    """None when a file name is UTF-8 text; else the name shown with its raw bytes
    escaped (``caf\\xe9.py``): a name whose bytes the OS handed over undecoded
    (surrogateescape) cannot be stored in a node, an id or a JSON line."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace")
    return None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def unstorable_text(text: str) -> bool:
    """A NUL, or a lone surrogate (bytes in another encoding, kept by the OS as
    surrogates, or a JSON ``\\ud800`` escape): text no stored document can hold."""
    return "\x00" in text or _LONE_SURROGATE.search(text) is not None


def check_path_text(path: str, what: str) -> None:
    """Refuse a path string the OS cannot take (NUL byte) or that cannot be
    encoded (lone surrogates from a JSON escape), naming ``what``."""
    if "\x00" in path:
        raise ReaderError(f"{what} {printable_path(path)!s} contains a NUL byte")
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        raise ReaderError(
            f"{what} {printable_path(path)} is not a valid path (lone surrogate)"
        ) from None


def open_regular(
    path: str | os.PathLike[str], what: str = "file", *, follow_links: bool = True
) -> BinaryIO:
    """Open a regular file for binary reading, or raise ``ReaderError`` (never block).

    ``what`` names the argument in the message ("transcript", "settings file");
    ``follow_links=False``: a symlink is refused too (a file of our own, read as one).
    """
    shown = printable_path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if follow_links or exc.errno != errno.ELOOP:
            raise _open_error(exc, what, shown) from None
        raise ReaderError(f"cannot read {what} {shown}: it is a symlink") from None
    except (ValueError, UnicodeEncodeError) as exc:
        raise ReaderError(f"cannot read {what} {shown}: {exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ReaderError(
                f"cannot read {what} {shown}: it is {file_kind(mode)}, not a regular file"
            )
        # back to blocking reads (no effect on regular files, but be explicit)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=1024 * 1024)
    except BaseException:
        os.close(fd)
        raise


def _open_error(exc: OSError, what: str, shown: str) -> ReaderError:
    """The one line for an ``os.open`` that failed."""
    if isinstance(exc, FileNotFoundError):
        reason = "no such file"
    elif isinstance(exc, PermissionError):
        reason = "permission denied"
    elif isinstance(exc, IsADirectoryError):
        reason = "it is a directory"
    else:
        reason = exc.strerror or str(exc)
    return ReaderError(f"cannot read {what} {shown}: {reason}")


def require_regular(path: str | os.PathLike[str], what: str = "file") -> None:
    """Refuse a path that exists and is not a regular file (missing paths pass)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except (OSError, ValueError, UnicodeEncodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ReaderError(f"cannot use {what} {printable_path(path)}: {reason}") from None
    if not stat.S_ISREG(mode):
        raise ReaderError(
            f"cannot use {what} {printable_path(path)}: it is {file_kind(mode)}, not a regular file"
        )


def read_bounded(
    path: str | os.PathLike[str], limit: int, what: str = "file", *, follow_links: bool = True
) -> bytes:
    """The whole content of a regular file of at most ``limit`` bytes."""
    with open_regular(path, what, follow_links=follow_links) as fh:
        try:
            # the stated size first: a huge file is refused without being read
            size = os.fstat(fh.fileno()).st_size
            data = b"" if size > limit else fh.read(limit + 1)
        except OSError as exc:
            raise ReaderError(
                f"cannot read {what} {printable_path(path)}: {exc.strerror or exc}"
            ) from None
    if size > limit or len(data) > limit:  # or it grew while being read
        raise ReaderError(f"{what} {printable_path(path)} is larger than {limit} bytes; refused")
    return data


def read_bounded_text(path: Path, limit: int, what: str = "file") -> str:
    """``read_bounded`` decoded as UTF-8 (one ``ReaderError`` line if it is not)."""
    data = read_bounded(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReaderError(
            f"{what} {printable_path(path)} is not UTF-8 text (byte {exc.start})"
        ) from None


def json_object(raw: bytes | str, what: str) -> dict[str, Any]:
    """``raw`` (UTF-8 bytes or text) as a JSON object, or one ``ReaderError`` line
    naming ``what`` ("hook input"): not UTF-8, not JSON, nested too deeply, not an object."""
    import json

    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ReaderError(f"{what} is not UTF-8 (byte {exc.start})") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ReaderError(f"{what} is not JSON ({exc.msg} at char {exc.pos})") from None
    except RecursionError:
        raise ReaderError(f"{what} is nested too deeply") from None
    if not isinstance(data, dict):
        raise ReaderError(f"{what} is not a JSON object")
    return data


__all__ = [
    "check_path_text",
    "file_kind",
    "json_object",
    "open_regular",
    "printable_path",
    "read_bounded",
    "read_bounded_text",
    "require_regular",
]
