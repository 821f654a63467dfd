"""The token-vector table's three files (``context_cut.token_vectors`` builds and
searches the table; this module owns its files), one set per model + dimension in
the token-vector directory:

- ``<model>-<dim>.turns``: a header ``memgraph-token-vectors 3 <model> <dim>
  <turns> <rows>``, then ``node id<TAB>text hash<TAB>rows<TAB>project<TAB>constellation``
  a line, in row order (the two places narrow a scope before the store is asked;
  ``*``: a name a line cannot hold, always asked);
- ``<model>-<dim>.tok``: a row's word-piece id (int32) and scale (float32),
  little-endian;
- ``<model>-<dim>.q8``: ``rows x dim`` int8: a unit row is ``q8 * scale`` (one
  byte a number: a quarter of float32, and numpy widens int8 ~8x faster than
  float16, which is most of a query's cost).

The two matrices are written first, the list last (a reader that sees a list
and matrices of other sizes refuses them). Read as memory maps of regular files
(not through symlinks); anything that does not add up is a one-line reason and
the next ``sync_tokens`` rebuilds the table.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memgraph.errors import ReaderError
from memgraph.inputs import open_regular

MAGIC = "memgraph-token-vectors"
VERSION = 3
_LIST_LIMIT = 256 * 1024 * 1024
_TOK = [("piece", "<i4"), ("scale", "<f4")]


def _slug(model: str) -> str:  # as the word table's (context_cut.word_table)
    return re.sub(r"[^a-z0-9]+", "_", model.lower()).strip("_") or "model"


def table_paths(directory: Path, model: str, dimension: int) -> tuple[Path, Path, Path]:
    base = directory / f"{_slug(model)}-{dimension}"
    return base.with_suffix(".turns"), base.with_suffix(".tok"), base.with_suffix(".q8")


@dataclass
class TokenTable:
    model: str
    dimension: int
    ids: list[str]  # node ids, in row order
    hashes: list[str]  # hash of the text each turn's rows came from
    places: list[tuple[str, str]]  # (project, constellation) of each turn, or "*"
    starts: Any  # int64 (len(ids) + 1): turn i is rows starts[i]:starts[i + 1]
    pieces: Any  # int32 (rows,): word-piece id of each row
    matrix: Any  # int8 (rows, dimension): row r is matrix[r] * scale[r], unit length
    scale: Any  # float32 (rows,)
    index: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index = self.index or {n: i for i, n in enumerate(self.ids)}


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _map(path: Path, dtype: Any, count: int) -> Any:
    import numpy as np

    try:
        with open_regular(path, "token-vector file", follow_links=False) as fh:
            size = os.fstat(fh.fileno()).st_size
            need = count * np.dtype(dtype).itemsize
            if size != need:
                raise ValueError(f"{path.name}: {size} bytes, the list needs {need}")
            if count == 0:
                return np.zeros(0, dtype=dtype)
            return np.memmap(fh, dtype=dtype, mode="r", shape=(count,))
    except ReaderError as exc:
        raise ValueError(str(exc)) from None
    except OSError as exc:
        raise ValueError(f"{path.name}: {exc.strerror or type(exc).__name__}") from None


def read_tokens(
    directory: Path, model: str, dimension: int
) -> tuple[TokenTable | None, str | None]:
    """(table, None); (None, None) when there is none; (None, reason) when unreadable."""
    import numpy as np

    turns_path, tok_path, q8_path = table_paths(directory, model, dimension)
    if not os.path.lexists(turns_path):
        return None, None
    try:
        with open_regular(turns_path, "token-vector list", follow_links=False) as fh:
            raw = fh.read(_LIST_LIMIT + 1)
        if len(raw) > _LIST_LIMIT:
            raise ValueError(f"{turns_path.name}: more than {_LIST_LIMIT} bytes")
        lines = raw.decode("utf-8").split("\n")
        head = lines[0].split(" ")
        if len(head) != 6 or head[:2] != [MAGIC, str(VERSION)]:
            raise ValueError(f"{turns_path.name}: not a token-vector list (bad header)")
        if head[2:4] != [_slug(model), str(dimension)]:
            raise ValueError(f"{turns_path.name}: written for another model or dimension")
        count, rows = int(head[4]), int(head[5])
        body = [line.split("\t") for line in lines[1:] if line]
        if len(body) != count or not all(len(p) == 5 and p[2].isdigit() for p in body):
            raise ValueError(f"{turns_path.name}: {len(body)} turns, header says {count}")
        starts = np.zeros(count + 1, dtype=np.int64)
        starts[1:] = np.cumsum([int(p[2]) for p in body])
        if starts[-1] != rows or len({p[0] for p in body}) != count:
            raise ValueError(f"{turns_path.name}: rows do not add up")
        rec = _map(tok_path, _TOK, rows)
        flat = _map(q8_path, "i1", rows * dimension)
    except (ReaderError, OSError, UnicodeDecodeError, ValueError) as exc:
        return None, " ".join(str(exc).split())[:200]
    matrix = flat.reshape(rows, dimension)
    return TokenTable(model, dimension, [p[0] for p in body], [p[1] for p in body],
                      [(p[3], p[4]) for p in body], starts,
                      rec["piece"], matrix, rec["scale"]), None  # fmt: skip


_LOADED: dict[Path, tuple[tuple[int, ...], TokenTable]] = {}


def load_tokens(
    directory: Path, model: str, dimension: int
) -> tuple[TokenTable | None, str | None]:
    """``read_tokens``, remembered for the process while the files are unchanged."""
    paths = table_paths(directory, model, dimension)
    try:
        key = tuple(v for p in paths for v in (p.stat().st_mtime_ns, p.stat().st_size))
    except OSError:
        _LOADED.pop(paths[0], None)
        return read_tokens(directory, model, dimension)
    held = _LOADED.get(paths[0])
    if held is not None and held[0] == key:
        return held[1], None
    table, why = read_tokens(directory, model, dimension)
    if table is not None:
        _LOADED[paths[0]] = (key, table)
    return table, why


def write_tokens(directory: Path, table: TokenTable) -> None:
    import numpy as np

    from memgraph.fileio import atomic_write_bytes, atomic_write_text

    turns_path, tok_path, q8_path = table_paths(directory, table.model, table.dimension)
    rec = np.zeros(len(table.pieces), dtype=_TOK)
    rec["piece"], rec["scale"] = table.pieces, table.scale
    atomic_write_bytes(q8_path, np.ascontiguousarray(table.matrix, "i1").tobytes(), durable=False)
    atomic_write_bytes(tok_path, rec.tobytes(), durable=False)
    counts = np.diff(table.starts).tolist()
    head = f"{MAGIC} {VERSION} {_slug(table.model)} {table.dimension} {len(table.ids)}"
    lines = [f"{head} {int(table.starts[-1])}"]
    lines += [
        f"{n}\t{h}\t{c}\t{p}\t{k}"
        for n, h, c, (p, k) in zip(table.ids, table.hashes, counts, table.places, strict=True)
    ]
    atomic_write_text(turns_path, "\n".join(lines) + "\n", durable=False)


def quantised(rows: Any) -> tuple[Any, Any]:
    """(int8 rows, float32 scale a row): ``q * scale`` is within scale / 2 of each number."""
    import numpy as np

    rows = np.asarray(rows, dtype=np.float32)
    scale = np.abs(rows).max(axis=1) / 127.0 if len(rows) else np.zeros(0, np.float32)
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    return np.rint(rows / scale[:, None]).astype(np.int8), scale
