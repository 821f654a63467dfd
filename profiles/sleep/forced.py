"""Forced sleep over short_term memory: every open node ends accounted for.

For each domain with open (``active``/``clustered``) short_term nodes:

1. cluster them: by the configured embedder's cosine (>= ``policy.cosine``;
   ``MEMGRAPH_EMBEDDER``, the one setting every vector reader uses), else by
   token overlap (Jaccard >= ``policy.jaccard``); single-link, deterministic
   (sorted ids). The choice is the setting's, not whichever package happens to be
   installed: the same store and setting consolidate the same way on every machine;
2. decide each node's disposition:
   - a cluster of two or more is *distilled*: folded into one cluster summary
     (``summarize_cluster`` over the members, their anchors counted);
   - a single node with a question or tension, or high salience, is *incubated*:
     a new incubation node (``active``) and an ``incubates_as`` edge;
   - a single node that states a lesson/habit/commitment ("always", "never",
     "prefer", "lesson", "remember to"...) is *distilled* into a proposed
     role_self node (repo anchors and attributes stripped: role law) and a
     ``distills_into`` edge;
   - anything else is *pruned*;
3. one ``forced_sleep`` op per domain names every open node: the engine
   refuses a patch that leaves any unaccounted, and writes one receipt per node.

The new nodes come first in the patch, the forced_sleep op next, the summaries
(taken over the members' final state, so they start fresh) and edges last.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memgraph.documents import (
    ForcedSleep,
    GraphOp,
    MemoryEdge,
    MemoryNode,
    MemorySummary,
    SleepDisposition,
    SummarizeCluster,
    UpsertEdge,
    UpsertNode,
)
from memgraph.ids import edge_id, node_id, stable_id
from profiles.agent import REPO_TRUTH_ANCHORS, REPO_TRUTH_ATTRIBUTES, SHORT_TERM_OPEN_STATES
from profiles.sleep.policy import SleepPolicy

if TYPE_CHECKING:
    from context_cut.embedders import Embedder
    from profiles.sleep.sleep_types import EmbedderFactory

_WORD = re.compile(r"[a-z0-9_]{3,}")
STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "that",
        "this",
        "with",
        "from",
        "have",
        "has",
        "was",
        "were",
        "are",
        "but",
        "not",
        "you",
        "your",
        "our",
        "its",
        "into",
        "they",
        "them",
        "then",
        "than",
        "when",
        "what",
        "which",
        "who",
        "why",
        "how",
        "will",
        "would",
        "should",
        "could",
        "can",
        "just",
        "also",
        "there",
        "here",
        "about",
        "after",
        "before",
        "been",
        "being",
        "does",
        "did",
        "done",
        "over",
        "under",
        "more",
        "most",
        "some",
        "such",
        "only",
        "very",
        "like",
        "make",
        "made",
        "use",
        "used",
        "using",
        "need",
        "needs",
        "want",
    ]
)
LESSON = re.compile(
    r"\b(always|never|prefer|i should|we should|lesson|remember to|from now on|"
    r"don'?t forget|habit|commit(?:ment)? to|make sure to)\b",
    re.IGNORECASE,
)


def tokens(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in STOP)


def node_text(n: MemoryNode) -> str:
    return " ".join(p for p in (n.title, n.claim, n.question, n.tension) if p)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


Similar = Callable[[Sequence[MemoryNode]], list[list[bool]]]


def token_similarity(policy: SleepPolicy) -> Similar:
    def similar(nodes: Sequence[MemoryNode]) -> list[list[bool]]:
        toks = [tokens(node_text(n)) for n in nodes]
        return [[jaccard(a, b) >= policy.jaccard for b in toks] for a in toks]

    return similar


def similarity(policy: SleepPolicy, embedder: EmbedderFactory | None) -> tuple[Similar, str]:
    """The configured embedder's cosine, else token overlap, and which one (the stage's
    note). An embedder that cannot load (extra missing, Ollama down) does not stop the
    nightly pass: it clusters by token overlap and the note says why."""
    from memgraph.errors import BackendUnavailable, MissingExtra

    if embedder is not None:
        try:
            built = embedder()
        except (MissingExtra, BackendUnavailable) as exc:
            return token_similarity(policy), f"token overlap (the embedder is unavailable: {exc})"
        if built is not None:
            return embedding_similarity(policy, built)
    return token_similarity(policy), "token overlap"


def embedding_similarity(policy: SleepPolicy, embedder: Embedder) -> tuple[Similar, str]:
    """Cosine similarity of ``embedder``'s vectors (normalised here: an Ollama model
    need not return unit vectors)."""

    def similar(nodes: Sequence[MemoryNode]) -> list[list[bool]]:
        vecs = [_unit(v) for v in embedder.embed([node_text(n) for n in nodes])]
        return [
            [sum(x * y for x, y in zip(a, b, strict=True)) >= policy.cosine for b in vecs]
            for a in vecs
        ]

    return similar, f"embeddings ({embedder.name})"


def _unit(vector: list[float]) -> list[float]:
    norm = sum(x * x for x in vector) ** 0.5
    return [x / norm for x in vector] if norm else vector


def clusters(nodes: Sequence[MemoryNode], similar: Similar) -> list[list[MemoryNode]]:
    """Single-link clusters in a deterministic order (by smallest id)."""
    ordered = sorted(nodes, key=lambda n: n.id)
    parent = list(range(len(ordered)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    matrix = similar(ordered) if len(ordered) > 1 else [[True]]
    for i in range(len(ordered)):
        for j in range(i + 1, len(ordered)):
            if matrix[i][j]:
                parent[root(j)] = root(i)
    groups: dict[int, list[MemoryNode]] = {}
    for i, n in enumerate(ordered):
        groups.setdefault(root(i), []).append(n)
    return sorted(groups.values(), key=lambda g: g[0].id)


@dataclass
class SleepPlan:
    domain_id: str
    dispositions: dict[str, SleepDisposition] = field(default_factory=dict)
    new_nodes: list[MemoryNode] = field(default_factory=list)
    summaries: list[MemorySummary] = field(default_factory=list)
    edges: list[MemoryEdge] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)

    def ops(self, reason: str) -> list[GraphOp]:
        ops: list[GraphOp] = [UpsertNode(node=n) for n in self.new_nodes]
        ops.append(
            ForcedSleep(domain_id=self.domain_id, dispositions=self.dispositions, reason=reason)
        )
        ops += [SummarizeCluster(summary=s) for s in self.summaries]
        ops += [UpsertEdge(edge=e) for e in self.edges]
        return ops

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.dispositions.values():
            out[d.value] = out.get(d.value, 0) + 1
        return out


def _derived(
    src: MemoryNode, profile: str, kind: str, lifecycle: str, now: datetime, role: bool
) -> MemoryNode:
    anchors = [a for a in src.anchors if not (role and a.kind in REPO_TRUTH_ANCHORS)]
    attrs: dict[str, Any] = {
        k: v for k, v in src.attributes.items() if not (role and k in REPO_TRUTH_ATTRIBUTES)
    }
    attrs["from_short_term"] = src.id
    return MemoryNode(
        id=node_id(profile, kind, src.id),
        domain_id=src.domain_id,
        profile=profile,
        kind=kind,
        title=src.title,
        claim=src.claim,
        question=src.question,
        tension=src.tension,
        action_implication=src.action_implication,
        anchors=anchors,
        lifecycle=lifecycle,
        salience=src.salience,
        confidence=0.4,
        created_at=now,
        updated_at=now,
        valid_from=src.valid_from or now,
        attributes=attrs,
    )


def _edge(kind: str, src: MemoryNode, dst: MemoryNode, now: datetime, state: str) -> MemoryEdge:
    return MemoryEdge(
        id=edge_id(kind, src.id, dst.id),
        source_id=src.id,
        target_id=dst.id,
        kind=kind,
        profile="short_term",
        lifecycle=state,
        valid_from=now,
    )


def _cluster_summary(group: list[MemoryNode], domain_id: str) -> MemorySummary:
    ids = [n.id for n in group]
    lines = [" ".join((n.title or n.claim).split())[:160] for n in group]
    questions = [n.question for n in group if n.question]
    tensions = [n.tension for n in group if n.tension]
    common = sorted(set.intersection(*(set(tokens(node_text(n))) for n in group)))[:6]
    return MemorySummary(
        id=stable_id("s", "short_term-cluster", domain_id, *sorted(ids)),
        domain_id=domain_id,
        covers_node_ids=ids,
        target=f"short-term cluster: {', '.join(common) or 'related notes'} ({len(ids)} notes)",
        claim="; ".join(lines)[:1500],
        question="; ".join(questions)[:500],
        tension="; ".join(tensions)[:500],
        confidence=0.6,
        known_omissions=[
            "extractive: each note cut to its first 160 characters",
            "notes written after this sleep are not covered",
        ],
    )


def plan_domain(
    domain_id: str,
    open_nodes: list[MemoryNode],
    similar: Similar,
    policy: SleepPolicy,
    now: datetime,
) -> SleepPlan:
    plan = SleepPlan(domain_id)
    for group in clusters(open_nodes, similar):
        if len(group) >= 2:
            plan.summaries.append(_cluster_summary(group, domain_id))
            for n in group:
                plan.dispositions[n.id] = SleepDisposition.distilled
                plan.reasons[n.id] = f"folded into cluster summary {plan.summaries[-1].id}"
            continue
        n = group[0]
        if n.question or n.tension or n.salience >= policy.incubate_salience:
            kind = "question" if n.question else "hunch" if n.tension else "idea"
            inc = _derived(n, "incubation", kind, "active", now, role=False)
            plan.new_nodes.append(inc)
            plan.edges.append(_edge("incubates_as", n, inc, now, "incubated"))
            plan.dispositions[n.id] = SleepDisposition.incubated
            plan.reasons[n.id] = f"incubates as {inc.id}"
        elif LESSON.search(node_text(n)) or n.kind == "todo":
            kind = "commitment" if n.kind == "todo" else "lesson"
            role = _derived(n, "role_self", kind, "proposed", now, role=True)
            plan.new_nodes.append(role)
            plan.edges.append(_edge("distills_into", n, role, now, "distilled"))
            plan.dispositions[n.id] = SleepDisposition.distilled
            plan.reasons[n.id] = f"distilled into proposed role_self {role.id}"
        else:
            plan.dispositions[n.id] = SleepDisposition.pruned
            plan.reasons[n.id] = "pruned: a single low-salience observation"
    return plan


def open_short_term(store: Any) -> dict[str, list[MemoryNode]]:
    """Open short_term nodes by domain."""
    by_domain: dict[str, list[MemoryNode]] = {}
    for n in store.iter_nodes(profile="short_term"):
        if n.lifecycle in SHORT_TERM_OPEN_STATES and n.kind != "cluster":
            by_domain.setdefault(n.domain_id, []).append(n)
    return by_domain


__all__ = ["SleepPlan", "clusters", "open_short_term", "plan_domain", "tokens"]
