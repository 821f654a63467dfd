"""SQL pieces of the PostgreSQL voice index: search filters, hit columns, row decoding.

Shared by the search (``voice_search``), the word-postings ranking (``voice_words``)
and the lookups (``lookups``); nothing here runs a statement of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memgraph.errors import StoreError
from memgraph.store.postgres.fts import (
    Phrase,
    phrase_tsquery,
)
from memgraph.store.postgres.schema import VOICE
from memgraph.store.voice_rows import BARE_COMMAND, VoiceRow, VoiceSearch


def one(cursor: Any) -> tuple[Any, ...]:
    """The one row of an aggregate query."""
    row = cursor.fetchone()
    if row is None:  # an aggregate always has a row; a server that disagrees is broken
        raise StoreError("PostgreSQL returned no row for an aggregate")
    return tuple(row)


def nul(text: str) -> str:
    return text.replace("\x00", " ") if "\x00" in text else text


def filters(q: VoiceSearch) -> tuple[list[str], list[object]]:
    where = ["v.lifecycle NOT IN ('retired', 'forgotten')"]
    args: list[object] = []
    if q.since is not None:
        where.append("v.ts >= %s")
        args.append(q.since)
    if q.until is not None:
        where.append("v.ts <= %s")
        args.append(q.until)
    if q.as_of is not None:
        where.append("v.ingested_at <= %s")
        args.append(q.as_of)
    if q.project:
        # SQLite's NOCASE folds ASCII letters only
        where.append("(lower(v.project) = %s OR lower(v.constellation) = %s)")
        args += [ascii_lower(q.project)] * 2
    if q.unclassified:
        where.append("v.classification IS NULL")
    elif q.classification:
        where.append("lower(v.classification) = %s")
        args.append(ascii_lower(q.classification))
    if q.session_prefix:
        where.append("starts_with(v.session_id, %s)")
        args.append(q.session_prefix)
    if q.only is not None:
        where.append("v.node_id = ANY(%s)")
        args.append(list(q.only))
    if not q.bare_commands:
        # voice_rows.BARE_COMMAND (SQLite's and the memory backend's test, as a POSIX regex)
        where.append(NOT_BARE)
        args.append("^" + BARE_COMMAND + "$")
    return where, args


NOT_BARE = (
    "NOT EXISTS (SELECT 1 FROM nodes x WHERE x.id = v.node_id"
    " AND left(x.title, 1) = '/' AND x.body ~ %s)"
)


def is_bare(body: str) -> bool:
    """Could this hit be a bare command (``voice_rows.BARE_COMMAND``)? Its body is one,
    whole (the title test is not repeated: a false yes only costs the exact query)."""
    import re

    return re.fullmatch(BARE_COMMAND, body) is not None


VOICE_N = "n.profile = 'voice' AND n.kind = 'message' AND n.lifecycle <> 'retired'"


def body_df(phrases: list[Phrase], live: str = "") -> tuple[str, list[object]]:
    """Scalar subqueries: the rows (of every profile) whose body holds each phrase,
    FTS5's ``n`` for the voice search's IDF. The live voice messages: ``voice_df``
    for one word, ``live`` (a count the caller has at hand) for one prefix, else
    the partial text index; the other rows on theirs."""
    sql, args = "", list[object]()
    for phrase in phrases:
        tsq = phrase_tsquery(phrase)
        other = (
            "(SELECT count(*) FROM nodes WHERE fts_body @@ to_tsquery('memgraph_text', %s)"
            f" AND NOT ({VOICE}))"
        )
        (words, prefix) = phrase
        if len(words) == 1 and not prefix:
            sql += f", coalesce((SELECT n FROM voice_df WHERE term = %s), 0) + {other}"
            args += [words[0], tsq]
        elif live:
            sql += f", {live} + {other}"
            args += [tsq]
        else:
            sql += (
                ", (SELECT count(*) FROM nodes WHERE fts_body @@ to_tsquery('memgraph_text', %s)"
                f" AND {VOICE}) + {other}"
            )
            args += [tsq, tsq]
    return sql, args


def ascii_lower(text: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


# What a hit shows, beside what ranking reads: the text is the node's body when
# that is exactly its claim (the trigger checked), else the claim of its JSON
HIT = """v.constellation, v.session_id, v.project, v.confidence, v.voice_page,
    n.body, CASE WHEN v.body_is_claim THEN NULL ELSE n.doc END"""


def hit_text(body: str, doc: str | None) -> str:
    if doc is None:
        return body
    import json  # (not at import: the lean voice path is start-up bound)

    claim = json.loads(doc).get("claim")
    return claim if isinstance(claim, str) else ""


def voice_row(score: float, nid: str, ts: str, cls: str | None, hit: Sequence[Any]) -> VoiceRow:
    const, sid, project, conf, page, body, doc = hit
    return VoiceRow(
        score=score,
        ts=ts,
        constellation=const,
        session_id=sid,
        project=project,
        text=hit_text(body, doc),
        classification=cls,
        confidence=None if conf is None else float(conf),
        voice_page=page,
        node_id=nid,
    )
