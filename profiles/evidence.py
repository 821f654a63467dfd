"""evidence: observations backed by anchors.

Law: an evidence node always carries at least one anchor, so evidence stays
distinguishable from remembered claims (which may have none).
"""

from __future__ import annotations

from collections.abc import Iterable

from memgraph.documents import MemoryNode, ProfileName
from profiles.base import Profile, RuleContext, table


def needs_anchor(before: MemoryNode | None, after: MemoryNode, ctx: RuleContext) -> Iterable[str]:
    if not after.anchors:
        yield f"{after.id}: evidence must carry at least one anchor"


EVIDENCE = Profile(
    name=ProfileName.evidence,
    description="Observed evidence with anchors (transcript lines, commits, files, URLs).",
    node_kinds=frozenset({"observation", "measurement", "quote", "artifact_ref"}),
    edge_kinds=frozenset({"supports", "contradicts", "supersedes"}),
    states=("observed", "reviewed", "accepted", "contradicted", "superseded"),
    initial=frozenset({"observed"}),
    transitions=table(
        observed={"reviewed", "contradicted", "superseded"},
        reviewed={"accepted", "contradicted", "superseded"},
        accepted={"contradicted", "superseded"},
        contradicted={"reviewed", "superseded"},
    ),
    retired_state="superseded",
    node_rules=(needs_anchor,),
)
