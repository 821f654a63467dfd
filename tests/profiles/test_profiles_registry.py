"""The registry: every profile name has exactly one declarative policy."""

from __future__ import annotations

import pytest

from memgraph.documents import ProfileName
from memgraph.errors import ValidationFailed
from profiles import REGISTRY, UNIFIED_PLAN, get_profile

PLAN_STATES = {
    "repo_architecture": {"observed", "proposed", "accepted", "stale", "retired"},
    "repo_dataflow": {"observed", "proposed", "accepted", "stale", "retired"},
    "role_self": {"proposed", "accepted", "revised", "retired", "crystallized"},
    "short_term": {"active", "clustered", "distilled", "incubated", "pruned"},
    "incubation": {"active", "deepening", "cooling", "promoted", "retired"},
    "agency_pressure": {"active", "obligated", "cooled", "answered", "retired"},
    "candidate_intervention": {"queued", "deferred", "spoken", "applied", "retired"},
    "evidence": {"observed", "reviewed", "accepted", "contradicted", "superseded"},
}


def test_registry_covers_every_profile_name() -> None:
    assert set(REGISTRY) == set(ProfileName)
    assert all(REGISTRY[name].name == name for name in REGISTRY)


def test_unified_plan_profiles_have_the_planned_states() -> None:
    assert [p.value for p in UNIFIED_PLAN] == list(PLAN_STATES)
    for name, states in PLAN_STATES.items():
        assert set(REGISTRY[ProfileName(name)].states) == states, name


@pytest.mark.parametrize("name", list(ProfileName))
def test_every_profile_is_well_formed(name: ProfileName) -> None:
    p = REGISTRY[name]
    assert p.node_kinds and p.edge_kinds and p.initial and p.description
    assert p.retired_state in p.states
    # the retired state is reachable: everything can be retired, nothing deleted
    reachable = set(p.initial)
    frontier = list(p.initial)
    while frontier:
        for nxt in p.transitions.get(frontier.pop(), frozenset()):
            if nxt not in reachable:
                reachable.add(nxt)
                frontier.append(nxt)
    assert p.retired_state in reachable


def test_get_profile_accepts_names_and_enums() -> None:
    assert get_profile("evidence") is REGISTRY[ProfileName.evidence]
    assert get_profile(ProfileName.voice) is REGISTRY[ProfileName.voice]


@pytest.mark.parametrize("bad", ["", "Evidence", "no_such", "../etc"])
def test_unknown_profile_is_a_validation_error(bad: str) -> None:
    with pytest.raises(ValidationFailed, match="unknown profile"):
        get_profile(bad)
