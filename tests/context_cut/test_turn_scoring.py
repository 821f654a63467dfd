"""Scoring pieces of the turn ranking (context_cut.turn_scoring)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from context_cut.turn_scoring import (
    diverse,
    feedback_terms,
    fuse,
    normalised,
    session_boost,
    sessions_of,
)
from context_cut.turn_weights import TurnWeights
from context_cut.turns import RankedTurn, TurnScope, rank_turns
from memgraph.documents import MemoryNode, ProfileName
from memgraph.store import Store, open_store
from profiles.voice.importers import ImportRequest, import_conversations


def _node(nid: str, text: str, session: str = "s1") -> MemoryNode:
    return MemoryNode(
        id=nid,
        profile=ProfileName.voice,
        kind="message",
        title=text[:40],
        claim=text,
        attributes={"session_id": session, "speaker": "Ana"},
        domain_id="voice:chat",
        lifecycle="active",
        created_at=datetime(2023, 5, 1, tzinfo=UTC),
        updated_at=datetime(2023, 5, 1, tzinfo=UTC),
    )


def test_normalised_max_or_min_max() -> None:
    ranking = [("a", 0.8), ("b", 0.6), ("c", 0.4)]
    assert normalised(ranking) == pytest.approx({"a": 1.0, "b": 0.75, "c": 0.5})
    # cosines crowd near the best: min-max spreads them over [0, 1]
    assert normalised(ranking, minmax=True) == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.0})
    assert normalised([("a", 0.5)], minmax=True) == {"a": 0.0}  # nothing to spread
    assert normalised([]) == {}


def test_fuse_by_scores_or_by_reciprocal_rank() -> None:
    bm25 = [("a", 9.0), ("b", 3.0)]
    vector = [("b", 0.9), ("c", 0.5)]
    by_score = fuse(bm25, vector, TurnWeights(dense=0.5, dense_floor=True))
    assert by_score == pytest.approx({"a": 1.0, "b": 1 / 3 + 0.5, "c": 0.0})
    by_rank = fuse(bm25, vector, TurnWeights(dense=1.0, rrf=10))
    assert by_rank["b"] == pytest.approx(11 / 12 + 1.0) and by_rank["a"] == pytest.approx(1.0)
    assert by_rank["b"] > by_rank["a"] > by_rank["c"]


def test_feedback_terms_are_the_best_turns_rare_shared_words() -> None:
    docs = {
        "t1": _node("t1", "We went camping by the lake, the tent leaked"),
        "t2": _node("t2", "Camping again next week, new tent this time"),
        "t3": _node("t3", "Work was busy this week"),
        "t4": _node("t4", "The week flew by"),
    }
    own = {"t1": 1.0, "t2": 0.8, "t3": 0.1, "t4": 0.1}
    got = feedback_terms(docs, own, {"camping"}, TurnWeights(prf_docs=2, prf_terms=2))
    assert got == ["tent", "lake"]  # "camping" was asked; "week" is everywhere


def test_session_boost_lifts_turns_of_a_session_that_answers() -> None:
    docs = {n: _node(n, "x", s) for n, s in (("a1", "A"), ("a2", "A"), ("b1", "B"))}
    own = {"a1": 1.0, "a2": 0.2, "b1": 0.3}
    scores = dict(own)
    scores["a3"] = 0.1  # an unread neighbour of a2: same session
    session_of = sessions_of(docs, {"a3": "a2"}, {"a2": "a3"}, scores)
    assert session_of["a3"] == "A"
    session_boost(scores, own, session_of, 0.5)
    assert scores == pytest.approx({"a1": 1.5, "a2": 0.7, "b1": 0.45, "a3": 0.6})
    assert scores["a2"] > scores["b1"]  # b1 was the better turn on its own


def test_diverse_discounts_turns_of_a_session_already_taken() -> None:
    turns = [
        RankedTurn(_node("a1", "x", "A"), 1.0),
        RankedTurn(_node("a2", "x", "A"), 0.9),
        RankedTurn(_node("b1", "x", "B"), 0.8),
    ]
    plain = diverse(turns, 2, TurnWeights(), {}, {})
    assert [t.node.id for t in plain] == ["a1", "a2"]
    spread = diverse(turns, 3, TurnWeights(session=0.5), {}, {})
    assert [t.node.id for t in spread] == ["a1", "b1", "a2"]
    assert [t.score for t in spread] == pytest.approx([1.0, 0.8, 0.45])
    near = diverse(turns, 2, TurnWeights(adjacent=0.5), {"a2": "a1"}, {"a1": "a2"})
    assert [t.node.id for t in near] == ["a1", "b1"]


def _write(tmp_path: Path, rows: list[tuple[str, str, str]]) -> Path:
    path = tmp_path / "chat.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i, (session, speaker, text) in enumerate(rows, start=1):
            row = {"session": session, "speaker": speaker, "ts": "2023-05-01T10:00:00"}
            fh.write(json.dumps({**row, "text": text, "id": f"D{i}"}) + "\n")
    return path


def test_a_turn_in_the_best_session_overtakes_a_slightly_better_one_elsewhere(
    tmp_path: Path,
) -> None:
    rows = [
        ("s1", "Ana", "My garden roses are blooming, the garden is my joy"),
        ("s1", "Ben", "Lovely to hear"),
        ("s1", "Ana", "Tomatoes too, I water them daily"),
        ("s2", "Ana", "Busy week at the office"),
        ("s2", "Ben", "Sorry to hear"),
        ("s2", "Ana", "Tomatoes were on sale at the market"),
    ]
    store: Store = open_store(tmp_path / "g.db")
    import_conversations(store, ImportRequest(path=_write(tmp_path, rows)))
    alone = {"prev": 0.0, "next": 0.0, "prev2": 0.0, "next2": 0.0}
    scope = TurnScope()

    def top(share: float) -> list[str]:
        got = rank_turns(
            store, "garden tomatoes", 3, scope=scope, weights=TurnWeights(sess_share=share, **alone)
        )
        return [t.node.claim for t in got.turns]

    water, sale = "Tomatoes too, I water them daily", "Tomatoes were on sale at the market"
    garden = "My garden roses are blooming, the garden is my joy"
    assert top(0.0) == [water, sale, garden]
    # the garden turn shares the session of the best turn: it overtakes the market
    assert top(0.5) == [water, garden, sale]
    store.close()
