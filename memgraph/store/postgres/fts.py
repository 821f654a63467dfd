"""What a person types, as a safe ``to_tsquery`` text with FTS5's meaning.

The grammar is ``memgraph.fts.to_fts5_query``'s: bare words are AND-ed,
"exact phrases" match adjacent words, ``word*`` is a prefix. Each lexeme is
quoted, so no input reaches ``to_tsquery`` as an operator.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r'"([^"]*)"|(\S+)')
# FTS5's unicode61 splits on anything but letters and digits (also "_")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _lexeme(word: str, prefix: bool = False) -> str:
    return "'" + word.replace("'", "''").replace("\\", "\\\\") + "'" + (":*" if prefix else "")


def to_tsquery_text(user_query: str) -> str:
    """``fix "login flow" auth*`` -> ``'fix' & ('login' <-> 'flow') & 'auth':*``."""
    parts: list[str] = []
    if user_query.count('"') % 2:
        user_query += '"'
    for phrase, bare in _TOKEN.findall(user_query):
        prefix = False
        if phrase:
            words = _WORD.findall(phrase)
        else:
            prefix = bare.endswith("*")
            words = _WORD.findall(bare)
        if not words:
            continue
        lexemes = [_lexeme(w) for w in words[:-1]] + [_lexeme(words[-1], prefix)]
        parts.append(lexemes[0] if len(lexemes) == 1 else "(" + " <-> ".join(lexemes) + ")")
    return " & ".join(parts)
