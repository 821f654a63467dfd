"""Writing command output (stdlib only: the fast paths use it too)."""

from __future__ import annotations

import os
import sys


def emit(text: str, err: bool = False) -> None:
    """Write ``text`` as UTF-8; unencodable characters (lone surrogates) as escapes.

    ``backslashreplace`` turns a lone surrogate into ``\\\\udc80``, which inside a
    JSON string is the exact same value. A closed pipe (``| head``) ends quietly.
    """
    stream = sys.stderr if err else sys.stdout
    data = text.encode("utf-8", "backslashreplace")
    try:
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            buffer.flush()
        else:
            stream.write(data.decode("utf-8"))
            stream.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())


def _stdout_gone() -> bool:
    """stdout is a pipe whose reader has closed it: on Linux poll() reports POLLERR
    on a pipe's write end that has no reader left. Elsewhere (no poll, not a pipe)
    False: the error then takes the usual one-line path."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), 0)
        return any(event & select.POLLERR for _fd, event in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def reader_left(exc: BaseException) -> bool:
    """True when ``exc`` is the write to stdout failing because its reader left
    (``memgraph review list | head -3``). stdout then points at /dev/null, so the
    rest of the run and the interpreter's last flush write nowhere instead of
    failing again; the caller ends quietly. A broken pipe to anything else (a
    subprocess) is False: it stays an error."""
    if not isinstance(exc, BrokenPipeError) or not _stdout_gone():
        return False
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return True


def flush_stdout() -> None:
    """Flush stdout; a reader that left ends the output quietly (``reader_left``)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError as exc:
        if not reader_left(exc):
            raise
