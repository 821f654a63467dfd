"""Lifecycle rules the night pass applies to long-lived agent memory.

- incubation: re-mentioned in later sessions -> ``deepening`` (and, in at
  least ``promote_sessions`` sessions with salience >= 0.5, ``promoted``); not
  re-mentioned for ``cool_after`` -> ``cooling``; cooling for ``retire_after``
  -> ``retired``. A re-mention also records ``mentioned_in`` (revise).
- agency_pressure: an ``active`` pressure that is salient (or has stayed active
  for ``obligate_after``, or was re-mentioned) surfaces as ``obligated``; an
  active/obligated one untouched for ``idle_after`` ``cooled``.
- candidate_intervention: ``queued`` for ``defer_after`` -> ``deferred``;
  ``deferred`` for ``drop_after`` -> ``retired``.

Ages are measured from ``updated_at`` (the last change), so a rule that fired
does not fire again on the next run: a rerun with nothing new plans nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from memgraph.documents import GraphOp, MemoryNode, NodeRevision, ReviseNode, TransitionNode
from profiles.sleep.forced import node_text, tokens
from profiles.sleep.policy import SleepPolicy


@dataclass(frozen=True)
class Mention:
    session_id: str
    text_tokens: frozenset[str]


def mentioned_in(node: MemoryNode, mentions: Iterable[Mention], policy: SleepPolicy) -> set[str]:
    """Sessions (other than the node's own) whose texts repeat enough of its words."""
    own = str(node.attributes.get("session_id") or "")
    idea = tokens(node_text(node))
    if len(idea) < 2:
        return set()
    need = max(2, int(len(idea) * policy.mention_overlap + 0.999))
    return {
        m.session_id
        for m in mentions
        if m.session_id and m.session_id != own and len(idea & m.text_tokens) >= need
    }


def _t(node: MemoryNode, state: str, reason: str) -> TransitionNode:
    return TransitionNode(node_id=node.id, to_state=state, reason=reason)


def incubation_ops(
    nodes: Iterable[MemoryNode],
    mentions: list[Mention],
    now: datetime,
    policy: SleepPolicy,
) -> list[GraphOp]:
    ops: list[GraphOp] = []
    for n in sorted(nodes, key=lambda n: n.id):
        if n.lifecycle not in ("active", "deepening", "cooling"):
            continue
        known = {str(s) for s in n.attributes.get("mentioned_in") or []}
        fresh = mentioned_in(n, mentions, policy) - known
        age = now - n.updated_at
        if fresh:
            sessions = sorted(known | fresh)
            attrs = {**n.attributes, "mentioned_in": sessions}
            ops.append(
                ReviseNode(
                    node_id=n.id,
                    changes=NodeRevision(attributes=attrs),
                    reason=f"re-mentioned in {len(fresh)} later session(s)",
                )
            )
            if len(sessions) >= policy.promote_sessions and n.salience >= 0.5:
                if n.lifecycle == "cooling":
                    ops.append(_t(n, "deepening", "re-mentioned after cooling"))
                ops.append(_t(n, "promoted", f"re-mentioned in {len(sessions)} sessions"))
            elif n.lifecycle != "deepening":
                ops.append(_t(n, "deepening", "re-mentioned in a later session"))
        elif n.lifecycle == "cooling" and age >= policy.retire_after:
            ops.append(_t(n, "retired", f"cooling for {age.days} days without a re-mention"))
        elif n.lifecycle in ("active", "deepening") and age >= policy.cool_after:
            ops.append(_t(n, "cooling", f"no re-mention for {age.days} days"))
    return ops


def pressure_ops(
    nodes: Iterable[MemoryNode], mentions: list[Mention], now: datetime, policy: SleepPolicy
) -> list[GraphOp]:
    ops: list[GraphOp] = []
    for n in sorted(nodes, key=lambda n: n.id):
        age = now - n.updated_at
        if n.lifecycle not in ("active", "obligated"):
            continue
        again = bool(mentioned_in(n, mentions, policy))
        if n.lifecycle == "active" and (
            n.salience >= policy.obligate_salience or age >= policy.obligate_after or again
        ):
            ops.append(_t(n, "obligated", "pressure surfaces as an obligation"))
        elif age >= policy.idle_after and not again:
            ops.append(_t(n, "cooled", f"idle for {age.days} days"))
    return ops


def intervention_ops(
    nodes: Iterable[MemoryNode], now: datetime, policy: SleepPolicy
) -> list[GraphOp]:
    ops: list[GraphOp] = []
    for n in sorted(nodes, key=lambda n: n.id):
        age = now - n.updated_at
        if n.lifecycle == "queued" and age >= policy.defer_after:
            ops.append(_t(n, "deferred", f"queued for {age.days} days"))
        elif n.lifecycle == "deferred" and age >= policy.drop_after:
            ops.append(_t(n, "retired", f"deferred for {age.days} days"))
    return ops


def mentions_from(nodes: Iterable[MemoryNode]) -> list[Mention]:
    return [Mention(str(n.attributes.get("session_id") or ""), tokens(node_text(n))) for n in nodes]


def states_of(nodes: Iterable[MemoryNode]) -> Mapping[str, str]:
    return {n.id: n.lifecycle for n in nodes}
