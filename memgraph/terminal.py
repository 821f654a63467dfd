"""Terminal manners shared by every command (stdlib only: the fast paths use it).

- ``plural(n, "session")`` -> ``1 session`` / ``2 sessions``: the one helper for counts.
- ``color(stream)``: colour and highlighting only on a terminal, never in a pipe,
  and never when ``NO_COLOR`` is set (https://no-color.org) or ``TERM=dumb``.
- ``progress(...)``: a transient progress bar on stderr when stderr is a terminal
  and the command is not ``--quiet``/``--json``; ``None`` otherwise.
- ``INTERRUPTED`` / ``INTERRUPTED_EXIT``: what Ctrl-C prints and the exit code
  (128 + SIGINT), used by the one handler in ``memgraph.cli``.
- ``printable(text)``: someone's words made safe to print: control characters
  (an escape sequence pasted into a prompt that would retitle or clear the
  terminal) become U+FFFD, as ``memgraph voice`` shows them; ``--json`` keeps text exact.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

INTERRUPTED = "interrupted; rerun to resume"
INTERRUPTED_EXIT = 130

_CONTROLS = {c: "\ufffd" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
_KEEP_LINES = str.maketrans({**_CONTROLS, ord("\n"): "\n", ord("\t"): "\t"})
_NO_CONTROLS = str.maketrans(_CONTROLS)


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with control characters shown as U+FFFD (one for one); ``lines``:
    line breaks and tabs kept (a multi-line note printed whole)."""
    return text.translate(_KEEP_LINES if lines else _NO_CONTROLS)


# Irregular plurals of the nouns memgraph counts; everything else takes "s".
_IRREGULAR = {"entry": "entries", "summary": "summaries", "match": "matches", "was": "were"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word`` in the right number: ``1 session``, ``0 sessions``,
    ``2 entries``; ``many`` for a plural the table does not know."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {many or _IRREGULAR.get(word) or word + 's'}"


def color(stream: TextIO | None = None) -> bool:
    """Colour on ``stream`` (default stdout): a terminal, ``NO_COLOR`` unset
    (any value, even empty, turns colour off) and ``TERM`` not ``dumb``."""
    if "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb":
        return False
    return is_tty(sys.stdout if stream is None else stream)


def is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


def _stdin_tty_fd() -> int:
    """stdin's descriptor when it is a terminal, else -1. ``sys.stdin``, not fd 0:
    a test runner (or an embedding program) may have replaced it, and the notice
    and the read must agree on which stream they mean."""
    stream = sys.stdin
    try:
        return stream.fileno() if stream is not None and stream.isatty() else -1
    except (AttributeError, OSError, ValueError):
        return -1


def interactive_stdin() -> bool:
    """stdin is a terminal (a command that reads a pipe was started by hand)."""
    return _stdin_tty_fd() >= 0


def read_stdin(limit: int) -> bytes:
    """At most ``limit`` bytes of stdin, to its end.

    On a terminal the read waits in short ``select`` slices: a Ctrl-C that lands
    between Python's last signal check and a blocking ``read`` would otherwise be
    handled only when the next line arrives (the process looked hung; seen under
    load in tests/memgraph/cli/test_terminal_manners.py)."""
    fd = _stdin_tty_fd()
    if fd < 0:
        return sys.stdin.buffer.read(limit)
    import select

    chunks: list[bytes] = []
    size = 0
    while size < limit:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            continue
        chunk = os.read(fd, min(65536, limit - size))
        if not chunk:  # Ctrl-D on an empty line
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def interrupted() -> int:
    """Say what Ctrl-C did (one line on stderr, no traceback); the exit code."""
    try:
        sys.stderr.write("\n" + INTERRUPTED + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    return INTERRUPTED_EXIT


def stdin_notice(text: str) -> None:
    """``text`` on stderr when stdin is a terminal: a command that reads a pipe
    (a hook's JSON, MCP messages) was started by hand and would wait silently."""
    if interactive_stdin():
        sys.stderr.write(text.rstrip("\n") + "\n")
        sys.stderr.flush()


HOOK_NOTICE = (
    "memgraph hook {event} reads a Claude Code {hook} hook JSON on stdin (Claude Code "
    "runs it; `memgraph hook install` sets it up). Paste the JSON and press Ctrl-D, "
    "or Ctrl-C to quit."
)
MCP_NOTICE = (
    "memgraph mcp speaks the Model Context Protocol (JSON-RPC) on stdin/stdout: an MCP "
    "client starts it, e.g. `claude mcp add memgraph -- memgraph mcp`. Waiting for a "
    "client; Ctrl-C to quit."
)


class Bar:
    """A progress bar on stderr (rich, imported only when a bar is shown)."""

    def __init__(self, label: str, unit: str = "items") -> None:
        self.label, self.unit = label, unit

    def __enter__(self) -> Callable[..., None]:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        columns: list[object] = [TextColumn(self.label), BarColumn()]
        if self.unit == "bytes":
            columns += [DownloadColumn(), TransferSpeedColumn()]
        else:
            columns += [MofNCompleteColumn(), TimeRemainingColumn()]
        self._bar = Progress(*columns, console=Console(stderr=True), transient=True)  # type: ignore[arg-type]
        self._bar.__enter__()
        task = self._bar.add_task(self.label, total=None)

        def update(done: int, total: int | None = None, *_: object) -> None:
            self._bar.update(task, completed=done, total=total)

        return update

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__(None, None, None)


class _NoBar:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def progress(label: str, *, unit: str = "items", quiet: bool = False) -> Bar | _NoBar:
    """``with progress("classify") as update:`` -> ``update(done, total)`` or None.

    A bar only when stderr is a terminal and not ``quiet``: pipes, logs and
    ``--json`` runs get nothing."""
    if quiet or not is_tty(sys.stderr) or os.environ.get("TERM") == "dumb":
        return _NoBar()
    return Bar(label, unit)
