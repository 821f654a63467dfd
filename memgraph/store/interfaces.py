"""The profile-owned indexes: one small typed interface each, per backend a registration.

The store is the only code that speaks SQL (or any backend's query language).
Profiles and ``context_cut`` map their documents to the rows in
``memgraph.store.rows`` and call these interfaces; a backend implements every
one of them and registers the set for its store class with
``register_indexes`` (the SQLite and in-memory backends do so at import of
their module, a new backend does the same). ``indexes(store)`` finds them; a
store type without a registration is an error, never a silent fallback.

    VoiceIndex          voice message index: search, stats, per-session reads, reindex
    TranscriptRegistry  processed transcript files (backfill, hook, probe)
    SessionIndex        started sessions and their active notes (views, wake)
    NoteAppend          the lean ``memgraph note`` write (one transaction)
    CaptureAppend       the voice capture's plain case, new nodes only (one transaction)
    TermStats           document frequencies and OR-BM25 ranking (context cuts)
    TurnIndex           scoped OR-BM25 over voice messages (turn-level recall; optional)
    ActivityLookups     nodes in a time range, session cwds (activity windows)
    TextScrub           forgotten text out of stored history (``memgraph forget``)

Period queries are ``Store.nodes_in_period`` (``memgraph.store.protocol``).
Design record: notes/fleet.md, "Store boundary".
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from memgraph.errors import StoreError

if TYPE_CHECKING:
    from memgraph.documents import MemoryNode
    from memgraph.store.rows import (
        ActivityRow,
        ActivitySource,
        GraphWrite,
        LedgerRow,
        NoteIndexRow,
        NoteWrite,
        RegistryRow,
        SessionRow,
        TermFrequencies,
    )
    from memgraph.store.scrub import ScrubReport, ScrubRequest
    from memgraph.store.voice_rows import VoiceIndexStats, VoiceRow, VoiceScope, VoiceSearch


class VoiceIndex(Protocol):
    """Live (non-retired) ``voice``/``message`` nodes, kept in step with every node write."""

    def search(self, request: VoiceSearch) -> list[VoiceRow]:
        """Ranked hits or a listing; see ``VoiceSearch`` for the exact law."""
        ...

    def stats(self) -> VoiceIndexStats: ...

    def session_messages(self, session_id: str) -> list[MemoryNode]:
        """Every voice message node of the session, retired ones too, any order."""
        ...

    def session_span(self, session_id: str) -> tuple[str, str] | None:
        """(first, last) message time of the session (fixed-width UTC text)."""
        ...

    def reindex(self) -> tuple[int, int]:
        """Rebuild the index (and the backend's text index) from the nodes:
        (indexed messages, nodes)."""
        ...


class TranscriptRegistry(Protocol):
    def rows(self, since: str | None = None) -> list[RegistryRow]:
        """Rows processed at or after ``since``, by (processed_at, path)."""
        ...

    def get(self, path: str) -> RegistryRow | None: ...

    def put(self, row: RegistryRow) -> None:
        """Insert or replace the row of ``row.path`` (its own transaction)."""
        ...


class IngestLedger(Protocol):
    """The latest ingest-ledger row per transcript path (``profiles.voice.ledger``)."""

    def put(self, rows: Sequence[LedgerRow], recorded_at: str) -> None:
        """Insert or replace the row of each path (one transaction)."""
        ...

    def rows(self) -> list[LedgerRow]:
        """Every row by path; a damaged one is a ``damaged_ledger_row`` file error."""
        ...


class SessionIndex(Protocol):
    def session(self, session_id: str) -> SessionRow | None: ...

    def view(self, session_id: str) -> tuple[SessionRow | None, list[NoteIndexRow]]:
        """The session and its active notes by (ts, node id), from ONE read snapshot."""
        ...


class NoteAppend(Protocol):
    def append_note(
        self, session_id: str, build: Callable[[SessionRow], NoteWrite | None]
    ) -> NoteWrite | None:
        """In ONE write transaction: read the session's row (``None`` if absent),
        call ``build`` with it (it applies profile law: may raise, or return None
        to decline), and when the built node id is new, store the node (and
        index it as any node write would), edge, receipts and patch. Returns
        what was written, or None (nothing written: the caller takes the engine
        path)."""
        ...


class CaptureAppend(Protocol):
    def append_capture(self, write: GraphWrite, sessions: Sequence[str]) -> bool:
        """In ONE write transaction: when no node or edge id of ``write`` is stored,
        nor its patch id, nor any voice message of ``sessions``, store its rows
        (nodes indexed as any node write would, edges, receipts, the patch) and
        return True; else write nothing and return False (the caller takes the
        engine path). ``write`` holds exactly the rows ``apply_patch`` would store
        (``profiles.voice.lean``)."""
        ...

    def any_stored(self, node_ids: Sequence[str], sessions: Sequence[str]) -> bool:
        """Is any of ``node_ids``, or a voice message of ``sessions``, stored? A
        read-only look before building a write (``append_capture`` checks again)."""
        ...


class TermStats(Protocol):
    def frequencies(self, terms: Sequence[str]) -> TermFrequencies: ...

    def rank_any(self, terms: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """(node id, -bm25) best first for nodes matching ANY of ``terms``
        (each a plain folded word), over title and body."""
        ...


class TurnIndex(Protocol):
    """Voice messages as conversation turns (``context_cut.turns``)."""

    def rank_any(
        self,
        words: Sequence[tuple[str, bool]],
        scope: VoiceScope,
        limit: int,
        title_weight: float = 1.0,
    ) -> list[tuple[str, float]]:
        """(node id, -bm25) best first for live, current (not superseded) voice
        messages in ``scope`` matching
        ANY of ``words`` ((plain folded word, is_prefix)), over title (weighted
        ``title_weight``) and body. Common words (as ``VoiceSearch``): when more than
        ``max(limit, voice_rows.CANDIDATES)`` messages in scope match and every plain word
        is in >= 1/``voice_rows.COMMON_SHARE`` of all nodes (each prefix being a prefix of
        one of them), only that many matches inserted last are ranked."""
        ...

    def in_scope(self, ids: Sequence[str], scope: VoiceScope) -> set[str]:
        """Which of ``ids`` are live voice messages in ``scope``."""
        ...


class ActivityLookups(Protocol):
    def rows_in_range(
        self, sources: Sequence[ActivitySource], lo: str, hi: str
    ) -> list[ActivityRow]:
        """Nodes of the sources with ``lo <= valid_from <= hi`` (any order)."""
        ...

    def message_cwds(self, lo: str, hi: str) -> set[str]:
        """Distinct non-empty ``cwd`` attributes of voice messages in [lo, hi]."""
        ...


class StandingReads(Protocol):
    """Standing context material (role/persona/coordinator cuts, SessionStart hook).

    Documents as parsed JSON dicts, newest first unless said otherwise.
    """

    def domain_docs(
        self, domain: str, profiles: tuple[str, ...], states: tuple[str, ...], limit: int
    ) -> list[dict[str, Any]]: ...

    def voice_docs(
        self, project: str, labels: tuple[str, ...], limit: int
    ) -> list[dict[str, Any]] | None: ...

    def voice_counts(self, project: str) -> tuple[int, int]: ...

    def project_notes(self, project: str, limit: int) -> list[tuple[str, str, str, str]] | None: ...

    def latest_note(self, persona: str) -> tuple[str, str, str] | None: ...

    def summaries(self, domain: str, stale_only: bool, limit: int) -> list[dict[str, Any]]: ...

    def summary_count(self, domain: str) -> int: ...

    def repo_candidates(self, domain: str, project: str, limit: int) -> list[dict[str, Any]]: ...

    def recent_receipts(self, scan: int) -> list[dict[str, Any]]: ...


class TextScrub(Protocol):
    """The one text removal (``memgraph forget``; ``memgraph.store.scrub``)."""

    def scrub(self, request: ScrubRequest) -> ScrubReport:
        """In ONE write transaction: rewrite every history document
        (``scrub.DOC_TABLES``) that carries the forgotten texts and drop the
        embedding manifests of ``request.node_ids``; then, when
        ``request.compact``, reclaim the freed space so the bytes leave the
        backend's files (text indexes merged, deleted rows' pages rewritten)."""
        ...

    def quoting(self, request: ScrubRequest) -> list[str]:
        """Ids of the live nodes, ``request.node_ids`` aside, whose document
        still carries a forgotten text (what ``scrub.scrub_doc`` would rewrite:
        a note or a memory that quotes a forgotten message), sorted."""
        ...


@dataclass(frozen=True)
class StoreIndexes:
    """One backend's implementation of every index interface."""

    voice: VoiceIndex
    registry: TranscriptRegistry
    sessions: SessionIndex
    notes: NoteAppend
    terms: TermStats
    activity: ActivityLookups
    standing: StandingReads | None = None  # backends without it: query hits only
    # optional: without it, turn ranking uses ``terms``/``store.search`` and reads
    # documents to apply the scope (slower on big stores, same law)
    turns: TurnIndex | None = None
    scrub: TextScrub | None = None  # every bundled backend has one
    # optional: without it, capture always takes the engine path (same rows)
    captures: CaptureAppend | None = None
    # optional: without it no ingest ledger is kept (the memory store)
    ledger: IngestLedger | None = None


_FACTORIES: dict[type, Callable[[Any], StoreIndexes]] = {}


def register_indexes(store_type: type, factory: Callable[[Any], StoreIndexes]) -> None:
    """Register ``factory(store) -> StoreIndexes`` for stores of ``store_type``."""
    _FACTORIES[store_type] = factory


def indexes(store: object) -> StoreIndexes:
    """The index implementations of ``store``'s backend (cached on the store)."""
    cached = getattr(store, "_indexes", None)
    if isinstance(cached, StoreIndexes):
        return cached
    for cls in type(store).__mro__:
        factory = _FACTORIES.get(cls)
        if factory is not None:
            found = factory(store)
            with contextlib.suppress(AttributeError):
                store._indexes = found  # type: ignore[attr-defined]
            return found
    raise StoreError(
        f"store backend {type(store).__name__} registers no profile indexes "
        "(memgraph.store.interfaces.register_indexes)"
    )
