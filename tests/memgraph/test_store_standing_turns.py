"""The optional index interfaces (``TurnIndex``, ``StandingReads``) on every backend
that has them: same answers as a SQLite store filled with the same data.

The in-memory backend implements neither (its callers fall back to the generic
paths), so the backends here are SQLite and PostgreSQL; the reference is a
second SQLite store, so a backend that ranks, scopes or filters differently
fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memgraph.documents import UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.store import Store
from memgraph.store.interfaces import indexes
from memgraph.store.voice_rows import VoiceScope

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
TEXTS = [
    ("atlas", "s-a1", "we decided to keep the lake photos in the login flow"),
    ("atlas", "s-a1", "fix the login page before the release, login first"),
    ("atlas", "s-a1", "the lake house deploy is blocked; login again"),
    ("atlas", "s-a2", "Déjà vu: the café login again"),
    ("atlas", "s-a2", "lake lake lake: the lakeside report"),
    ("borealis", "s-b1", "please summarise the deploy logs for the lake"),
    ("borealis", "s-b1", "login tokens expire after an hour"),
    ("borealis", "s-b2", "ship it"),
    ("borealis", "s-b2", "the login flow and the lake again, and login"),
    ("borealis", "s-b2", "prefer short answers about the deploy"),
]
LABELS = {0: "decision", 1: "directive", 5: "directive", 6: "correction", 9: "preference"}


def _messages() -> list[Any]:
    from profiles.voice.model import OperatorMessage
    from profiles.voice.nodes import NodeContext, message_node

    nodes = []
    for i, (project, sid, text) in enumerate(TEXTS):
        msg = OperatorMessage(
            session_id=sid,
            record_uuid=f"r{i:03d}",
            timestamp=T0 + timedelta(days=i * 3, minutes=i),
            text=text,
            transcript=f"/t/{sid}.jsonl",
            line=i + 1,
            harness="claude-code",
            origin="prompt",
            cwd=f"/home/ada/src/{project}",
        )
        ctx = NodeContext(
            constellation=project.capitalize(),
            project=project,
            ingested_at=T0 + timedelta(days=60),
            voice_page=f"{project}/voice/{sid}.md",
        )
        node = message_node(msg, ctx)
        if i in LABELS:
            attrs = {**node.attributes, "classification": LABELS[i], "confidence": 0.8}
            node = node.model_copy(update={"attributes": attrs})
        nodes.append(node)
    return nodes


def _fill(store: Store, workspace: Path) -> None:
    from profiles.session.api import NoteRequest, StartRequest, note, start_session

    patch = new_patch([UpsertNode(node=n) for n in _messages()], patch_id="p-voice")
    apply_patch(store, patch, now=T0 + timedelta(days=60))
    ws = workspace / "atlas"
    start_session(store, StartRequest("s-n1", ws, "ada", "codex", started_at=T0))
    for m, text in [(10, "the lake API stays v1"), (20, "login tokens: one hour"), (5, "early")]:
        note(store, NoteRequest("s-n1", text, ws, at=T0 + timedelta(minutes=m), key=f"k{m}"))


@pytest.fixture(params=["sqlite", "postgres"])
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    """(backend indexes, SQLite reference indexes), filled with the same data."""
    from memgraph.store.sqlite import SQLiteStore

    if request.param == "postgres":
        from memgraph.store.postgres import open_postgres

        store: Store = open_postgres(request.getfixturevalue("pg_url"))
    else:
        store = SQLiteStore(tmp_path / "mg.db")
    ref = SQLiteStore(tmp_path / "reference.db")
    _fill(store, tmp_path / "ws-backend")
    _fill(ref, tmp_path / "ws-reference")
    yield indexes(store), indexes(ref)
    store.close()
    ref.close()


WORDS: list[list[tuple[str, bool]]] = [
    [("lake", False)],
    [("login", False), ("lake", False)],
    [("lake", True)],
    [("dep", True), ("login", False)],
    [("cafe", False), ("deja", False)],
    [('lake" OR "x', False), ("NEAR(", True)],  # quoted: a phrase of its tokens, never syntax
    [("login flow", False)],
    [("nothing", False)],
]
SCOPES = [
    VoiceScope(),
    VoiceScope(project="atlas"),
    VoiceScope(session_id="s-b2"),
    VoiceScope(constellation="Borealis"),
    VoiceScope(since=(T0 + timedelta(days=12)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")),
    VoiceScope(project="elsewhere"),
]


def _same(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [n for n, _ in got] == [n for n, _ in want]
    for (_, a), (_, b) in zip(got, want, strict=True):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("words", WORDS, ids=[repr(w)[:40] for w in WORDS])
def test_turn_ranking_equals_sqlite(pair: tuple[Any, Any], words: list[tuple[str, bool]]) -> None:
    got, ref = pair
    assert got.turns is not None and ref.turns is not None
    for scope in SCOPES:
        for weight in (1.0, 0.5, 2.0):
            want = ref.turns.rank_any(words, scope, 5, weight)
            _same(got.turns.rank_any(words, scope, 5, weight), want)
    assert got.turns.rank_any(words, VoiceScope(), 0) == []


def test_turn_ranking_finds_and_scopes(pair: tuple[Any, Any]) -> None:
    turns = pair[0].turns
    hits = turns.rank_any([("lake", False)], VoiceScope(project="atlas"), 10)
    assert len(hits) == 3 and all(score > 0 for _, score in hits)
    assert turns.rank_any([("lake", False)], VoiceScope(project="elsewhere"), 5) == []
    assert turns.rank_any([("", False)], VoiceScope(), 5) == []
    ids = [nid for nid, _ in hits]
    assert turns.in_scope([*ids, "n-missing"], VoiceScope(project="atlas")) == set(ids)
    assert turns.in_scope(ids, VoiceScope(project="borealis")) == set()
    assert turns.in_scope([], VoiceScope()) == set()


def test_turn_common_words_rank_only_the_newest(
    pair: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``CANDIDATES`` in-scope matches of common words only the newest are
    ranked (``voice_rows.common_plan``): same cut on both backends."""
    import memgraph.store.postgres.turns as pg_turns
    import memgraph.store.sqlite_ext.turn_index as sqlite_turns

    monkeypatch.setattr(pg_turns, "CANDIDATES", 3)
    monkeypatch.setattr(sqlite_turns, "CANDIDATES", 3)
    got, ref = pair
    for words in ([("login", False)], [("login", False), ("lake", False)], [("log", True)]):
        want = ref.turns.rank_any(words, VoiceScope(), 2)
        _same(got.turns.rank_any(words, VoiceScope(), 2), want)
        assert len(got.turns.rank_any(words, VoiceScope(), 10)) <= 10
    # 6 messages say login (a common word): with room for 3, the 3 inserted last rank
    ids = [n.id for n in _messages()]
    assert len(got.turns.rank_any([("login", False)], VoiceScope(), 50)) == 6
    newest = got.turns.rank_any([("login", False)], VoiceScope(), 3)
    assert {n for n, _ in newest} == {ids[3], ids[6], ids[8]}


READS: list[tuple[str, Callable[[Any], Any]]] = [
    ("voice_docs", lambda r: r.voice_docs("atlas", ("decision", "directive"), 5)),
    ("voice_docs_b", lambda r: r.voice_docs("borealis", ("directive", "preference"), 1)),
    ("voice_counts", lambda r: (r.voice_counts("atlas"), r.voice_counts("nowhere"))),
    ("domain_docs", lambda r: r.domain_docs("personal", ("voice",), ("observed", "active"), 3)),
    ("project_notes", lambda r: r.project_notes("atlas", 5)),
    ("latest_note", lambda r: (r.latest_note("ada"), r.latest_note("nobody"))),
    ("summaries", lambda r: (r.summaries("personal", False, 5), r.summary_count("personal"))),
    ("repo_candidates", lambda r: r.repo_candidates("personal", "atlas", 5)),
]


@pytest.mark.parametrize("name,read", READS, ids=[n for n, _ in READS])
def test_standing_reads_equal_sqlite(
    pair: tuple[Any, Any], name: str, read: Callable[[Any], Any]
) -> None:
    got, ref = pair
    assert got.standing is not None and ref.standing is not None
    assert read(got.standing) == read(ref.standing), name


def test_standing_reads_find_the_material(pair: tuple[Any, Any]) -> None:
    reads = pair[0].standing
    docs = reads.voice_docs("atlas", ("decision", "directive"), 5)
    assert [d["attributes"]["classification"] for d in docs] == ["directive", "decision"]
    assert reads.voice_counts("atlas") == (5, 2)
    notes = reads.project_notes("atlas", 5)
    assert [n[1] for n in notes] == ["login tokens: one hour", "the lake API stays v1", "early"]
    assert reads.latest_note("ada")[0] == "login tokens: one hour"
    receipts = reads.recent_receipts(3)
    assert len(receipts) == 3 and all("op" in r for r in receipts)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_turn_ranking_leaves_out_superseded_versions(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    """A superseded version is not a turn: an unscoped ranking (PostgreSQL: postings,
    titles and the superseded index, no message row) and a scoped one agree with SQLite."""
    from memgraph.store.sqlite import SQLiteStore

    if backend == "postgres":
        from memgraph.store.postgres import open_postgres

        store: Store = open_postgres(request.getfixturevalue("pg_url"))
    else:
        store = SQLiteStore(tmp_path / "mg.db")
    ref = SQLiteStore(tmp_path / "reference.db")
    msgs = _messages()
    later = T0 + timedelta(days=61)
    old = msgs[0].model_copy(update={"lifecycle": "superseded", "superseded_by": msgs[2].id})
    for s in (store, ref):
        _fill(s, tmp_path / f"ws-{id(s)}")
        apply_patch(s, new_patch([UpsertNode(node=old)], patch_id="p-sup"), now=later)
    got, want = indexes(store), indexes(ref)
    assert got.turns is not None and want.turns is not None
    for words in ([("lake", False)], [("login", False), ("lake", False)], [("lak", True)]):
        for scope in (VoiceScope(), VoiceScope(project="atlas")):
            expected = want.turns.rank_any(words, scope, 10)
            assert msgs[0].id not in {n for n, _ in expected}
            _same(got.turns.rank_any(words, scope, 10), expected)
    store.close()
    ref.close()
