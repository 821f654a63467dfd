"""The profile-owned indexes on the in-memory backend (``memgraph.store.interfaces``).

Nothing is kept beside the documents: every read scans the transaction's node
map, which is fine for the sizes this backend serves (tests, the contract
suite, short-lived tools). Voice search, ranked like the SQLite store's FTS5,
is in ``memory_voice``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from memgraph.documents import (
    MemoryEdge,
    MemoryLifecycleReceipt,
    MemoryNode,
    MemoryPatchCandidate,
)
from memgraph.store.interfaces import StoreIndexes
from memgraph.store.rows import (
    ActivityRow,
    ActivitySource,
    NoteIndexRow,
    NoteWrite,
    RegistryRow,
    SessionRow,
    TermFrequencies,
)
from memgraph.store.sqlite_txn import iso

if TYPE_CHECKING:
    from memgraph.store.memory import MemoryStore, MemoryTxn
    from memgraph.store.scrub import ScrubReport, ScrubRequest

from memgraph.store.memory_voice import MemoryVoiceIndex, body_text, tokens


class MemoryRegistry:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def rows(self, since: str | None = None) -> list[RegistryRow]:
        rows = self.store.current_state().registry.values()
        kept = [r for r in rows if since is None or r.processed_at >= since]
        return sorted(kept, key=lambda r: (r.processed_at, r.path))

    def get(self, path: str) -> RegistryRow | None:
        return self.store.current_state().registry.get(path)

    def put(self, row: RegistryRow) -> None:
        with self.store.transaction() as txn:
            txn.s.registry[row.path] = row


def _session_row(nodes: Iterable[MemoryNode], session_id: str) -> SessionRow | None:
    for n in nodes:
        if (
            n.profile.value == "session"
            and n.kind == "session"
            and n.attributes.get("session_id") == session_id
        ):
            a = n.attributes
            return SessionRow(
                session_id=session_id,
                node_id=n.id,
                persona=str(a.get("persona")),
                workspace=str(a.get("workspace")),
                started_at=str(a.get("started_at")),
                harness=str(a.get("harness")),
                lifecycle=n.lifecycle,
            )
    return None


class MemorySessionIndex:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def session(self, session_id: str) -> SessionRow | None:
        return _session_row(self.store.current_state().nodes.values(), session_id)

    def view(self, session_id: str) -> tuple[SessionRow | None, list[NoteIndexRow]]:
        nodes = list(self.store.current_state().nodes.values())
        notes = [
            NoteIndexRow(
                ts=iso(n.valid_from) or "",
                text=n.claim,
                harness=str(n.attributes.get("harness")),
                node_id=n.id,
            )
            for n in nodes
            if n.profile.value == "session"
            and n.kind == "note"
            and n.lifecycle == "active"
            and n.attributes.get("session_id") == session_id
        ]
        notes.sort(key=lambda r: (r.ts, r.node_id))
        return _session_row(nodes, session_id), notes


class MemoryNoteAppend:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def append_note(
        self, session_id: str, build: Callable[[SessionRow], NoteWrite | None]
    ) -> NoteWrite | None:
        with self.store.transaction() as txn:
            return _append(txn, session_id, build)


def _append(
    txn: MemoryTxn, session_id: str, build: Callable[[SessionRow], NoteWrite | None]
) -> NoteWrite | None:
    row = _session_row(txn.s.nodes.values(), session_id)
    if row is None:
        return None
    w = build(row)
    if w is None or w.node.id in txn.s.nodes:
        return None
    txn.put_nodes([MemoryNode.model_validate_json(w.node.doc)], [])
    txn.put_edges([MemoryEdge.model_validate_json(w.edge.doc)])
    txn.append_receipts([MemoryLifecycleReceipt.model_validate_json(r.doc) for r in w.receipts])
    txn.put_patch(MemoryPatchCandidate.model_validate_json(w.patch.doc))
    return w


class MemoryTermStats:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def frequencies(self, terms: Sequence[str]) -> TermFrequencies:
        nodes = list(self.store.current_state().nodes.values())
        wanted = set(terms)
        df: dict[str, int] = {}
        for n in nodes:
            for t in wanted.intersection(tokens(n.title) + tokens(body_text(n))):
                df[t] = df.get(t, 0) + 1
        return TermFrequencies(nodes=len(nodes), df=tuple(sorted(df.items())))

    def rank_any(self, terms: Sequence[str], limit: int) -> list[tuple[str, float]]:
        # The sum of single-term scores is the score of the OR query.
        totals: dict[str, float] = {}
        for term in terms:
            for h in self.store.search(f'"{term}"', max(limit * 4, 100)):
                totals[h.node_id] = totals.get(h.node_id, 0.0) - h.score
        return sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


class MemoryActivity:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def rows_in_range(
        self, sources: Sequence[ActivitySource], lo: str, hi: str
    ) -> list[ActivityRow]:
        found: list[ActivityRow] = []
        nodes = self.store.current_state().nodes.values()
        for src in sources:
            for n in nodes:
                vf = iso(n.valid_from)
                if (
                    n.profile.value != src.profile
                    or n.kind != src.kind
                    or n.lifecycle not in src.states
                    or vf is None
                    or not lo <= vf <= hi
                ):
                    continue
                attrs: dict[str, Any] = dict(n.attributes)
                text = n.claim if src.kind == "message" else ""
                found.append(ActivityRow(n.kind, n.id, vf, attrs, text))
        return found

    def message_cwds(self, lo: str, hi: str) -> set[str]:
        found: set[str] = set()
        for n in self.store.current_state().nodes.values():
            vf = iso(n.valid_from)
            cwd = n.attributes.get("cwd")
            if (
                n.profile.value == "voice"
                and n.kind == "message"
                and vf is not None
                and lo <= vf <= hi
                and isinstance(cwd, str)
                and cwd
            ):
                found.add(cwd)
        return found


def memory_indexes(store: MemoryStore) -> StoreIndexes:
    return StoreIndexes(
        voice=MemoryVoiceIndex(store),
        registry=MemoryRegistry(store),
        sessions=MemorySessionIndex(store),
        notes=MemoryNoteAppend(store),
        terms=MemoryTermStats(store),
        activity=MemoryActivity(store),
        scrub=MemoryScrub(store),
    )


class MemoryScrub:
    """``TextScrub`` over the in-memory state (nothing to compact)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def scrub(self, request: ScrubRequest) -> ScrubReport:
        from memgraph.documents import MemorySummary
        from memgraph.store.scrub import ScrubReport, scrub_doc

        report = ScrubReport()

        def redo(items: list[Any], model: Any, table: str) -> list[Any]:
            out, n = [], 0
            for item in items:
                new = scrub_doc(item.model_dump_json(), request)
                if new is not None:
                    item, n = model.model_validate_json(new), n + 1
                out.append(item)
            report.rows[table] = n
            return out

        with self.store.transaction():
            s = self.store.current_state()
            s.history[:] = redo(s.history, MemoryNode, "node_history")
            edges = redo(list(s.edges.values()), MemoryEdge, "edges")
            s.edges.clear()
            s.edges.update((e.id, e) for e in edges)
            s.edge_history[:] = redo(s.edge_history, MemoryEdge, "edge_history")
            summaries = redo(list(s.summaries.values()), MemorySummary, "summaries")
            s.summaries.clear()
            s.summaries.update((x.id, x) for x in summaries)
            s.summary_history[:] = redo(s.summary_history, MemorySummary, "summary_history")
            s.receipts[:] = redo(s.receipts, MemoryLifecycleReceipt, "receipts")
            patches = redo(list(s.patches.values()), MemoryPatchCandidate, "patches")
            s.patches.clear()
            s.patches.update((p.id, p) for p in patches)
            for node_id in request.node_ids:
                if s.manifests.pop(node_id, None) is not None:
                    report.manifests += 1
        return report

    def quoting(self, request: ScrubRequest) -> list[str]:
        from memgraph.store.scrub import scrub_doc

        skip = set(request.node_ids)
        with self.store.reader():
            nodes = list(self.store.current_state().nodes.values())
        return sorted(
            n.id
            for n in nodes
            if n.id not in skip and scrub_doc(n.model_dump_json(), request) is not None
        )
