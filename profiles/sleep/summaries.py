"""Session and window summaries: conservative, extractive, anchored.

A summary never says more than its sources: each line is the first line of one
classified operator message (decision, directive, correction, preference,
question) or one session note, and the summary covers exactly those nodes (so
``anchor_count`` counts their anchors and a changed source makes it stale).
``known_omissions`` says what was left out and why, with counts.

Ids are stable per session / window, so re-running over unchanged sources is a
no-op (the engine skips an identical fresh summary).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from memgraph.documents import MemoryNode, MemorySummary
from memgraph.ids import stable_id
from profiles.memory import agent_domain
from profiles.sleep.policy import SleepPolicy

TAGS = {
    "decision": "decided",
    "directive": "directive",
    "correction": "correction",
    "preference": "prefers",
    "question": "asked",
}


def _line(text: str, n: int = 140) -> str:
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return first if len(first) <= n else first[: n - 1] + "…"


def _when(n: MemoryNode) -> datetime:
    return n.valid_from or n.created_at


def build_summary(
    sid: str,
    target: str,
    project: str,
    messages: Sequence[MemoryNode],
    notes: Sequence[MemoryNode],
    commits: Sequence[MemoryNode],
    policy: SleepPolicy,
    extra_cover: Iterable[str] = (),
) -> MemorySummary | None:
    """The summary of one session/window, or None when nothing qualifies."""
    labels = policy.summary_labels
    chosen = [m for m in messages if m.attributes.get("classification") in labels]
    chosen.sort(key=lambda m: (_when(m), m.id))
    picked_notes = sorted(
        (n for n in notes if n.attributes.get("origin") != "startup"),
        key=lambda n: (_when(n), n.id),
    )
    items: list[tuple[str, MemoryNode]] = [
        (TAGS[str(m.attributes["classification"])], m) for m in chosen
    ]
    items += [("note", n) for n in picked_notes]
    items += [("commit", c) for c in sorted(commits, key=lambda c: (_when(c), c.id))]
    if not items:
        return None
    kept = items[: policy.summary_lines]
    omissions: list[str] = []
    if len(items) > len(kept):
        omissions.append(f"{len(items) - len(kept)} further item(s) beyond {len(kept)} lines")
    others = len(messages) - len(chosen)
    if others:
        unclassified = sum(1 for m in messages if m.attributes.get("classification") is None)
        omissions.append(
            f"{others} other message(s) not summarised (commands, rationale, definitions"
            + (f"; {unclassified} unclassified" if unclassified else "")
            + ")"
        )
    omissions.append("each item is the first line of its source, cut to 140 characters")
    omissions.append("assistant turns and tool output are not captured")
    lines = [f"{tag}: {_line(n.claim or n.title)}" for tag, n in kept]
    questions = [_line(n.claim) for tag, n in kept if tag == "asked"]
    corrections = [_line(n.claim) for tag, n in kept if tag == "correction"]
    directives = [_line(n.claim) for tag, n in kept if tag in ("directive", "decided")]
    covered = sorted({n.id for _, n in kept} | set(extra_cover))
    first = min(_when(n) for _, n in kept)
    return MemorySummary(
        id=stable_id("s", "sleep-summary", sid),
        domain_id=agent_domain(project),
        covers_node_ids=covered,
        target=target,
        claim="\n".join(lines),
        question="; ".join(questions)[:600],
        tension="; ".join(corrections)[:600],
        action_implication="; ".join(directives)[:600],
        confidence=0.6,
        known_omissions=omissions,
        valid_from=first,
    )
