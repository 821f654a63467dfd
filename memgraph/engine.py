"""Validate a MemoryPatchCandidate as a whole, then apply it atomically.

Every op is checked against a working view (the store plus the effects of the
patch's earlier ops): generic invariants first, then profile law. If any op
fails, nothing is written and ``PatchRejected`` lists every problem. Otherwise
all effects and one receipt per effect are written in ONE store transaction.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic_core import PydanticSerializationError

from memgraph.documents import (
    GraphOp,
    MemoryEdge,
    MemoryEmbeddingManifest,
    MemoryLifecycleReceipt,
    MemoryNode,
    MemoryPatchCandidate,
    MemorySummary,
    PatchStatus,
    to_json,
    utcnow,
)
from memgraph.errors import PatchAlreadyDecided, PatchRejected, UsageError
from memgraph.ids import stable_id
from memgraph.working import Working, prefetch_plan

if TYPE_CHECKING:  # annotations only (a repo rescan never imports the protocol)
    from memgraph.store.protocol import GraphReader, Store, StoreTxn

# Applied patches keep their ops in the store only when small; a bulk ingest's
# receipts already record every effect, and a 400k-op JSON blob helps nobody.
MAX_STORED_OPS = 1000
# Patches at least this large run with the cyclic GC paused (see gc_paused).
GC_PAUSE_OPS = 1000


@dataclass
class ApplyResult:
    patch_id: str
    receipts: list[MemoryLifecycleReceipt] = field(default_factory=list)
    nodes_written: int = 0
    edges_written: int = 0
    summaries_written: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.receipts)


def plan(reader: GraphReader, patch: MemoryPatchCandidate, now: datetime) -> Working:
    """Validate every op of ``patch`` against ``reader``; return the working set.

    Raises ``PatchRejected`` with every problem found.
    """
    from memgraph.ops_apply import apply_op  # op handlers, one per op kind

    problems: list[str] = []
    status = reader.patch_status(patch.id)
    if status is not None:
        raise PatchAlreadyDecided([f"{patch.id}: patch was already {status}"])
    # every receipt carries these: say so in a dry run too, not only at write time
    to_json(patch.model_copy(update={"ops": []}))
    work = Working(reader, patch, now)
    nodes, endpoints, edges, summaries = prefetch_plan(patch.ops)
    work.prefetch(nodes, edges, summaries)
    work.prefetch_exists(endpoints)
    for index, op in enumerate(patch.ops):
        errors = apply_op(work, index, op)
        problems.extend(f"ops[{index}] {op.op}: {e}" for e in errors)
    if not problems:
        problems.extend(work.propagate_staleness())
    if problems:
        raise PatchRejected(problems)
    return work


def _write(txn: StoreTxn, work: Working, patch: MemoryPatchCandidate) -> ApplyResult:
    nodes = list(work.pending_nodes.values())
    previous = [work.previous_nodes[n.id] for n in nodes if n.id in work.previous_nodes]
    txn.put_nodes(nodes, previous)
    txn.put_edges(list(work.pending_edges.values()), list(work.previous_edges.values()))
    txn.put_summaries(list(work.pending_summaries.values()), list(work.previous_summaries.values()))
    txn.put_manifests(list(work.pending_manifests.values()))
    if work.receipts:
        txn.append_receipts(work.receipts)
        stored = patch.model_copy(
            update={
                "status": PatchStatus.applied,
                "ops": patch.ops if len(patch.ops) <= MAX_STORED_OPS else [],
            }
        )
        txn.put_patch(stored)
    return ApplyResult(
        patch_id=patch.id,
        receipts=work.receipts,
        nodes_written=len(nodes),
        edges_written=len(work.pending_edges),
        summaries_written=len(work.pending_summaries),
    )


@contextmanager
def gc_paused(pause: bool) -> Iterator[None]:
    """Pause the cyclic GC while a large patch is planned and written.

    A bulk patch allocates hundreds of thousands of short-lived, acyclic
    objects; with a large heap each triggered collection rescans everything
    (measured: 15-25% of a bulk ingest). Reference counting still frees them;
    the collector runs again as soon as the patch is done.
    """
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@contextmanager
def _encodable(patch_id: str) -> Iterator[None]:
    """Turn "this text cannot be stored" into a rejection naming the patch.

    Stored documents are UTF-8 JSON, and a Python ``str`` can hold what UTF-8
    cannot (a lone surrogate, e.g. from a JSON ``\\ud800`` escape). Checking
    every string up front would tax every bulk ingest; instead the failure is
    caught where pydantic-core serialises (hashing in plan, rows in write), and
    the store transaction around it has already rolled back: nothing is written.
    """
    try:
        yield
    except PydanticSerializationError as exc:
        # the message quotes the offending character: escape it so it can print
        raise PatchRejected(
            [
                f"{_printable(patch_id)}: a document cannot be stored as UTF-8 JSON"
                f" ({_printable(str(exc))})"
            ]
        ) from None


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _utc(now: datetime | None) -> datetime:
    # Timestamps the engine stamps bypass validation (model_copy), so normalise
    # here: stored JSON then always says ``Z`` and re-exports byte-identically.
    if now is None:
        return utcnow()
    if now.tzinfo is None:
        raise UsageError("now must be a timezone-aware datetime")
    return now.astimezone(UTC)


# receipts this context wrote (``counting_receipts``); None: nobody is counting
_WRITTEN: ContextVar[list[int] | None] = ContextVar("memgraph_receipts_written", default=None)


@contextmanager
def counting_receipts() -> Iterator[list[int]]:
    """``[n]``: the receipts this context's ``apply_patch`` / ``reject_patch`` calls
    write inside the block. A store's receipt count cannot tell: on a shared store
    other machines write receipts meanwhile."""
    counter = [0]
    token = _WRITTEN.set(counter)
    try:
        yield counter
    finally:
        _WRITTEN.reset(token)


def _counted(n: int) -> None:
    counter = _WRITTEN.get()
    if counter is not None:
        counter[0] += n


def apply_patch(
    store: Store, patch: MemoryPatchCandidate, now: datetime | None = None
) -> ApplyResult:
    """Validate and apply ``patch`` all-or-nothing; one receipt per effect.

    A patch whose ops change nothing (a re-ingest) writes nothing at all.
    """
    now = _utc(now)
    with (
        _encodable(patch.id),
        gc_paused(len(patch.ops) >= GC_PAUSE_OPS),
        store.transaction() as txn,
    ):
        work = plan(txn, patch, now)
        result = _write(txn, work, patch)
    _counted(len(result.receipts))  # committed
    return result


def check_patch(store: Store, patch: MemoryPatchCandidate) -> list[str]:
    """Dry run: the problems ``apply_patch`` would reject ``patch`` for."""
    with store.reader() as reader:
        try:
            with _encodable(patch.id):
                plan(reader, patch, utcnow())
        except PatchRejected as exc:
            return exc.problems
    return []


def reject_patch(
    store: Store, patch: MemoryPatchCandidate, reasons: Iterable[str], now: datetime | None = None
) -> MemoryLifecycleReceipt:
    """Record that ``patch`` was rejected: a patch row and one receipt, no graph change."""
    now = _utc(now)
    # a reason may quote unencodable input (an id with a lone surrogate)
    reasons = [_printable(r) for r in reasons]
    receipt = MemoryLifecycleReceipt(
        id=stable_id("r", patch.id, "reject"),
        patch_id=patch.id,
        op="reject_patch",
        target_id=patch.id,
        target_type="patch",
        actor=patch.proposer,
        at=now,
        ingested_at=now,
        before=PatchStatus.proposed.value,
        after=PatchStatus.rejected.value,
        reason="; ".join(reasons)[:4000],
        details={"problems": reasons[:50], "op_count": len(patch.ops)},
    )
    with _encodable(patch.id), store.transaction() as txn:
        status = txn.patch_status(patch.id)
        if status is not None:
            raise PatchAlreadyDecided([f"{patch.id}: patch was already {status}"])
        stored = patch.model_copy(
            update={
                "status": PatchStatus.rejected,
                "ops": patch.ops if len(patch.ops) <= MAX_STORED_OPS else [],
            }
        )
        try:
            to_json(stored)
        except PydanticSerializationError:
            # ops that cannot be stored are dropped; the receipt still says why
            stored = stored.model_copy(update={"ops": []})
        txn.put_patch(stored)
        txn.append_receipts([receipt])
    _counted(1)  # committed
    return receipt


def apply_or_reject(
    store: Store, patch: MemoryPatchCandidate, now: datetime | None = None
) -> ApplyResult:
    """Apply ``patch``; when validation fails, record the rejection and re-raise."""
    try:
        return apply_patch(store, patch, now)
    except PatchAlreadyDecided:
        raise
    except PatchRejected as exc:
        reject_patch(store, patch, exc.problems, now)
        raise


def new_patch(
    ops: list[GraphOp], proposer: str = "memgraph", reason: str = "", patch_id: str | None = None
) -> MemoryPatchCandidate:
    """A fresh patch with a unique id (or the given one)."""
    import uuid

    now = utcnow()
    # validating a bulk op list allocates like planning it does (see gc_paused)
    with gc_paused(len(ops) >= GC_PAUSE_OPS):
        return MemoryPatchCandidate(
            id=patch_id or f"p-{uuid.uuid4().hex}",
            proposer=proposer,
            reason=reason,
            ops=ops,
            created_at=now,
            ingested_at=now,
        )


__all__ = [
    "ApplyResult",
    "MemoryEdge",
    "MemoryEmbeddingManifest",
    "MemoryNode",
    "MemorySummary",
    "apply_or_reject",
    "apply_patch",
    "check_patch",
    "counting_receipts",
    "new_patch",
    "plan",
    "reject_patch",
]
