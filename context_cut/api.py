"""The context-cut API: ``select_context_cut`` and ``recall``.

query -> candidates (BM25 + optional vectors, RRF) -> documents from the store
-> cut filter and weights -> summary-or-descent -> budgeted packet.

No pydantic at import: nodes are read as whatever the store decodes (documents,
or plain objects on a store marked by ``memgraph.store.decode.use_plain``), the
packet follows the query (``ContextQuery`` -> ``ContextPacket``,
``MemoryContextQuery`` -> ``MemoryContextPacket``), and the pydantic
``RecallRequest`` lives in ``context_cut.recall_request`` (still importable
from here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, overload

from context_cut.candidates import Candidate, CandidateSet, VectorSource, gather, rrf
from context_cut.cuts import CutSpec, get_cut
from context_cut.packet import assemble
from context_cut.select import MAX_DEPTH, SummaryGraph, Unit, select
from memgraph.documents.enums import ProfileName
from memgraph.terminal import plural

if TYPE_CHECKING:
    from context_cut.recall_request import RecallRequest
    from memgraph.documents import MemoryContextPacket, MemoryContextQuery
    from memgraph.documents.plain_context import ContextPacket, ContextQuery
    from memgraph.documents.views import NodeView, QueryView
    from memgraph.store.protocol import GraphReader, Store

OVERFETCH = 4  # candidates fetched per slot: the cut filter drops some


def _valid_at(node: NodeView, as_of: datetime | None) -> bool:
    if as_of is None:
        return True
    if node.valid_from is not None and node.valid_from > as_of:
        return False
    return node.valid_to is None or node.valid_to > as_of


def _admits(spec: CutSpec, query: QueryView, node: NodeView) -> bool:
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


class MemoNerve:
    """A nerve that embeds and searches each text once (the widest fetch is kept)."""

    def __init__(self, nerve: VectorSource) -> None:
        self.nerve = nerve
        self.notices: list[str] = []
        # what late interaction reads (``context_cut.token_vectors.late_for``)
        self.embedder = getattr(nerve, "embedder", None)
        self.tokens_dir = getattr(nerve, "tokens_dir", None)
        self._seen: dict[
            tuple[str, tuple[str, ...] | None], tuple[int, list[tuple[str, float]]]
        ] = {}

    def search(
        self, store: Store, text: str, limit: int, profiles: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        key = (text, tuple(profiles) if profiles is not None else None)
        got = self._seen.get(key)
        if got is None or got[0] < limit:
            hits = self.nerve.search(store, text, limit, profiles)
            self.notices += self.nerve.notices
            self.nerve.notices = []
            got = (limit, hits)
            self._seen[key] = got
        return got[1][:limit]


def _fuse_turns(
    store: Store, query: QueryView, nerve: VectorSource | None, cands: CandidateSet
) -> set[str] | None:
    """Fuse the turn-level voice ranking (``context_cut.turns``) into ``cands`` by RRF:
    conversation turns are scored with their neighbours and scoped to the domain."""
    from context_cut.turns import TurnScope, rank_turns

    domain = query.domain_id or ""
    voice_domain = domain.startswith("voice:")
    scope = TurnScope(constellation=domain[len("voice:") :] if voice_domain else None)
    if query.domain_id is not None and scope.constellation is None:
        return None  # a non-voice domain holds no voice messages
    turns = rank_turns(store, query.text, query.limit, nerve=nerve, scope=scope, packet=True)
    cands.notices += [n for n in turns.notices if n not in cands.notices]
    by_id = cands.by_id()
    # the turn ranking replaces the plain one for voice messages (it scores them
    # better); other profiles keep their places
    voice = {t.node.id for t in turns.turns}
    others = [c.node_id for c in cands.ranked if c.node_id not in voice]
    fused = rrf([others, [t.node.id for t in turns.turns]])
    for t in turns.turns:
        c = by_id.setdefault(t.node.id, Candidate(t.node.id))
        c.bm25_rank = c.bm25_rank or t.bm25_rank
        c.vector_rank = c.vector_rank or t.vector_rank
    for nid, c in by_id.items():
        c.score = fused.get(nid, 0.0)
    cands.ranked = sorted(by_id.values(), key=lambda c: (-c.score, c.node_id))
    return voice


def _is_message(node: NodeView) -> bool:
    return node.profile is ProfileName.voice and node.kind == "message"


@overload
def select_context_cut(
    store: Store, query: MemoryContextQuery, nerve: VectorSource | None = None
) -> MemoryContextPacket: ...
@overload
def select_context_cut(
    store: Store, query: ContextQuery, nerve: VectorSource | None = None
) -> ContextPacket: ...
def select_context_cut(store: Store, query: Any, nerve: VectorSource | None = None) -> Any:
    """The packet for ``query``: exact nodes and edges, summaries standing in
    for what they cover, caveats, receipts and obligations, within the budget."""
    spec = get_cut(query.cut)
    if nerve is not None:
        nerve = MemoNerve(nerve)  # the query is embedded once for both rankings
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
    turn_ids: set[str] | None = None
    if ProfileName.voice in spec.weights:
        turn_ids = _fuse_turns(store, query, nerve, cands)
    ids = [c.node_id for c in cands.ranked]
    with store.reader() as reader:
        docs = reader.get_nodes(ids)
        orphans = [i for i in ids if i not in docs]
        ranked: list[tuple[Candidate, NodeView]] = []
        for c in cands.ranked:
            node = docs.get(c.node_id)
            if node is None or not _admits(spec, query, node):
                continue
            if turn_ids is not None and _is_message(node) and node.id not in turn_ids:
                continue  # the turn ranking decides which messages come
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

        if query.project is not None:
            from context_cut.standing import standing_units

            standing, empty = standing_units(store, reader, spec.name.value, query.project)
            extra = [*standing, *extra]
            notices += empty

        def admits(node: NodeView) -> bool:
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
            f"{plural(len(orphans), 'vector hit')} name nodes the store does not have; "
            "run `memgraph index --rebuild`"
        )
    taken = {u.key for u in selection.units}
    extra = [u for u in {u.key: u for u in extra}.values() if u.key not in taken]
    warnings = [
        f"stale summary: {s.id} «{s.target}» covers changed sources "
        f"({', '.join(s.freshness.stale_ids[:5]) or s.freshness.reason}); "
        "its covered nodes are shown instead"
        for s in selection.descended_stale
    ]
    if selection.missing:
        shown = ", ".join(sorted(selection.missing)[:5])
        warnings.append(
            f"missing: {plural(len(selection.missing), 'covered id')} not in the store ({shown})"
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


RECALL_MODES = ("hybrid", "bm25", "vectors")


@dataclass(frozen=True)
class PlainRecall:
    """``RecallRequest``'s fields without pydantic; ``plain_recall`` builds one
    only from values ``RecallRequest`` accepts."""

    text: str
    limit: int = 10
    project: str | None = None
    session_id: str | None = None
    since: datetime | None = None
    mode: Literal["hybrid", "bm25", "vectors"] = "hybrid"


def plain_recall(
    text: str, limit: int, project: str | None, session_id: str | None, mode: str
) -> PlainRecall | None:
    """A ``PlainRecall`` when ``RecallRequest`` would accept these values, else None
    (the caller then builds the ``RecallRequest`` and reports its error)."""
    if not text or not 0 < limit <= 1000 or mode not in RECALL_MODES:
        return None
    return PlainRecall(text, limit, project, session_id, None, mode)  # type: ignore[arg-type]


def __getattr__(name: str) -> Any:
    if name == "RecallRequest":  # the pydantic model, imported when asked for
        from context_cut.recall_request import RecallRequest

        return RecallRequest
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class RecallHit:
    rank: int
    score: float
    node: NodeView
    bm25_rank: int | None
    vector_rank: int | None


@dataclass
class RecallResult:
    hits: list[RecallHit]
    notices: list[str]


def recall(
    store: Store, request: RecallRequest | PlainRecall, nerve: VectorSource | None = None
) -> RecallResult:
    """Voice messages for ``request``, hybrid-ranked, with one-line notices."""
    if request.mode == "bm25":
        nerve = None
    elif request.mode == "vectors" and nerve is None:
        from memgraph.errors import UsageError

        raise UsageError("vector-only recall needs an embedder: pass --embedder")
    from context_cut.recall_scope import resolve
    from context_cut.turns import TurnScope, rank_turns

    # as `voice` reads them: a project/constellation in any case, a session id prefix
    named = resolve(store, request.project, request.session_id)
    scope = TurnScope(
        project=named.project,
        session_id=named.session_id,
        constellation=named.constellation,
        since=request.since,
    )
    ranking = rank_turns(
        store,
        request.text,
        request.limit,
        nerve=nerve,
        scope=scope,
        lexical=request.mode != "vectors",
    )
    notices = list(ranking.notices)
    if nerve is None:
        notices.append("vectors not configured: BM25 only")
    hits = [
        RecallHit(rank, t.score, t.node, t.bm25_rank, t.vector_rank)
        for rank, t in enumerate(ranking.turns, start=1)
    ]
    return RecallResult(hits, notices)
