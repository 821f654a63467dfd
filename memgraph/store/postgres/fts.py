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


def _lexeme(word: str, prefix: bool = False) -> str:
    quoted = "'" + word.replace("'", "''").replace("\\", "\\\\") + "'"
    return quoted + (":*" if prefix else "")


def phrase_tsquery(phrase: Phrase) -> str:
    words, prefix = phrase
    lexemes = [_lexeme(w) for w in words[:-1]] + [_lexeme(words[-1], prefix)]
    return lexemes[0] if len(lexemes) == 1 else "(" + " <-> ".join(lexemes) + ")"


def tsquery_text(phrases: list[Phrase], op: str = "&") -> str:
    """Phrases AND-ed (or OR-ed with ``op="|"``) as a ``to_tsquery`` text."""
    return f" {op} ".join(phrase_tsquery(p) for p in phrases)


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


_PATTERNS: dict[Phrase, re.Pattern[str]] = {}


def _ascii_pattern(phrase: Phrase) -> re.Pattern[str]:
    """Instances of ``phrase`` in lower-cased ASCII text. A one-word phrase starts
    with its literal (the regex engine scans for it); a longer one is matched in a
    lookahead so that overlapping instances ("a a" in "a a a") count, as FTS5's do."""
    found = _PATTERNS.get(phrase)
    if found is None:
        words, prefix = phrase
        end = "" if prefix else "(?![a-z0-9])"
        if len(words) == 1:
            found = re.compile(f"{re.escape(words[0])}{end}")
        else:
            body = "[^a-z0-9]+".join(re.escape(w) for w in words)
            found = re.compile(f"(?=({body}{end}))")
        if len(_PATTERNS) > 256:
            _PATTERNS.clear()
        _PATTERNS[phrase] = found
    return found


def _ascii_hits(phrase: Phrase, low: str) -> int:
    if phrase[0][0] not in low:
        return 0
    count = 0
    for m in _ascii_pattern(phrase).finditer(low):
        start = m.start()
        if start == 0 or not low[start - 1].isalnum():  # a token starts here
            count += 1
    return count


def count_hits(phrases: list[Phrase], text: str) -> list[int]:
    """``hits(p, tokens(text))`` for each phrase; ASCII text without tokenising it
    (a regex scan per phrase is several times cheaper than building the token list)."""
    if text.isascii() and all(all(w.isascii() for w in p[0]) for p in phrases):
        low = text.lower()
        return [_ascii_hits(p, low) for p in phrases]
    toks = tokens(text)
    return [hits(p, toks) for p in phrases]


def idf(rows: int, having: int) -> float:
    value = math.log((rows - having + 0.5) / (having + 0.5))
    return value if value > 0.0 else 1e-6


def bm25(weights: list[float], freqs: list[int], size: int, avgdl: float) -> float:
    """FTS5's bm25(): negative, lower is better."""
    norm = K1 * (1 - B + B * size / avgdl)
    return -sum(w * f * (K1 + 1.0) / (f + norm) for w, f in zip(weights, freqs, strict=True))


# -- SQL over title + body, ``(fts_title || fts_body)``: the expression the
# nodes_fts index holds (schema.FTS; psycopg connection ``conn``) ---------------


_FTS = "(fts_title || fts_body)"  # = schema.FTS, the expression nodes_fts indexes


def having_sql(column: str, count: int) -> str:
    """Scalar subqueries: rows whose ``column`` holds each of ``count`` phrases."""
    return "".join(
        f", (SELECT count(*) FROM nodes WHERE {column} @@ to_tsquery('memgraph_text', %s))"
        for _ in range(count)
    )


def search_nodes(conn: Any, query: str, limit: int, profile: str | None) -> list[tuple[str, float]]:
    """``Store.search``: FTS5's ``bm25(node_fts)`` over title and body, best first."""
    phrases = parse_query(query)
    if not phrases or limit < 1:
        return []
    where, args = "", []
    if profile is not None:
        where, args = " AND n.profile = %s", [profile]
    rows = conn.execute(
        f"SELECT s.nodes, s.tokens{having_sql(_FTS, len(phrases))}, n.id, n.ntok, n.title,"
        " n.body FROM node_stats s CROSS JOIN nodes n"
        f" WHERE (n.fts_title || n.fts_body) @@ to_tsquery('memgraph_text', %s){where}",
        [*[phrase_tsquery(p) for p in phrases], tsquery_text(phrases), *args],
    ).fetchall()
    return rank_rows(phrases, rows, limit, "&")


def rank_rows(
    phrases: list[Phrase], rows: list[Any], limit: int, op: str
) -> list[tuple[str, float]]:
    """Rows of (nodes, tokens, having..., id, ntok, title, body), best ``limit`` by
    FTS5's bm25 over title and body; ``op`` "&" keeps rows holding every phrase,
    "|" rows holding any. A phrase never spans columns in FTS5: counted in each."""
    if not rows:
        return []
    k = 2 + len(phrases)
    nodes, total = rows[0][0], rows[0][1]
    avgdl = total / nodes if nodes and total else 1.0
    weights = [idf(int(nodes), int(h)) for h in rows[0][2:k]]
    scored = []
    for r in rows:
        nid, ntok, title, body = r[k : k + 4]
        freqs = [
            a + b
            for a, b in zip(count_hits(phrases, title), count_hits(phrases, body), strict=True)
        ]
        if all(freqs) if op == "&" else any(freqs):
            scored.append((bm25(weights, freqs, int(ntok), avgdl), nid))
    scored.sort()
    return [(nid, score) for score, nid in scored[:limit]]
