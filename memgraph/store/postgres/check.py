"""``PostgresStore.check`` (``memgraph validate`` on a PostgreSQL store): the index
tables and the corpus figures agree with the nodes."""

from __future__ import annotations

from typing import Any


def index_problems(conn: Any) -> list[str]:
    """One line per disagreement, read on ``conn`` (inside a read snapshot)."""
    problems = []
    stats = conn.execute("SELECT nodes, tokens FROM node_stats").fetchone()
    actual = conn.execute("SELECT count(*), coalesce(sum(ntok), 0) FROM nodes").fetchone()
    if stats is None or actual is None or tuple(stats) != tuple(actual):
        problems.append(f"node_stats {stats} disagrees with the nodes {actual}")
    for table, profile, kind in (
        ("voice_messages", "voice", "('message')"),
        ("session_notes", "session", "('note')"),
        ("session_sessions", "session", "('session')"),
    ):
        row = conn.execute(
            f"SELECT (SELECT count(*) FROM {table} t LEFT JOIN nodes n ON n.id = t.node_id"
            " WHERE n.id IS NULL),"
            f" (SELECT count(*) FROM nodes n WHERE n.profile = %s AND n.kind IN {kind}"
            f" AND NOT EXISTS (SELECT 1 FROM {table} t WHERE t.node_id = n.id))",
            (profile,),
        ).fetchone()
        if row and row[0]:
            problems.append(f"{table}: {row[0]} rows without their node")
        if row and row[1]:
            problems.append(f"{table}: {row[1]} nodes missing from the index")
    return problems
