"""The profile-owned index interfaces on every backend: same answers, same order.

``mg_store`` runs each test on memory, SQLite and PostgreSQL; the reference
answers are computed on a SQLite store built from the same patches, so a
backend that ranks or filters differently fails here.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memgraph.documents import UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.store import Store
from memgraph.store.interfaces import indexes
from memgraph.store.rows import ActivitySource, RegistryRow
from memgraph.store.voice_rows import VoiceSearch

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
TEXTS = [
    "fix the login flow before the release",
    "the login page crashes on Safari, fix it",
    "Déjà vu: the café login again",
    "refactor auth middleware; login login login",
    "write tests for src/auth.py and the login_flow helper",
    "what is the status of the deploy?",
    "please summarise the deploy logs",
    "login",
    "/compact",
    "ship it",
]


def _messages(texts: list[str] = TEXTS) -> list[Any]:
    from profiles.voice.model import OperatorMessage
    from profiles.voice.nodes import NodeContext, message_node

    nodes = []
    for i, text in enumerate(texts):
        sid = "s-alpha-0001" if i < 5 else "s-beta-0002"
        msg = OperatorMessage(
            session_id=sid,
            record_uuid=f"r{i:03d}",
            timestamp=T0 + timedelta(days=i * 20, minutes=i),
            text=text,
            transcript=f"/t/{sid}.jsonl",
            line=i + 1,
            harness="claude-code",
            origin="slash_command" if text.startswith("/") else "prompt",
            cwd=f"/home/ada/src/{'atlas' if i < 5 else 'borealis'}",
        )
        ctx = NodeContext(
            constellation="Atlas" if i < 5 else "borealis",
            project="atlas" if i < 5 else "borealis",
            ingested_at=T0 + timedelta(days=300),
            voice_page=f"{'atlas' if i < 5 else 'borealis'}/voice/{sid}.md",
        )
        node = message_node(msg, ctx)
        if i == 8:
            attrs = {**node.attributes, "classification": "command", "confidence": 0.9}
            node = node.model_copy(update={"attributes": attrs})
        nodes.append(node)
    return nodes


def _fill(store: Store) -> None:
    patch = new_patch([UpsertNode(node=n) for n in _messages()], patch_id="p-voice")
    apply_patch(store, patch, now=T0 + timedelta(days=300))


@pytest.fixture
def reference(tmp_path: Path) -> Any:
    from memgraph.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "reference.db")
    _fill(store)
    yield indexes(store)
    store.close()


SEARCHES = [
    VoiceSearch(query="login"),
    VoiceSearch(query="login fix"),
    VoiceSearch(query='"login flow"'),
    VoiceSearch(query="log*"),
    VoiceSearch(query="cafe deja"),
    VoiceSearch(query="auth"),
    VoiceSearch(query="deploy", project="BOREALIS"),
    VoiceSearch(query="login", session_prefix="s-alpha", limit=2),
    VoiceSearch(query="compact"),
    VoiceSearch(query="nothing-matches-this"),
    VoiceSearch(query="login", since="2026-04-21T00:00:00.000000Z"),
    VoiceSearch(),
    VoiceSearch(recent_sessions=1, limit=3),
    VoiceSearch(classification="COMMAND"),
    VoiceSearch(unclassified=True, limit=4),
    # several words (voice_words: merge of postings, ranked in Python, texts fetched)
    VoiceSearch(query="login fix", limit=1),
    VoiceSearch(query="the login", project="atlas"),
    VoiceSearch(query="the login", session_prefix="s-beta"),
    VoiceSearch(query="login login", unclassified=True),
    VoiceSearch(query="the deploy of", since="2026-06-01T00:00:00.000000Z", limit=3),
    # common words past `candidates` matches (VoiceSearch, common_plan): "the" and
    # "login" are in >= half of all nodes (by time), "fix"/"deploy" in 2 of 10 (score)
    VoiceSearch(query="the", candidates=3),
    VoiceSearch(query="login", candidates=2, limit=1),
    VoiceSearch(query="the login", candidates=2),
    VoiceSearch(query="fix", candidates=1),
    VoiceSearch(query="deploy", candidates=1),
    VoiceSearch(query="the", candidates=4, project="atlas"),
    VoiceSearch(query="compact", bare_commands=False),
    VoiceSearch(bare_commands=False),
]


@pytest.mark.parametrize("request_", SEARCHES, ids=[repr(s)[:60] for s in SEARCHES])
def test_voice_search_same_hits_same_order(mg_store: Store, reference: Any, request_: Any) -> None:
    _fill(mg_store)
    got = indexes(mg_store).voice.search(request_)
    want = reference.voice.search(request_)
    assert [r.node_id for r in got] == [r.node_id for r in want]
    assert [r.text for r in got] == [r.text for r in want]
    for g, w in zip(got, want, strict=True):
        assert g.score == pytest.approx(w.score, rel=1e-9, abs=1e-12)
        assert (g.ts, g.session_id, g.project, g.constellation, g.voice_page) == (
            w.ts,
            w.session_id,
            w.project,
            w.constellation,
            w.voice_page,
        )


BARE = ["/model", "/exit", "/model opus", "use /model to switch", "/model\nthen the tests", "/3"]


def test_bare_slash_commands_left_out_on_request(mg_store: Store) -> None:
    """``bare_commands=False``: a message that is one slash command and nothing else
    (``/model``, ``/exit``) is left out of searches and listings; with arguments or
    prose it stays. Every backend applies the same rule (voice_rows.BARE_COMMAND)."""
    patch = new_patch([UpsertNode(node=n) for n in _messages(BARE)], patch_id="p-bare")
    apply_patch(mg_store, patch, now=T0 + timedelta(days=300))
    voice = indexes(mg_store).voice

    def texts(**kw: Any) -> list[str]:
        return sorted(r.text for r in voice.search(VoiceSearch(**kw)))

    assert texts(query="model") == sorted(BARE[:1] + BARE[2:5])
    assert texts(query="model", bare_commands=False) == sorted(BARE[2:5])
    assert texts(query="mod", bare_commands=False) == sorted(BARE[2:5])  # substring tier
    assert texts() == sorted(BARE)
    assert texts(bare_commands=False) == sorted([*BARE[2:5], "/3"])


def test_voice_stats_and_session_reads(mg_store: Store, reference: Any) -> None:
    _fill(mg_store)
    ix = indexes(mg_store)
    got, want = ix.voice.stats(), reference.voice.stats()
    assert (got.messages, got.sessions, got.pages, got.classified, got.first, got.last) == (
        want.messages,
        want.sessions,
        want.pages,
        want.classified,
        want.first,
        want.last,
    )
    assert sorted(got.by_constellation) == sorted(want.by_constellation)
    assert sorted(got.by_classification, key=str) == sorted(want.by_classification, key=str)
    ids = sorted(n.id for n in ix.voice.session_messages("s-alpha-0001"))
    assert ids == sorted(n.id for n in reference.voice.session_messages("s-alpha-0001"))
    assert len(ids) == 5
    assert ix.voice.session_span("s-beta-0002") == reference.voice.session_span("s-beta-0002")
    assert ix.voice.session_span("nope") is None
    assert ix.voice.reindex()[0] == 10


def test_registry_round_trip(mg_store: Store) -> None:
    reg = indexes(mg_store).registry
    a = RegistryRow("/t/a.jsonl", 10, 1, "h1", "s1", "paged", None, 3, "p/a.md", "2026-04-02")
    b = RegistryRow(
        "/t/b.jsonl", 20, 2, "h2", None, "skipped", "no_messages", 0, None, "2026-04-01"
    )
    reg.put(a)
    reg.put(b)
    assert reg.rows() == [b, a]
    assert reg.rows(since="2026-04-02") == [a]
    changed = RegistryRow("/t/a.jsonl", 11, 3, "h3", "s1", "paged", None, 4, "p/a.md", "2026-04-03")
    reg.put(changed)
    assert reg.get("/t/a.jsonl") == changed
    assert reg.get("/t/none") is None


def test_term_stats_match_sqlite(mg_store: Store, reference: Any) -> None:
    _fill(mg_store)
    terms = indexes(mg_store).terms
    got = dict(terms.frequencies(["login", "deploy", "zzz"]).df)
    want = dict(reference.terms.frequencies(["login", "deploy", "zzz"]).df)
    assert got == want
    ranked = terms.rank_any(["login", "deploy"], 5)
    expected = reference.terms.rank_any(["login", "deploy"], 5)
    if type(mg_store).__name__ == "MemoryStore":
        # the in-memory backend ranks an OR query by summed single-term scores
        # of its own search (memgraph.store.memory_voice), not FTS5's OR-BM25
        assert len(ranked) == len(expected)
        return
    assert [nid for nid, _ in ranked] == [nid for nid, _ in expected]
    for (_, g), (_, w) in zip(ranked, expected, strict=True):
        assert g == pytest.approx(w, rel=1e-9)


def test_activity_lookups(mg_store: Store, reference: Any) -> None:
    _fill(mg_store)
    act = indexes(mg_store).activity
    lo, hi = "2026-04-01T00:00:00.000000Z", "2026-06-01T00:00:00.000000Z"
    src = [ActivitySource("voice", "message", ("captured",))]
    got = sorted((r.node_id, r.valid_from, r.text) for r in act.rows_in_range(src, lo, hi))
    want = sorted(
        (r.node_id, r.valid_from, r.text) for r in reference.activity.rows_in_range(src, lo, hi)
    )
    assert got == want and len(got) == 4
    assert (
        act.message_cwds(lo, hi)
        == reference.activity.message_cwds(lo, hi)
        == {"/home/ada/src/atlas"}
    )


def test_a_nul_in_a_message_is_kept_and_found(mg_store: Store, tmp_path: Path) -> None:
    """jsonb cannot hold U+0000; the PostgreSQL index reads around it, the text stays exact.
    SQLite's json_extract ended the shown text at the NUL ("nul"): every backend now
    shows the whole text."""
    from memgraph.store.sqlite import SQLiteStore
    from profiles.voice.model import OperatorMessage
    from profiles.voice.nodes import NodeContext, message_node

    msg = OperatorMessage(
        "s-nul", "r1", T0, "nul\x00byte login here", "/t.jsonl", 1, "codex", "prompt"
    )
    node = message_node(msg, NodeContext("c", "p", T0))
    reference = SQLiteStore(tmp_path / "ref.db")
    for store in (mg_store, reference):
        apply_patch(store, new_patch([UpsertNode(node=node)]))
    got = indexes(mg_store).voice.search(VoiceSearch(query="byte"))
    assert [r.text for r in got] == ["nul\x00byte login here"]
    listed = indexes(mg_store).voice.search(VoiceSearch(query="nul\x00byte"))
    assert [r.text for r in listed] == ["nul\x00byte login here"]
    assert [r.node_id for r in got] == [
        r.node_id for r in indexes(reference).voice.search(VoiceSearch(query="byte"))
    ]
    assert [r.node_id for r in indexes(mg_store).voice.search(VoiceSearch())] == [node.id]
    # the activity lookups read the same text (SQLite's was cut at the NUL too)
    src = [ActivitySource("voice", "message", ("captured",))]
    rows = indexes(mg_store).activity.rows_in_range(src, "2026-01-01", "2027-01-01")
    assert [r.text for r in rows] == ["nul\x00byte login here"]
    reference.close()
