"""Agent-domain profiles: role_self, short_term, incubation, agency_pressure,
candidate_intervention.

Laws:
- role_self memory describes the role, never project truth: no commit/file
  anchors, no repo attributes, no repo-kind nodes.
- short_term memory cannot survive forced sleep unaccounted (see
  ``memgraph.graph`` ``forced_sleep``: every active/clustered node must get a
  disposition, and each disposition gets a receipt).
"""

from __future__ import annotations

from collections.abc import Iterable

from memgraph.documents import AnchorKind, MemoryNode, ProfileName
from profiles.base import Profile, RuleContext, table

REPO_TRUTH_ATTRIBUTES = frozenset({"repo", "repo_path", "commit", "sha", "file_path", "branch"})
REPO_TRUTH_ANCHORS = frozenset({AnchorKind.commit, AnchorKind.file})


def no_repo_truth(before: MemoryNode | None, after: MemoryNode, ctx: RuleContext) -> Iterable[str]:
    anchors = ", ".join(
        sorted({a.kind.value for a in after.anchors if a.kind in REPO_TRUTH_ANCHORS})
    )
    if anchors:
        yield f"{after.id}: role_self memory cannot carry repo truth (anchors: {anchors})"
    attrs = ", ".join(sorted(REPO_TRUTH_ATTRIBUTES & after.attributes.keys()))
    if attrs:
        yield f"{after.id}: role_self memory cannot carry repo truth (attributes: {attrs})"


ROLE_SELF = Profile(
    name=ProfileName.role_self,
    description="What a role knows about itself: stance, habits, commitments.",
    node_kinds=frozenset({"trait", "commitment", "stance", "habit", "lesson"}),
    edge_kinds=frozenset({"refines", "contradicts", "supports"}),
    states=("proposed", "accepted", "revised", "retired", "crystallized"),
    initial=frozenset({"proposed"}),
    transitions=table(
        proposed={"accepted", "retired"},
        accepted={"revised", "crystallized", "retired"},
        revised={"accepted", "crystallized", "retired"},
        crystallized={"revised", "retired"},
    ),
    retired_state="retired",
    revised_state="revised",
    node_rules=(no_repo_truth,),
)

SHORT_TERM_OPEN_STATES = frozenset({"active", "clustered"})

SHORT_TERM = Profile(
    name=ProfileName.short_term,
    description="Working memory of a session; must be accounted for at forced sleep.",
    node_kinds=frozenset({"observation", "thought", "todo", "cluster"}),
    edge_kinds=frozenset({"clusters", "distills_into", "incubates_as"}),
    states=("active", "clustered", "distilled", "incubated", "pruned"),
    initial=frozenset({"active"}),
    transitions=table(
        active={"clustered", "distilled", "incubated", "pruned"},
        clustered={"distilled", "incubated", "pruned"},
    ),
    retired_state="pruned",
    sleep_open_states=SHORT_TERM_OPEN_STATES,
)

INCUBATION = Profile(
    name=ProfileName.incubation,
    description="Ideas left to mature across sessions.",
    node_kinds=frozenset({"idea", "question", "hunch"}),
    edge_kinds=frozenset({"deepens", "promotes_to", "relates_to"}),
    states=("active", "deepening", "cooling", "promoted", "retired"),
    initial=frozenset({"active"}),
    transitions=table(
        active={"deepening", "cooling", "promoted", "retired"},
        deepening={"active", "cooling", "promoted", "retired"},
        cooling={"active", "deepening", "retired"},
        promoted={"retired"},
    ),
    retired_state="retired",
)

AGENCY_PRESSURE = Profile(
    name=ProfileName.agency_pressure,
    description="Pressure to act: open obligations, pending asks.",
    node_kinds=frozenset({"pressure", "obligation", "ask"}),
    edge_kinds=frozenset({"answers", "obligates", "relates_to"}),
    states=("active", "obligated", "cooled", "answered", "retired"),
    initial=frozenset({"active", "obligated"}),
    transitions=table(
        active={"obligated", "cooled", "answered", "retired"},
        obligated={"answered", "cooled", "retired"},
        cooled={"active", "retired"},
        answered={"retired"},
    ),
    retired_state="retired",
)

CANDIDATE_INTERVENTION = Profile(
    name=ProfileName.candidate_intervention,
    description="Things an agent might say or do; a public-surface filter applies.",
    node_kinds=frozenset({"intervention", "suggestion", "warning"}),
    edge_kinds=frozenset({"responds_to", "supersedes", "relates_to"}),
    states=("queued", "deferred", "spoken", "applied", "retired"),
    initial=frozenset({"queued"}),
    transitions=table(
        queued={"deferred", "spoken", "retired"},
        deferred={"queued", "retired"},
        spoken={"applied", "deferred", "retired"},
        applied={"retired"},
    ),
    retired_state="retired",
)
