"""The word-vector table's files (context_cut.word_table) on hostile ground:
FIFOs, symlinks, directories, devices and oversized files are refused with one
line and never block; sync_words replaces what it can and says what it cannot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from context_cut.embedders import HashEmbedder
from context_cut.word_table import WORDS_LIMIT, load_table, read_table, table_paths
from context_cut.word_vectors import sync_words
from memgraph.errors import StoreError

TEXTS = ["I practise the violin every night", "My guitar needs new strings"]


def _table(directory: Path) -> tuple[HashEmbedder, Path, Path]:
    emb = HashEmbedder(32)
    sync_words(TEXTS, emb, directory)
    words, f32 = table_paths(directory, emb.name, emb.dimension)
    return emb, words, f32


def _swap(path: Path, make: str, elsewhere: Path) -> None:
    path.unlink()
    if make == "fifo":
        os.mkfifo(path)
    elif make == "directory":
        path.mkdir()
    elif make == "device":
        path.symlink_to("/dev/zero")
    elif make == "symlink":  # to a good copy outside the directory
        path.symlink_to(elsewhere)


@pytest.mark.parametrize("which", ["words", "f32"])
@pytest.mark.parametrize(
    ("make", "reason"),
    [
        ("fifo", "not a regular file"),
        ("directory", ""),
        ("device", "symlink"),
        ("symlink", "symlink"),
    ],
)
def test_a_non_regular_file_is_refused_with_one_line(
    tmp_path: Path, which: str, make: str, reason: str
) -> None:
    emb, words, f32 = _table(tmp_path / "w")
    target = words if which == "words" else f32
    outside = tmp_path / "copy"
    outside.write_bytes(target.read_bytes())
    _swap(target, make, outside)
    table, why = read_table(tmp_path / "w", emb.name, emb.dimension)  # never blocks
    assert table is None and why is not None and "\n" not in why and reason in why
    assert load_table(tmp_path / "w", emb.name, emb.dimension)[0] is None
    if make != "directory":  # the next sync replaces the odd file with a plain one
        report = sync_words(TEXTS, emb, tmp_path / "w")
        assert report.rebuilt is not None
        table, why = read_table(tmp_path / "w", emb.name, emb.dimension)
        assert why is None and table is not None and not target.is_symlink()
        assert outside.read_bytes() != b"" and target.is_file()


def test_a_directory_in_the_way_is_one_error_not_a_traceback(tmp_path: Path) -> None:
    emb, words, _ = _table(tmp_path / "w")
    words.unlink()
    words.mkdir()
    (words / "keep").write_text("mine")
    with pytest.raises(StoreError, match="cannot write the word vectors"):
        sync_words([*TEXTS, "a cello too"], emb, tmp_path / "w")
    assert (words / "keep").read_text() == "mine"  # nothing of theirs removed


def test_an_oversized_words_file_is_refused_unread(tmp_path: Path) -> None:
    emb, words, _ = _table(tmp_path / "w")
    with words.open("r+b") as fh:  # sparse: no disk, no time
        fh.truncate(WORDS_LIMIT + 1)
    table, why = read_table(tmp_path / "w", emb.name, emb.dimension)
    assert table is None and why is not None and "more than" in why


def test_a_lone_dangling_link_is_a_reason_not_nothing(tmp_path: Path) -> None:
    emb = HashEmbedder(32)
    words, _ = table_paths(tmp_path, emb.name, emb.dimension)
    words.symlink_to(tmp_path / "nowhere")
    table, why = read_table(tmp_path, emb.name, emb.dimension)
    assert table is None and why is not None and "symlink" in why
