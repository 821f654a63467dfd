"""SQLite term statistics (schema versions 40-49): implements ``TermStats``.

``node_fts_vocab`` is an fts5vocab view over the node FTS index: document
frequency per term, maintained by SQLite itself (no triggers, no copies).
Context cuts use it to drop query terms so common that their IDF is ~0.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from memgraph.store.rows import TermFrequencies
from memgraph.store.schema import Migration

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite_ext.base import Conns

MIGRATIONS: list[Migration] = [
    Migration(
        40,
        "context_cut: term document frequencies over node_fts",
        "CREATE VIRTUAL TABLE node_fts_vocab USING fts5vocab(node_fts, row);",
    ),
]


class SQLiteTermStats:
    def __init__(self, conns: Conns) -> None:
        self.conns = conns
        # What ``frequencies`` read (term -> document frequency, None: no such term)
        # and the node count, kept while the database is unchanged: a page's title
        # looks up ~40 words, each lookup in ``node_fts_vocab`` costs ~1.3 ms plus
        # ~0.1 ms a term, and a pass re-rendering 2,000 pages asks mostly the same
        # words again. Unchanged = the same ``PRAGMA data_version`` (another
        # connection committed) and ``total_changes`` (this one wrote).
        self._known: dict[str, int | None] = {}
        self._nodes = 0
        self._version: tuple[int, int] | None = None

    def frequencies(self, terms: Sequence[str]) -> TermFrequencies:
        with self.conns.read() as conn:
            version = (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
            if version != self._version:
                self._known.clear()
                self._nodes = int(conn.execute("SELECT max(rowid) FROM nodes").fetchone()[0] or 0)
                self._version = version
            total = self._nodes
            if not terms:
                return TermFrequencies(nodes=total, df=())
            wanted = [t for t in dict.fromkeys(terms) if t not in self._known]
            if wanted:
                marks = ",".join("?" * len(wanted))
                try:
                    rows = conn.execute(
                        f"SELECT term, doc FROM node_fts_vocab WHERE term IN ({marks})", wanted
                    ).fetchall()
                except sqlite3.Error:  # a store opened before migration 40 ran (read-only)
                    return TermFrequencies(nodes=0, df=())
                found = {str(t): int(d) for t, d in rows}
                self._known.update((t, found.get(t)) for t in wanted)
        # the vocabulary's order (its terms' UTF-8 bytes: code point order), as the
        # query over all the asked terms returned them
        df = sorted((t, d) for t in set(terms) if (d := self._known[t]) is not None)
        return TermFrequencies(nodes=total, df=tuple(df))

    def rank_any(self, terms: Sequence[str], limit: int) -> list[tuple[str, float]]:
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        with self.conns.read() as conn:
            # ORDER BY rank LIMIT on the FTS table alone: only the top rows are then
            # joined to nodes (joining first reads every matching node row).
            rows = conn.execute(
                "SELECT rowid, bm25(node_fts) FROM node_fts WHERE node_fts MATCH ? "
                "ORDER BY rank LIMIT ?",
                (match, limit),
            ).fetchall()
            if not rows:
                return []
            marks = ",".join("?" * len(rows))
            ids = dict(
                conn.execute(
                    f"SELECT rowid, id FROM nodes WHERE rowid IN ({marks})", [r[0] for r in rows]
                ).fetchall()
            )
        return [(ids[r], -float(score)) for r, score in rows if r in ids]
