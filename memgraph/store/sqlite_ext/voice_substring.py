"""Substring search over voice messages: a trigram FTS5 index beside the word index.

``voice_tri`` (migration 7) is a contentless FTS5 table with the ``trigram``
tokenizer over the text of every live voice message (rowid = ``nodes.rowid``, as
``voice_index``), so ``fact`` finds ``facts``/``artifact`` and ``方案`` finds
``切到方案B``: a term of 3+ characters is a trigram phrase (an exact, case-folded
substring match); a 2-character term (CJK words are often 2 characters) matches
the trigrams that START with it, looked up in the index's vocabulary. Each text is
indexed with two newlines appended, so every occurrence of a 2-character term,
even at the very end, starts some trigram. 1-character terms are not substring
searched (they occur nearly everywhere): they match whole words only.

Kept in the same transaction as node writes: inserted rows by ``NEW_NODE_ROWS``,
updates/deletes by triggers on ``nodes`` (contentless tables delete by value,
so every delete repeats exactly what was inserted). Part of the SQLite
``VoiceIndex`` (``voice_index.py``, version 7 of its range). Stdlib only at
import: the ``memgraph voice`` fast path runs this.
"""

from __future__ import annotations

import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

TABLE = "voice_tri"
_LIVE = "{0}.profile = 'voice' AND {0}.kind = 'message' AND {0}.lifecycle != 'retired'"
_VALUE = "{0}.body || char(10, 10)"
MIN_CHARS = 2  # shorter terms: whole words only
MAX_EXPANSION = 400  # a 2-character term matching more trigrams than this: whole words only

MIGRATION_SQL = f"""
CREATE VIRTUAL TABLE {TABLE} USING fts5(body, content='', tokenize='trigram');
INSERT INTO {TABLE}(rowid, body)
    SELECT n.rowid, {_VALUE.format("n")} FROM nodes AS n WHERE {_LIVE.format("n")};
CREATE TRIGGER voice_tri_au AFTER UPDATE ON nodes
    WHEN ({_LIVE.format("old")}) OR ({_LIVE.format("new")}) BEGIN
    INSERT INTO {TABLE}({TABLE}, rowid, body)
        SELECT 'delete', old.rowid, {_VALUE.format("old")}
        WHERE ({_LIVE.format("old")})
          AND NOT (({_LIVE.format("new")}) AND old.body IS new.body);
    INSERT INTO {TABLE}(rowid, body)
        SELECT new.rowid, {_VALUE.format("new")}
        WHERE ({_LIVE.format("new")})
          AND NOT (({_LIVE.format("old")}) AND old.body IS new.body);
END;
CREATE TRIGGER voice_tri_ad AFTER DELETE ON nodes WHEN {_LIVE.format("old")} BEGIN
    INSERT INTO {TABLE}({TABLE}, rowid, body) VALUES ('delete', old.rowid, {_VALUE.format("old")});
END;
"""

# Inserted node rows above ``?`` (memgraph.store.schema.NEW_NODE_ROWS).
NEW_NODE_ROW = f"""INSERT INTO {TABLE}(rowid, body)
    SELECT n.rowid, {_VALUE.format("n")} FROM nodes AS n WHERE n.rowid > ?
    AND +n.profile = 'voice' AND +n.kind = 'message' AND n.lifecycle != 'retired'"""

REBUILD_SQL = (
    f"INSERT INTO {TABLE}({TABLE}) VALUES ('delete-all')",
    f"INSERT INTO {TABLE}(rowid, body) SELECT n.rowid, {_VALUE.format('n')} "
    f"FROM nodes AS n WHERE {_LIVE.format('n')}",
)


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def term_expression(conn: sqlite3.Connection, term: str) -> str | None:
    """The MATCH expression for one term, or None when it cannot be substring searched
    (too short, or a 2-character term that starts too many trigrams)."""
    if len(term) >= 3:
        return _quote(term)
    if len(term) < MIN_CHARS:
        return None
    low = term.lower()
    try:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{TABLE}_vocab "
            f"USING fts5vocab(main, {TABLE}, 'row')"
        )
        rows = conn.execute(
            f"SELECT term FROM temp.{TABLE}_vocab WHERE term >= ? AND term < ? LIMIT ?",
            (low, low + "\U0010ffff", MAX_EXPANSION + 1),
        ).fetchall()
    except sqlite3.Error:
        return None
    if len(rows) > MAX_EXPANSION:
        return None
    if not rows:
        return '""'  # matches nothing
    return "(" + " OR ".join(_quote(r[0]) for r in rows) + ")"


def match_expression(conn: sqlite3.Connection, terms: Sequence[str]) -> str | None:
    """AND of the terms' expressions; None if any term cannot be substring searched."""
    parts = []
    for term in terms:
        expr = term_expression(conn, term)
        if expr is None:
            return None
        parts.append(expr)
    return " AND ".join(parts) if parts else None


def has_index(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
    ).fetchone()
    return row is not None
