"""SQLite term statistics keep what they read while the database is unchanged.

A pass re-rendering every page asks ``frequencies`` about ~40 words per page, most
of them asked before; each ``node_fts_vocab`` lookup cost ~1.3 ms. The answers must
stay the store's: after this connection writes, or another one commits, they are
read again.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from memgraph.documents import MemoryNode, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import node_id
from memgraph.store.interfaces import indexes
from memgraph.store.sqlite import SQLiteStore

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
WORDS = ["login", "deploy", "zzz", "café", "Login", "login"]


def _node(key: str, claim: str) -> MemoryNode:
    return MemoryNode(
        id=node_id("incubation", "idea", key),
        domain_id="terms",
        profile="incubation",
        kind="idea",
        claim=claim,
        lifecycle="active",
        created_at=T0,
        updated_at=T0,
    )


def _put(store: SQLiteStore, *nodes: MemoryNode) -> None:
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]), now=T0)


def _fresh(path: Path, terms: list[str]) -> tuple[int, tuple[tuple[str, int], ...]]:
    """The query ``frequencies`` ran before it kept anything, on its own connection."""
    conn = sqlite3.connect(path)
    try:
        total = int(conn.execute("SELECT max(rowid) FROM nodes").fetchone()[0] or 0)
        marks = ",".join("?" * len(terms))
        rows = conn.execute(
            f"SELECT term, doc FROM node_fts_vocab WHERE term IN ({marks})", terms
        ).fetchall()
    finally:
        conn.close()
    return total, tuple((str(t), int(d)) for t, d in rows)


def _answer(store: SQLiteStore, terms: list[str]) -> tuple[int, tuple[tuple[str, int], ...]]:
    got = indexes(store).terms.frequencies(terms)
    return got.nodes, got.df


def test_answers_are_the_query_and_follow_every_write(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SQLiteStore(path)
    other = SQLiteStore(path)
    try:
        _put(store, _node("a", "fix the login flow"), _node("b", "the café deploy"))
        assert _answer(store, WORDS) == _fresh(path, WORDS)
        assert _answer(store, WORDS[:2]) == _fresh(path, WORDS[:2])
        _put(store, _node("c", "login again, zzz"))  # this connection writes
        assert _answer(store, WORDS) == _fresh(path, WORDS)
        _put(store, _node("a", "fix the deploy flow"))  # a revision: no new row
        assert _answer(store, WORDS) == _fresh(path, WORDS)
        _put(other, _node("d", "deploy deploy login"))  # another connection commits
        assert _answer(store, WORDS) == _fresh(path, WORDS)
        assert _answer(store, []) == (_fresh(path, WORDS)[0], ())
    finally:
        other.close()
        store.close()


def test_words_asked_again_are_not_looked_up_again(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SQLiteStore(path)
    try:
        _put(store, _node("a", "fix the login flow"), _node("b", "the café deploy"))
        lookups: list[str] = []
        store.conn.set_trace_callback(lambda sql: lookups.append(sql))
        first = _answer(store, WORDS)
        vocab = [s for s in lookups if "node_fts_vocab" in s]
        assert len(vocab) == 1
        lookups.clear()
        assert _answer(store, ["deploy", "login", "zzz"]) == (
            first[0],
            tuple(p for p in first[1] if p[0] in ("deploy", "login")),
        )
        assert [s for s in lookups if "node_fts_vocab" in s] == []
    finally:
        store.close()
