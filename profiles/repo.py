"""repo_architecture and repo_dataflow: claims about a codebase.

Law: a candidate becomes ``accepted`` only after an approving review receipt
(``review_node`` op) for that node, in the store or earlier in the same patch.
"""

from __future__ import annotations

from collections.abc import Iterable

from memgraph.documents import MemoryNode, ProfileName
from profiles.base import Profile, RuleContext, table

STATES = ("observed", "proposed", "accepted", "stale", "retired")
TRANSITIONS = table(
    observed={"proposed", "accepted", "stale", "retired"},
    proposed={"accepted", "stale", "retired"},
    accepted={"stale", "retired"},
    stale={"proposed", "accepted", "retired"},
    # a file that reappears (restored, re-added) is observed again, history kept
    retired={"observed"},
)
# A review (or a proposal) changes how far a scanned claim is trusted, not the
# claim: the package summaries over it stay fresh (a retirement still stales them).
TRUST_MOVES = frozenset(
    {
        ("observed", "proposed"),
        ("observed", "accepted"),
        ("proposed", "accepted"),
        ("stale", "proposed"),
        ("stale", "accepted"),
    }
)


def accepted_needs_review(
    before: MemoryNode | None, after: MemoryNode, ctx: RuleContext
) -> Iterable[str]:
    entering = after.lifecycle == "accepted" and (before is None or before.lifecycle != "accepted")
    if entering and not ctx.has_approving_review(after.id):
        yield (
            f"{after.id}: {after.profile.value} candidate cannot become accepted "
            "without an approving review receipt (review_node)"
        )


# Edges the repo scanner writes (profiles/repo_scan) beside the original five.
EDGE_KINDS = {
    "depends_on",
    "contains",
    "flows_to",
    "implements",
    "supports",
    "imports",
    "defines",
    "tests",
    "reads",
    "writes",
    "persists",
    "derives",
}


def _profile(name: ProfileName, description: str, kinds: set[str]) -> Profile:
    return Profile(
        name=name,
        description=description,
        node_kinds=frozenset(kinds),
        edge_kinds=frozenset(EDGE_KINDS),
        states=STATES,
        initial=frozenset({"observed", "proposed"}),
        transitions=TRANSITIONS,
        retired_state="retired",
        trust_moves=TRUST_MOVES,
        node_rules=(accepted_needs_review,),
    )


REPO_ARCHITECTURE = _profile(
    ProfileName.repo_architecture,
    "Architecture claims about a repository (modules, boundaries, decisions).",
    {
        "component",
        "module",
        "boundary",
        "decision",
        "invariant",
        "claim",
        # written by the repo scanner (profiles/repo_scan)
        "repo",
        "package",
        "binary",
        "schema",
        "runtime_contract",
        "test_seam",
        "history",  # the last commits' subjects per file (repo_scan/history.py)
    },
)
REPO_DATAFLOW = _profile(
    ProfileName.repo_dataflow,
    "Dataflow claims about a repository (sources, sinks, transforms, contracts).",
    {"source", "sink", "transform", "contract", "flow", "claim", "input", "store", "output"},
)
