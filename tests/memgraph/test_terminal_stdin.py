"""The stdin notice and the stdin read agree on which stream is stdin (sys.stdin)."""

from __future__ import annotations

import io
import os

import pytest

from memgraph import terminal


class _FakeTTY(io.BytesIO):
    """A stdin that says it is a terminal, on a pipe's read end."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd


def test_replaced_stdin_is_not_a_terminal_for_either(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b'{"a": 1}')))
    assert not terminal.interactive_stdin()
    terminal.stdin_notice("should not show")
    assert capsys.readouterr().err == ""
    assert terminal.read_stdin(100) == b'{"a": 1}'


def test_a_terminal_stdin_gets_the_notice_and_the_sliced_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"pasted")
        os.close(write_end)
        write_end = -1
        monkeypatch.setattr("sys.stdin", _FakeTTY(read_end))
        assert terminal.interactive_stdin()
        terminal.stdin_notice("paste and press Ctrl-D")
        assert capsys.readouterr().err == "paste and press Ctrl-D\n"
        assert terminal.read_stdin(3) == b"pas"  # the limit holds on the select path
        assert terminal.read_stdin(100) == b"ted"  # then to the end
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def test_a_closed_or_missing_stdin_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", None)
    assert not terminal.interactive_stdin()
    closed = io.TextIOWrapper(io.BytesIO())
    closed.close()
    monkeypatch.setattr("sys.stdin", closed)
    assert not terminal.interactive_stdin()
