"""Voice page titles: ``{Project} Session {sid8} — {kw1}, {kw2}, {kw3}``.

The keywords are the words that distinguish THIS session: each candidate word is
weighed tf-idf style, its count in the session's messages against the number of
stored nodes holding it (the store's term statistics, ``indexes(store).terms``;
the same ``unicode61`` tokens as the text index). Stop words, the filler of
talking to an agent, contraction fragments (``dont``, ``don``), placeholders of
pasted things (``image``, ``pasted``) and tokens shorter than 3 letters never
name a session. With no keyword the date stands in.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memgraph.store import Store
    from memgraph.store.interfaces import TermStats

# English stopwords plus the filler of talking to an agent; titles should name
# the topic ("hook install settings"), not the politeness around it.
_STOPWORD_TEXT = """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can cannot could did do does doing down during
    each few for from further get got had has have having he her here hers herself him
    himself his how i if in into is it its itself just let like make me more most much must
    my myself need no nor not now of off on once one only or other ought our ours ourselves
    out over own please same shall she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up us use used
    using very want was we were what when where which while who whom why will with would yes
    yeah you your yours yourself yourselves ok okay thanks thank hi hello hey sure go see look
    think know still really maybe right well way thing things something anything everything
    file files code work working done try new check add run looks good great fine back first
    next may might lets via etc http https www com org also again just actually already
    going gonna wanna able instead without within another every else even ever give make made
    take took tell told said says say sure yet ask asked keep kept put set seems seem same
"""
# what ``don't`` and friends leave once the apostrophe is gone (as the text index
# splits them: ``don`` + ``t``) or was never typed (``dont``)
_FRAGMENTS = """
    dont don doesnt doesn didnt didn isnt isn wasnt wasn arent aren werent weren wont won
    cant couldnt couldn shouldnt shouldn wouldnt wouldn havent haven hasnt hasn hadnt hadn
    mustnt mustn im ive youre youve youll youd hes shes theyre theyve weve thats whats
    theres heres lets ill itll
"""
# placeholders the harness puts where something was pasted or attached
_PLACEHOLDERS = "image images pasted paste text png jpg jpeg screenshot attached attachment"
STOPWORDS = frozenset((_STOPWORD_TEXT + _FRAGMENTS + _PLACEHOLDERS).split())
_URL = re.compile(r"\b\w+://\S+")
_TOKEN = re.compile(r"[^\W_]+")
MAX_KEYWORDS = 3
# words looked up in the store per page: the session's best by local score (a
# document count reads the word's whole posting list; a long session has
# thousands of distinct words, and one seen once cannot win anyway)
MAX_LOOKUPS = 40


def tokens(text: str) -> list[str]:
    """Folded, unaccented alphanumeric runs (FTS5 ``unicode61 remove_diacritics 2``)."""
    folded = _URL.sub(" ", text).lower()
    if not folded.isascii():  # ASCII has no decomposition and no combining marks
        folded = unicodedata.normalize("NFD", folded)
        folded = "".join(c for c in folded if not unicodedata.combining(c))
    return _TOKEN.findall(folded)


def _candidate(word: str) -> bool:
    # two CJK characters make a word; two Latin letters rarely name a topic
    if word.isascii():  # an ASCII token is letters and digits only
        return len(word) >= 3 and word not in STOPWORDS and word.isalpha()
    if len(word) < 2 or word in STOPWORDS:
        return False
    return not any(c.isdigit() for c in word)  # versions, hashes, times, ids


@dataclass(frozen=True)
class TermWeights:
    """Document frequencies of a session's candidate words over the whole store."""

    nodes: int
    df: dict[str, int]
    looked_up: frozenset[str] = frozenset()  # only these words may be ranked

    def idf(self, word: str, local: int) -> float:
        # the session's own messages are in the store too: a word seen nowhere else
        # has df == local; never below the local count (stats may lag behind)
        df = max(self.df.get(word, 0), local)
        return math.log((self.nodes + 1) / (df + 1)) + 1.0


Counts = tuple[Counter[str], Counter[str], dict[str, int]]
# the last texts counted and their counts: a page's title asks for the same
# texts twice (``term_weights``, then ``page_title``); callers never mutate them
_LAST: list[tuple[tuple[str, ...], Counts]] = []


def _counts(texts: Iterable[str]) -> Counts:
    """(occurrences, messages holding it, first appearance) per candidate word."""
    key = tuple(texts)
    if _LAST and _LAST[0][0] == key:
        return _LAST[0][1]
    found = _count(key)
    _LAST[:] = [(key, found)]
    return found


def _count(texts: tuple[str, ...]) -> Counts:
    counts: Counter[str] = Counter()
    docs: Counter[str] = Counter()
    first: dict[str, int] = {}
    for text in texts:
        words = [w for w in tokens(text) if _candidate(w)]
        counts.update(words)
        docs.update(set(words))
        for w in words:
            first.setdefault(w, len(first))
    return counts, docs, first


def page_title(texts: Iterable[str], fallback: str, weights: TermWeights | None = None) -> str:
    """The top keywords joined by ``, `` (else ``fallback``).

    Score: (messages holding the word + log(1 + its occurrences)) x idf; without
    ``weights`` (no store) the idf is 1. Ties: first appearance.
    """
    counts, docs, first = _counts(texts)

    def score(word: str) -> float:
        tf = docs[word] + math.log1p(counts[word])
        return tf * (weights.idf(word, docs[word]) if weights is not None else 1.0)

    words = [w for w in counts if weights is None or w in weights.looked_up]
    scores = {w: score(w) for w in words}
    top = sorted(scores, key=lambda w: (-scores[w], first[w]))[:MAX_KEYWORDS]
    return ", ".join(top) if top else fallback


def session_title(project: str, session_id: str, keywords: str) -> str:
    """``{Project} Session {sid8} — {keywords or date}``."""
    return f"{project} Session {session_id[:8]} — {keywords}"


def term_weights(store: Store, texts: Iterable[str]) -> TermWeights | None:
    """The store's document frequencies of the candidate words in ``texts``
    (None when the store has no term statistics)."""
    from memgraph.store.interfaces import indexes

    texts = tuple(texts)
    if not _counts(texts)[0]:
        return None
    try:
        terms = indexes(store).terms
    except (AttributeError, KeyError, NotImplementedError):
        return None
    return term_weights_from(terms, texts)


def term_weights_from(terms: TermStats, texts: Iterable[str]) -> TermWeights | None:
    """``term_weights`` with the store's ``TermStats`` at hand (the lean hook opens
    the store file without the store class)."""
    counts, docs, first = _counts(texts)
    if not counts:
        return None
    local = sorted(counts, key=lambda w: (-(docs[w] + math.log1p(counts[w])), first[w]))
    wanted = sorted(local[:MAX_LOOKUPS])
    try:
        freq = terms.frequencies(wanted)
    except (AttributeError, KeyError, NotImplementedError):
        return None
    if freq.nodes <= 0:
        return None
    return TermWeights(nodes=freq.nodes, df=dict(freq.df), looked_up=frozenset(wanted))
