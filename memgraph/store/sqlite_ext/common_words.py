"""Common words in the SQLite text index (``VoiceSearch``/``TurnIndex``, ``common_plan``).

``newest_floor`` walks the newest matches of an FTS5 query under a filter and
stops after ``cap`` (FTS5 reads its doclist backwards); ``frequencies`` reads the
node count from FTS5's own record and words' document frequencies from
``node_fts_vocab`` (migration 40; its cost grows with the word's frequency).
Stdlib only at import: the ``memgraph voice`` fast path runs this.
"""

from __future__ import annotations

import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def varint(data: bytes) -> int:
    """The first SQLite varint of ``data`` (FTS5 writes its record counts so)."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            break
    return value


def newest_floor(
    conn: sqlite3.Connection, match: str, clause: str, args: Sequence[object], cap: int
) -> int:
    """The rowid of the ``cap``-th newest match of ``match`` (``node_fts``) whose
    ``voice_index`` row (alias ``v``) meets ``clause``; 0 when at most ``cap`` match."""
    beyond = conn.execute(
        "SELECT node_fts.rowid FROM node_fts CROSS JOIN voice_index AS v ON v.rowid = "
        f"node_fts.rowid WHERE node_fts MATCH ? AND {clause} "
        "ORDER BY node_fts.rowid DESC LIMIT 2 OFFSET ?",
        [match, *args, cap - 1],
    ).fetchall()
    return int(beyond[0][0]) if len(beyond) == 2 else 0


def frequencies(
    conn: sqlite3.Connection, words: Sequence[str]
) -> tuple[int, dict[str, int]] | None:
    """(node count, {word: nodes holding it in title or body}); None on a store from
    before the vocabulary table (opened read-only, so never migrated)."""
    try:
        record = conn.execute("SELECT block FROM node_fts_data WHERE id = 1").fetchone()
        marks = ",".join("?" * len(words))
        rows = conn.execute(
            f"SELECT term, doc FROM node_fts_vocab WHERE term IN ({marks})", list(words)
        ).fetchall()
    except sqlite3.Error:
        return None
    nodes = varint(record[0]) if record and record[0] else 0
    return nodes, {str(t): int(d) for t, d in rows}
