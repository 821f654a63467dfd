"""The night pass: classify voice messages, as ONE validated patch.

Select the messages to classify, ask a proposer (rules or Ollama), turn every
proposal into ``revise_node`` (classification attributes) and, for messages
still ``captured``, ``transition_node`` -> ``classified`` ops of one
``MemoryPatchCandidate``. The label check (``classification_problems``) runs on
every proposal first; if any proposal is bad the WHOLE patch is recorded as
rejected (``engine.reject_patch``, one receipt) and nothing changes — a model
that invents labels or ids for some messages is not trusted for the rest.
Otherwise ``engine.apply_or_reject`` applies it (generic + profile law), and
the session pages of the touched messages are re-rendered.

Which messages: ``rules`` takes messages not yet classified; ``ollama`` also
takes messages the rules classified (the model refines them); ``force`` takes
every message. A proposal equal to what a message already has adds no op, so
re-running the pass changes nothing.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, tzinfo
from pathlib import Path
from typing import Any, Protocol

from memgraph.documents import (
    GraphOp,
    MemoryLifecycleReceipt,
    MemoryNode,
    NodeRevision,
    ReviseNode,
    TransitionNode,
)
from memgraph.engine import apply_or_reject, new_patch, reject_patch
from memgraph.errors import ConfigError, MemgraphError, PatchRejected, UsageError
from memgraph.store.protocol import Store
from profiles.voice.classify.labels import Proposal, classification_problems
from profiles.voice.classify.ollama import OllamaConfig

RULES = "rules"
CLASSIFIERS = (RULES, "ollama")  # what make_proposer builds
CLASSIFIED = "classified"
CAPTURED = "captured"
CONTRACT_KEYS = ("classification", "confidence", "topics", "classified_by")


class Proposer(Protocol):
    """Anything that proposes classifications for ``(id, text)`` pairs."""

    name: str

    def propose(self, items: Sequence[tuple[str, str]]) -> list[Proposal]: ...


class ProposalRejected(PatchRejected):
    """A proposer's output failed validation; its patch was recorded as rejected."""

    def __init__(self, problems: list[str], receipt: MemoryLifecycleReceipt) -> None:
        super().__init__(problems)
        self.receipt = receipt
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        self.args = (
            f"{receipt.actor} proposal rejected, nothing changed (receipt {receipt.id}): "
            f"{problems[0]}{more}",
        )


def parse_window(text: str) -> tuple[time, time]:
    """``"HH:MM-HH:MM"`` -> (start, end); the window may wrap past midnight."""
    try:
        start_s, end_s = (part.strip() for part in text.split("-"))
        start, end = time.fromisoformat(start_s), time.fromisoformat(end_s)
    except ValueError:
        raise ConfigError(
            f"night_window {text[:40]!r} is not HH:MM-HH:MM (e.g. 02:00-06:00)"
        ) from None
    if start == end:
        raise ConfigError(f"night_window {text!r} is empty (start equals end)")
    return start, end


def in_window(moment: time, window: tuple[time, time]) -> bool:
    start, end = window
    moment = moment.replace(tzinfo=None)
    if start < end:
        return start <= moment < end
    return moment >= start or moment < end  # wraps midnight, e.g. 22:00-04:00


@dataclass
class NightPassRequest:
    classifier: str = RULES  # "rules" | "ollama"; the proposer given to the pass must match
    since: datetime | None = None  # only messages said at or after this (aware)
    force: bool = False  # reclassify messages that already have a classification
    ignore_window: bool = False  # --now
    night_window: str = "02:00-06:00"
    now: datetime | None = None  # injectable clock (aware); None: the system clock
    tz: tzinfo | None = None  # the window's time zone; None: the system's local zone
    vault: Path | None = None  # re-render voice pages under this vault when set
    limit: int | None = None  # at most this many messages per run (oldest first)


@dataclass
class NightPassResult:
    status: str  # outside_window | nothing_to_do | unchanged | applied
    local_time: str
    classifier: str = RULES
    selected: int = 0
    classified: int = 0  # messages this pass changed
    already_done: int = 0  # planned, but found so when written (another run's work)
    unanswered: int = 0
    patch_id: str | None = None
    by_label: dict[str, int] = field(default_factory=dict)
    pages: list[str] = field(default_factory=list)
    page_problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


def make_proposer(classifier: str, ollama: OllamaConfig | None = None) -> Proposer:
    """The proposer named by ``--classifier``: ``rules`` or ``ollama``."""
    if classifier == RULES:
        from profiles.voice.classify.rules import RuleClassifier

        return RuleClassifier()
    if classifier == "ollama":
        from profiles.voice.classify.ollama import OllamaClassifier

        return OllamaClassifier(ollama or OllamaConfig())
    raise UsageError(f"unknown classifier {classifier[:40]!r}: use {' or '.join(CLASSIFIERS)}")


def select_messages(store: Store, request: NightPassRequest) -> list[MemoryNode]:
    """The message nodes this pass should classify, oldest first."""
    chosen: list[MemoryNode] = []
    for node in store.iter_nodes(profile="voice", kind="message"):
        if node.lifecycle not in (CAPTURED, CLASSIFIED):
            continue
        said = node.valid_from or node.created_at
        if request.since is not None and said < request.since:
            continue
        if not request.force and not _wanted(node, request.classifier):
            continue
        chosen.append(node)
    chosen.sort(key=lambda n: (n.valid_from or n.created_at, n.id))
    return chosen[: request.limit] if request.limit is not None else chosen


def _wanted(node: MemoryNode, classifier: str) -> bool:
    if node.attributes.get("classification") is None or node.lifecycle == CAPTURED:
        return True
    # the model refines what the rules said; it never redoes its own work unforced
    return classifier != RULES and node.attributes.get("classified_by") == RULES


def build_ops(
    nodes: dict[str, MemoryNode], proposals: Sequence[Proposal], proposer: str
) -> tuple[list[GraphOp], list[str]]:
    """(ops, problems) for ``proposals`` about ``nodes``; unchanged messages add no op."""
    ops: list[GraphOp] = []
    problems: list[str] = []
    seen: set[str] = set()
    reason = f"night-pass classification by {proposer}"
    for proposal in proposals:
        proposed = {**proposal.attributes(), "classified_by": proposer}
        problems.extend(classification_problems(proposal.id, proposed))
        if proposal.id in seen:
            problems.append(f"{proposal.id}: classified twice in one answer")
        seen.add(proposal.id)
        node = nodes.get(proposal.id)
        if node is None:
            problems.append(f"{proposal.id[:80]}: not one of the messages sent for classification")
            # keep the op so the rejected patch records what was proposed
            ops.append(ReviseNode(node_id=proposal.id, changes=NodeRevision(attributes=proposed)))
            continue
        current = {k: node.attributes.get(k) for k in CONTRACT_KEYS}
        if current != proposed:
            ops.append(
                ReviseNode(
                    node_id=node.id,
                    changes=NodeRevision(attributes={**node.attributes, **proposed}),
                    reason=reason,
                )
            )
        if node.lifecycle == CAPTURED:
            ops.append(TransitionNode(node_id=node.id, to_state=CLASSIFIED, reason=reason))
    return ops, problems


# Messages handed to the proposer at a time (the progress bar moves per chunk;
# the same chunks whether or not a bar is shown, so answers never depend on it).
PROPOSE_CHUNK = 256


def run_night_pass(
    store: Store,
    request: NightPassRequest,
    proposer: Proposer,
    progress: Callable[[int, int], None] | None = None,
) -> NightPassResult:
    """Run one pass; see the module docstring. Raises ``ProposalRejected``,
    ``PatchRejected`` or the proposer's error (``OllamaUnavailable`` ...) with
    the store unchanged. ``progress(messages proposed, messages selected)``."""
    now = request.now or datetime.now(UTC)
    if now.tzinfo is None:
        raise ConfigError("the night pass needs a timezone-aware time")
    local = now.astimezone(request.tz)
    result = NightPassResult(
        status="outside_window", local_time=local.strftime("%H:%M"), classifier=proposer.name
    )
    window = parse_window(request.night_window)
    if not request.ignore_window and not in_window(local.time(), window):
        return result
    nodes = select_messages(store, request)
    result.selected = len(nodes)
    if not nodes:
        result.status = "nothing_to_do"
        return result
    by_id = {n.id: n for n in nodes}
    # the proposer runs before any write: if it fails, nothing has changed
    items = [(n.id, n.claim) for n in nodes]
    proposals = []
    for at in range(0, len(items), PROPOSE_CHUNK):
        if progress is not None:
            progress(at, len(items))
        proposals += proposer.propose(items[at : at + PROPOSE_CHUNK])
    if progress is not None:
        progress(len(items), len(items))
    answered = {p.id for p in proposals}
    result.unanswered = sum(1 for i in by_id if i not in answered)
    ops, problems = build_ops(by_id, proposals, proposer.name)
    patch = new_patch(ops, proposer=proposer.name, reason="night-pass classification")
    if problems:
        receipt = reject_patch(store, patch, problems, now)
        raise ProposalRejected(problems, receipt)
    if not ops:
        result.status = "unchanged"
        return result
    applied = apply_or_reject(store, patch, now)
    result.status = "applied" if applied.changed else "unchanged"
    result.patch_id = patch.id if applied.changed else None
    planned = {op.node_id for op in ops if isinstance(op, ReviseNode | TransitionNode)}
    # a message another run classified meanwhile gets no receipt from this one
    touched = planned & {r.target_id for r in applied.receipts}
    result.classified = len(touched)
    result.already_done = len(planned) - len(touched)
    result.by_label = dict(
        Counter(
            p.attributes()["classification"] for p in proposals if p.id in touched
        ).most_common()
    )
    if request.vault is not None and applied.changed:
        sessions = {str(by_id[i].attributes.get("session_id") or "") for i in touched}
        rerender_pages(store, request.vault, sorted(s for s in sessions if s), result)
    return result


def rerender_pages(store: Store, vault: Path, sessions: list[str], result: NightPassResult) -> None:
    """Re-render each touched session's voice page (its ``## Classifications`` table).

    Pages are views: a page that fails to render is reported, the store stays
    as applied, and the next render (or this pass re-run) brings it back.
    """
    try:
        views: Any = importlib.import_module("profiles.voice.views")
        write_session_page = views.write_session_page
    except (ModuleNotFoundError, AttributeError):
        result.page_problems.append(
            "voice pages not re-rendered: profiles.voice.views.write_session_page is not available"
        )
        return
    from memgraph.fileio import deferred_fsync

    with deferred_fsync():  # one fsync per page, not two: the folders' at the end
        for session_id in sessions:
            try:
                written = write_session_page(store, vault, session_id)
            except (MemgraphError, OSError) as exc:
                result.page_problems.append(f"{session_id}: page not re-rendered: {exc}")
                continue
            if written is not None:
                result.pages.append(str(written))
