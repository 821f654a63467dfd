"""The four context cuts, declared in one place.

Same graph, different cuts: each consumer sees the profiles it needs, weighted
for what it does, with its own filters and obligations. Everything a cut does
differently is a field here; nothing else in ``context_cut`` branches on the
cut's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from memgraph.documents.enums import AnchorKind, CutName, ProfileName

if TYPE_CHECKING:
    from memgraph.documents.views import NodeView

P = ProfileName


@dataclass(frozen=True)
class CutSpec:
    name: CutName
    purpose: str
    # profile -> weight multiplied into a candidate's fused score; absent = not in the cut
    weights: Mapping[ProfileName, float]
    # lifecycle states never shown (retired/pruned/superseded claims)
    hidden_states: frozenset[str] = frozenset({"retired", "pruned", "superseded", "distilled"})
    # lifecycle states that get a verification seam (unreviewed or stale claims)
    unverified_states: frozenset[str] = frozenset({"proposed", "observed", "stale"})
    # profiles whose unverified states deserve a seam (evidence/repo claims, not messages)
    seam_profiles: frozenset[ProfileName] = frozenset(
        {P.repo_architecture, P.repo_dataflow, P.evidence}
    )
    # score multiplier for nodes in a stale lifecycle (coordinator wants stale state up front)
    stale_boost: float = 1.0
    receipts_per_item: int = 1
    # open agency_pressure states that become obligations
    obligation_states: frozenset[str] = frozenset({"active", "obligated"})
    # the coordinator lists every open obligation of the query's domain, hit or not
    domain_obligations: bool = False
    public_surface: bool = False
    allowed_anchor_kinds: frozenset[AnchorKind] | None = None

    @property
    def profiles(self) -> frozenset[ProfileName]:
        return frozenset(self.weights)

    def admits(self, node: NodeView) -> bool:
        """Profile, lifecycle and (persona) public-surface filter."""
        if node.profile not in self.weights or node.lifecycle in self.hidden_states:
            return False
        if node.superseded_by:
            return False
        return not (self.public_surface and not is_public(node))


def is_public(node: NodeView) -> bool:
    """The persona's public-surface filter: only what may be said in public.

    A node is private when it says so (``visibility`` private/internal, or
    ``public: false``); incubating ideas are public only when marked ``public: true``.
    """
    visibility = str(node.attributes.get("visibility", "")).lower()
    if visibility in {"private", "internal", "secret"}:
        return False
    public = node.attributes.get("public")
    if public is False:
        return False
    if node.profile == P.incubation:
        return public is True
    return True


CUTS: Mapping[CutName, CutSpec] = MappingProxyType(
    {
        CutName.repo: CutSpec(
            name=CutName.repo,
            purpose="a repo task: architecture and dataflow claims with their evidence",
            weights={
                P.repo_architecture: 1.0,
                P.repo_dataflow: 1.0,
                P.evidence: 0.7,
                P.artifact: 0.5,
                P.session: 0.4,
                P.voice: 0.3,
            },
            receipts_per_item=1,
        ),
        CutName.role: CutSpec(
            name=CutName.role,
            purpose="a role prompt: who the role is, what it is holding and pushing on",
            weights={
                P.role_self: 1.0,
                P.short_term: 0.8,
                P.incubation: 0.7,
                P.agency_pressure: 0.7,
            },
            hidden_states=frozenset({"retired", "pruned"}),
            unverified_states=frozenset({"proposed"}),
            seam_profiles=frozenset({P.role_self}),
        ),
        CutName.persona: CutSpec(
            name=CutName.persona,
            purpose="a persona's public voice: what it might say, what presses, what grows",
            weights={
                P.candidate_intervention: 1.0,
                P.agency_pressure: 0.8,
                P.incubation: 0.7,
            },
            hidden_states=frozenset({"retired", "applied"}),
            unverified_states=frozenset({"queued", "deferred"}),
            seam_profiles=frozenset({P.candidate_intervention}),
            public_surface=True,
            # transcript lines and file paths are private working material
            allowed_anchor_kinds=frozenset({AnchorKind.url, AnchorKind.page, AnchorKind.commit}),
        ),
        CutName.coordinator: CutSpec(
            name=CutName.coordinator,
            purpose="a coordinator: pressure, stale state, open obligations and receipts",
            weights={
                P.agency_pressure: 1.0,
                P.candidate_intervention: 0.6,
                P.short_term: 0.6,
                P.repo_architecture: 0.5,
                P.repo_dataflow: 0.5,
                P.incubation: 0.5,
                P.session: 0.5,
                P.evidence: 0.4,
            },
            hidden_states=frozenset({"retired", "pruned", "superseded"}),
            seam_profiles=frozenset(
                {P.repo_architecture, P.repo_dataflow, P.evidence, P.short_term}
            ),
            stale_boost=1.5,
            receipts_per_item=3,
            domain_obligations=True,
        ),
    }
)


def get_cut(name: CutName | str) -> CutSpec:
    from memgraph.errors import UsageError

    try:
        return CUTS[CutName(name)]
    except ValueError:
        choices = ", ".join(c.value for c in CutName)
        raise UsageError(f"unknown cut {name!r}: use one of {choices}") from None
