"""Voice search library: matching, filters, ranking, listings, stats."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _search_helpers import Msg, add, message_node, ts

from memgraph.documents import MemoryNode, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import InvalidId, UsageError
from memgraph.ids import node_id
from memgraph.store import Store, open_store
from profiles.voice.search import (
    BROWSE_LIMIT,
    VoiceQuery,
    search_voice,
    voice_stats,
)


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def store(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Store]:
    """Every search test runs on every backend (the VoiceIndex interface)."""
    location = {"sqlite": tmp_path / "memgraph.db", "memory": ":memory:"}.get(request.param)
    s = open_store(location or request.getfixturevalue("pg_url"))
    yield s
    s.close()


def texts(store: Store, **kw: object) -> list[str]:
    return [h.text for h in search_voice(store, VoiceQuery(**kw))]  # type: ignore[arg-type]


def test_words_phrases_prefix_case_insensitive(store: Store) -> None:
    add(
        store,
        Msg("Fix the LOGIN flow before the demo", ts("2026-04-01")),
        Msg("the flow of login events is wrong", ts("2026-04-02")),
        Msg("authentication middleware rewrite", ts("2026-04-03")),
    )
    assert sorted(texts(store, query="login flow")) == [
        "Fix the LOGIN flow before the demo",
        "the flow of login events is wrong",
    ]
    assert texts(store, query='"login flow"') == ["Fix the LOGIN flow before the demo"]
    assert texts(store, query="auth*") == ["authentication middleware rewrite"]
    # substring meaning by default (issue 19); --word: whole words only
    assert texts(store, query="auth") == ["authentication middleware rewrite"]
    assert texts(store, query="auth", word=True) == []
    assert texts(store, query="nothing-here") == []


@pytest.mark.parametrize(
    "query",
    ['"unbalanced', "AND", "OR NOT", "a NEAR b", "col:fix", "(", ")", "*", '""', "^x", "-x", "'"],
)
def test_fts_syntax_is_escaped(store: Store, query: str) -> None:
    add(store, Msg("AND or NOT near col fix x", ts("2026-04-01")))
    search_voice(store, VoiceQuery(query=query))  # never raises


def test_only_punctuation_finds_nothing(store: Store) -> None:
    add(store, Msg("hello", ts("2026-04-01")))
    assert texts(store, query="!!! ???") == []


def test_nothing_to_search_is_a_usage_error(store: Store) -> None:
    with pytest.raises(UsageError, match="nothing to search"):
        search_voice(store, VoiceQuery())
    with pytest.raises(UsageError, match="--limit"):
        search_voice(store, VoiceQuery(query="x", limit=0))


def test_date_filters_inclusive(store: Store) -> None:
    add(
        store,
        Msg("fact one", ts("2026-04-13", "23:59")),
        Msg("fact two", ts("2026-04-14", "00:00")),
        Msg("fact three", ts("2026-04-14", "23:59")),
        Msg("fact four", ts("2026-04-15", "00:00")),
    )
    since = datetime(2026, 4, 14, tzinfo=UTC)
    until = datetime(2026, 4, 14, 23, 59, 59, 999999, tzinfo=UTC)
    assert sorted(texts(store, query="fact", since=since, until=until)) == [
        "fact three",
        "fact two",
    ]


def test_project_type_session_filters(store: Store) -> None:
    add(
        store,
        Msg("deploy note", ts("2026-04-01"), session_id="aaaa1111-x", project="Atlas"),
        Msg(
            "deploy decision",
            ts("2026-04-02"),
            session_id="bbbb2222-y",
            constellation="zeta",
            project="zeta-api",
            classification="decision",
            confidence=0.9,
        ),
    )
    assert texts(store, query="deploy", project="atlas") == ["deploy note"]
    assert texts(store, query="deploy", project="ZETA") == ["deploy decision"]  # constellation
    assert texts(store, query="deploy", project="zeta-api") == ["deploy decision"]
    assert texts(store, query="deploy", type="decision") == ["deploy decision"]
    assert texts(store, query="deploy", type="unclassified") == ["deploy note"]
    assert texts(store, query="deploy", session="bbbb2222") == ["deploy decision"]
    assert texts(store, query="deploy", session="bbbb2222-y") == ["deploy decision"]
    assert texts(store, session="aaaa") == ["deploy note"]
    with pytest.raises(InvalidId):
        search_voice(store, VoiceQuery(query="deploy", session="../etc"))
    with pytest.raises(InvalidId):
        search_voice(store, VoiceQuery(query="deploy", session="a*"))


def test_hit_fields(store: Store) -> None:
    add(
        store,
        Msg(
            "the schema decision",
            ts("2026-04-14", "14:32"),
            classification="decision",
            confidence=0.75,
            voice_page="atlas/voice/2026-04-14-80166115.md",
        ),
    )
    (hit,) = search_voice(store, VoiceQuery(query="schema"))
    assert hit.timestamp == ts("2026-04-14", "14:32")
    assert (hit.constellation, hit.project) == ("atlas", "atlas")
    assert hit.session_id.startswith("80166115")
    assert (hit.classification, hit.confidence) == ("decision", 0.75)
    assert hit.voice_page == "atlas/voice/2026-04-14-80166115.md"
    assert hit.node_id.startswith("n-")
    assert hit.score < 0


def test_as_of_uses_ingestion_time(store: Store) -> None:
    add(
        store,
        Msg("early fact", ts("2026-01-01"), ingested_at=ts("2026-01-02")),
        Msg("late arrival fact", ts("2026-01-01"), ingested_at=ts("2026-03-01")),
    )
    assert texts(store, query="fact", as_of=ts("2026-02-01")) == ["early fact"]
    assert len(texts(store, query="fact", as_of=ts("2026-03-01"))) == 2


def test_recency_breaks_equal_text(store: Store) -> None:
    add(
        store,
        Msg("rotate the keys", ts("2024-01-01"), session_id="old"),
        Msg("rotate the keys", ts("2026-04-01"), session_id="new"),
    )
    hits = search_voice(store, VoiceQuery(query="rotate"))
    assert [h.session_id for h in hits] == ["new", "old"]
    assert hits[0].score < hits[1].score


def test_commands_rank_lowest(store: Store) -> None:
    add(
        store,
        # a strong, recent command match against a weak, old non-command one
        Msg("cache cache cache", ts("2026-04-10"), classification="command", session_id="c"),
        Msg(
            "we keep a cache in front of the slow service because p99 matters "
            "more than freshness for the dashboard",
            ts("2024-01-01"),
            classification="decision",
            session_id="d",
        ),
        Msg("why is the cache cold", ts("2025-01-01"), session_id="u"),
    )
    hits = search_voice(store, VoiceQuery(query="cache"))
    assert hits[-1].classification == "command"
    assert {h.session_id for h in hits[:2]} == {"d", "u"}


def test_ties_are_deterministic(store: Store) -> None:
    msgs = [Msg("same words here", ts("2026-04-01"), uuid=f"u{i}") for i in range(5)]
    add(store, *msgs)
    ids = [h.node_id for h in search_voice(store, VoiceQuery(query="same"))]
    assert ids == sorted(ids)
    assert ids == [h.node_id for h in search_voice(store, VoiceQuery(query="same"))]


def test_limit_and_listing_order(store: Store) -> None:
    add(store, *[Msg(f"note {i}", ts(f"2026-04-{i + 1:02d}"), uuid=f"u{i}") for i in range(9)])
    assert len(texts(store, query="note", limit=3)) == 3
    listed = texts(store, since=ts("2026-04-01"), limit=4)
    assert listed == ["note 5", "note 6", "note 7", "note 8"]  # newest 4, oldest first
    assert len(texts(store, since=ts("2026-04-01"))) == 9 <= BROWSE_LIMIT


def test_recent_is_last_ten_sessions(store: Store) -> None:
    msgs = []
    for s in range(12):
        for k in range(2):
            msgs.append(
                Msg(
                    f"topic {s} part {k}",
                    ts(f"2026-03-{s + 1:02d}", f"1{k}:00"),
                    session_id=f"s{s:02d}",
                    uuid=f"{s}-{k}",
                )
            )
    add(store, *msgs)
    listed = search_voice(store, VoiceQuery(recent=True))
    assert {h.session_id for h in listed} == {f"s{s:02d}" for s in range(2, 12)}
    assert len(listed) == 20
    assert [h.timestamp for h in listed] == sorted(h.timestamp for h in listed)
    # filters choose which sessions count as recent: here the one session s00 has
    assert len(texts(store, query="topic", recent=True, session="s00")) == 2
    hits = search_voice(store, VoiceQuery(query="part", recent=True, limit=100))
    assert len(hits) == 20


def test_only_live_voice_messages_are_found(store: Store) -> None:
    (msg,) = add(store, Msg("kubernetes migration plan", ts("2026-04-01")))
    other = MemoryNode(
        id=node_id("voice", "voice_session", "x"),
        domain_id="voice:atlas",
        profile="voice",
        kind="voice_session",
        title="kubernetes session",
        claim="kubernetes",
        lifecycle="captured",
        created_at=ts("2026-04-01"),
        updated_at=ts("2026-04-01"),
        attributes={"session_id": "x"},
    )
    apply_patch(store, new_patch([UpsertNode(node=other)]))
    assert texts(store, query="kubernetes") == ["kubernetes migration plan"]
    retired = msg.model_copy(update={"lifecycle": "retired"})
    apply_patch(store, new_patch([UpsertNode(node=retired)]))
    assert texts(store, query="kubernetes") == []


def test_title_cut_does_not_match(store: Store) -> None:
    long = "x" * 76 + " fac" + "tory of widgets"  # the title stops inside "factory"
    node = message_node(Msg(long, ts("2026-04-01")))
    assert node.title.endswith(" fac")
    apply_patch(store, new_patch([UpsertNode(node=node)]))
    assert texts(store, query="fac", word=True) == []  # not through the cut title
    assert texts(store, query="fac") == [long]  # a substring of the body's "factory"
    assert texts(store, query="factory") == [long]


def test_hostile_attributes_do_not_break_the_index(store: Store) -> None:
    add(
        store,
        Msg(
            "strange attributes",
            ts("2026-04-01"),
            extra={"session_id": 42, "constellation": ["a"], "confidence": "high"},
        ),
    )
    (hit,) = search_voice(store, VoiceQuery(query="strange"))
    assert (hit.session_id, hit.constellation, hit.confidence) == ("", "", None)


def test_stats(store: Store) -> None:
    add(
        store,
        Msg("a", ts("2025-01-01"), session_id="s1", voice_page="atlas/voice/p1.md"),
        Msg(
            "b",
            ts("2025-06-01"),
            session_id="s1",
            voice_page="atlas/voice/p1.md",
            classification="decision",
        ),
        Msg(
            "c", ts("2026-01-01"), session_id="s2", constellation="zeta", classification="decision"
        ),
        Msg("d", ts("2026-02-01"), session_id="s2", constellation="zeta", classification="command"),
    )
    st = voice_stats(store)
    assert (st.messages, st.sessions, st.pages, st.classified, st.unclassified) == (4, 2, 1, 3, 1)
    assert (st.first, st.last) == (ts("2025-01-01"), ts("2026-02-01"))
    assert st.by_constellation == (("atlas", 2), ("zeta", 2))
    assert st.by_classification == (("decision", 2), ("command", 1), ("unclassified", 1))


def test_empty_store_stats(store: Store) -> None:
    st = voice_stats(store)
    assert (st.messages, st.first, st.by_constellation) == (0, None, ())


def test_window_restricts_to_its_messages(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window's member list is used as is (F's windows split by entity, not time)."""
    query = pytest.importorskip("profiles.activity.query")
    inside, outside = add(
        store,
        Msg("deploy the api now", ts("2026-04-14", "14:30"), uuid="in"),
        Msg("deploy the docs site", ts("2026-04-14", "14:31"), uuid="out", session_id="other"),
    )

    class Report:
        message_ids = (inside.id,)

    asked: list[str] = []

    def fake_report(_store: object, window_id: str) -> Report:
        asked.append(window_id)
        return Report()

    monkeypatch.setattr(query, "window_report", fake_report)
    hits = search_voice(store, VoiceQuery(query="deploy", window="aw-2026-04-14-1430"))
    assert [h.node_id for h in hits] == [inside.id] and asked == ["aw-2026-04-14-1430"]
    listed = search_voice(store, VoiceQuery(window="aw-2026-04-14-1430"))
    assert [h.node_id for h in listed] == [inside.id]
    Report.message_ids = ()
    assert search_voice(store, VoiceQuery(window="aw-2026-04-14-1430")) == []
    assert outside.id not in {h.node_id for h in hits}


def test_query_and_hit_records_behave_like_frozen_dataclasses() -> None:
    a = VoiceQuery(query="x", limit=3)
    assert a == VoiceQuery("x", limit=3) and hash(a) == hash(VoiceQuery("x", limit=3))
    assert a != VoiceQuery(query="x") and a.since is None and a.recent is False
    assert repr(a).startswith("VoiceQuery(query='x', since=None")
    with pytest.raises(AttributeError):
        a.query = "y"  # type: ignore[misc]
    with pytest.raises(TypeError):
        VoiceQuery(nope=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        VoiceQuery("x", query="y")  # type: ignore[misc]
    from profiles.voice.search import VoiceHit

    with pytest.raises(TypeError, match="missing"):
        VoiceHit(text="x")  # type: ignore[call-arg]
