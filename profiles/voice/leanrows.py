"""The rows ``apply_patch`` stores for a patch of new voice nodes and edges
(stdlib only; ``profiles.voice.lean`` builds the documents, this their rows)."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from memgraph.store.rows import EdgeRow, GraphWrite, NodeRow, PatchRow, ReceiptRow, iso
from profiles.session.records import compact, dt_json, node_content_hash

PROFILE = "voice"
PROPOSER = "voice.capture"  # profiles.voice.capture.PROPOSER
CAPTURED = "captured"
# memgraph.engine.MAX_STORED_OPS: a patch keeps its ops only when this small
MAX_STORED_OPS = 1000

Doc = dict[str, Any]


def graph_rows(
    ops: list[Doc], reason: str, now: datetime, patch_id: str, created: datetime
) -> GraphWrite:
    """What ``apply_patch`` stores for ``ops`` (all new): rows, receipts, the patch
    (``created``: its stamp, as ``memgraph.engine.new_patch`` gives one)."""
    stamp, at = dt_json(now), iso(now)
    prefix = _receipt_prefix(patch_id)
    receipt_json = _receipt_json(stamp, patch_id, reason)
    nodes: list[NodeRow] = []
    edges: list[EdgeRow] = []
    receipts: list[ReceiptRow] = []
    stored_ops: list[str] = []  # each op's JSON, as the patch document holds it
    for number, op in enumerate(ops, 1):
        if op["op"] == "upsert_node":
            n = op["node"]
            doc = compact(n)
            # compact JSON composes: the op's text is the node's text inside it
            stored_ops.append('{"op":"upsert_node","node":' + doc + "}")
            nodes.append(
                NodeRow(
                    n["id"],
                    PROFILE,
                    n["kind"],
                    n["domain_id"],
                    n["lifecycle"],
                    _iso_text(n["valid_from"]),
                    _iso_text(n["valid_to"]),
                    at,
                    at,
                    n["title"],
                    n["claim"],  # body: claim, question, tension, implication (only claim)
                    doc,
                )
            )
            target, kind, details = n["id"], "node", {"hash": node_content_hash(n)}
        else:
            stored_ops.append(compact(op))
            e = {**op["edge"], "ingested_at": stamp}
            edges.append(
                EdgeRow(
                    e["id"],
                    e["source_id"],
                    e["target_id"],
                    e["kind"],
                    PROFILE,
                    CAPTURED,
                    compact(e),
                )
            )
            target, kind, details = e["id"], "edge", {}
        rid = _receipt_id(prefix, number)
        receipts.append(
            ReceiptRow(
                rid,
                patch_id,
                op["op"],
                target,
                at,
                receipt_json(rid, op["op"], target, kind, details),
            )
        )
    patch: Doc = {  # field order follows MemoryPatchCandidate
        "valid_from": None,
        "valid_to": None,
        "ingested_at": dt_json(created),
        "id": patch_id,
        "proposer": PROPOSER,
        "reason": reason,
        "ops": [],
        "status": "applied",
        "created_at": dt_json(created),
    }
    text = compact(patch)
    if len(ops) <= MAX_STORED_OPS:
        text = text.replace('"ops":[]', '"ops":[' + ",".join(stored_ops) + "]", 1)
    return GraphWrite(
        nodes=tuple(nodes),
        edges=tuple(edges),
        receipts=tuple(receipts),
        patch=PatchRow(patch_id, "applied", iso(created), text),
    )


def _receipt_json(stamp: str, patch_id: str, reason: str) -> Any:
    """``rid, op, target, kind, details -> compact(receipt)`` for this patch's
    receipts (field order follows MemoryLifecycleReceipt): the fields every receipt
    of the patch shares are encoded once, the rest per receipt with the same
    encoder (a string's compact JSON is its JSON inside any document)."""
    at = compact(stamp)
    head = '{"valid_from":null,"valid_to":null,"ingested_at":' + at + ',"id":'
    middle = ',"profile":' + compact(PROFILE) + ',"actor":' + compact(PROPOSER) + ',"at":' + at
    middle += ',"before":null,"after":' + compact(CAPTURED) + ',"reason":' + compact(reason)
    after_id = ',"patch_id":' + compact(patch_id) + ',"op":'

    def receipt_json(rid: str, op: str, target: str, kind: str, details: Doc) -> str:
        return "".join(
            (
                head,
                compact(rid),
                after_id,
                compact(op),
                ',"target_id":',
                compact(target),
                ',"target_type":',
                compact(kind),
                middle,
                ',"details":',
                compact(details),
                "}",
            )
        )

    return receipt_json


def _receipt_prefix(patch_id: str) -> Any:
    """sha256 state of ``stable_id("r", patch_id, ...)`` before its last part
    (as ``memgraph.working``: receipt ids without rehashing the patch id)."""
    h = hashlib.sha256()
    data = patch_id.encode("utf-8", "surrogatepass")
    h.update(len(data).to_bytes(8, "big"))
    h.update(data)
    return h


def _receipt_id(prefix: Any, number: int) -> str:
    h = prefix.copy()
    data = str(number).encode()
    h.update(len(data).to_bytes(8, "big"))
    h.update(data)
    return f"r-{h.hexdigest()[:16]}"


def _iso_text(value: str | None) -> str | None:
    """A document's time (``dt_json``) as the store's fixed-width column text."""
    if value is None:
        return None
    return iso(datetime.fromisoformat(value.replace("Z", "+00:00")))
