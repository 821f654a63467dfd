"""Every (state, target) pair of each unified-plan profile's transition table,
checked twice: the pure ``transition()`` and the engine applying a patch."""

from __future__ import annotations

from collections import deque
from datetime import UTC, datetime

import pytest

from memgraph.documents import (
    AnchorKind,
    MemoryAnchor,
    MemoryNode,
    ReviewNode,
    TransitionNode,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import IllegalTransition, PatchRejected
from memgraph.ids import node_id
from memgraph.store.memory import MemoryStore
from profiles import REGISTRY, UNIFIED_PLAN
from profiles.base import Profile, transition

NOW = datetime(2026, 1, 1, tzinfo=UTC)
REVIEWED = {"repo_architecture", "repo_dataflow"}  # entering accepted needs a review


def path_to(p: Profile, state: str) -> list[str]:
    """Shortest list of states from an initial state to ``state``."""
    queue = deque([[s] for s in sorted(p.initial)])
    seen = set(p.initial)
    while queue:
        path = queue.popleft()
        if path[-1] == state:
            return path
        for nxt in sorted(p.transitions.get(path[-1], frozenset())):
            if nxt not in seen:
                seen.add(nxt)
                queue.append([*path, nxt])
    raise AssertionError(f"{p.name}: state {state} unreachable from {sorted(p.initial)}")


def step(profile: str, nid: str, state: str) -> list[object]:
    ops: list[object] = []
    if profile in REVIEWED and state == "accepted":
        ops.append(ReviewNode(node_id=nid, reviewer="reviewer"))
    ops.append(TransitionNode(node_id=nid, to_state=state))
    return ops


def new_node(p: Profile, key: str, state: str) -> MemoryNode:
    return MemoryNode(
        id=node_id(p.name.value, "t", key),
        domain_id="d",
        profile=p.name,
        kind=sorted(p.node_kinds)[0],
        claim=key,
        lifecycle=state,
        anchors=[MemoryAnchor(id="a-1", kind=AnchorKind.url, ref="https://e")],
        created_at=NOW,
        updated_at=NOW,
    )


CASES = [
    (name.value, s, t)
    for name in UNIFIED_PLAN
    for s in REGISTRY[name].states
    for t in REGISTRY[name].states
]


@pytest.mark.parametrize(("profile", "current", "target"), CASES)
def test_transition_table(profile: str, current: str, target: str) -> None:
    p = REGISTRY[profile]  # type: ignore[index]
    legal = current == target or target in p.transitions.get(current, frozenset())
    if legal:
        assert transition(p, current, target) == target
    else:
        with pytest.raises(IllegalTransition):
            transition(p, current, target)

    store = MemoryStore()
    path = path_to(p, current)
    node = new_node(p, f"{current}->{target}", path[0])
    apply_patch(store, new_patch([UpsertNode(node=node)]))
    for state in path[1:]:
        apply_patch(store, new_patch(step(profile, node.id, state)))  # type: ignore[arg-type]
    attempt = new_patch(step(profile, node.id, target))  # type: ignore[arg-type]
    if legal:
        result = apply_patch(store, attempt)
        moved = [r for r in result.receipts if r.op == "transition_node"]
        if current == target:
            assert moved == []  # staying put is legal and records nothing
        else:
            assert [(r.before, r.after) for r in moved] == [(current, target)]
    else:
        with pytest.raises(
            PatchRejected, match=f"illegal lifecycle transition {current} -> {target}"
        ):
            apply_patch(store, attempt)
        with store.reader() as r:
            assert r.get_nodes([node.id])[node.id].lifecycle == current


@pytest.mark.parametrize(
    ("profile", "state"),
    [(name.value, s) for name in UNIFIED_PLAN for s in REGISTRY[name].states],
)
def test_new_nodes_start_in_an_initial_state(profile: str, state: str) -> None:
    p = REGISTRY[profile]  # type: ignore[index]
    store = MemoryStore()
    patch = new_patch([UpsertNode(node=new_node(p, "fresh", state))])
    if state in p.initial:
        assert apply_patch(store, patch).receipts[0].after == state
    else:
        with pytest.raises(
            PatchRejected, match=rf"illegal lifecycle transition \(new\) -> {state}"
        ):
            apply_patch(store, patch)
        assert store.counts()["nodes"] == 0
