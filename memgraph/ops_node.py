"""The graph operations on nodes and edges: each handler validates against the
working view, then records the effect and its receipt there (``commit_node``:
generic node invariants, lifecycle law, the profile's rules). Handlers return
problems; they never raise for bad input, so a patch reports every problem at once.
Dispatch: ``memgraph.ops_apply``; summaries and embeddings: ``memgraph.ops_derived``."""

from __future__ import annotations

from typing import Any

import profiles
from memgraph.documents import (
    AttachAnchor,
    ForcedSleep,
    MemoryNode,
    MergeNodes,
    RetireNode,
    ReviewNode,
    ReviseNode,
    TransitionNode,
    UpsertEdge,
    UpsertNode,
    evolve,
)
from memgraph.hashing import node_hash, same_node_content
from memgraph.validation import edge_endpoint_problems, node_problems
from memgraph.working import Working
from profiles import get_profile
from profiles.base import Profile

Problems = list[str]


def _profile_of(name: str) -> Profile:
    # the registry dict first: get_profile's enum coercion costs ~2 us per op
    found: Profile | None = profiles.REGISTRY.get(name)
    return found if found is not None else get_profile(name)


def _node_change(work: Working, before: MemoryNode | None, after: MemoryNode) -> Problems:
    """Generic node invariants, then lifecycle law, then the profile's rules."""
    problems = node_problems(after)
    if problems:
        return problems
    profile = _profile_of(after.profile)
    if before is not None and before.profile != after.profile:
        return [f"{after.id}: profile cannot change ({before.profile} -> {after.profile})"]
    current = before.lifecycle if before is not None else None
    if after.lifecycle not in profile.states or not profile.can_transition(
        current, after.lifecycle
    ):
        return [
            f"{after.id}: profile {profile.name.value}: illegal lifecycle transition "
            f"{current or '(new)'} -> {after.lifecycle}"
        ]
    for rule in profile.node_rules:
        problems.extend(rule(before, after, work))
    return problems


def _trust_only(before: MemoryNode | None, after: MemoryNode) -> bool:
    """True when ``after`` differs from ``before`` only by one of its profile's
    trust moves (and bookkeeping): what the node claims is unchanged."""
    if before is None or before.lifecycle == after.lifecycle:
        return False
    if (before.lifecycle, after.lifecycle) not in _profile_of(after.profile).trust_moves:
        return False
    return node_hash(evolve(after, {"lifecycle": before.lifecycle})) == node_hash(before)


def commit_node(
    work: Working, op: str, before: MemoryNode | None, after: MemoryNode, reason: str, **extra: Any
) -> Problems:
    """Record ``after`` (and its receipt) when it passes ``_node_change``; else its problems."""
    problems = _node_change(work, before, after)
    if problems:
        return problems
    work.set_node(after, claim_changed=not _trust_only(before, after))
    details = {"hash": node_hash(after), **extra}
    work.receipt(
        op,
        after.id,
        "node",
        profile=after.profile.value,
        before=before.lifecycle if before else None,
        after=after.lifecycle,
        reason=reason,
        details=details,
    )
    return []


def existing_node(work: Working, node_id: str) -> tuple[MemoryNode | None, Problems]:
    """The node in the working view, or None and the problem saying it is absent."""
    node = work.node(node_id)
    if node is None:
        return None, [f"{node_id}: no such node"]
    return node, []


def upsert_node(work: Working, op: UpsertNode) -> Problems:
    node = op.node
    before = work.node(node.id)
    if before is not None and same_node_content(before, node):
        return []  # re-ingest: nothing changes, no receipt
    update: dict[str, Any] = {"updated_at": work.now}
    if node.ingested_at is None:
        update["ingested_at"] = work.now
    if before is not None:
        update["created_at"] = before.created_at
    return commit_node(work, "upsert_node", before, evolve(node, update), "")


def upsert_edge(work: Working, op: UpsertEdge) -> Problems:
    edge = op.edge
    problems = edge_endpoint_problems(
        edge, work.node_exists(edge.source_id), work.node_exists(edge.target_id)
    )
    if problems:
        return problems
    profile = _profile_of(edge.profile)
    if edge.kind not in profile.edge_kinds:
        return [f"{edge.id}: edge kind {edge.kind!r} is not part of profile {profile.name.value}"]
    if edge.lifecycle not in profile.allowed_edge_states:
        return [f"{edge.id}: edge state {edge.lifecycle!r} unknown to {profile.name.value}"]
    for rule in profile.edge_rules:
        problems.extend(rule(edge, work))
    if problems:
        return problems
    before = work.edge(edge.id)
    if before is not None and before.model_dump(exclude={"ingested_at"}) == edge.model_dump(
        exclude={"ingested_at"}
    ):
        return []
    if edge.ingested_at is None:
        edge = evolve(edge, {"ingested_at": work.now})
    if before is not None:
        work.changed_ids.add(edge.id)
    work.set_edge(edge)
    work.receipt(
        "upsert_edge",
        edge.id,
        "edge",
        profile=edge.profile.value,
        before=before.lifecycle if before else None,
        after=edge.lifecycle,
    )
    return []


def retire_node(work: Working, op: RetireNode) -> Problems:
    before, problems = existing_node(work, op.node_id)
    if before is None:
        return problems
    profile = get_profile(before.profile)
    if before.lifecycle == profile.retired_state:
        return []  # already retired: retiring again changes nothing, no receipt
    after = before.model_copy(
        update={
            "lifecycle": profile.retired_state,
            "valid_to": before.valid_to or work.now,
            "updated_at": work.now,
        }
    )
    return commit_node(work, "retire_node", before, after, op.reason)


def revise_node(work: Working, op: ReviseNode) -> Problems:
    before, problems = existing_node(work, op.node_id)
    if before is None:
        return problems
    changes = op.changes.model_dump(exclude_none=True)
    if not changes:
        return [f"{op.node_id}: revision changes nothing"]
    if before.superseded_by:
        return [f"{op.node_id}: was merged into {before.superseded_by}; revise that node"]
    if all(getattr(before, k) == v for k, v in changes.items()):
        return []  # same values: nothing to record
    profile = get_profile(before.profile)
    update: dict[str, Any] = {**changes, "updated_at": work.now}
    if profile.revised_state is not None and profile.can_transition(
        before.lifecycle, profile.revised_state
    ):
        update["lifecycle"] = profile.revised_state
    after = evolve(before, update)
    return commit_node(work, "revise_node", before, after, op.reason, fields=sorted(changes))


def transition_node(work: Working, op: TransitionNode) -> Problems:
    before, problems = existing_node(work, op.node_id)
    if before is None:
        return problems
    if op.from_state is not None and before.lifecycle != op.from_state:
        return [f"{op.node_id}: is {before.lifecycle}, no longer {op.from_state}"]
    if before.lifecycle == op.to_state:
        return []  # already there: no change, no receipt
    after = evolve(before, {"lifecycle": op.to_state, "updated_at": work.now})
    return commit_node(work, "transition_node", before, after, op.reason)


def review_node(work: Working, op: ReviewNode) -> Problems:
    node, problems = existing_node(work, op.node_id)
    if node is None:
        return problems
    if op.verdict == "approve":
        work.approved.add(node.id)
        work.rejected.discard(node.id)
    else:
        work.rejected.add(node.id)
        work.approved.discard(node.id)
    work.receipt(
        "review_node",
        node.id,
        "node",
        profile=node.profile.value,
        before=node.lifecycle,
        after=node.lifecycle,
        reason=op.reason,
        details={"verdict": op.verdict, "reviewer": op.reviewer},
    )
    return []


def merge_nodes(work: Working, op: MergeNodes) -> Problems:
    """Fold sources into target: the target gains their anchors and source
    hashes; each source is retired with ``superseded_by`` pointing at it."""
    target, problems = existing_node(work, op.target_id)
    if target is None:
        return problems
    if op.target_id in op.source_ids:
        return [f"{op.target_id}: cannot merge a node into itself"]
    if len(set(op.source_ids)) != len(op.source_ids):
        return [f"{op.target_id}: source_ids name a node more than once"]
    profile = get_profile(target.profile)
    if target.superseded_by or target.lifecycle == profile.retired_state:
        return [f"{op.target_id}: cannot merge into a retired or merged node"]
    sources: list[MemoryNode] = []
    for sid in op.source_ids:
        src, errs = existing_node(work, sid)
        if src is None:
            problems.extend(errs)
        elif src.profile != target.profile:
            problems.append(
                f"{sid}: cannot merge across profiles ({src.profile} -> {target.profile})"
            )
        elif src.superseded_by:
            problems.append(f"{sid}: already merged into {src.superseded_by}")
        else:
            sources.append(src)
    if problems:
        return problems
    anchors = {a.id: a for a in target.anchors}
    hashes = list(target.source_hashes)
    for src in sources:
        for a in src.anchors:
            anchors.setdefault(a.id, a)
        hashes.extend(h for h in src.source_hashes if h not in hashes)
        retired = src.model_copy(
            update={
                "lifecycle": profile.retired_state,
                "superseded_by": target.id,
                "valid_to": src.valid_to or work.now,
                "updated_at": work.now,
            }
        )
        problems.extend(
            commit_node(work, "merge_nodes", src, retired, op.reason, merged_into=target.id)
        )
    merged = target.model_copy(
        update={"anchors": list(anchors.values()), "source_hashes": hashes, "updated_at": work.now}
    )
    problems.extend(
        commit_node(work, "merge_nodes", target, merged, op.reason, merged_from=list(op.source_ids))
    )
    return problems


def attach_anchor(work: Working, op: AttachAnchor) -> Problems:
    before, problems = existing_node(work, op.node_id)
    if before is None:
        return problems
    if any(a.id == op.anchor.id for a in before.anchors):
        return []
    after = before.model_copy(
        update={"anchors": [*before.anchors, op.anchor], "updated_at": work.now}
    )
    return commit_node(work, "attach_anchor", before, after, "", anchor_id=op.anchor.id)


def forced_sleep(work: Working, op: ForcedSleep) -> Problems:
    """Every open node of the domain in a profile that takes part in forced sleep
    (``Profile.sleep_open_states``) must be given a disposition; each is a
    transition with its own receipt."""
    sleepers = profiles.sleep_profiles()
    names = "/".join(p.name.value for p in sleepers)
    open_nodes = [
        n
        for p in sleepers
        for n in work.nodes_in_domain(op.domain_id, p.name.value, p.sleep_open_states)
    ]
    open_ids = {n.id for n in open_nodes}
    unaccounted = sorted(open_ids - op.dispositions.keys())
    problems: Problems = []
    if unaccounted:
        problems.append(
            f"forced sleep leaves {len(unaccounted)} {names} node(s) unaccounted: "
            + ", ".join(unaccounted[:10])
        )
    extra = sorted(op.dispositions.keys() - open_ids)
    if extra:
        problems.append(
            f"dispositions name nodes that are not open {names} nodes of "
            f"{op.domain_id}: " + ", ".join(extra[:10])
        )
    if problems:
        return problems
    for node in sorted(open_nodes, key=lambda n: n.id):
        state = op.dispositions[node.id].value
        after = node.model_copy(update={"lifecycle": state, "updated_at": work.now})
        problems.extend(commit_node(work, "forced_sleep", node, after, op.reason))
    return problems
