"""Which part of a message matched a search, for the one-line hit form.

Stdlib only at import (the ``memgraph voice`` fast path uses it). ``query_terms``
turns what was typed into the strings searched for (phrases whole, words, a
``prefix*`` without its star), ``first_match`` finds the first of them in a text
(a whole-word occurrence if there is one, else the first substring occurrence),
``window`` cuts the one-line text around it. Spans are in the text's own
characters, so they stay valid after a one-character-for-one translation.
"""

from __future__ import annotations

import re

from memgraph import fts

CONTEXT = 40  # characters shown before the match when the window has to move
query_terms = fts.query_terms  # what was typed -> the strings searched for


def _pattern(terms: list[str], whole_word: bool) -> re.Pattern[str] | None:
    if not terms:
        return None
    alts = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    if whole_word:
        return re.compile(rf"(?<!\w)(?:{alts})(?!\w)", re.IGNORECASE)
    return re.compile(rf"(?:{alts})", re.IGNORECASE)


def first_match(text: str, terms: list[str]) -> tuple[int, int] | None:
    """(start, end) of the first whole-word occurrence of a term, else of the first
    substring occurrence; None when no term occurs (e.g. matched after diacritic
    folding)."""
    for whole in (True, False):
        pattern = _pattern(terms, whole)
        m = pattern.search(text) if pattern else None
        if m is not None:
            return m.start(), m.end()
    return None


def window(
    text: str, span: tuple[int, int] | None, width: int
) -> tuple[str, tuple[int, int] | None]:
    """The one-line form: at most ``width`` characters of ``text`` around ``span``,
    ``...`` where cut; returns the cut text and the span inside it."""
    if span is None or span[1] <= width:
        cut = text[:width] + "..." if len(text) > width else text
        return cut, span if span is not None and span[1] <= width else None
    start = max(0, min(span[0] - CONTEXT, len(text) - width))
    body = text[start : start + width]
    prefix = "..." if start > 0 else ""
    suffix = "..." if start + width < len(text) else ""
    shift = len(prefix) - start
    end = min(span[1], start + width)
    return prefix + body + suffix, (span[0] + shift, end + shift)


HIGHLIGHT_ON, HIGHLIGHT_OFF = "\x1b[1;33m", "\x1b[0m"


def highlight(text: str, span: tuple[int, int] | None) -> str:
    if span is None or span[0] >= span[1]:
        return text
    a, b = span
    return text[:a] + HIGHLIGHT_ON + text[a:b] + HIGHLIGHT_OFF + text[b:]
