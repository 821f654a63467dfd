"""The word-vector table's two files: read back whole or refused with a reason.

``context_cut.word_vectors`` builds and searches the table; this module owns its
files in the word-vector directory, one pair per model + dimension:

- ``<model>-<dim>.words``: a header line ``memgraph-word-vectors 2 <model> <dim>
  <count> <texts>`` (format 2; ``texts``: the messages counted), then one
  ``word<TAB>df`` a line (folded, sorted; ``df``: the messages the word is in);
- ``<model>-<dim>.f32``: ``count x dim`` little-endian float32, unit rows, in
  the order of the words.

Both are written atomically (the matrix first). A reader takes them only as
regular files, not through symlinks, without blocking on a FIFO and bounded in
size; anything else (truncated, foreign, a count that does not match, duplicate
words, non-finite numbers) is a one-line reason, and the next ``sync_words``
rebuilds the pair.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from context_cut.candidates import STOPWORDS
from memgraph.errors import ReaderError
from memgraph.inputs import open_regular

MAGIC = "memgraph-word-vectors"
VERSION = 2
MIN_LEN, MAX_LEN = 3, 24


def is_word(word: str) -> bool:
    """A word worth a vector: letters only, 3-24 of them, not a stopword."""
    return MIN_LEN <= len(word) <= MAX_LEN and word.isalpha() and word not in STOPWORDS


def _slug(model: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", model.lower()).strip("_") or "model"


def table_paths(directory: Path, model: str, dimension: int) -> tuple[Path, Path]:
    base = f"{_slug(model)}-{dimension}"
    return directory / f"{base}.words", directory / f"{base}.f32"


@dataclass
class WordTable:
    """Words and their unit vectors (``matrix[i]`` is ``words[i]``)."""

    model: str
    dimension: int
    words: list[str]
    matrix: Any  # numpy float32, (len(words), dimension)
    df: list[int] = field(default_factory=list)  # texts each word is in
    texts: int = 0  # texts the vocabulary was counted over
    index: dict[str, int] = field(default_factory=dict)
    memo: dict[str, Any] = field(default_factory=dict)  # question words embedded

    def __post_init__(self) -> None:
        if not self.index:
            self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.df) != len(self.words):
            self.df = [0] * len(self.words)


def empty_table(model: str, dimension: int) -> WordTable:
    import numpy as np

    return WordTable(model, dimension, [], np.zeros((0, dimension), dtype=np.float32))


class _Unreadable(Exception):
    """A table file that cannot be used as it is (the message is the reason)."""


WORDS_LIMIT = 64 * 1024 * 1024  # a .words file larger than this is not ours


def _read_file(path: Path, limit: int) -> bytes:
    """A regular file's bytes, at most ``limit``: not through a symlink, never
    blocking (a FIFO opens at once and is refused), never reading a device; a
    larger file is refused before it is read."""
    try:
        with open_regular(path, "word-vector file", follow_links=False) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                raise _Unreadable(f"{path.name}: {size} bytes, more than {limit}")
            data = fh.read(limit + 1)
    except ReaderError as exc:
        raise _Unreadable(str(exc)) from None
    except OSError as exc:
        raise _Unreadable(f"{path.name}: {exc.strerror or type(exc).__name__}") from None
    if len(data) > limit:
        raise _Unreadable(f"{path.name}: more than {limit} bytes")
    return data


def read_table(directory: Path, model: str, dimension: int) -> tuple[WordTable | None, str | None]:
    """(table, None), or (None, None) when there is none yet, or (None, reason)
    when the files are there but do not read back whole (or are not plain files)."""
    words_path, f32_path = table_paths(directory, model, dimension)
    if not os.path.lexists(words_path) and not os.path.lexists(f32_path):
        return None, None
    try:
        return _parse_table(words_path, f32_path, model, dimension), None
    except _Unreadable as exc:
        return None, str(exc)


def _parse_table(words_path: Path, f32_path: Path, model: str, dimension: int) -> WordTable:
    import numpy as np

    raw = _read_file(words_path, WORDS_LIMIT)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unreadable(f"{words_path.name}: not UTF-8") from None
    lines = text.split("\n")
    head = lines[0].split(" ")
    if len(head) != 6 or head[0] != MAGIC or head[1] != str(VERSION):
        raise _Unreadable(f"{words_path.name}: not a word-vector list (bad header)")
    if head[2] != _slug(model) or head[3] != str(dimension):
        raise _Unreadable(f"{words_path.name}: written for another model or dimension")
    if not head[4].isdigit() or not head[5].isdigit():
        raise _Unreadable(f"{words_path.name}: not a word-vector list (bad header)")
    count, texts = int(head[4]), int(head[5])
    rows = lines[1:]
    if rows and rows[-1] == "":
        rows.pop()
    if len(rows) != count:
        raise _Unreadable(f"{words_path.name}: {len(rows)} words, header says {count}")
    pairs = [r.split("\t") for r in rows]
    if not all(len(p) == 2 and is_word(p[0]) and p[1].isdigit() for p in pairs):
        raise _Unreadable(f"{words_path.name}: malformed word lines")
    words, df = [p[0] for p in pairs], [int(p[1]) for p in pairs]
    if len(set(words)) != count:
        raise _Unreadable(f"{words_path.name}: duplicate words")
    need = count * dimension * 4
    data = _read_file(f32_path, need)  # a larger file is refused before it is read
    if len(data) != need:
        raise _Unreadable(f"{f32_path.name}: {len(data)} bytes, {count} words need {need}")
    # read-only over the bytes read: a loaded table is never changed in place
    matrix = (
        np.frombuffer(data, dtype="<f4").reshape(count, dimension).astype(np.float32, copy=False)
    )
    if not np.isfinite(matrix).all():
        raise _Unreadable(f"{f32_path.name}: non-finite numbers")
    return WordTable(model, dimension, words, matrix, df, texts)


# loaded tables, per file pair, while their files stay the same
_LOADED: dict[Path, tuple[tuple[int, int, int, int], WordTable]] = {}


def load_table(directory: Path, model: str, dimension: int) -> tuple[WordTable | None, str | None]:
    """``read_table``, remembered for the process while the files are unchanged."""
    words_path, f32_path = table_paths(directory, model, dimension)
    try:
        a, b = words_path.stat(), f32_path.stat()
    except OSError:
        _LOADED.pop(words_path, None)
        return read_table(directory, model, dimension)
    key = (a.st_mtime_ns, a.st_size, b.st_mtime_ns, b.st_size)
    held = _LOADED.get(words_path)
    if held is not None and held[0] == key:
        return held[1], None
    table, reason = read_table(directory, model, dimension)
    if table is not None:
        _LOADED[words_path] = (key, table)
    return table, reason


def write_table(directory: Path, table: WordTable) -> None:
    """Both files, each replaced atomically; the matrix first (a reader that sees
    a new list with an old matrix finds the sizes differ and ignores the pair)."""
    import numpy as np

    from memgraph.fileio import atomic_write_bytes, atomic_write_text

    words_path, f32_path = table_paths(directory, table.model, table.dimension)
    data = np.ascontiguousarray(table.matrix, dtype="<f4").tobytes()
    atomic_write_bytes(f32_path, data, durable=False)
    head = f"{MAGIC} {VERSION} {_slug(table.model)} {table.dimension} {len(table.words)}"
    lines = [
        f"{head} {table.texts}",
        *(f"{w}\t{d}" for w, d in zip(table.words, table.df, strict=True)),
    ]
    atomic_write_text(words_path, "\n".join(lines) + "\n", durable=False)
