"""Review: the receipts that turn proposals into trusted memory.

Generic over every profile whose law waits for a reviewer: role_self
``proposed``, repo_architecture / repo_dataflow ``observed``, ``proposed`` and
``stale`` (an accepted claim whose source changed: the scanner asks again),
evidence ``observed`` and ``reviewed``. ``accept`` writes one patch: a
``review_node`` receipt (verdict approve) and the transitions to ``accepted``
(evidence passes through ``reviewed``); ``reject`` writes a rejecting review and
retires the node. Both go through the engine, so a repo claim still cannot be
accepted without the review receipt the same patch carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memgraph.documents import GraphOp, MemoryNode, ReviewNode, TransitionNode, utcnow
from memgraph.engine import apply_patch, new_patch, reject_patch
from memgraph.errors import NotFound, PatchRejected, UsageError
from memgraph.store.protocol import Store

# profile -> (states waiting for review, path of states to "accepted", rejected state)
REVIEWABLE: dict[str, tuple[frozenset[str], dict[str, tuple[str, ...]], str]] = {
    "role_self": (frozenset({"proposed"}), {"proposed": ("accepted",)}, "retired"),
    "repo_architecture": (
        frozenset({"observed", "proposed", "stale"}),
        {"observed": ("accepted",), "proposed": ("accepted",), "stale": ("accepted",)},
        "retired",
    ),
    "repo_dataflow": (
        frozenset({"observed", "proposed", "stale"}),
        {"observed": ("accepted",), "proposed": ("accepted",), "stale": ("accepted",)},
        "retired",
    ),
    "evidence": (
        frozenset({"observed", "reviewed"}),
        {"observed": ("reviewed", "accepted"), "reviewed": ("accepted",)},
        "contradicted",
    ),
}
# The repo scanner's own records, not claims about the code: the ``repo`` node (its
# manifest of file hashes) and the ``history`` node (the last commits' subjects) are
# rewritten by every scan that changes them. Accepting one made every later scan fail
# ("illegal lifecycle transition accepted -> observed"); rejecting one retired the
# repo and the next scan started a second repo key beside it.
NOT_CLAIMS = frozenset({("repo_architecture", "repo"), ("repo_architecture", "history")})


@dataclass(frozen=True)
class PendingReview:
    id: str
    profile: str
    kind: str
    lifecycle: str
    domain_id: str
    title: str
    since: datetime

    def line(self) -> str:
        from memgraph.dates import show

        when = show(self.since)  # local time with its zone, as every listing prints it
        # an agent wrote the title: an escape sequence must not clear, recolour or
        # hide text on the reviewer's terminal (shown as \x1b, like the rest)
        title = "".join(
            c if c.isprintable() else repr(c)[1:-1] for c in " ".join(self.title.split())
        )[:80]
        return f"{self.id}  {self.profile}/{self.kind}  {self.lifecycle}  {when}  {title}"


@dataclass(frozen=True)
class ReviewResult:
    id: str
    profile: str
    verdict: str
    before: str
    after: str
    receipts: list[str]

    def line(self) -> str:
        word = "accepted" if self.verdict == "approve" else "rejected"
        return f"{word} {self.id} {self.profile}: {self.before} -> {self.after}"


def is_pending(node: MemoryNode) -> bool:
    spec = REVIEWABLE.get(node.profile.value)
    if spec is None or (node.profile.value, node.kind) in NOT_CLAIMS:
        return False
    return node.lifecycle in spec[0] and not node.superseded_by


def list_pending(
    store: Store, profile: str | None = None, domain_id: str | None = None, limit: int = 200
) -> list[PendingReview]:
    """Nodes waiting for a reviewer, oldest first."""
    if profile is not None and profile not in REVIEWABLE:
        raise UsageError(f"nothing to review in {profile!r}: use one of {', '.join(REVIEWABLE)}")
    found: list[PendingReview] = []
    for name in [profile] if profile else list(REVIEWABLE):
        for node in store.iter_nodes(profile=name):
            if not is_pending(node) or (domain_id and node.domain_id != domain_id):
                continue
            found.append(
                PendingReview(
                    node.id,
                    node.profile.value,
                    node.kind,
                    node.lifecycle,
                    node.domain_id,
                    node.title or node.claim,
                    node.updated_at,
                )
            )
    found.sort(key=lambda p: (p.since, p.id))
    return found[:limit]


def domain_has_nodes(store: Store, domain_id: str) -> bool:
    """Whether any node of any profile lives in ``domain_id`` (a mistyped
    ``--domain`` is told apart from a domain with nothing waiting)."""
    with store.reader() as reader:
        return bool(reader.nodes_in_domain(domain_id))


def _current(store: Store, node_id: str) -> MemoryNode | None:
    with store.reader() as reader:
        return reader.get_nodes([node_id]).get(node_id)


def _pending_node(store: Store, node_id: str) -> MemoryNode:
    node = _current(store, node_id)
    if node is None:
        raise NotFound(f"no node {node_id!r}; see `memgraph review list`")
    if node.profile.value not in REVIEWABLE:
        raise UsageError(f"{node_id} is {node.profile.value} memory: nothing to review")
    if (node.profile.value, node.kind) in NOT_CLAIMS:
        raise UsageError(
            f"{node_id} is the repo scanner's own {node.kind} record, not a claim: "
            "nothing to review (review its modules, schemas, contracts...)"
        )
    if not is_pending(node):
        raise UsageError(f"{node_id} is {node.lifecycle}, not waiting for review")
    return node


def review(
    store: Store,
    node_id: str,
    approve: bool,
    reviewer: str = "operator",
    reason: str = "",
    now: datetime | None = None,
) -> ReviewResult:
    """Accept (approve + transitions to accepted) or reject (reject + retire)."""
    node = _pending_node(store, node_id)
    _, paths, rejected_state = REVIEWABLE[node.profile.value]
    verdict = "approve" if approve else "reject"
    ops: list[GraphOp] = [
        ReviewNode(node_id=node.id, reviewer=reviewer, verdict=verdict, reason=reason)
    ]
    targets = paths[node.lifecycle] if approve else (rejected_state,)
    # each step names the state it leaves: a reviewer on another machine who decided
    # between our read and our write makes this patch fail, never a second verdict
    # (accepted, then retired by a reject that read "proposed")
    ops += [
        TransitionNode(node_id=node.id, to_state=s, from_state=f, reason=reason)
        for f, s in zip((node.lifecycle, *targets), targets, strict=False)
    ]
    patch = new_patch(ops, proposer=reviewer, reason=reason or f"review {verdict}")
    try:
        result = apply_patch(store, patch, now or utcnow())
    except PatchRejected as exc:
        moved = _current(store, node.id)
        if moved is not None and moved.lifecycle != node.lifecycle:
            raise UsageError(
                f"{node_id} is {moved.lifecycle}, not waiting for review"
                " (decided meanwhile by another reviewer)"
            ) from None
        reject_patch(store, patch, exc.problems, now or utcnow())  # law: on record
        raise
    return ReviewResult(
        node.id,
        node.profile.value,
        verdict,
        node.lifecycle,
        targets[-1],
        [r.id for r in result.receipts],
    )
