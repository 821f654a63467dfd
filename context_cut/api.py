"""The context-cut API: ``select_context_cut`` and ``recall``.

query -> candidates (BM25 + optional vectors, RRF) -> documents from the store
-> cut filter and weights -> summary-or-descent -> budgeted packet.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from context_cut.candidates import Candidate, VectorSource, gather
from context_cut.cuts import CutSpec, get_cut
from context_cut.packet import assemble
from context_cut.select import MAX_DEPTH, SummaryGraph, Unit, select
from memgraph.documents import (
    MemoryContextPacket,
    MemoryContextQuery,
    MemoryNode,
    ProfileName,
    UtcDatetime,
)
from memgraph.store.protocol import GraphReader, Store

OVERFETCH = 4  # candidates fetched per slot: the cut filter drops some


def _valid_at(node: MemoryNode, as_of: datetime | None) -> bool:
    if as_of is None:
        return True
    if node.valid_from is not None and node.valid_from > as_of:
        return False
    return node.valid_to is None or node.valid_to > as_of


def _admits(spec: CutSpec, query: MemoryContextQuery, node: MemoryNode) -> bool:
    if query.domain_id is not None and node.domain_id != query.domain_id:
        return False
    return spec.admits(node) and _valid_at(node, query.as_of)


def _summary_graph(reader: GraphReader, seeds: list[str]) -> SummaryGraph:
    graph = SummaryGraph()
    frontier = set(seeds)
    for _ in range(MAX_DEPTH):  # upward: summaries covering the candidates, and theirs
        if not frontier:
            break
        frontier = graph.add(reader.summaries_covering(frontier))
    for _ in range(MAX_DEPTH):  # downward: covered summaries a descent may need
        wanted = {
            c for s in graph.summaries.values() for c in s.covers_summary_ids
        } - graph.summaries.keys()
        if not wanted or not graph.add(reader.get_summaries(wanted).values()):
            break
    return graph


def select_context_cut(
    store: Store, query: MemoryContextQuery, nerve: VectorSource | None = None
) -> MemoryContextPacket:
    """The packet for ``query``: exact nodes and edges, summaries standing in
    for what they cover, caveats, receipts and obligations, within the budget."""
    spec = get_cut(query.cut)
    cands = gather(
        store,
        query.text,
        query.limit * OVERFETCH,
        nerve=nerve,
        vector_profiles=sorted(p.value for p in spec.profiles),
    )
    notices = list(cands.notices)
    if nerve is None:
        notices.append("vectors not configured: BM25 only")
    ids = [c.node_id for c in cands.ranked]
    with store.reader() as reader:
        docs = reader.get_nodes(ids)
        orphans = [i for i in ids if i not in docs]
        ranked: list[tuple[Candidate, MemoryNode]] = []
        for c in cands.ranked:
            node = docs.get(c.node_id)
            if node is None or not _admits(spec, query, node):
                continue
            boost = spec.stale_boost if node.lifecycle == "stale" else 1.0
            c.score *= spec.weights[node.profile] * boost
            ranked.append((c, node))
        ranked.sort(key=lambda cn: (-cn[0].score, cn[0].node_id))
        ranked = ranked[: query.limit]
        graph = _summary_graph(reader, [c.node_id for c, _ in ranked])
        extra: list[Unit] = []
        if spec.domain_obligations and query.domain_id is not None:
            open_nodes = reader.nodes_in_domain(
                query.domain_id, ProfileName.agency_pressure.value, spec.obligation_states
            )
            extra = [
                Unit(score=1.0, node=n)
                for n in sorted(open_nodes, key=lambda n: (-n.salience, n.id))
                if _admits(spec, query, n)
            ]

        def admits(node: MemoryNode) -> bool:
            return _admits(spec, query, node)

        selection = select(
            ranked,
            graph,
            reader.get_nodes,
            cands.terms,
            query.summary_confidence_threshold,
            admits,
            strict_cover=spec.public_surface,
        )
    if orphans:
        notices.append(
            f"{len(orphans)} vector hit(s) name nodes the store does not have; "
            "run `memgraph index --rebuild`"
        )
    taken = {u.node.id for u in selection.units if u.node is not None}
    extra = [u for u in extra if u.node is not None and u.node.id not in taken]
    warnings = [
        f"stale summary: {s.id} «{s.target}» covers changed sources "
        f"({', '.join(s.freshness.stale_ids[:5]) or s.freshness.reason}); "
        "its covered nodes are shown instead"
        for s in selection.descended_stale
    ]
    if selection.missing:
        shown = ", ".join(sorted(selection.missing)[:5])
        warnings.append(
            f"missing: {len(selection.missing)} covered id(s) not in the store ({shown})"
        )
    notices += [f"summary {d.summary_id}: {d.action} ({d.reason})" for d in selection.decisions]
    return assemble(
        store,
        query,
        spec,
        selection,
        header_warnings=warnings,
        notices=notices,
        extra_units=extra,
    )


class RecallRequest(BaseModel):
    """A semantic voice recall: what did I say about <text>?"""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    limit: int = Field(default=10, gt=0, le=1000)
    project: str | None = None
    session_id: str | None = None
    since: UtcDatetime | None = None


@dataclass(frozen=True)
class RecallHit:
    rank: int
    score: float
    node: MemoryNode
    bm25_rank: int | None
    vector_rank: int | None


def _recall_match(node: MemoryNode, request: RecallRequest) -> bool:
    if node.profile is not ProfileName.voice or node.kind != "message":
        return False
    if node.lifecycle == "retired":
        return False
    attrs = node.attributes
    if request.project is not None and attrs.get("project") != request.project:
        return False
    if request.session_id is not None and attrs.get("session_id") != request.session_id:
        return False
    when = node.valid_from or node.created_at
    return request.since is None or when >= request.since


@dataclass
class RecallResult:
    hits: list[RecallHit]
    notices: list[str]


def recall(store: Store, request: RecallRequest, nerve: VectorSource | None = None) -> RecallResult:
    """Voice messages for ``request``, hybrid-ranked, with one-line notices."""
    cands = gather(
        store,
        request.text,
        request.limit * OVERFETCH,
        nerve=nerve,
        profiles=[ProfileName.voice.value],
    )
    notices = list(cands.notices)
    if nerve is None:
        notices.append("vectors not configured: BM25 only")
    with store.reader() as reader:
        docs = reader.get_nodes([c.node_id for c in cands.ranked])
    hits: list[RecallHit] = []
    for c in cands.ranked:
        node = docs.get(c.node_id)
        if node is None or not _recall_match(node, request):
            continue
        hits.append(RecallHit(len(hits) + 1, c.score, node, c.bm25_rank, c.vector_rank))
        if len(hits) >= request.limit:
            break
    return RecallResult(hits, notices)
