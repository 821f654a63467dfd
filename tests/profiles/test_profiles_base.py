"""profiles.base: the Profile declaration, its transition table and transition()."""

from __future__ import annotations

import pytest

from memgraph.documents import ProfileName
from memgraph.errors import IllegalTransition, ValidationFailed
from profiles.base import Profile, table, transition


def make(**kw: object) -> Profile:
    data: dict[str, object] = {
        "name": ProfileName.incubation,
        "description": "test",
        "node_kinds": frozenset({"idea"}),
        "edge_kinds": frozenset({"relates_to"}),
        "states": ("new", "done", "gone"),
        "initial": frozenset({"new"}),
        "transitions": table(new={"done", "gone"}, done={"gone"}),
        "retired_state": "gone",
    }
    data.update(kw)
    return Profile(**data)  # type: ignore[arg-type]


def test_table_builds_frozensets() -> None:
    t = table(a={"b", "c"}, b=["c"])
    assert t == {"a": frozenset({"b", "c"}), "b": frozenset({"c"})}


def test_transition_returns_target_when_legal() -> None:
    p = make()
    assert transition(p, None, "new") == "new"
    assert transition(p, "new", "done") == "done"
    assert transition(p, "done", "done") == "done"  # staying put is always legal


@pytest.mark.parametrize(
    ("current", "target"),
    [
        (None, "done"),
        ("done", "new"),
        ("gone", "new"),
        ("gone", "done"),
        ("new", "unknown"),
        (None, "x"),
    ],
)
def test_transition_raises_typed_illegal_transition(current: str | None, target: str) -> None:
    with pytest.raises(IllegalTransition) as err:
        transition(make(), current, target)
    exc = err.value
    assert (exc.profile, exc.current, exc.target) == ("incubation", current, target)
    assert isinstance(exc, ValidationFailed)
    assert str(exc) == (
        f"profile incubation: illegal lifecycle transition {current or '(new)'} -> {target}"
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"initial": frozenset({"nope"})},
        {"retired_state": "nope"},
        {"transitions": table(new={"nope"})},
        {"transitions": table(nope={"new"})},
        {"revised_state": "nope"},
    ],
)
def test_malformed_profile_fails_at_declaration(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="unknown states"):
        make(**bad)


def test_edge_states_default_to_node_states() -> None:
    assert make().allowed_edge_states == ("new", "done", "gone")
    assert make(edge_states=("live",)).allowed_edge_states == ("live",)


def test_a_trust_move_must_be_a_transition_between_known_states() -> None:
    assert make(trust_moves=frozenset({("new", "done")})).trust_moves == {("new", "done")}
    with pytest.raises(ValueError, match="is no transition"):
        make(trust_moves=frozenset({("done", "new")}))
    with pytest.raises(ValueError, match="unknown states"):
        make(trust_moves=frozenset({("new", "elsewhere")}))
