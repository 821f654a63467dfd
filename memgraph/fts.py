"""Turn what a person types into a safe FTS5 MATCH expression.

Supported: bare words (AND-ed), "exact phrases", prefix* . Everything else
(operators, unbalanced quotes, punctuation, column filters) is neutralised by
quoting, so FTS5 never sees syntax it would reject.
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
