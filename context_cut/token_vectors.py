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
``local-embeddings`` extra) has them. ``sync_tokens`` (``memgraph index``) keeps
their table, a cache of the store's text beside the word vectors, in the files of
``context_cut.token_table``; deleting them only turns MaxSim off.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from context_cut.candidates import STOPWORDS
from context_cut.token_table import (
    TokenTable,
    load_tokens,
    quantised,
    read_tokens,
    table_paths,
    text_hash,
    write_tokens,
)
from memgraph.store.protocol import Store

if TYPE_CHECKING:
    from memgraph.home_dirs import StoreRef

_BATCH = 256


class TokenEmbedder(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_tokens(self, texts: Sequence[str]) -> list[tuple[Any, Any]]: ...

    def pieces(self, ids: Sequence[int]) -> list[str]: ...


def token_embedder(embedder: object) -> TokenEmbedder | None:
    """``embedder`` if it gives token states (the numpy MiniLM), else None."""
    ok = all(hasattr(embedder, a) for a in ("embed_tokens", "pieces", "name", "dimension"))
    return embedder if ok else None  # type: ignore[return-value]


def tokens_dir_for(home: Path, store: StoreRef) -> Path:
    """Where the token vectors of ``store`` are read: its folder in
    ``<home>/token-vectors`` (``memgraph.home_dirs``; ``memgraph index`` writes
    there through ``prepared_dir``), the flat files of a home from before until then."""
    from memgraph.home_dirs import TOKEN_VECTORS, cache_dir

    return cache_dir(home, TOKEN_VECTORS, store)


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
