"""Ollama proposes, validation decides: titles and distillations for sleep's output.

After the deterministic stages, the nodes sleep distilled or incubated (role_self
and incubation nodes made from short_term memory, not yet reviewed by a model)
are sent to a local Ollama (``/api/chat``, JSON output). Each answer item is one
proposal turned into its own patch:

- ``{"op": "retitle", "id": ..., "title": ...}`` -> ``revise_node`` (title);
- ``{"op": "distill", "id": ..., "claim": ...}`` -> ``revise_node`` (claim);
- ``{"op": "transition", "id": ..., "to": ...}`` -> ``transition_node``.

``engine.apply_or_reject`` applies a valid proposal, and records an invalid one
(unknown id, illegal transition, profile law) as a rejected patch with its
receipt. Without Ollama none of this runs and sleep is complete.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memgraph.documents import GraphOp, MemoryNode, NodeRevision, ReviseNode, TransitionNode
from memgraph.engine import apply_or_reject, new_patch
from memgraph.errors import BackendUnavailable, MissingExtra, PatchRejected

SYSTEM_PROMPT = (
    "You tidy an agent's memory. For each item (id, profile, title, claim) you may propose a "
    "shorter, clearer title (op retitle), a one-sentence distillation of the claim (op distill), "
    "or a lifecycle transition (op transition, field to). Answer JSON: "
    '{"proposals": [{"op": ..., "id": ..., "title"|"claim"|"to": ...}]}. Propose nothing you '
    "are unsure of."
)
MARK = "model_reviewed"


@dataclass(frozen=True)
class OllamaMemoryProposer:
    model: str = "gemma4:e2b"
    host: str | None = None
    timeout: float = 30.0

    @property
    def name(self) -> str:
        return f"ollama:{self.model}"

    def propose(self, items: list[dict[str, str]]) -> list[dict[str, Any]]:
        try:
            import httpx
            import ollama
        except ImportError:
            raise MissingExtra("ollama", "ollama") from None
        client = ollama.Client(host=self.host, timeout=self.timeout)
        try:
            response = client.chat(
                model=self.model,
                messages=[
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": json.dumps(items, ensure_ascii=False)},
                ],
                format="json",
                stream=False,
                options={"temperature": 0},
            )
        except (ConnectionError, httpx.HTTPError, ollama.ResponseError) as exc:
            raise BackendUnavailable(f"ollama at {self.host or 'default host'}: {exc}") from None
        try:
            data = json.loads(response.message.content or "{}")
        except ValueError:
            return []
        found = data.get("proposals") if isinstance(data, dict) else None
        return [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []


def candidates(store: Any) -> list[MemoryNode]:
    out: list[MemoryNode] = []
    for profile in ("role_self", "incubation"):
        for n in store.iter_nodes(profile=profile):
            fresh = n.attributes.get("from_short_term") and not n.attributes.get(MARK)
            if fresh and n.lifecycle in ("proposed", "active"):
                out.append(n)
    return sorted(out, key=lambda n: n.id)


def proposal_op(p: dict[str, Any], nodes: dict[str, MemoryNode], model: str) -> GraphOp:
    nid = str(p.get("id") or "")
    op = p.get("op")
    node = nodes.get(nid)
    attrs = {**node.attributes, MARK: model} if node is not None else {MARK: model}
    if op == "retitle":
        return ReviseNode(
            node_id=nid,
            changes=NodeRevision(title=str(p.get("title") or "")[:200], attributes=attrs),
            reason=f"title proposed by {model}",
        )
    if op == "distill":
        return ReviseNode(
            node_id=nid,
            changes=NodeRevision(claim=str(p.get("claim") or "")[:2000], attributes=attrs),
            reason=f"distillation proposed by {model}",
        )
    return TransitionNode(
        node_id=nid, to_state=str(p.get("to") or ""), reason=f"transition proposed by {model}"
    )


def propose_titles(store: Any, proposer: Any, now: datetime, report: Any) -> None:
    from profiles.sleep.sleep_types import Stage

    stage = Stage("model proposals")
    report.stages.append(stage)
    nodes = {n.id: n for n in candidates(store)}
    if not nodes:
        return
    items = [
        {"id": n.id, "profile": n.profile.value, "title": n.title, "claim": n.claim}
        for n in nodes.values()
    ]
    try:
        proposals = proposer.propose(items)
    except BackendUnavailable as exc:
        stage.notes.append(f"skipped: {exc}")
        return
    stage.planned = len(proposals)
    if report.dry_run:
        return
    for p in proposals:
        op = proposal_op(p, nodes, proposer.name)
        patch = new_patch([op], proposer=proposer.name, reason=f"model proposal: {p.get('op')}")
        try:
            result = apply_or_reject(store, patch, now)
        except PatchRejected as exc:
            report.rejected.append(f"{proposer.name}: {exc}")
            stage.receipts += 1
            report.receipts += 1
            continue
        stage.receipts += len(result.receipts)
        report.receipts += len(result.receipts)
