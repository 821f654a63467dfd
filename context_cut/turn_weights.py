"""The weights of turn recall (``context_cut.turns.rank_turns``): one frozen
``TurnWeights`` per ranking, ``WEIGHTS`` the defaults. Each knob says what it
weighs; the tuning (LoCoMo conversations 26 and 30 only) and what was tried is in
notes/recall.md. Experiments (``bench/``) pass their own ``TurnWeights``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TurnWeights:
    """Tuned on LoCoMo conversations 26 and 30 only (notes/recall.md)."""

    lexical: float = 1.0
    dense: float = 0.7
    prev: float = 0.5  # share of the previous turn's score a turn inherits
    next: float = 0.2  # share of the next turn's score
    speaker: float = 1.6  # multiplier when the query names the turn's speaker
    pool: int = 100  # candidates each ranker contributes
    seeds: int = 60  # best fused candidates read to find their neighbours
    prev2: float = 0.2  # share of the score two turns back
    next2: float = 0.1  # share of the score two turns ahead
    # a query word that names a speaker of the best candidates ranks by who spoke
    # (the boost above), not by where the name is written ("Thanks, Melanie!")
    speaker_terms: bool = False
    title_weight: float = 1.0  # FTS5 column weight of the title (body is 1.0)
    # a turn right beside one already taken counts this share of its score, so
    # ten results are not one exchange ten times over (1.0: no penalty)
    adjacent: float = 1.0
    stems: bool = True  # also match each word's stem as a prefix
    # vector hits fetched per pool slot: the nerve searches every conversation and
    # hits outside the scope are dropped after, so a scoped question over-fetches
    fetch: int = 3
    # a "when" question is answered by a turn that says when: a turn with a time
    # expression (yesterday, last week, in May, 2022, two weekends ago) counts x this
    when: float = 1.4
    # the other answer types (``context_cut.answer_types.ANSWER_TYPES``): a question of
    # the type ranks a turn with its feature x this (1.0: off). Chosen on the tuning
    # pair together (notes/recall.md, t21: hybrid @10 0.819 -> 0.829, packet 2k 0.895
    # -> 0.904); each alone moves @10 by +0.002-0.003, 1.2-3.0 sit on a plateau
    place: float = 1.4  # "where", "what city|country": "in Paris", "to the Grand Canyon"
    title: float = 2.0  # "what books|songs|bands": a quoted title, two proper nouns in a row
    pastime: float = 1.4  # "what activities|events|instruments": "I love ...", "we went ..."
    shown: float = 2.0  # "what has X painted|made|bought": a shared photo, "here's ..."
    # -- experiments (issue 21, h21); 0 / 1.0 / False leave the ranking as it was --
    dense_floor: bool = True  # min-max normalise the cosines (False: cos / best cos)
    rrf: int = 0  # > 0: fuse lexical and dense by reciprocal rank with this k
    session: float = 1.0  # a turn counts this ** (turns already taken from its session)
    prf: float = 0.0  # weight of a second lexical round on the top turns' own words
    prf_docs: int = 5  # top turns whose words seed it
    prf_terms: int = 6  # words it searches
    sess_share: float = 0.2  # share of its session's best score a turn inherits
    # what the dense side embeds: 0 the question, 1 without the speakers' names,
    # 2 its content words only; ``packet_dense_query`` for a context packet
    dense_query: int = 2
    packet_dense_query: int = 0
    # a question naming a month ("camping in June") ranks turns said in it x this
    month: float = 1.5
    # stored words close to a question word by word vector ("instruments" ->
    # violin, guitar: ``context_cut.word_vectors``) searched as a second lexical
    # round, its scores (scaled by the first round's best) x ``related``
    related: float = 0.3
    related_min: float = 0.5  # cosine a stored word needs to a question word
    related_per: int = 5  # stored words per question word
    related_scale: bool = True  # False: scaled by the second round's own best
    related_common: float = 1.0  # no word in more than this share of the messages
    # late interaction (``context_cut.token_vectors``): the scope's best ``late_pool``
    # turns by MaxSim over MiniLM's token states, min-max normalised, x ``late`` (l21b)
    late: float = 1.0
    late_pool: int = 100


WEIGHTS = TurnWeights()
