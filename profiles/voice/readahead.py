"""Backfill's transcripts read ahead by a helper process, on the second core.

Reading a transcript is pure Python, so a thread cannot read while the capture
runs (the GIL). A child process (``python -m profiles.voice.readahead``: it
imports only the readers, and never the caller's ``__main__``) reads the
transcripts the backfill is going to read, in the same order, at most ``WINDOW``
files ahead of it. The backfill takes a read from it when it has arrived and
otherwise reads the file itself: it never waits for the child, so a slow child,
or a child that could not start or died, costs nothing but the child's own CPU.
Who read a file changes nothing: a read is a function of the file's bytes and
the options (``tests/profiles/voice/test_readahead.py`` compares whole backfills).
No child is started when no core is idle (the 1-minute load average above the
cores but one): there it only takes CPU from the backfill itself.

Pipes: the parent writes the job (paths, options) then, as it goes, the index of
its next file (8 bytes each); the child writes pickled ``(index, read)`` pairs.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from profiles.voice.model import TranscriptRead
from profiles.voice.readers import ReadOptions

WINDOW = 24  # files the child may read ahead of the backfill
MIN_FILES = 4  # fewer files to read than this: not worth a process
MIN_BYTES = 4 << 20  # nor fewer bytes


class ReadAhead:
    """``take(path)``: the child's read of ``path`` if it is there, else None."""

    def __init__(self, paths: list[Path], options: ReadOptions) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self._child = subprocess.Popen(
            [sys.executable, "-m", "profiles.voice.readahead"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert self._child.stdin is not None and self._child.stdout is not None
        self._to_child: IO[bytes] = self._child.stdin
        self._from_child: IO[bytes] = self._child.stdout
        self._index = {path: i for i, path in enumerate(paths)}
        self._position = 0  # the backfill's next file, as the child was told
        self._reads: dict[int, TranscriptRead] = {}
        self._lock = threading.Lock()
        self.taken = 0  # reads the backfill took from the child
        try:
            pickle.dump((paths, options), self._to_child)
            self._to_child.flush()
        except OSError:
            pass  # the child is gone: take() finds nothing
        self._drain = threading.Thread(target=self._collect, daemon=True)
        self._drain.start()

    def _collect(self) -> None:
        """Receive the child's reads as they come (reads of the pipe wait without
        the GIL); a read the backfill is already past is dropped."""
        try:
            while True:
                i, read = pickle.load(self._from_child)
                if read is not None and i >= self._position:
                    with self._lock:
                        self._reads[i] = read
        except Exception:  # EOF: the child is done (or gone); the backfill reads
            return

    def take(self, path: Path) -> TranscriptRead | None:
        i = self._index.get(path)
        if i is None:
            return None
        if i + 1 > self._position:
            self._position = i + 1
            try:  # the child skips what the backfill is past, and may read further
                self._to_child.write(self._position.to_bytes(8, "little"))
                self._to_child.flush()
            except OSError:
                pass
        with self._lock:
            read = self._reads.pop(i, None)
        self.taken += read is not None
        return read

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._to_child.close()  # the child stops at its next file
        try:
            self._child.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()
        self._drain.join(timeout=2.0)
        self._from_child.close()
        self._reads.clear()


def start(paths: list[Path], sizes: list[int], options: ReadOptions) -> ReadAhead | None:
    """A ``ReadAhead`` over ``paths`` when they are worth one, a core is free and a
    process starts."""
    if len(paths) < MIN_FILES or sum(sizes) < MIN_BYTES or not core_free():
        return None
    try:
        return ReadAhead(paths, options)
    except Exception:  # no process here (sandbox, limits): the backfill reads alone
        return None


def core_free() -> bool:
    """Whether a core is idle enough for the child: on a busy machine it would only
    take CPU from the backfill (measured: slower at load 3-4 on 2 cores)."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average here: assume a free core
        return cores > 1
    return cores > 1 and load <= cores - 1


class _Position:
    """The child's view of the backfill's next file, updated by a reader thread;
    None once the parent closed its end (stop)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.value: int | None = 0
        self._stream = stream
        threading.Thread(target=self._follow, daemon=True).start()

    def _follow(self) -> None:
        while len(raw := self._stream.read(8)) == 8:
            self.value = int.from_bytes(raw, "little")
        self.value = None


def main(stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """The child: read each file the backfill has not passed, a window ahead of it.
    A file that fails to read is sent as None: the backfill reads it and reports."""
    from profiles.voice.readers import read_transcript

    paths: list[Path]
    options: ReadOptions
    paths, options = pickle.load(stdin)
    position = _Position(stdin)
    for i, path in enumerate(paths):
        while (at := position.value) is not None and i >= at + WINDOW:
            time.sleep(0.002)
        if at is None:
            return
        if i < at:
            continue
        try:
            read: TranscriptRead | None = read_transcript(path, options)
        except Exception:
            read = None
        pickle.dump((i, read), stdout, protocol=pickle.HIGHEST_PROTOCOL)
        stdout.flush()


def _run_child() -> int:
    try:
        main(sys.stdin.buffer, sys.stdout.buffer)
    except (OSError, EOFError, pickle.UnpicklingError):
        return 1  # the backfill closed its end, or sent nothing
    return 0


if __name__ == "__main__":
    import signal

    # Ctrl-C reaches the whole process group: the backfill handles it and closes us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    code = _run_child()
    with contextlib.suppress(OSError):
        sys.stdout.flush()
    # no interpreter shutdown: the position thread may be inside a read of stdin,
    # holding its lock, which finalization would wait for (a fatal error)
    os._exit(code)
