"""Property: any sequence of patches either applies with receipts or is
rejected leaving the store unchanged; the store stays valid throughout.

A hypothesis state machine throws random op batches (mostly plausible, often
illegal: missing ids, illegal transitions, repo truth in role memory, forced
sleep leaving nodes out...) at each backend.
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from memgraph.documents import (
    AnchorKind,
    AttachAnchor,
    ForcedSleep,
    MarkStale,
    MemoryAnchor,
    MemoryEdge,
    MemoryEmbeddingManifest,
    MemoryGraphSnapshot,
    MemoryNode,
    MemorySummary,
    MergeNodes,
    NodeRevision,
    ProfileName,
    RefreshEmbedding,
    RetireNode,
    ReviewNode,
    ReviseNode,
    SleepDisposition,
    SummarizeCluster,
    TransitionNode,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import PatchRejected
from memgraph.ids import edge_id, node_id
from memgraph.store import Store
from memgraph.store.memory import MemoryStore
from memgraph.store.sqlite import SQLiteStore
from memgraph.validation import validate_snapshot
from profiles import REGISTRY

PROFILES = ["repo_architecture", "short_term", "role_self", "evidence", "incubation"]
KEYS = ["k0", "k1", "k2", "k3"]
SUMMARIES = ["s0", "s1", "s2"]
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def nid(profile: str, key: str) -> str:
    return node_id(profile, "x", key)


node_ref = st.builds(nid, st.sampled_from(PROFILES), st.sampled_from(KEYS))
summary_ref = st.sampled_from(SUMMARIES).map(lambda s: f"s-{s}")
anchor = st.builds(
    lambda kind, ref: MemoryAnchor(id=f"a-{kind.value}-{ref}", kind=kind, ref=ref),
    st.sampled_from([AnchorKind.url, AnchorKind.commit, AnchorKind.transcript]),
    st.sampled_from(["r1", "r2"]),
)


@st.composite
def nodes(draw: st.DrawFn) -> MemoryNode:
    profile = draw(st.sampled_from(PROFILES))
    p = REGISTRY[ProfileName(profile)]
    kinds = sorted(p.node_kinds)
    at = T0 + timedelta(minutes=draw(st.integers(0, 100)))
    return MemoryNode(
        id=nid(profile, draw(st.sampled_from(KEYS))),
        domain_id=draw(st.sampled_from(["d1", "d2"])),
        profile=ProfileName(profile),
        kind=draw(st.sampled_from([*kinds, "bogus"]) if draw(st.booleans()) else st.just(kinds[0])),
        title=draw(st.sampled_from(["alpha", "beta"])),
        claim=draw(st.sampled_from(["one", "two", "three"])),
        lifecycle=draw(
            st.sampled_from(list(p.states))
            if draw(st.booleans())
            else st.just(sorted(p.initial)[0])
        ),
        anchors=draw(st.lists(anchor, max_size=2, unique_by=lambda a: a.id)),
        source_hashes=draw(st.lists(st.sampled_from(["h1", "h2", "h3"]), max_size=2)),
        attributes=draw(st.sampled_from([{}, {"tone": "dry"}, {"repo": "memgraph"}])),
        created_at=at,
        updated_at=at,
    )


@st.composite
def edges(draw: st.DrawFn) -> MemoryEdge:
    profile = draw(st.sampled_from(PROFILES))
    kind = sorted(REGISTRY[ProfileName(profile)].edge_kinds)[0]
    src, dst = draw(node_ref), draw(node_ref)
    return MemoryEdge(
        id=edge_id(kind, src, dst),
        source_id=src,
        target_id=dst,
        kind=kind,
        profile=ProfileName(profile),
        lifecycle=sorted(REGISTRY[ProfileName(profile)].initial)[0],
        claim=draw(st.sampled_from(["", "x"])),
    )


@st.composite
def summaries(draw: st.DrawFn) -> MemorySummary:
    return MemorySummary(
        id=draw(summary_ref),
        domain_id="d1",
        covers_node_ids=draw(st.lists(node_ref, max_size=2, unique=True)),
        covers_summary_ids=draw(st.lists(summary_ref, max_size=1)),
        target="t",
        claim=draw(st.sampled_from(["c", ""])),
        question="q",
    )


states = st.sampled_from(sorted({s for p in PROFILES for s in REGISTRY[ProfileName(p)].states}))

ops = st.one_of(
    st.builds(UpsertNode, node=nodes()),
    st.builds(UpsertEdge, edge=edges()),
    st.builds(RetireNode, node_id=node_ref),
    st.builds(
        ReviseNode,
        node_id=node_ref,
        changes=st.builds(NodeRevision, claim=st.sampled_from(["one", "r"])),
    ),
    st.builds(TransitionNode, node_id=node_ref, to_state=states),
    st.builds(
        ReviewNode,
        node_id=node_ref,
        reviewer=st.just("rev"),
        verdict=st.sampled_from(["approve", "reject"]),
    ),
    st.builds(
        MergeNodes, source_ids=st.lists(node_ref, min_size=1, max_size=2), target_id=node_ref
    ),
    st.builds(AttachAnchor, node_id=node_ref, anchor=anchor),
    st.builds(SummarizeCluster, summary=summaries()),
    st.builds(
        MarkStale, target_id=node_ref | summary_ref, source_hashes=st.none() | st.just(["h9"])
    ),
    st.builds(
        RefreshEmbedding,
        manifest=st.builds(
            MemoryEmbeddingManifest,
            node_id=node_ref,
            model=st.just("hash"),
            dimension=st.just(4),
            source_hash=st.sampled_from(["a", "b"]),
            embedded_at=st.just(T0),
        ),
    ),
    st.builds(
        ForcedSleep,
        domain_id=st.sampled_from(["d1", "d2"]),
        dispositions=st.dictionaries(
            st.builds(nid, st.just("short_term"), st.sampled_from(KEYS)),
            st.sampled_from(SleepDisposition),
            max_size=4,
        ),
    ),
)


def _comparable(snap: MemoryGraphSnapshot) -> str:
    return snap.model_dump_json()


class PatchMachine(RuleBasedStateMachine):
    backend = "memory"

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="mg-prop-"))
        self.store: Store = (
            SQLiteStore(self.tmp / "p.db") if self.backend == "sqlite" else MemoryStore()
        )
        self.applied = 0
        self.rejected = 0
        self.clock = T0

    @rule(batch=st.lists(ops, min_size=1, max_size=3))
    def apply_batch(self, batch: list[Any]) -> None:
        self._apply(batch)

    @rule(
        profile=st.sampled_from(PROFILES),
        key=st.sampled_from(KEYS),
        domain=st.sampled_from(["d1", "d2"]),
        extra=ops,
    )
    def grow(self, profile: str, key: str, domain: str, extra: Any) -> None:
        """A valid new node (so the graph grows), then one random op."""
        p = REGISTRY[ProfileName(profile)]
        node = MemoryNode(
            id=nid(profile, key),
            domain_id=domain,
            profile=ProfileName(profile),
            kind=sorted(p.node_kinds)[0],
            claim="seed",
            lifecycle=sorted(p.initial)[0],
            anchors=[MemoryAnchor(id="a-seed", kind=AnchorKind.url, ref="seed")],
            created_at=self.clock,
            updated_at=self.clock,
        )
        self._apply([UpsertNode(node=node)])
        self._apply([extra])

    def _apply(self, batch: list[Any]) -> None:
        before = self.store.export_snapshot()
        self.clock += timedelta(seconds=1)
        patch = new_patch(batch, proposer="prop")
        try:
            result = apply_patch(self.store, patch, now=self.clock)
        except PatchRejected as exc:
            self.rejected += 1
            event("rejected")
            assert exc.problems and all(p.startswith("ops[") for p in exc.problems)
            assert _comparable(self.store.export_snapshot()) == _comparable(before)
            return
        self.applied += 1
        after = self.store.export_snapshot()
        event("applied" if result.receipts else "no-op")
        if not result.receipts:
            assert _comparable(after) == _comparable(before)  # a no-op writes nothing
            return
        # receipts: exactly the old ones, then this patch's, in order
        assert after.receipts == [*before.receipts, *result.receipts]
        assert all(r.patch_id == patch.id and r.at == self.clock for r in result.receipts)
        # nothing deleted: every node/edge/summary id survives
        assert {n.id for n in before.nodes} <= {n.id for n in after.nodes}
        assert {e.id for e in before.edges} <= {e.id for e in after.edges}
        assert {s.id for s in before.summaries} <= {s.id for s in after.summaries}
        # every changed node's previous version went to history
        old = {n.id: n for n in before.nodes}
        new_history = after.node_history[len(before.node_history) :]
        assert before.node_history == after.node_history[: len(before.node_history)]
        changed = {n.id for n in after.nodes if n.id in old and n != old[n.id]}
        assert changed == {h.id for h in new_history}
        # ... and so did every replaced edge and summary
        for kind in ("edges", "summaries"):
            hist = "edge_history" if kind == "edges" else "summary_history"
            was = {d.id: d for d in getattr(before, kind)}
            prior, now_hist = getattr(before, hist), getattr(after, hist)
            assert now_hist[: len(prior)] == prior
            replaced = {d.id for d in getattr(after, kind) if d.id in was and d != was[d.id]}
            assert replaced == {h.id for h in now_hist[len(prior) :]}
            assert all(h == was[h.id] for h in now_hist[len(prior) :])
        assert [p.id for p in after.patches if p.id == patch.id] == [patch.id]

    @invariant()
    def store_stays_valid(self) -> None:
        snap = self.store.export_snapshot()
        assert validate_snapshot(snap) == []
        assert len({r.id for r in snap.receipts}) == len(snap.receipts)

    def teardown(self) -> None:
        self.store.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


class SQLitePatchMachine(PatchMachine):
    backend = "sqlite"


_settings = settings(
    max_examples=30,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TestPatchesOnMemoryStore = PatchMachine.TestCase
TestPatchesOnMemoryStore.settings = _settings
TestPatchesOnSQLiteStore = SQLitePatchMachine.TestCase
TestPatchesOnSQLiteStore.settings = _settings
