"""Profile registry: policy modules on the shared substrate.

Each profile declares node/edge kinds, a lifecycle transition table and rules;
``memgraph.graph`` enforces them before any generic mutation.
"""

from __future__ import annotations

from memgraph.documents import ProfileName
from memgraph.errors import ValidationFailed
from profiles.activity.policy import ACTIVITY
from profiles.agent import (
    AGENCY_PRESSURE,
    CANDIDATE_INTERVENTION,
    INCUBATION,
    ROLE_SELF,
    SHORT_TERM,
)
from profiles.artifact.policy import ARTIFACT
from profiles.base import Profile, transition
from profiles.evidence import EVIDENCE
from profiles.repo import REPO_ARCHITECTURE, REPO_DATAFLOW
from profiles.session.policy import SESSION
from profiles.voice.policy import VOICE

REGISTRY: dict[ProfileName, Profile] = {
    p.name: p
    for p in (
        REPO_ARCHITECTURE,
        REPO_DATAFLOW,
        ROLE_SELF,
        SHORT_TERM,
        INCUBATION,
        AGENCY_PRESSURE,
        CANDIDATE_INTERVENTION,
        EVIDENCE,
        VOICE,
        ARTIFACT,
        SESSION,
        ACTIVITY,
    )
}

UNIFIED_PLAN = (
    ProfileName.repo_architecture,
    ProfileName.repo_dataflow,
    ProfileName.role_self,
    ProfileName.short_term,
    ProfileName.incubation,
    ProfileName.agency_pressure,
    ProfileName.candidate_intervention,
    ProfileName.evidence,
)


def get_profile(name: str | ProfileName) -> Profile:
    try:
        return REGISTRY[ProfileName(name)]
    except (KeyError, ValueError):
        raise ValidationFailed([f"unknown profile {name!r}"]) from None


__all__ = ["REGISTRY", "UNIFIED_PLAN", "Profile", "get_profile", "transition"]
