from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph.errors import UsageError
from profiles.activity.windows import Item, gap_split, group_windows, resolve_keys

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
GAP = timedelta(minutes=15)


def msg(n: str, minute: float, session: str, repo: str | None, paths: tuple[str, ...] = ()) -> Item:
    keys = {f"session:{session}"} | ({f"repo:{repo}"} if repo else set())
    return Item(
        node_id=f"m-{n}",
        type="message",
        valid_time=T0 + timedelta(minutes=minute),
        keys=frozenset(keys),
        paths=paths,
        repo=repo,
        session_id=session,
        uuid=f"u-{n}",
    )


def commit(
    n: str, minute: float, repo: str, files: tuple[str, ...] = ("x.py",), bot: bool = False
) -> Item:
    keys = {f"bot:{repo}"} if bot else {f"repo:{repo}", f"project:{repo}"}
    return Item(
        node_id=f"c-{n}",
        type="commit",
        valid_time=T0 + timedelta(minutes=minute),
        keys=frozenset(keys),
        paths=files,
        repo=repo,
        root=f"/code/{repo}",
        sha=n * 40,
        repo_label=repo,
    )


def test_gap_extends_and_breaks_windows() -> None:
    items = [
        msg("a", 0, "s", "r"),
        commit("b", 14, "r"),
        commit("c", 29, "r"),
        msg("d", 44.1, "s", "r"),
    ]
    windows = group_windows(items, GAP)
    assert [w.node_ids for w in windows] == [("m-a", "c-b", "c-c"), ("m-d",)]
    assert windows[0].id == "aw-2026-03-02-1000"
    assert windows[1].id == "aw-2026-03-02-1044"


def test_two_repos_in_one_time_window_are_split() -> None:
    items = [
        msg("a1", 0, "sa", "alpha"),
        msg("b1", 1, "sb", "beta"),
        commit("a2", 5, "alpha"),
        commit("b2", 6, "beta"),
    ]
    windows = group_windows(items, GAP)
    assert sorted(w.node_ids for w in windows) == [("m-a1", "c-a2"), ("m-b1", "c-b2")]
    assert {w.id for w in windows} == {"aw-2026-03-02-1000", "aw-2026-03-02-1001"}


def test_same_minute_starts_get_suffixes_in_a_stable_order() -> None:
    items = [
        msg("a", 0.1, "sa", "alpha"),
        msg("b", 0.5, "sb", "beta"),
        msg("c", 0.9, "sc", "gamma"),
    ]
    ids = [w.id for w in group_windows(items, GAP)]
    assert ids == ["aw-2026-03-02-1000", "aw-2026-03-02-1000-2", "aw-2026-03-02-1000-3"]


def test_split_reopens_gaps_inside_a_repo() -> None:
    # beta keeps the coarse window alive; without it alpha has a 40 minute hole
    items = [msg("a", 0, "sa", "alpha")] + [msg(f"b{i}", 10 * i, "sb", "beta") for i in range(1, 5)]
    items.append(commit("a2", 40, "alpha"))
    windows = group_windows(items, GAP)
    alpha = [w.node_ids for w in windows if any(i.repo == "alpha" for i in w.items)]
    assert alpha == [("m-a",), ("c-a2",)]


def test_bot_commits_stand_alone_even_near_operator_work() -> None:
    items = [msg("a", 0, "s", "r"), commit("bot", 2, "r", bot=True), commit("c", 3, "r")]
    windows = group_windows(items, GAP)
    assert sorted(w.node_ids for w in windows) == [("c-bot",), ("m-a", "c-c")]


def test_repo_less_message_resolves_through_a_unique_path() -> None:
    items = [
        msg("p", 0, "sp", None, ("src/alpha/engine.py",)),
        commit("a", 3, "alpha", ("src/alpha/engine.py",)),
        commit("b", 4, "beta", ("web/app.tsx",)),
    ]
    keys = resolve_keys(items)
    assert "repo:alpha" in keys["m-p"]
    windows = group_windows(items, GAP)
    assert sorted(w.node_ids for w in windows) == [("c-b",), ("m-p", "c-a")]


def test_ambiguous_or_generic_paths_link_nothing() -> None:
    items = [
        msg("p", 0, "sp", None, ("README.md", "lib.py")),
        commit("a", 3, "alpha", ("README.md", "src/lib.py")),
        commit("b", 4, "beta", ("README.md", "pkg/lib.py")),
    ]
    assert resolve_keys(items)["m-p"] == items[0].keys
    assert len(group_windows(items, GAP)) == 3


def test_absolute_path_under_a_repo_root_resolves() -> None:
    items = [msg("p", 0, "sp", None, ("/code/beta/web/new.tsx",)), commit("b", 4, "beta")]
    assert len(group_windows(items, GAP)) == 1


def test_weak_project_links_only_to_a_repo_of_that_name() -> None:
    def loose(n: str, minute: float, session: str, project: str) -> Item:
        return Item(
            node_id=f"m-{n}",
            type="message",
            valid_time=T0 + timedelta(minutes=minute),
            keys=frozenset({f"session:{session}"}),
            weak=frozenset({f"project:{project}"}),
            session_id=session,
        )

    items = [loose("a", 0, "s1", "code"), loose("b", 1, "s2", "code"), loose("c", 2, "s3", "beta")]
    items.append(commit("b", 5, "beta"))
    assert sorted(w.node_ids for w in group_windows(items, GAP)) == [
        ("m-a",),
        ("m-b",),
        ("m-c", "c-b"),
    ]


def test_gap_must_be_at_least_a_minute() -> None:
    with pytest.raises(UsageError):
        group_windows([], timedelta(seconds=30))


@st.composite
def scenarios(draw: st.DrawFn) -> list[Item]:
    n = draw(st.integers(0, 40))
    items: list[Item] = []
    for i in range(n):
        minute = draw(st.floats(0, 300, allow_nan=False))
        repo = draw(st.sampled_from(["a", "b", "c", None]))
        if draw(st.booleans()) and repo:
            items.append(commit(str(i), minute, repo, bot=draw(st.booleans())))
        else:
            # a session works in one repo (a session that changes repo is one work stream)
            session = f"{repo}-{draw(st.sampled_from(['1', '2']))}"
            items.append(msg(str(i), minute, session, repo))
    return items


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.integers(1, 60), st.randoms(use_true_random=False))
def test_partition_properties(items: list[Item], gap_min: int, rnd: random.Random) -> None:
    gap = timedelta(minutes=gap_min)
    windows = group_windows(items, gap)
    # every artifact in exactly one window; ids unique; deterministic under shuffling
    placed = [nid for w in windows for nid in w.node_ids]
    assert sorted(placed) == sorted(i.node_id for i in items)
    assert len({w.id for w in windows}) == len(windows)
    shuffled = list(items)
    rnd.shuffle(shuffled)
    assert [(w.id, w.node_ids) for w in group_windows(shuffled, gap)] == [
        (w.id, w.node_ids) for w in windows
    ]
    keys = resolve_keys(sorted(items, key=Item.sort_key))
    for w in windows:
        # no internal hole larger than the gap, and no two repos' human commits
        assert len(gap_split(w.items, gap)) == 1
        assert (
            len({i.repo for i in w.items if i.type == "commit" and "bot:" not in str(i.keys)}) <= 1
        )
        if len(w.items) > 1:
            assert all(keys[i.node_id] for i in w.items)
