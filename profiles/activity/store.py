"""Windows persisted as a ``window`` node plus one ``in_window`` edge per artifact.

A window node's id is derived from its window id AND its member set, so a
recomputation that yields the same windows yields the same ids (a no-op), and
a window whose membership changed is a new node: the old one transitions to
``superseded`` (its edges too), never deleted. A membership seen before comes
back by transitioning ``superseded -> current``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memgraph.documents import (
    GraphOp,
    MemoryEdge,
    MemoryNode,
    ProfileName,
    TransitionNode,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import digest, edge_id, node_id
from memgraph.store.protocol import PeriodQuery, Store
from profiles.activity.windows import Window

PROPOSER = "activity"
DOMAIN = "activity:windows"
PATCH_OPS = 5000  # ops per patch; a patch always holds whole regions


def window_node_id(window: Window) -> str:
    return node_id("activity", "window", window.id, digest(*sorted(window.node_ids)))


def in_window_edge_id(window_node: str, artifact_id: str) -> str:
    return edge_id("in_window", window_node, artifact_id)


def window_node(window: Window, gap: timedelta) -> MemoryNode:
    counts: dict[str, int] = {}
    for item in window.items:
        counts[item.type] = counts.get(item.type, 0) + 1
    sessions = sorted({i.session_id for i in window.items if i.session_id})
    parts = [f"{n} {t}{'s' if n != 1 else ''}" for t, n in sorted(counts.items())]
    where = f" in {', '.join(window.repos)}" if window.repos else ""
    title = f"{window.id}: {', '.join(parts)}{where}"
    return MemoryNode(
        id=window_node_id(window),
        domain_id=DOMAIN,
        profile=ProfileName.activity,
        kind="window",
        title=title[:200],
        claim=title,
        lifecycle="current",
        created_at=window.start,
        updated_at=window.start,
        valid_from=window.start,
        valid_to=window.end,
        confidence=1.0,
        attributes={
            "window_id": window.id,
            "start": window.start.isoformat(),
            "end": window.end.isoformat(),
            "gap_minutes": gap.total_seconds() / 60,
            "repos": list(window.repos),
            "sessions": sessions,
            "counts": counts,
            "members": list(window.node_ids),
            "artifacts": [i.as_json() for i in window.items],
        },
    )


def in_window_edge(
    window_nid: str, wid: str, artifact_id: str, kind: str, when: datetime, state: str
) -> MemoryEdge:
    return MemoryEdge(
        id=in_window_edge_id(window_nid, artifact_id),
        source_id=window_nid,
        target_id=artifact_id,
        kind="in_window",
        profile=ProfileName.activity,
        lifecycle=state,
        confidence=1.0,
        valid_from=when,
        attributes={"window_id": wid, "type": kind},
    )


def _edges(node: MemoryNode, state: str) -> list[MemoryEdge]:
    attrs = node.attributes
    members = attrs.get("members") or []
    arts = attrs.get("artifacts") or []
    edges: list[MemoryEdge] = []
    for member, art in zip(members, arts, strict=False):
        when = datetime.fromisoformat(str(art.get("valid_time")).replace("Z", "+00:00"))
        edges.append(
            in_window_edge(
                node.id, str(attrs.get("window_id")), member, str(art.get("type")), when, state
            )
        )
    return edges


@dataclass
class StoreStats:
    created: int = 0  # windows written (new or back from superseded)
    superseded: int = 0
    unchanged: int = 0
    patches: int = 0
    changed_sessions: set[str] = field(default_factory=set)
    changed_windows: set[str] = field(default_factory=set)  # window ids written or superseded
    # planned, but found so when written: another run over the same store got there first
    already_done: int = 0


def current_windows(store: Store, lo: datetime, hi: datetime) -> list[MemoryNode]:
    """Current window nodes overlapping [lo, hi]."""
    return store.nodes_in_period(
        PeriodQuery(
            "activity",
            "window",
            lifecycle="current",
            starts_at_or_before=hi,
            ends_at_or_after=lo,
        )
    )


def _sessions(node_or_window: MemoryNode | Window) -> set[str]:
    if isinstance(node_or_window, Window):
        return {i.session_id for i in node_or_window.items if i.session_id}
    return {s for s in node_or_window.attributes.get("sessions") or [] if isinstance(s, str)}


def store_windows(
    store: Store,
    regions: Sequence[Sequence[Window]],
    old: Iterable[MemoryNode],
    gap: timedelta,
) -> StoreStats:
    """Make ``regions`` the current windows where ``old`` (current, same span) were.

    ``regions`` are the windows of each coarse window, in time order. Unchanged
    windows write nothing; each patch holds whole regions, so a region's old
    and new windows switch together.
    """
    stats = StoreStats()
    olds = {n.id: n for n in old}
    wanted: set[str] = set()
    ops: list[GraphOp] = []
    created: list[str] = []  # window node ids in ``ops``, written ...
    superseded: list[str] = []  # ... and superseded
    gap_minutes = gap.total_seconds() / 60

    def flush() -> None:
        if ops:
            patch = new_patch(list(ops), proposer=PROPOSER, reason="activity windows")
            written = {r.target_id for r in apply_patch(store, patch).receipts}
            stats.patches += 1
            # a window with no receipt was already so: another run wrote it meanwhile
            late = [sum(n not in written for n in ids) for ids in (created, superseded)]
            stats.created -= late[0]
            stats.superseded -= late[1]
            stats.already_done += sum(late)
            ops.clear()
            created.clear()
            superseded.clear()

    for region in regions:
        region_start = region[0].start
        region_end = max(w.end for w in region)
        for window in region:
            nid = window_node_id(window)
            wanted.add(nid)
            prior = olds.get(nid)
            if prior is not None and prior.attributes.get("gap_minutes") == gap_minutes:
                stats.unchanged += 1
                continue
            node = window_node(window, gap)
            ops.append(UpsertNode(node=node))
            ops.extend(UpsertEdge(edge=e) for e in _edges(node, "current"))
            created.append(node.id)
            stats.created += 1
            stats.changed_sessions |= _sessions(window)
            stats.changed_windows.add(window.id)
        for oid, prior in list(olds.items()):
            vf, vt = prior.valid_from, prior.valid_to
            if oid in wanted or vf is None or vt is None:
                continue
            if vf <= region_end and vt >= region_start:
                ops.extend(_supersede(prior, stats))
                superseded.append(oid)
                del olds[oid]
        if len(ops) >= PATCH_OPS:
            flush()
    for oid, prior in olds.items():
        if oid not in wanted:
            ops.extend(_supersede(prior, stats))
            superseded.append(oid)
    flush()
    return stats


def _supersede(prior: MemoryNode, stats: StoreStats) -> list[GraphOp]:
    stats.superseded += 1
    stats.changed_sessions |= _sessions(prior)
    stats.changed_windows.add(str(prior.attributes.get("window_id")))
    reason = "recomputed: membership changed"
    ops: list[GraphOp] = [TransitionNode(node_id=prior.id, to_state="superseded", reason=reason)]
    ops.extend(UpsertEdge(edge=e) for e in _edges(prior, "superseded"))
    return ops


def node_to_json(node: MemoryNode) -> dict[str, Any]:
    """A stored window as its ``--json`` line."""
    attrs = node.attributes
    start = node.valid_from or datetime.fromtimestamp(0, UTC)
    end = node.valid_to or start
    return {
        "id": attrs.get("window_id"),
        "start": start.isoformat().replace("+00:00", "Z"),
        "end": end.isoformat().replace("+00:00", "Z"),
        "artifacts": list(attrs.get("artifacts") or []),
    }
