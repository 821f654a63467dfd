"""SQLite turn index (``TurnIndex``): scoped OR-BM25 over voice messages.

``node_fts`` joined 1:1 with ``voice_index`` (``voice_index.py``) by rowid, for
``context_cut.turns`` (turn-level recall). Common words past ``CANDIDATES``
in-scope matches rank only the newest candidates (``common_words``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from memgraph.errors import StoreError
from memgraph.store.sqlite_ext.common_words import frequencies, newest_floor
from memgraph.store.voice_rows import CANDIDATES, VoiceScope, common_plan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite_ext.base import Conns


def _scope_sql(scope: VoiceScope) -> tuple[str, list[object]]:
    # only a record's current version (an older one of a changed record is superseded)
    where: list[str] = ["v.lifecycle != 'superseded'"]
    args: list[object] = []
    for column, value in (
        ("project", scope.project),
        ("session_id", scope.session_id),
        ("constellation", scope.constellation),
    ):
        if value is not None:
            where.append(f"v.{column} = ?")
            args.append(value)
    if scope.since is not None:
        where.append("v.ts >= ?")
        args.append(scope.since)
    return " AND ".join(where), args


def _quoted(word: str, prefix: bool) -> str:
    return '"' + word.replace('"', '""') + '"' + ("*" if prefix else "")


class SQLiteTurnIndex:
    """Scoped OR-BM25 over ``node_fts`` joined 1:1 with ``voice_index`` (``TurnIndex``)."""

    def __init__(self, conns: Conns) -> None:
        self.conns = conns

    def rank_any(
        self,
        words: Sequence[tuple[str, bool]],
        scope: VoiceScope,
        limit: int,
        title_weight: float = 1.0,
    ) -> list[tuple[str, float]]:
        parts = [_quoted(w, p) for w, p in words if w]
        if not parts or limit <= 0:
            return []
        clause, args = _scope_sql(scope)
        match = " OR ".join(parts)
        with self.conns.read() as conn:
            try:
                floor = _turn_floor(conn, words, match, clause, args, max(limit, CANDIDATES))
                if floor:  # every word common and more matches than candidates
                    clause, args = f"{clause} AND node_fts.rowid >= ?", [*args, floor]
                # node_fts drives (CROSS JOIN fixes the order): one FTS scan, then
                # rowid lookups into the index for the scope
                rows = conn.execute(
                    f"SELECT v.node_id, bm25(node_fts, {float(title_weight)!r}, 1.0) AS score "
                    "FROM node_fts CROSS JOIN voice_index AS v ON v.rowid = node_fts.rowid "
                    f"WHERE node_fts MATCH ? AND {clause} ORDER BY score LIMIT ?",
                    [match, *args, limit],
                ).fetchall()
            except sqlite3.OperationalError as exc:
                raise StoreError(f"turn ranking failed: {exc}") from None
        return [(str(n), -float(score)) for n, score in rows]

    def in_scope(self, ids: Sequence[str], scope: VoiceScope) -> set[str]:
        if not ids:
            return set()
        clause, args = _scope_sql(scope)
        found: set[str] = set()
        with self.conns.read() as conn:
            for i in range(0, len(ids), 500):
                chunk = list(ids[i : i + 500])
                marks = ",".join("?" * len(chunk))
                # nodes.id is unique-indexed (voice_index.node_id is not): find each
                # id's row there, then its index row by rowid
                rows = conn.execute(
                    f"SELECT n.id FROM nodes AS n CROSS JOIN voice_index AS v "
                    f"ON v.rowid = n.rowid WHERE n.id IN ({marks}) AND {clause}",
                    [*chunk, *args],
                ).fetchall()
                found.update(str(r[0]) for r in rows)
        return found


def _turn_floor(
    conn: sqlite3.Connection,
    words: Sequence[tuple[str, bool]],
    match: str,
    clause: str,
    args: list[object],
    cap: int,
) -> int:
    """The lowest candidate rowid of an OR ranking (``TurnIndex.rank_any``), or 0 for
    all matches: bounded only when more than ``cap`` messages in scope match and
    every plain word is common (``common_plan``: in >= 1/10 of all nodes; a stem
    prefix of such a word matches at least as many)."""
    plain = [w for w, prefix in words if not prefix]
    stems = [w for w, prefix in words if prefix]
    if not plain or not all(any(p.startswith(s) for p in plain) for s in stems):
        return 0  # a prefix of no plain word: its frequency is not one vocabulary row
    floor = newest_floor(conn, match, clause, args, cap)
    figures = frequencies(conn, plain) if floor else None
    if figures is None:
        return 0
    nodes, found = figures
    return floor if common_plan(nodes, min(found.get(w, 0) for w in plain)) != "full" else 0
