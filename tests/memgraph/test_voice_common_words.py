"""Common words past ``candidates`` matches (``VoiceSearch``, ``common_plan``).

A selective word ranks every match (the same top hits as a search with no bound);
a common one ranks the newest ``candidates`` matches by the full law; a word in at
least half of all nodes orders those by time. The backends agree
(tests/memgraph/test_store_indexes.py); this checks the law itself on SQLite.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memgraph.documents import UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.fts import plan_words
from memgraph.store.interfaces import indexes
from memgraph.store.voice_rows import VoiceSearch, common_plan

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
ALL = 10**9


def _texts() -> list[str]:
    """60 messages: "the" in 40 (67 %), "deploy" in 12 (20 %), "zebra" in 4 (7 %)."""
    out = []
    for i in range(60):
        words = ["note", f"w{i}"]
        if i % 3:
            words += ["the", "plan"] + ["the"] * (i % 4)
        if i % 5 == 0:
            words += ["deploy", "now"] + ["deploy"] * (i % 3)
        if i % 15 == 0:
            words.append("zebra")
        out.append(" ".join(words))
    return out


@pytest.fixture
def voice(tmp_path: Path) -> Any:
    from memgraph.store.sqlite import SQLiteStore
    from profiles.voice.model import OperatorMessage
    from profiles.voice.nodes import NodeContext, message_node

    store = SQLiteStore(tmp_path / "m.db")
    nodes = []
    for i, text in enumerate(_texts()):
        msg = OperatorMessage(
            session_id="s-one-0001",
            record_uuid=f"r{i:03d}",
            # time runs against insertion order for every 7th: index order is not time
            timestamp=T0 + timedelta(hours=i if i % 7 else 100 - i),
            text=text,
            transcript="/t/s.jsonl",
            line=i + 1,
            harness="claude-code",
            origin="prompt",
            cwd="/home/ada/src/atlas",
        )
        ctx = NodeContext(constellation="atlas", project="atlas", ingested_at=T0)
        node = message_node(msg, ctx)
        if i in (58, 59):
            attrs = {**node.attributes, "classification": "command"}
            node = node.model_copy(update={"attributes": attrs})
        nodes.append(node)
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes], patch_id="p"), now=T0)
    yield indexes(store).voice
    store.close()


def _ids(rows: list[Any]) -> list[str]:
    return [r.node_id for r in rows]


def test_plan_rule() -> None:
    assert common_plan(100, None) == "full"
    assert common_plan(100, 9) == "full"
    assert common_plan(100, 10) == "bounded"
    assert common_plan(100, 49) == "bounded"
    assert common_plan(100, 50) == "recent"
    assert common_plan(0, 5) == "full"
    assert plan_words('The "login flow" auth* Café') == ["the", "login", "flow", "cafe"]


def test_selective_word_ranks_every_match(voice: Any) -> None:
    # "zebra" is in 4 of 60 (< 1/10): past `candidates` matches it still ranks them all
    full = voice.search(VoiceSearch(query="zebra", limit=ALL, candidates=ALL))
    assert len(full) == 4
    assert _ids(voice.search(VoiceSearch(query="zebra", limit=3, candidates=2))) == _ids(full[:3])


def test_common_word_ranks_the_newest_candidates_by_the_full_law(voice: Any) -> None:
    full = voice.search(VoiceSearch(query="deploy", limit=ALL, candidates=ALL))
    assert len(full) == 12 and all(r.score < 0 for r in full)
    # the newest 5 matches in insertion order are messages 55, 50, 45, 40, 35
    newest = {r.node_id for r in full if int(r.text.split()[1][1:]) >= 35}
    assert len(newest) == 5
    got = voice.search(VoiceSearch(query="deploy", limit=3, candidates=5))
    assert _ids(got) == [r.node_id for r in full if r.node_id in newest][:3]
    assert [r.score for r in got] == [r.score for r in full if r.node_id in newest][:3]
    # at most `candidates` matches: identical to the unbounded ranking
    assert _ids(voice.search(VoiceSearch(query="deploy", limit=5, candidates=12))) == _ids(full[:5])


def test_a_word_in_half_the_nodes_orders_the_newest_candidates_by_time(voice: Any) -> None:
    got = voice.search(VoiceSearch(query="the", limit=8, candidates=8))
    # the 8 newest matches by insertion: 59, 58, 56, 55, 53, 52, 50, 49; 58/59 are commands
    assert sorted(int(r.text.split()[1][1:]) for r in got) == [49, 50, 52, 53, 55, 56, 58, 59]
    assert [int(r.text.split()[1][1:]) for r in got][-2:] in ([59, 58], [58, 59])
    plain = got[:-2]
    assert [r.ts for r in plain] == sorted((r.ts for r in plain), reverse=True)
    assert {r.classification for r in got[-2:]} == {"command"}
    assert all(r.score == 0.0 for r in got)
    assert voice.search(VoiceSearch(query="the", limit=8, candidates=8)) == got  # deterministic
    # with every match a candidate the full BM25 ranking applies
    full = voice.search(VoiceSearch(query="the", limit=ALL, candidates=ALL))
    assert len(full) == 40 and full[0].score < 0
    assert _ids(voice.search(VoiceSearch(query="the", limit=5, candidates=40))) == _ids(full[:5])


def test_a_selective_word_beside_a_common_one_ranks_fully(voice: Any) -> None:
    full = voice.search(VoiceSearch(query="the zebra", limit=ALL, candidates=ALL))
    assert _ids(voice.search(VoiceSearch(query="the zebra", limit=ALL, candidates=1))) == _ids(full)


def test_filters_apply_before_the_candidates_are_taken(voice: Any) -> None:
    since = (T0 + timedelta(hours=40)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    got = voice.search(VoiceSearch(query="the", since=since, limit=3, candidates=3))
    assert len(got) == 3 and all(r.ts >= since for r in got)
    # never fewer candidates than hits asked for (and so no substring tier refill)
    wide = voice.search(VoiceSearch(query="the", since=since, limit=ALL, candidates=3))
    assert wide == voice.search(VoiceSearch(query="the", since=since, limit=ALL, candidates=ALL))
    assert len(wide) > 3 and all(r.score < 0 for r in wide)


@pytest.fixture
def turns(voice: Any) -> Any:
    from memgraph.store.sqlite_ext.turn_index import SQLiteTurnIndex

    return SQLiteTurnIndex(voice.conns)


def test_turn_ranking_bounds_only_common_words(turns: Any, monkeypatch: Any) -> None:
    from memgraph.store.sqlite_ext import turn_index
    from memgraph.store.voice_rows import VoiceScope

    scope = VoiceScope(project="atlas")
    full = turns.rank_any([("the", False), ("plan", False)], scope, 100)
    assert len(full) == 40
    selective = turns.rank_any([("zebra", False), ("the", False)], scope, 100)
    monkeypatch.setattr(turn_index, "CANDIDATES", 6)
    # "the" and "plan" are both in 2/3 of the nodes: the newest 6 matches only
    got = turns.rank_any([("the", False), ("plan", False)], scope, 3)
    rowid = dict(
        turns.conns.conn.execute("SELECT v.node_id, v.rowid FROM voice_index AS v").fetchall()
    )
    newest = sorted(full, key=lambda kv: -rowid[kv[0]])[:6]
    want = [kv for kv in full if kv in newest][:3]
    assert [n for n, _ in got] == [n for n, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want])
    # "zebra" is selective (4 of 60): every match still ranks
    assert turns.rank_any([("zebra", False), ("the", False)], scope, 100) == selective
    # a prefix that is no plain word's stem: no bound
    assert len(turns.rank_any([("the", False), ("pla", True)], scope, 100)) == 40


def test_in_scope_joins_by_node_id(turns: Any, voice: Any) -> None:
    from memgraph.store.voice_rows import VoiceScope

    ids = [r.node_id for r in voice.search(VoiceSearch(limit=100))]
    assert len(ids) == 60
    assert turns.in_scope([*ids, "n-missing"], VoiceScope(project="atlas")) == set(ids)
    assert turns.in_scope(ids, VoiceScope(project="borealis")) == set()
    late = (T0 + timedelta(hours=50)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    want = {r.node_id for r in voice.search(VoiceSearch(since=late, limit=100))}
    assert turns.in_scope(ids, VoiceScope(since=late)) == want and 0 < len(want) < 60
