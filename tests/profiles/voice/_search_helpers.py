"""Build voice message nodes per the CONVENTIONS.md contract, through the engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import anchor_id, node_id
from memgraph.store import Store, open_store


@dataclass
class Msg:
    text: str
    ts: datetime
    session_id: str = "80166115-aaaa-bbbb-cccc-000000000001"
    uuid: str = ""
    constellation: str = "atlas"
    project: str = "atlas"
    classification: str | None = None
    confidence: float | None = None
    voice_page: str | None = None
    ingested_at: datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def message_node(m: Msg) -> MemoryNode:
    uuid = m.uuid or f"u-{abs(hash((m.text, m.ts, m.session_id)))}"
    nid = node_id("voice", "message", m.session_id, uuid)
    ingested = m.ingested_at or m.ts
    anchor = MemoryAnchor(
        id=anchor_id("transcript", "/t/x.jsonl", uuid),
        kind=AnchorKind.transcript,
        ref="/t/x.jsonl",
        line=1,
        record_uuid=uuid,
    )
    return MemoryNode(
        id=nid,
        domain_id=f"voice:{m.constellation}",
        profile="voice",
        kind="message",
        title=m.text.split("\n", 1)[0][:80],
        claim=m.text,
        anchors=[anchor],
        lifecycle="classified" if m.classification else "captured",
        created_at=ingested,
        updated_at=ingested,
        valid_from=m.ts,
        ingested_at=ingested,
        attributes={
            "session_id": m.session_id,
            "record_uuid": uuid,
            "project": m.project,
            "constellation": m.constellation,
            "branch": "main",
            "cwd": f"/src/{m.project}",
            "harness": "claude-code",
            "origin": "prompt",
            "classification": m.classification,
            "confidence": m.confidence,
            "topics": [],
            "voice_page": m.voice_page,
            **m.extra,
        },
    )


def add(store: Store, *msgs: Msg) -> list[MemoryNode]:
    nodes = [message_node(m) for m in msgs]
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes], proposer="test"))
    return nodes


def ts(day: str, hm: str = "12:00") -> datetime:
    return datetime.fromisoformat(f"{day}T{hm}:00").replace(tzinfo=UTC)


def sqlite_store(path: Path) -> Store:
    return open_store(path)
