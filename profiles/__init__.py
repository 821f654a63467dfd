"""Profile registry: policy modules on the shared substrate.

Each profile declares node/edge kinds, a lifecycle transition table and rules;
``memgraph.graph`` enforces them before any generic mutation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgraph.documents import ProfileName
    from profiles.base import Profile

# The registry is built on first use, not at import: fast paths (hook, note,
# voice search) import profile submodules and must not pay for the pydantic
# documents every profile pulls in.
_registry: dict[ProfileName, Profile] | None = None


def _build() -> dict[ProfileName, Profile]:
    global _registry
    if _registry is None:
        from profiles.activity.policy import ACTIVITY
        from profiles.agent import (
            AGENCY_PRESSURE,
            CANDIDATE_INTERVENTION,
            INCUBATION,
            ROLE_SELF,
            SHORT_TERM,
        )
        from profiles.artifact.policy import ARTIFACT
        from profiles.evidence import EVIDENCE
        from profiles.repo import REPO_ARCHITECTURE, REPO_DATAFLOW
        from profiles.session.policy import SESSION
        from profiles.voice.policy import VOICE

        _registry = {
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
    return _registry


def get_profile(name: str | ProfileName) -> Profile:
    from memgraph.documents import ProfileName
    from memgraph.errors import ValidationFailed

    try:
        return _build()[ProfileName(name)]
    except (KeyError, ValueError):
        raise ValidationFailed([f"unknown profile {name!r}"]) from None


def sleep_profiles() -> list[Profile]:
    """Profiles whose open nodes a forced sleep must account for (``sleep_open_states``)."""
    return [p for p in _build().values() if p.sleep_open_states]


def __getattr__(name: str) -> Any:
    if name == "REGISTRY":
        registry = _build()
        globals()["REGISTRY"] = registry  # later lookups are a plain global (hot path)
        return registry
    if name == "UNIFIED_PLAN":
        from memgraph.documents import ProfileName

        return (
            ProfileName.repo_architecture,
            ProfileName.repo_dataflow,
            ProfileName.role_self,
            ProfileName.short_term,
            ProfileName.incubation,
            ProfileName.agency_pressure,
            ProfileName.candidate_intervention,
            ProfileName.evidence,
        )
    if name in ("Profile", "transition"):
        import profiles.base

        return getattr(profiles.base, name)
    raise AttributeError(name)


__all__ = ["REGISTRY", "UNIFIED_PLAN", "Profile", "get_profile", "transition"]
