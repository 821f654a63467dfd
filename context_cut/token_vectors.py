"""Token vectors: late interaction (ColBERT-style MaxSim) over MiniLM's token states.

One vector per turn averages its words: "Hey Mel! Good to see you. I went to a
LGBTQ support group yesterday" is one point between a greeting and a support
group. Late interaction keeps the contextual vector of every word piece (the
encoder's last hidden state, the one mean pooling averages; unit length,
punctuation left out) and scores a question against a turn as

    maxsim(q, t) = sum_i idf_i * max_j cos(q_i, t_j) / sum_i idf_i

over the question's word pieces ``q_i`` (as written, stop words and punctuation
left out, each weighted by its IDF over the turns in scope) and the turn's
``t_j``. ``context_cut.turns`` fuses the best turns of the scope by it as a third
ranking beside BM25 and the cosine (``TurnWeights.late``; notes/recall.md, l21b).

Only an embedder with token states (``NumpyMiniLM.embed_tokens``, the offline
``local-embeddings`` extra) has them. The table is a cache of the store's text,
written by ``memgraph index`` (``sync_tokens``) beside the word vectors, three
plain files per model + dimension:

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
the next ``sync_tokens`` rebuilds the table. Deleting it only turns MaxSim off.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from context_cut.candidates import STOPWORDS
from memgraph.errors import ReaderError
from memgraph.inputs import open_regular
from memgraph.store.protocol import Store

MAGIC = "memgraph-token-vectors"
VERSION = 3
_BATCH = 256
_LIST_LIMIT = 256 * 1024 * 1024
_TOK = [("piece", "<i4"), ("scale", "<f4")]


class TokenEmbedder(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_tokens(self, texts: Sequence[str]) -> list[tuple[Any, Any]]: ...

    def pieces(self, ids: Sequence[int]) -> list[str]: ...


def _slug(model: str) -> str:  # as the word table's (context_cut.word_table)
    return re.sub(r"[^a-z0-9]+", "_", model.lower()).strip("_") or "model"


def token_embedder(embedder: object) -> TokenEmbedder | None:
    """``embedder`` if it gives token states (the numpy MiniLM), else None."""
    ok = all(hasattr(embedder, a) for a in ("embed_tokens", "pieces", "name", "dimension"))
    return embedder if ok else None  # type: ignore[return-value]


def tokens_dir_for(home: Path) -> Path:
    """Where ``memgraph index`` keeps the token vectors of the store at ``home``."""
    return Path(os.fspath(home)) / "token-vectors"


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


def _punctuation(piece: str) -> bool:
    return not any(c.isalnum() for c in piece)


@dataclass
class TokenSyncReport:
    turns: int = 0
    embedded: int = 0
    reused: int = 0
    rows: int = 0
    rebuilt: str | None = None

    def line(self) -> str:
        text = (
            f"token vectors: {self.turns} turns, {self.rows} word pieces "
            f"({self.embedded} turns embedded, {self.reused} kept)"
        )
        return text + (f"; rebuilt: {self.rebuilt}" if self.rebuilt else "")


def _place(value: object) -> str:
    if not isinstance(value, str):
        return ""
    return "*" if not value.isprintable() or value == "*" else value


def voice_texts(store: Store) -> Iterable[tuple[str, str, tuple[str, str]]]:
    """(node id, the text its turn vector embeds, (project, constellation)) of every
    live voice message."""
    from context_cut.vector_projection import embed_text  # the vector stack: not at import

    for node in store.iter_nodes("voice", "message"):
        if node.lifecycle not in ("retired", "superseded", "forgotten"):
            text = embed_text(node)
            where = (
                _place(node.attributes.get("project")),
                _place(node.attributes.get("constellation")),
            )
            if text:
                yield node.id, text, where


def sync_tokens(
    texts: Iterable[tuple[str, str, tuple[str, str]]],
    embedder: TokenEmbedder,
    directory: Path,
    rebuild: bool = False,
) -> TokenSyncReport:
    """Make the table hold the token vectors of ``texts`` (``voice_texts``): unchanged
    texts keep their rows, new ones are embedded (``rebuild``: every one). Written
    only if it changed."""
    import numpy as np

    rows = sorted(texts)
    places = [w for _, _, w in rows]
    wanted = [(n, t) for n, t, _ in rows]
    old, reason = (
        (None, None) if rebuild else read_tokens(directory, embedder.name, embedder.dimension)
    )
    hashes = [text_hash(t) for _, t in wanted]
    report = TokenSyncReport(turns=len(wanted), rebuilt=reason)
    same = old is not None and (old.ids, old.hashes, old.places) == (
        [n for n, _ in wanted],
        hashes,
        places,
    )
    if old is not None and same:
        report.reused, report.rows = len(wanted), int(old.starts[-1])
        return report
    kept: dict[str, tuple[Any, Any, Any]] = {}  # text hash -> (pieces, int8 rows, scales)
    if old is not None:
        for i, h in enumerate(old.hashes):
            a, b = int(old.starts[i]), int(old.starts[i + 1])
            kept[h] = (old.pieces[a:b], old.matrix[a:b], old.scale[a:b])
    todo = sorted({h: t for (_, t), h in zip(wanted, hashes, strict=True) if h not in kept}.items())
    for start in range(0, len(todo), _BATCH):
        chunk = todo[start : start + _BATCH]
        for (h, _), (ids, vecs) in zip(
            chunk, embedder.embed_tokens([t for _, t in chunk]), strict=True
        ):
            keep = np.array([not _punctuation(p) for p in embedder.pieces(ids)], dtype=bool)
            kept[h] = (np.asarray(ids)[keep], *quantised(np.asarray(vecs)[keep]))
    report.embedded, report.reused = len(todo), len(wanted) - len(todo)
    parts = [kept[h] for h in hashes]
    dim = embedder.dimension
    starts = np.zeros(len(parts) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(p[0]) for p in parts])
    pieces = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0)
    matrix = np.concatenate([p[1] for p in parts]) if parts else np.zeros((0, dim))
    scale = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0)
    table = TokenTable(embedder.name, dim, [n for n, _ in wanted], hashes, places, starts,
                       pieces.astype("<i4"), matrix.astype("i1"), scale.astype("<f4"))  # fmt: skip
    report.rows = int(starts[-1])
    try:
        write_tokens(directory, table)
    except OSError as exc:
        from memgraph.errors import StoreError

        where = exc.filename2 or exc.filename or directory
        raise StoreError(
            f"cannot write the token vectors at {where}: {exc.strerror or exc} "
            "(make it a writable directory of plain files and rerun `memgraph index`)"
        ) from None
    return report


def maxsim(
    table: TokenTable, embedder: TokenEmbedder, query: Any, ids: Sequence[str], limit: int
) -> list[tuple[str, float]]:
    """The best ``limit`` of ``ids`` by MaxSim for the question's token states
    ``query`` ((ids, unit vectors), ``embed_tokens``), best first (ties by id)."""
    import numpy as np

    rows = [table.index[n] for n in ids if n in table.index]
    if not rows or limit <= 0:
        return []
    qids, qvec = query
    content = [
        not _punctuation(p) and p.removeprefix("##") not in STOPWORDS for p in embedder.pieces(qids)
    ]
    if any(content):
        qids, qvec = np.asarray(qids)[content], np.asarray(qvec)[content]
    if len(qids) == 0:
        return []
    lo, hi = table.starts[rows], table.starts[np.asarray(rows) + 1]
    have = hi > lo
    lo, hi = lo[have], hi[have]
    names = [table.ids[r] for r, h in zip(rows, have.tolist(), strict=True) if h]
    if not names:
        return []
    span = np.concatenate([np.arange(a, b) for a, b in zip(lo.tolist(), hi.tolist(), strict=True)])
    pieces = np.asarray(table.pieces[span])
    owner = np.repeat(np.arange(len(names)), hi - lo)
    n = len(rows)  # IDF over the turns in scope: a piece in every turn weighs ~nothing
    df = [len(np.unique(owner[pieces == int(t)])) for t in qids]
    weights = np.array([max(0.05, math.log((n + 1) / (d + 0.5))) for d in df])
    sims = np.asarray(table.matrix[span], dtype=np.float32) @ np.asarray(qvec, np.float32).T
    sims *= np.asarray(table.scale[span], dtype=np.float32)[:, None]
    starts = np.concatenate([[0], np.cumsum(hi - lo)[:-1]])
    best = np.maximum.reduceat(sims, starts, axis=0) @ weights / weights.sum()
    order = sorted(range(len(names)), key=lambda i: (-float(best[i]), names[i]))[:limit]
    return [(names[i], float(best[i])) for i in order]


def late_query(nerve: object, text: str, asked: str) -> Any:
    """The token states of ``text`` (ids, vectors) if the nerve has a token table and
    an embedder with them, else None. The dense query ``asked`` is embedded in the same
    batch and handed to the nerve's next search (``primed``): one forward pass for both."""
    directory = getattr(nerve, "tokens_dir", None)
    embedder = token_embedder(getattr(nerve, "embedder", None))
    if not isinstance(directory, Path) or embedder is None:
        return None
    paths = table_paths(directory, embedder.name, embedder.dimension)
    if not os.path.lexists(paths[0]):
        return None
    both = getattr(embedder, "embed_with_tokens", None)
    if both is None or not hasattr(nerve, "primed"):
        return embedder.embed_tokens([text])[0]
    (vector,), (states,) = both([asked], [text])
    nerve.primed = (asked, vector)
    return states


def late_for(
    nerve: object,
    query: Any,
    in_scope: Callable[[Sequence[str]], set[str] | None],
    limit: int,
    place: tuple[str | None, str | None] = (None, None),
) -> tuple[list[tuple[str, float]], str | None]:
    """(the scope's best turns by MaxSim for the token states ``query``, from
    ``late_query``; why the nerve's table could not be read)."""
    directory = getattr(nerve, "tokens_dir", None)
    embedder = token_embedder(getattr(nerve, "embedder", None))
    if query is None or not isinstance(directory, Path) or embedder is None:
        return [], None
    table, why = load_tokens(directory, embedder.name, embedder.dimension)
    if table is None:
        return [], why
    project, constellation = place  # narrowed here, the rest of the scope by the store
    near = [
        n
        for n, (p, k) in zip(table.ids, table.places, strict=True)
        if (project is None or p in (project, "*")) and (constellation in (None, k) or k == "*")
    ]
    keep = in_scope(near)
    ids = near if keep is None else [n for n in near if n in keep]
    return maxsim(table, embedder, query, ids, limit), None
