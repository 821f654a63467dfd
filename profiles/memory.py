"""Agents write memory, validation decides: ``remember`` and ``propose``.

``remember`` turns a note from the current session into a short_term node
(lifecycle ``active``); ``propose`` enters a typed claim for role_self,
incubation, agency_pressure, candidate_intervention, evidence or a repo profile
in its profile's initial state. Both build one ``upsert_node`` patch and apply
it with ``engine.apply_or_reject``: profile law decides (role memory cannot
carry repo truth, evidence needs an anchor, a repo claim cannot enter
``accepted`` without a review receipt...), and a rejected patch is recorded
with its receipt before ``PatchRejected`` (naming the law) reaches the caller.

Agent memory lives in one domain per project: ``agent:<project>``. Provenance
is the session id and harness (attributes, plus a session entity anchor).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, UpsertNode, utcnow
from memgraph.engine import apply_or_reject, new_patch
from memgraph.errors import PatchRejected, UsageError
from memgraph.ids import anchor_id, digest, is_safe_name, node_id
from memgraph.inputs import unstorable_text

MAX_TEXT = 4000  # the memory's text, and each of title, tension, question, implication
MAX_REF = 1000  # each evidence pointer (transcript, record, file, commit, repo)
MAX_FILES = 200
PROPOSABLE = (
    "role_self",
    "incubation",
    "agency_pressure",
    "candidate_intervention",
    "evidence",
    "repo_architecture",
    "repo_dataflow",
)
# the state a proposal enters when the caller names none (must be an initial state)
DEFAULT_STATE = {
    "role_self": "proposed",
    "incubation": "active",
    "agency_pressure": "active",
    "candidate_intervention": "queued",
    "evidence": "observed",
    "repo_architecture": "proposed",
    "repo_dataflow": "proposed",
}
DEFAULT_KIND = {
    "role_self": "lesson",
    "incubation": "idea",
    "agency_pressure": "pressure",
    "candidate_intervention": "suggestion",
    "evidence": "observation",
    "repo_architecture": "claim",
    "repo_dataflow": "claim",
    "short_term": "observation",
}


def agent_domain(project: str) -> str:
    return f"agent:{project}"


@dataclass(frozen=True)
class Anchors:
    """Evidence pointers given on the command line or by a tool call."""

    transcript: str | None = None  # path, optionally ``path:line``
    record_uuid: str | None = None
    files: tuple[str, ...] = ()
    commit: str | None = None
    repo: str | None = None  # where the commit lives (default: the project)


@dataclass(frozen=True)
class MemoryRequest:
    """One remember/propose call."""

    text: str
    session_id: str
    project: str
    harness: str = "cli"
    profile: str = "short_term"
    kind: str | None = None
    title: str | None = None
    tension: str = ""
    question: str = ""
    action_implication: str = ""
    state: str | None = None  # None: the profile's default initial state
    salience: float = 0.5
    anchors: Anchors = field(default_factory=Anchors)
    attributes: dict[str, Any] = field(default_factory=dict)
    persona: str | None = None


@dataclass(frozen=True)
class MemoryResult:
    id: str
    profile: str
    kind: str
    lifecycle: str
    domain_id: str
    changed: bool
    receipts: list[str]

    def line(self) -> str:
        state = "stored" if self.changed else "unchanged"
        return f"{state} {self.id} {self.profile}/{self.kind} {self.lifecycle} ({self.domain_id})"


def _anchors(req: MemoryRequest) -> list[MemoryAnchor]:
    out = [
        MemoryAnchor(
            id=anchor_id("entity", "session", req.session_id),
            kind=AnchorKind.entity,
            ref=f"session:{req.session_id}",
            label=req.harness,
        )
    ]
    a = req.anchors
    if a.transcript or a.record_uuid:
        path, line = a.transcript or "", None
        head, sep, tail = path.rpartition(":")
        if sep and tail.isdigit():
            path, line = head, int(tail)
        out.append(
            MemoryAnchor(
                id=anchor_id("transcript", path, str(line), a.record_uuid or ""),
                kind=AnchorKind.transcript,
                ref=path or f"session:{req.session_id}",
                line=line,
                record_uuid=a.record_uuid,
            )
        )
    for f in a.files:
        out.append(MemoryAnchor(id=anchor_id("file", f), kind=AnchorKind.file, ref=f))
    if a.commit:
        repo = a.repo or req.project
        out.append(
            MemoryAnchor(
                id=anchor_id("commit", repo, a.commit),
                kind=AnchorKind.commit,
                ref=repo,
                sha=a.commit,
            )
        )
    return out


def _check(req: MemoryRequest) -> None:
    text = req.text.strip()
    if not text:
        raise UsageError("the memory text is empty")
    if len(req.text) > MAX_TEXT:
        raise UsageError(f"the memory text is longer than {MAX_TEXT} characters")
    for name in ("title", "tension", "question", "action_implication"):
        if len(getattr(req, name) or "") > MAX_TEXT:
            raise UsageError(f"the memory's {name} is longer than {MAX_TEXT} characters")
    for name in ("text", "title", "tension", "question", "action_implication"):
        if unstorable_text(getattr(req, name) or ""):
            # as `note` says it (the patch would fail later, naming its id and pydantic)
            raise UsageError(f"the memory's {name} holds NUL or bytes that are not valid UTF-8")
    a = req.anchors
    if len(a.files) > MAX_FILES:
        raise UsageError(f"a memory takes at most {MAX_FILES} file anchors, not {len(a.files)}")
    for ref in (a.transcript, a.record_uuid, a.commit, a.repo, *a.files):
        if ref is not None and len(ref) > MAX_REF:
            raise UsageError(f"an anchor is longer than {MAX_REF} characters: {ref[:60]!r}...")
        if ref is not None and unstorable_text(ref):
            # a NUL was stored as given; a lone surrogate failed at the patch, naming its id
            raise UsageError(f"an anchor holds NUL or bytes that are not valid UTF-8: {ref[:60]!r}")
    if not is_safe_name(req.session_id):
        raise UsageError(f"session id {req.session_id[:80]!r} is not a safe id")
    if not is_safe_name(req.project):
        raise UsageError(f"project {req.project[:80]!r} is not a safe name")
    if not 0.0 <= req.salience <= 1.0:
        raise UsageError("salience must be between 0 and 1")


def build_node(req: MemoryRequest, now: datetime) -> MemoryNode:
    """The node a remember/propose request stands for (not yet validated by law)."""
    _check(req)
    kind = req.kind or DEFAULT_KIND.get(req.profile, "claim")
    state = req.state or DEFAULT_STATE.get(req.profile, "active")
    text = req.text.strip()
    first = text.splitlines()[0]
    title = req.title or (first if len(first) <= 80 else first[:79] + "…")
    nid = node_id(req.profile, kind, req.project, digest(text, req.tension, req.question))
    attributes: dict[str, Any] = {
        **req.attributes,
        "project": req.project,
        "session_id": req.session_id,
        "harness": req.harness,
    }
    if req.persona:
        attributes["persona"] = req.persona
    return MemoryNode(
        id=nid,
        domain_id=agent_domain(req.project),
        profile=req.profile,
        kind=kind,
        title=title,
        claim=text,
        question=req.question,
        tension=req.tension,
        action_implication=req.action_implication,
        anchors=_anchors(req),
        lifecycle=state,
        salience=req.salience,
        confidence=0.5,
        created_at=now,
        updated_at=now,
        valid_from=now,
        attributes=attributes,
    )


def _write(store: Any, req: MemoryRequest, verb: str, now: datetime | None) -> MemoryResult:
    now = now or utcnow()
    node = build_node(req, now)
    with store.reader() as reader:
        existing = reader.get_nodes([node.id]).get(node.id)
    if existing is not None:
        # the same memory again: nothing changes (its lifecycle may have moved on)
        return MemoryResult(
            node.id, existing.profile.value, existing.kind, existing.lifecycle,
            existing.domain_id, False, [],
        )  # fmt: skip
    patch = new_patch(
        [UpsertNode(node=node)],
        proposer=f"{req.harness}:{req.session_id}",
        reason=f"{verb} {req.profile}/{node.kind}",
    )
    try:
        result = apply_or_reject(store, patch, now)
    except PatchRejected as exc:  # on record; the caller gets the law, not the op path
        raise PatchRejected([_law(p, node) for p in exc.problems]) from None
    return MemoryResult(
        node.id,
        node.profile.value,
        node.kind,
        node.lifecycle,
        node.domain_id,
        result.changed,
        [r.id for r in result.receipts],
    )


def _law(problem: str, node: MemoryNode) -> str:
    """A rejection as the person who typed the memory reads it: without the
    ``ops[0] upsert_node: n-...: `` path of the one op this patch has, and a
    refused entry state says which states a new memory enters as."""
    from profiles import get_profile

    law = re.sub(r"^ops\[\d+\] \w+: [\w.-]+: ", "", problem)
    if "illegal lifecycle transition (new) ->" in law or law.startswith("lifecycle "):
        initial = " or ".join(sorted(get_profile(node.profile.value).initial))
        law += f" (a new {node.profile.value} memory enters as {initial})"
    return law


REMEMBER_KINDS = ("observation", "thought", "todo")  # what an agent remembers


def remember(store: Any, req: MemoryRequest, now: datetime | None = None) -> MemoryResult:
    """A short_term node from the current session (``active``)."""
    if req.profile != "short_term":
        raise UsageError("remember writes short_term memory; use propose for other profiles")
    if req.kind is not None and req.kind not in REMEMBER_KINDS:
        # in the words of --help: the profile's own list holds ``cluster``, which only
        # sleep writes (the CLI and MCP both come here)
        raise UsageError(f"kind {req.kind!r}: use one of {' | '.join(REMEMBER_KINDS)}")
    return _write(store, req, "remember", now)


def propose(store: Any, req: MemoryRequest, now: datetime | None = None) -> MemoryResult:
    """A typed claim entering its profile's initial state; profile law decides."""
    if req.profile not in PROPOSABLE:
        raise UsageError(f"cannot propose into {req.profile!r}: use one of {', '.join(PROPOSABLE)}")
    return _write(store, req, "propose", now)
