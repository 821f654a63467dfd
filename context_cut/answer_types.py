"""Answer types: what kind of thing a question asks for, and whether a turn says one.

"When did ..." is answered by a turn that says when, "Where ..." by one that names a
place, "What books ..." by one that names a title. Each type is one entry of
``ANSWER_TYPES``: a question pattern and a pure test of a turn's text (given the
conversation's speakers' folded names, which are never the answer). A turn of an asked
type counts x the type's ``TurnWeights`` multiplier (1.0: off). The values, and the
types tried and dropped ("how many" -> a number, "who" -> a name), are in
notes/recall.md (tuned on LoCoMo conversations 26 and 30 only).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Set
from dataclasses import dataclass

from context_cut.embedders import fold

TYPE_CHECKING = False
if TYPE_CHECKING:
    from context_cut.turn_weights import TurnWeights

MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"


@dataclass(frozen=True)
class AnswerType:
    """A question pattern -> a turn feature, weighted by one ``TurnWeights`` knob."""

    name: str
    asks: Callable[[str], bool]  # whether the question asks for this type
    says: Callable[[str, Set[str]], bool]  # (turn text, speakers' folded names)
    weight: Callable[[TurnWeights], float]  # the multiplier (1.0: off)


# -- the features of a turn -----------------------------------------------------------

_TIME_EXPR = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|recently|ago|last|next|this (?:week|weekend|month|year)"
    r"|(?:19|20)\d\d|" + MONTHS + "|" + WEEKDAYS + r"|weekend|week|month|year|summer|winter"
    r"|spring|fall|autumn|christmas|holiday)s?\b",
    re.I,
)


def says_when(text: str, speakers: Set[str] = frozenset()) -> bool:
    """Whether ``text`` carries a time expression a date can be worked out from."""
    return _TIME_EXPR.search(text) is not None


_TOKEN = re.compile(r"[^\W\d_][\w'\u2019-]*|[.!?]")
_NOT_NAMES = frozenset(
    {"i", "i'm", "i've", "i'd", "i'll", "the", "a", "an", "my", "ok", "okay", "omg", "lol"}
    | {"wow", "hey", "yeah", "yes", "no", "oh", "thanks", "thank", "so", "and", "but"}
    | set(MONTHS.split("|"))
    | set(WEEKDAYS.split("|"))
)
_LINKS = frozenset({"of", "the", "a", "and", "in", "on", "for", "to"})  # inside a title
_PREPOSITIONS = frozenset({"in", "at", "to", "from", "near", "around", "visit", "visited"})


def _speaker(key: str, speakers: Set[str]) -> bool:
    """A speaker's name or its short form ("mel" for "melanie")."""
    return key in speakers or (len(key) >= 3 and any(s.startswith(key) for s in speakers))


def marked(text: str, speakers: Set[str]) -> list[tuple[str, bool]]:
    """The words of ``text``, folded, each marked whether it is a proper noun: capitalised,
    not at a sentence start, not a speaker's name, not "I" or a month."""
    out: list[tuple[str, bool]] = []
    start = True
    for token in _TOKEN.findall(text):
        if token in ".!?":
            start = True
            continue
        key = fold(token).replace("\u2019", "'").removesuffix("'s")
        proper = not start and token[0].isupper() and key not in _NOT_NAMES
        out.append((key, proper and not _speaker(key, speakers)))
        start = False
    return out


def says_place(text: str, speakers: Set[str] = frozenset()) -> bool:
    """Whether ``text`` names a place: a preposition before a capitalised word that is no
    speaker's name ("in Paris", "to the Grand Canyon", "visited Rome")."""
    words = marked(text, speakers)
    for i, (word, _) in enumerate(words[:-1]):
        if word in _PREPOSITIONS:
            j = i + 2 if words[i + 1][0] == "the" and i + 2 < len(words) else i + 1
            if words[j][1]:
                return True
    return False


_QUOTED = re.compile(r"[\"\u201c][^\"\u201d]{2,80}[\"\u201d]")


def says_title(text: str, speakers: Set[str] = frozenset()) -> bool:
    """Whether ``text`` names a work: a quoted title, or two proper nouns in a row, maybe
    joined by "of"/"the"/... ("Charlotte's Web", "The Lean Startup", "Eye of the Tiger")."""
    if _QUOTED.search(text):
        return True
    words = marked(text, speakers)
    run = 0
    for word, proper in words:
        if proper:
            run += 1
            if run >= 2:
                return True
        elif not (run and word in _LINKS):
            run = 0
    return False


_LIKES = re.compile(
    r"\b(?:I|we)(?:'ve| have| also| really| just)*\s+(?:love|like|enjoy|play|started|tried"
    r"|took up|do|did|went|go|joined|signed up|made|make|painted|paint|read)\b",
    re.I,
)


def says_pastime(text: str, speakers: Set[str] = frozenset()) -> bool:
    """Whether ``text`` says what its speaker does ("I love painting", "we went camping",
    "I signed up for ...")."""
    return _LIKES.search(text) is not None


_SHOWN = re.compile(
    r"\[shares an image|\bhere(?:'s| is| are)\b|\btake a look\b|\blook at (?:this|these|it)\b"
    r"|\bcheck (?:it|this|these) out\b|\bcheck out (?:this|these|my)\b",
    re.I,
)


def says_shown(text: str, speakers: Set[str] = frozenset()) -> bool:
    """Whether ``text`` shows something: a shared photo (the importer keeps one as
    ``[shares an image: <caption>]``), "here's ...", "take a look"."""
    return _SHOWN.search(text) is not None


# -- the registry -------------------------------------------------------------------


def _searches(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda text: pattern.search(text) is not None


def _in_order(*patterns: re.Pattern[str]) -> Callable[[str], bool]:
    """Whether the patterns occur one after another on one line. The same answer as
    one regex ``A.*B.*C`` (``.`` stops at a newline) but linear: that regex
    backtracks cubically on a hostile question ("what has " x 1,000 took 47 s);
    this takes each pattern's first match after the previous one's end, which
    finds an ordered match whenever one exists."""

    def on_line(line: str) -> bool:
        pos = 0
        for pattern in patterns:
            found = pattern.search(line, pos)
            if found is None:
                return False
            pos = found.end()
        return True

    return lambda text: any(on_line(line) for line in text.split("\n"))


_WHEN_Q = re.compile(
    r"\b(when|what (?:year|month|day|date|time)|how long ago|which (?:year|month|day))\b", re.I
)

ANSWER_TYPES: tuple[AnswerType, ...] = (
    AnswerType("when", _searches(_WHEN_Q), says_when, lambda w: w.when),
    AnswerType(
        "place",
        _searches(
            re.compile(
                r"\bwhere\b"
                r"|\b(?:what|which) (?:city|cities|country|countries|place|places|state)\b",
                re.I,
            )
        ),
        says_place,
        lambda w: w.place,
    ),
    AnswerType(
        "title",
        _searches(
            re.compile(
                r"\b(?:what|which)\b(?:\s+\w+)?\s+(?:books?|novels?|movies?|films?|songs?|music"
                r"|albums?|bands?|artists?|musicians?|shows?|games?)\b",
                re.I,
            )
        ),
        says_title,
        lambda w: w.title,
    ),
    AnswerType(
        "pastime",
        _searches(
            re.compile(
                r"\b(?:what|which)\s+(?:\S+\s+)?(?:activities|hobbies|instruments|sports|events"
                r"|things)\b",
                re.I,
            )
        ),
        says_pastime,
        lambda w: w.pastime,
    ),
    # "what has X painted|made|bought": things done over time, each shown when done
    AnswerType(
        "shown",
        _in_order(
            re.compile(r"\b(?:what|which)\b", re.I),
            re.compile(r"\b(?:has|have)\b", re.I),
            re.compile(r"\b(?:painted|drawn|made|bought|created|built)\b", re.I),
        ),
        says_shown,
        lambda w: w.shown,
    ),
)


def asked_types(text: str, weights: TurnWeights) -> list[tuple[AnswerType, float]]:
    """The answer types ``text`` asks for whose multiplier is on, with it."""
    out = []
    for kind in ANSWER_TYPES:
        factor = kind.weight(weights)
        if factor != 1.0 and kind.asks(text):
            out.append((kind, factor))
    return out


def typed_factor(kinds: list[tuple[AnswerType, float]], text: str, speakers: Set[str]) -> float:
    """The product of the multipliers of the asked types the turn ``text`` says."""
    factor = 1.0
    for kind, weight in kinds:
        if kind.says(text, speakers):
            factor *= weight
    return factor
