"""Turn what a person types into a safe FTS5 MATCH expression.

Supported: bare words (AND-ed), "exact phrases", prefix* . Everything else
(operators, unbalanced quotes, punctuation, column filters) is neutralised by
quoting, so FTS5 never sees syntax it would reject. ``query_terms`` gives the
same query as the literal strings a substring search looks for.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r'"([^"]*)"|(\S+)')
_WORD = re.compile(r"\w+", re.UNICODE)


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def to_fts5_query(user_query: str) -> str:
    """``fix "login flow" auth*`` -> ``"fix" "login flow" "auth"*``; '' if nothing searchable."""
    parts: list[str] = []
    # An unbalanced trailing quote is treated as if it were closed.
    if user_query.count('"') % 2:
        user_query += '"'
    for phrase, bare in _TOKEN.findall(user_query):
        if phrase:
            words = _WORD.findall(phrase)
            if words:
                parts.append(_quote(" ".join(words)))
            continue
        prefix = bare.endswith("*")
        words = _WORD.findall(bare)
        if not words:
            continue
        if len(words) > 1:
            # "don't" or "foo-bar": FTS5 tokenises these into a phrase anyway
            parts.append(_quote(" ".join(words)) + ("*" if prefix else ""))
        else:
            parts.append(_quote(words[0]) + ("*" if prefix else ""))
    return " ".join(parts)


# Query punctuation around a bare word is not part of what is searched for.
_EDGE = " \t\n\r\f\v.,;:!?()[]{}<>'`\u3001\u3002\uff0c\uff1a\uff1b\uff01\uff1f"


def query_terms(user_query: str) -> list[str]:
    """The strings a substring search looks for: ``fix "login  flow" auth*`` ->
    ``["fix", "login flow", "auth"]`` (phrases whole with single spaces, a prefix
    without its star, edge punctuation and NUL removed, case-insensitive duplicates
    dropped, order kept)."""
    if user_query.count('"') % 2:
        user_query += '"'
    terms: list[str] = []
    seen: set[str] = set()
    for phrase, bare in _TOKEN.findall(user_query):
        text = " ".join(phrase.split()) if phrase else bare.rstrip("*").strip(_EDGE)
        text = text.replace("\x00", "")  # FTS5 query strings cannot hold NUL
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            terms.append(text)
    return terms


_FOLDED = re.compile(r"[^\W_]+")


def fold_words(text: str) -> list[str]:
    """FTS5 ``unicode61 remove_diacritics 2`` tokens: alphanumeric runs, lower-cased,
    accents removed."""
    low = text.lower()
    if not low.isascii():
        import unicodedata

        low = "".join(c for c in unicodedata.normalize("NFD", low) if not unicodedata.combining(c))
    return _FOLDED.findall(low)


def plan_words(user_query: str) -> list[str]:
    """The folded words of the query's terms that are not ``prefix*`` (a phrase's words
    each), whose document frequencies decide a common-word plan (``VoiceSearch``)."""
    if user_query.count('"') % 2:
        user_query += '"'
    found: list[str] = []
    for phrase, bare in _TOKEN.findall(user_query):
        if bare.endswith("*"):
            continue
        found += fold_words(phrase or bare)
    return list(dict.fromkeys(found))
