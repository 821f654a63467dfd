"""Full-text search on PostgreSQL with FTS5's meaning.

The query grammar is ``memgraph.fts.to_fts5_query``'s: bare words are AND-ed,
"exact phrases" match adjacent words, ``word*`` is a prefix. ``parse_query``
turns what a person typed into phrases, ``tsquery_text`` into a ``to_tsquery``
text where every lexeme is quoted, so no input reaches ``to_tsquery`` as an
operator.

Ranking is FTS5's BM25 (k1 = 1.2, b = 0.75), computed here from the same
figures SQLite uses: rows, total tokens, rows holding each phrase, the row's
length in tokens and the phrase's instances in it. PostgreSQL finds the rows
(GIN over tsvector); the instances are counted on the row's text with
``tokens`` (FTS5 ``unicode61 remove_diacritics 2``: alphanumeric runs, folded,
unaccented), so both stores rank the same messages in the same order.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

_TOKEN_RE = re.compile(r'"([^"]*)"|(\S+)')
# FTS5's unicode61 splits on anything but letters and digits (also "_")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
K1, B = 1.2, 0.75

Phrase = tuple[tuple[str, ...], bool]  # folded words, last one a prefix


def tokens(text: str) -> list[str]:
    """FTS5 ``unicode61 remove_diacritics 2``: alphanumeric runs, folded, unaccented."""
    if text.isascii():
        return _WORD.findall(text.lower())
    folded = unicodedata.normalize("NFD", text.lower())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return _WORD.findall(plain)


# ASCII separators (punctuation, "_", control characters) as spaces: counting
# ASCII tokens by translate + split is ~2x faster than the regex
_ASCII_SEP = str.maketrans(
    {c: " " for c in map(chr, range(128)) if not c.isalnum() and not c.isspace()}
)


def token_count(text: str) -> int:
    """How many tokens FTS5 counts in ``text`` (BM25's document length)."""
    if not text:
        return 0
    if text.isascii():
        return len(text.translate(_ASCII_SEP).split())
    return len(tokens(text))


def parse_query(user_query: str) -> list[Phrase]:
    """``fix "login flow" auth*`` -> [(fix), (login, flow), (auth, prefix)]."""
    found: list[Phrase] = []
    if user_query.count('"') % 2:
        user_query += '"'
    for phrase, bare in _TOKEN_RE.findall(user_query):
        prefix = False
        if phrase:
            words = tokens(phrase)
        else:
            prefix = bare.endswith("*")
            words = tokens(bare)
        if words:
            found.append((tuple(words), prefix))
    return found


def _lexeme(word: str, prefix: bool = False, weight: str = "") -> str:
    label = ("*" if prefix else "") + weight
    quoted = "'" + word.replace("'", "''").replace("\\", "\\\\") + "'"
    return quoted + (":" + label if label else "")


def phrase_tsquery(phrase: Phrase, weight: str = "") -> str:
    """One phrase; ``weight="B"`` matches body lexemes only (see the schema)."""
    words, prefix = phrase
    lexemes = [_lexeme(w, False, weight) for w in words[:-1]]
    lexemes.append(_lexeme(words[-1], prefix, weight))
    return lexemes[0] if len(lexemes) == 1 else "(" + " <-> ".join(lexemes) + ")"


def tsquery_text(phrases: list[Phrase], op: str = "&", weight: str = "") -> str:
    """Phrases AND-ed (or OR-ed with ``op="|"``) as a ``to_tsquery`` text."""
    return f" {op} ".join(phrase_tsquery(p, weight) for p in phrases)


def to_tsquery_text(user_query: str) -> str:
    """What a person typed as a ``to_tsquery`` text; '' if nothing searchable."""
    return tsquery_text(parse_query(user_query))


def hits(phrase: Phrase, toks: list[str]) -> int:
    """Instances of ``phrase`` in the token list (FTS5's xInstCount for it)."""
    words, prefix = phrase
    n, count = len(words), 0
    head, last_word = list(words[:-1]), words[-1]
    for i in range(len(toks) - n + 1):
        last = toks[i + n - 1]
        if not (last == last_word or (prefix and last.startswith(last_word))):
            continue
        if toks[i : i + n - 1] == head:
            count += 1
    return count


def idf(rows: int, having: int) -> float:
    value = math.log((rows - having + 0.5) / (having + 0.5))
    return value if value > 0.0 else 1e-6


def bm25(weights: list[float], freqs: list[int], size: int, avgdl: float) -> float:
    """FTS5's bm25(): negative, lower is better."""
    norm = K1 * (1 - B + B * size / avgdl)
    return -sum(w * f * (K1 + 1.0) / (f + norm) for w, f in zip(weights, freqs, strict=True))


# -- SQL over the nodes.fts tsvector (psycopg connection ``conn``) -----------------


def lexemes_of(conn: Any, words: list[str]) -> dict[str, str]:
    """Each folded word as PostgreSQL's text configuration indexes it."""
    rows = conn.execute(
        "SELECT w, (SELECT min(lexeme) FROM unnest(to_tsvector('memgraph_text', w)))"
        " FROM unnest(%s::text[]) AS w",
        (words,),
    ).fetchall()
    return {w: lex for w, lex in rows if lex}


def freq_sql(phrase: Phrase, lexemes: dict[str, str], body_only: bool) -> tuple[str, list[object]]:
    """SQL counting a one-word phrase's instances from the row's tsvector positions
    (body positions carry weight B, title positions A)."""
    (word,), prefix = phrase
    lex = lexemes.get(word, word)
    test = "starts_with(u.lexeme, %s)" if prefix else "u.lexeme = %s"
    if body_only:
        return (
            f"(SELECT count(*) FROM unnest(n.fts) u, unnest(u.weights) w WHERE {test} AND w = 'B')",
            [lex],
        )
    return (
        f"(SELECT coalesce(sum(array_length(u.positions, 1)), 0) FROM unnest(n.fts) u"
        f" WHERE {test})",
        [lex],
    )


def search_nodes(conn: Any, query: str, limit: int, profile: str | None) -> list[tuple[str, float]]:
    """``Store.search``: FTS5's ``bm25(node_fts)`` over title and body, best first."""
    phrases = parse_query(query)
    if not phrases or limit < 1:
        return []
    nodes, total = conn.execute("SELECT nodes, tokens FROM node_stats").fetchone()
    avgdl = total / nodes if nodes and total else 1.0
    weights = [
        idf(
            int(nodes),
            int(
                conn.execute(
                    "SELECT count(*) FROM nodes WHERE fts @@ to_tsquery('memgraph_text', %s)",
                    (phrase_tsquery(p),),
                ).fetchone()[0]
            ),
        )
        for p in phrases
    ]
    single = [len(p[0]) == 1 for p in phrases]
    lex = lexemes_of(conn, [p[0][0] for p, one in zip(phrases, single, strict=True) if one])
    columns, col_args = [], []
    for p, one in zip(phrases, single, strict=True):
        if one:
            sql, a = freq_sql(p, lex, body_only=False)
            columns.append(sql)
            col_args += a
    text = ", NULL, NULL" if all(single) else ", n.title, n.body"
    where, args = "", []
    if profile is not None:
        where, args = " AND n.profile = %s", [profile]
    rows = conn.execute(
        f"SELECT n.id, n.ntok{text}" + "".join(f", {c}" for c in columns) + " FROM nodes n"
        f" WHERE n.fts @@ to_tsquery('memgraph_text', %s){where}",
        [*col_args, tsquery_text(phrases), *args],
    ).fetchall()
    scored = []
    for nid, ntok, title, body, *counted in rows:
        # a phrase never spans columns in FTS5: count it in each column
        cols = [tokens(title), tokens(body)] if title is not None else []
        it = iter(counted)
        freqs = [
            int(next(it)) if one else sum(hits(p, c) for c in cols)
            for p, one in zip(phrases, single, strict=True)
        ]
        if all(freqs):
            scored.append((bm25(weights, freqs, int(ntok), avgdl), nid))
    scored.sort()
    return [(nid, score) for score, nid in scored[:limit]]
