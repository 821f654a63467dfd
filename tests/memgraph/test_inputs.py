"""``memgraph.inputs``: bounded reads of regular files, one ``ReaderError`` line otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memgraph.errors import ReaderError
from memgraph.inputs import read_bounded, read_bounded_text


def test_a_regular_file_within_the_limit_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"0123456789")
    assert read_bounded(path, 10) == b"0123456789"
    assert read_bounded_text(path, 10) == "0123456789"


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    with path.open("wb") as fh:  # sparse: the size says 64 GiB, nothing is written
        fh.truncate(64 * 1024**3)
    with pytest.raises(ReaderError, match="is larger than 1024 bytes; refused"):
        read_bounded(path, 1024, "export")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ReaderError, match=r"FIFO \(named pipe\), not a regular file"):
        read_bounded(fifo, 1024, "export")


def test_a_directory_a_missing_file_and_a_refused_symlink(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="not a regular file"):
        read_bounded(tmp_path, 1024)
    with pytest.raises(ReaderError, match="no such file"):
        read_bounded(tmp_path / "missing", 1024)
    target = tmp_path / "t.txt"
    target.write_text("x")
    link = tmp_path / "link"
    link.symlink_to(target)
    assert read_bounded(link, 10) == b"x"
    with pytest.raises(ReaderError, match="it is a symlink"):
        read_bounded(link, 10, follow_links=False)


def test_text_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"caf\xe9")
    with pytest.raises(ReaderError, match=r"is not UTF-8 text \(byte 3\)"):
        read_bounded_text(path, 10)
