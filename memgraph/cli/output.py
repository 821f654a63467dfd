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
