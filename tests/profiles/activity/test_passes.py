from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

import pytest

from memgraph.errors import NotFound, UsageError
from memgraph.ids import node_id
from memgraph.store import Store, open_store
from profiles.activity.passes import WindowsRequest, recompute, recompute_around, run_windows
from profiles.activity.query import format_report, window_report
from profiles.activity.store import current_windows

sys.path.insert(0, str(Path(__file__).parent))
from scenario import Msg, Scenario, generate, score, store_messages


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    s = open_store(tmp_path / "s.db" if request.param == "sqlite" else ":memory:")
    yield s  # type: ignore[misc]
    s.close()


@pytest.fixture
def scenario(tmp_path: Path) -> Scenario:
    return generate(tmp_path / "world", seed=3, days=2, sessions_per_day=10)


def test_accuracy_on_overlapping_sessions_in_real_repos(store: Store, scenario: Scenario) -> None:
    store_messages(store, scenario.messages)
    result = run_windows(store, WindowsRequest())
    assert len(result.repos_read) == 4  # discovered from the sessions' cwds
    assert result.commits_seen == len(scenario.commits)
    s = score(scenario, result.windows)
    assert s.recall >= 0.95, s
    assert s.precision >= 0.95, s
    assert s.bots_alone == 1.0 and s.mixed_repo_windows == 0, s
    placed = [n for w in result.windows for n in w.node_ids]
    assert len(placed) == len(set(placed)) == len(scenario.messages) + len(scenario.commits)


def test_gap_only_baseline_is_worse(store: Store, scenario: Scenario) -> None:
    # the scenario really does overlap repos in time: without entity validation
    # precision collapses (this guards the scenario, not the algorithm)
    store_messages(store, scenario.messages)
    from profiles.activity.passes import END_OF_TIME, EPOCH
    from profiles.activity.source import load_items
    from profiles.activity.windows import coarse_windows, name_windows

    run_windows(store, WindowsRequest())
    items = load_items(store, EPOCH, END_OF_TIME)
    base = [w for c in coarse_windows(items, timedelta(minutes=15)) for w in name_windows([c])]
    assert score(scenario, base).precision < 0.8


def test_recompute_is_idempotent_and_deterministic(store: Store, scenario: Scenario) -> None:
    store_messages(store, scenario.messages)
    first = run_windows(store, WindowsRequest())
    counts = store.counts()
    again = run_windows(store, WindowsRequest())
    assert again.stats.created == again.stats.superseded == 0
    assert again.stats.unchanged == len(first.windows)
    assert store.counts() == counts
    assert [w.as_json() for w in again.windows] == [w.as_json() for w in first.windows]


def test_late_artifact_recomputes_only_its_window(store: Store, scenario: Scenario) -> None:
    late = scenario.messages[len(scenario.messages) // 2]
    early = [m for m in scenario.messages if m is not late]
    store_messages(store, early)
    run_windows(store, WindowsRequest())
    before = {
        n.id: n
        for n in current_windows(
            store, late.time - timedelta(days=9), late.time + timedelta(days=9)
        )
    }
    store_messages(store, [late], with_sessions=False)
    stats = recompute_around(store, [late.time])
    assert stats.created >= 1 and stats.superseded >= 1
    assert stats.created + stats.superseded < len(before) / 2
    after = {
        n.id: n
        for n in current_windows(
            store, late.time - timedelta(days=9), late.time + timedelta(days=9)
        )
    }
    gone = set(before) - set(after)
    assert len(gone) == stats.superseded
    # superseded, never deleted; the late message is in exactly one current window
    with store.reader() as r:
        assert all(n.lifecycle == "superseded" for n in r.get_nodes(gone).values())
    holders = [n for n in after.values() if late.node_id in n.attributes["members"]]
    assert len(holders) == 1
    # and a full recompute agrees with the incremental one
    full = recompute(store)
    assert full.stats.created == full.stats.superseded == 0


def test_changing_the_gap_supersedes_and_can_come_back(store: Store, scenario: Scenario) -> None:
    store_messages(store, scenario.messages)
    a = recompute(store, gap=timedelta(minutes=15))
    b = recompute(store, gap=timedelta(minutes=2))
    assert b.stats.superseded > 0 and len(b.windows) > len(a.windows)
    c = recompute(store, gap=timedelta(minutes=15))
    assert [w.id for w in c.windows] == [w.id for w in a.windows]
    with pytest.raises(UsageError):
        recompute(store, gap=timedelta(seconds=10))


def test_window_report_and_annotation(tmp_path: Path, scenario: Scenario) -> None:
    store = open_store(tmp_path / "s.db")
    store_messages(store, scenario.messages)
    vault = tmp_path / "vault"
    result = run_windows(store, WindowsRequest(vault=vault))
    assert result.annotated > 0
    window = next(
        w
        for w in result.windows
        if any(i.type == "commit" for i in w.items) and any(i.type == "message" for i in w.items)
    )
    report = window_report(store, window.id)
    assert report.id == window.id and report.lifecycle == "current"
    assert [e.node_id for e in report.entries] == list(window.node_ids)
    said = {m.node_id: m.text for m in scenario.messages}
    for e in report.entries:
        if e.type == "message":
            assert e.text == said[e.node_id]
    assert report.message_ids and report.commits
    lines = format_report(report)
    assert lines[0].startswith(window.id) and len(lines) == len(report.entries) + 1
    # the session node carries the window in the seed shape
    sid = next(e.session_id for e in report.entries if e.type == "message")
    assert sid is not None
    with store.reader() as r:
        node = r.get_nodes([node_id("voice", "voice_session", sid)])[
            node_id("voice", "voice_session", sid)
        ]
    note = node.attributes["activity_window"]
    notes = note if isinstance(note, list) else [note]
    assert any(n["id"] == window.id for n in notes)
    assert all(set(n) >= {"id", "artifacts"} for n in notes)
    pages = list(vault.rglob("*.md"))
    if pages:  # voice views render the attribute into the frontmatter
        assert any("activity_window:" in p.read_text() for p in pages)
    store.close()


def test_report_errors(store: Store) -> None:
    with pytest.raises(UsageError):
        window_report(store, "aw-2026-13-01-1000")
    with pytest.raises(UsageError):
        window_report(store, "../../etc/passwd")
    with pytest.raises(NotFound):
        window_report(store, "aw-2026-03-01-1000")


def test_message_without_repo_or_cwd_still_lands_somewhere(store: Store, tmp_path: Path) -> None:
    from datetime import UTC, datetime

    m = Msg("s-x", "u1", datetime(2026, 3, 2, tzinfo=UTC), "hello", "none", "", "")
    store_messages(store, [m])
    result = run_windows(store, WindowsRequest(discover_repos=False))
    assert [w.node_ids for w in result.windows] == [(m.node_id,)]
