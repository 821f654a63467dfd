"""``memgraph sleep``: the night pass as one idempotent pipeline.

classify unclassified messages (rules; Ollama when configured) -> activity
windows for the period -> session and window summaries -> forced sleep over
short_term -> incubation deepen/cool/promote/retire -> agency pressures surface
as obligations, idle ones cool -> queued candidate interventions deferred /
retired -> (Ollama, when configured) proposed titles as a patch validation
accepts or rejects.

Every stage writes through the engine (one patch per stage and domain, one
receipt per effect) and plans from the store as it is, so a rerun with nothing
new plans no op and writes nothing. ``dry_run`` plans every stage against the
current store and writes nothing at all (later stages then see the store
before the earlier stages' effects). The period is ``since`` (default: the
last run, from ``<home>/sleep.json``) up to ``now``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from memgraph.documents import GraphOp, MemoryNode, MemorySummary, SummarizeCluster
from memgraph.engine import apply_or_reject, new_patch
from memgraph.errors import ConfigError, PatchRejected
from memgraph.store.protocol import PeriodQuery, Store
from profiles.sleep.policy import SleepPolicy
from profiles.sleep.state import STATE_FILE, iso, last_run, write_state

__all__ = ["STATE_FILE", "SleepReport", "SleepRequest", "Stage", "run_sleep"]

PROPOSER = "memgraph sleep"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass
class SleepRequest:
    now: datetime | None = None  # the clock (aware); None: the system clock
    since: datetime | None = None  # None: since the last run (everything on the first)
    ignore_window: bool = False  # --now: run outside the night window
    dry_run: bool = False
    night_window: str = "02:00-06:00"
    tz: tzinfo | None = None
    classifier: str = "rules"
    vault: Path | None = None
    repos: list[Path] = field(default_factory=list)
    discover_repos: bool = True
    gap: timedelta = timedelta(minutes=15)
    policy: SleepPolicy = field(default_factory=SleepPolicy)
    state_path: Path | None = None  # <home>/sleep.json
    embeddings: bool = True  # cluster by embeddings when the extra is importable
    ollama: Any = None  # profiles.voice.classify.ollama.OllamaConfig for classifier "ollama"


@dataclass
class Stage:
    name: str
    planned: int = 0
    receipts: int = 0
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        extra = f" ({'; '.join(self.notes)})" if self.notes else ""
        return f"{self.name}: {self.planned} planned, {self.receipts} receipts{extra}"


@dataclass
class SleepReport:
    status: str  # outside_window | planned | unchanged | applied
    since: datetime | None
    until: datetime
    dry_run: bool = False
    stages: list[Stage] = field(default_factory=list)
    receipts: int = 0
    dispositions: dict[str, dict[str, str]] = field(default_factory=dict)  # node -> state, why
    rejected: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        span = f"{iso(self.since) if self.since else 'the beginning'} .. {iso(self.until)}"
        out = [f"sleep {self.status}: {span}{' (dry run)' if self.dry_run else ''}"]
        out += [f"  {s.line()}" for s in self.stages]
        if self.dry_run:
            for nid, d in sorted(self.dispositions.items()):
                out.append(f"  plan {nid} -> {d['state']}: {d['why']}")
        out += [f"  rejected: {r}" for r in self.rejected]
        out.append(f"-- {self.receipts} receipts written")
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "since": iso(self.since) if self.since else None,
            "until": iso(self.until),
            "dry_run": self.dry_run,
            "receipts": self.receipts,
            "stages": [s.__dict__ for s in self.stages],
            "dispositions": self.dispositions,
            "rejected": self.rejected,
        }


# -- stages -------------------------------------------------------------------


def _apply(
    store: Store,
    ops: Sequence[GraphOp],
    reason: str,
    now: datetime,
    stage: Stage,
    report: SleepReport,
    proposer: str = PROPOSER,
) -> None:
    stage.planned += len(ops)
    if report.dry_run or not ops:
        return
    patch = new_patch(list(ops), proposer=proposer, reason=reason)
    try:
        result = apply_or_reject(store, patch, now)
    except PatchRejected as exc:
        report.rejected.append(f"{stage.name}: {exc}")
        report.receipts += 1  # the rejection's receipt
        return
    stage.receipts += len(result.receipts)
    report.receipts += len(result.receipts)


def _classify(store: Store, req: SleepRequest, now: datetime, report: SleepReport) -> None:
    from profiles.voice.classify.night import (
        NightPassRequest,
        build_ops,
        make_proposer,
        run_night_pass,
        select_messages,
    )

    stage = Stage("classify")
    report.stages.append(stage)
    night = NightPassRequest(
        classifier=req.classifier, ignore_window=True, now=now, vault=req.vault
    )
    proposer = make_proposer(req.classifier, req.ollama)
    if req.dry_run:
        nodes = select_messages(store, night)
        if nodes:
            ops, _ = build_ops(
                {n.id: n for n in nodes},
                proposer.propose([(n.id, n.claim) for n in nodes]),
                proposer.name,
            )
            stage.planned = len(ops)
        return
    before = _receipt_count(store)
    result = run_night_pass(store, night, proposer)
    stage.planned = result.classified
    stage.receipts = _receipt_count(store) - before
    report.receipts += stage.receipts
    if result.by_label:
        stage.notes.append(", ".join(f"{k} {v}" for k, v in result.by_label.items()))


def _receipt_count(store: Store) -> int:
    return int(store.counts().get("receipts", 0))


def _windows(
    store: Store, req: SleepRequest, since: datetime | None, now: datetime, report: SleepReport
) -> None:
    from profiles.activity.passes import WindowsRequest, run_windows

    stage = Stage("windows")
    report.stages.append(stage)
    if req.dry_run:
        stage.notes.append("would recompute the windows of the period")
        return
    before = _receipt_count(store)
    result = run_windows(
        store,
        WindowsRequest(
            since=since,
            until=now,
            gap=req.gap,
            repos=list(req.repos),
            discover_repos=req.discover_repos,
            vault=req.vault,
        ),
    )
    stage.planned = result.stats.created + result.stats.superseded
    stage.receipts = _receipt_count(store) - before
    report.receipts += stage.receipts
    stage.notes.append(f"{len(result.windows)} window(s), {result.stats.created} new")


def _messages(store: Store, since: datetime | None, until: datetime) -> list[MemoryNode]:
    query = PeriodQuery(
        profile="voice", kind="message", starts_at_or_after=since or EPOCH, starts_before=until
    )
    return [n for n in store.nodes_in_period(query) if n.lifecycle != "retired"]


def _notes(store: Store, since: datetime | None, until: datetime) -> list[MemoryNode]:
    query = PeriodQuery(
        profile="session", kind="note", starts_at_or_after=since or EPOCH, starts_before=until
    )
    return store.nodes_in_period(query)


def _project_of(nodes: Sequence[MemoryNode], fallback: str = "unknown") -> str:
    counts = Counter(str(n.attributes.get("project") or "") for n in nodes)
    counts.pop("", None)
    return counts.most_common(1)[0][0] if counts else fallback


def _summaries(
    store: Store,
    req: SleepRequest,
    since: datetime | None,
    now: datetime,
    report: SleepReport,
    messages: list[MemoryNode],
    notes: list[MemoryNode],
) -> None:
    from profiles.activity.store import current_windows
    from profiles.sleep.summaries import build_summary
    from profiles.voice.nodes import safe_component

    stage = Stage("summaries")
    report.stages.append(stage)
    by_session: dict[str, list[MemoryNode]] = {}
    for m in messages:
        by_session.setdefault(str(m.attributes.get("session_id") or ""), []).append(m)
    notes_by: dict[str, list[MemoryNode]] = {}
    for n in notes:
        notes_by.setdefault(str(n.attributes.get("session_id") or ""), []).append(n)
    summaries: list[MemorySummary] = []
    for sid in sorted((set(by_session) | set(notes_by)) - {""}):
        msgs = by_session.get(sid, [])
        snotes = notes_by.get(sid, [])
        project = _project_of(msgs, "")
        if not project:
            ws = str(snotes[0].attributes.get("workspace") or "") if snotes else ""
            project = safe_component(Path(ws).name) if ws else "unknown"
        s = build_summary(
            f"session:{sid}",
            f"session {sid[:8]} in {project}",
            project,
            msgs,
            snotes,
            [],
            req.policy,
        )
        if s is not None:
            summaries.append(s)
    windows = current_windows(store, since or EPOCH, now)
    for w in windows:
        members = [str(m) for m in w.attributes.get("members") or []]
        with store.reader() as reader:
            docs = reader.get_nodes(members)
        msgs = [d for d in docs.values() if d.profile.value == "voice" and d.kind == "message"]
        commits = [d for d in docs.values() if d.profile.value == "artifact" and d.kind == "commit"]
        wnotes = [d for d in docs.values() if d.profile.value == "session"]
        project = _project_of(msgs, str((w.attributes.get("repos") or ["unknown"])[0]))
        s = build_summary(
            f"window:{w.attributes.get('window_id')}",
            f"window {w.attributes.get('window_id')} in {project}",
            safe_component(project),
            msgs,
            wnotes,
            commits,
            req.policy,
            extra_cover=[w.id],
        )
        if s is not None:
            summaries.append(s)
    ops: list[GraphOp] = [SummarizeCluster(summary=s) for s in summaries]
    if ops and not req.dry_run:
        ops = _changed_summaries(store, summaries)
    _apply(store, ops, "session and window summaries", now, stage, report)


def _changed_summaries(store: Store, summaries: list[MemorySummary]) -> list[GraphOp]:
    """Only summaries that are new or differ (the engine no-ops the rest anyway,
    but validating them all costs time)."""
    with store.reader() as reader:
        have = reader.get_summaries([s.id for s in summaries])
    out: list[GraphOp] = []
    for s in summaries:
        old = have.get(s.id)
        if (
            old is not None
            and old.freshness.state.value == "fresh"
            and old.claim == s.claim
            and old.covers_node_ids == s.covers_node_ids
            and old.known_omissions == s.known_omissions
            and old.target == s.target
        ):
            continue
        out.append(SummarizeCluster(summary=s))
    return out


def _forced_sleep(store: Store, req: SleepRequest, now: datetime, report: SleepReport) -> None:
    from profiles.sleep.forced import (
        embedding_similarity,
        open_short_term,
        plan_domain,
        token_similarity,
    )

    stage = Stage("forced sleep")
    report.stages.append(stage)
    by_domain = open_short_term(store)
    if not by_domain:
        return
    found = embedding_similarity(req.policy) if req.embeddings else None
    similar, how = found if found else (token_similarity(req.policy), "token overlap")
    stage.notes.append(f"clustered by {how}")
    totals: Counter[str] = Counter()
    for domain in sorted(by_domain):
        plan = plan_domain(domain, by_domain[domain], similar, req.policy, now)
        for nid, state in plan.dispositions.items():
            report.dispositions[nid] = {"state": state.value, "why": plan.reasons[nid]}
        totals.update(plan.counts())
        _apply(
            store,
            plan.ops(f"forced sleep of {domain}"),
            f"forced sleep of {domain}",
            now,
            stage,
            report,
        )
    stage.notes.append(", ".join(f"{k} {v}" for k, v in sorted(totals.items())))


def _lifecycles(
    store: Store,
    req: SleepRequest,
    now: datetime,
    report: SleepReport,
    mentions_src: list[MemoryNode],
) -> None:
    from profiles.sleep.rules import incubation_ops, intervention_ops, mentions_from, pressure_ops

    mentions = mentions_from(mentions_src)
    for name, profile in (
        ("incubation", "incubation"),
        ("agency pressure", "agency_pressure"),
        ("interventions", "candidate_intervention"),
    ):
        stage = Stage(name)
        report.stages.append(stage)
        nodes = list(store.iter_nodes(profile=profile))
        if profile == "incubation":
            ops = incubation_ops(nodes, mentions, now, req.policy)
        elif profile == "agency_pressure":
            ops = pressure_ops(nodes, mentions, now, req.policy)
        else:
            ops = intervention_ops(nodes, now, req.policy)
        _apply(store, ops, f"night pass: {name}", now, stage, report)


def run_sleep(
    store: Store,
    req: SleepRequest,
    proposer: Any = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> SleepReport:
    """Run (or with ``dry_run`` plan) the night pass; see the module docstring.

    ``proposer``: an optional model proposer (``profiles.sleep.ollama``) asked
    for titles after the deterministic stages; its patch is validated like any.
    ``progress(stages done, stages in all, next stage)``: called before each stage
    and at the end (the CLI's bar; nothing else depends on it).
    """
    step = _stepper(progress, 6 if proposer is not None else 5)
    from profiles.voice.classify.night import in_window, parse_window

    now = (req.now or datetime.now(UTC)).astimezone(UTC)
    if req.now is not None and req.now.tzinfo is None:
        raise ConfigError("sleep needs a timezone-aware time")
    since = req.since if req.since is not None else last_run(req.state_path)
    report = SleepReport(status="planned" if req.dry_run else "unchanged", since=since, until=now)
    report.dry_run = req.dry_run
    window = parse_window(req.night_window)
    if not req.ignore_window and not in_window(now.astimezone(req.tz).time(), window):
        report.status = "outside_window"
        return report
    from profiles.voice.views import one_log_line_per_page

    with one_log_line_per_page():  # classify and windows both re-render pages
        step("classify")
        _classify(store, req, now, report)
        step("windows")
        _windows(store, req, since, now, report)
    messages = _messages(store, since, now)
    notes = _notes(store, since, now)
    step("summaries")
    _summaries(store, req, since, now, report, messages, notes)
    step("forced sleep")
    _forced_sleep(store, req, now, report)
    step("lifecycles")
    _lifecycles(store, req, now, report, [*messages, *notes])
    if proposer is not None:
        from profiles.sleep.ollama import propose_titles

        step("titles")
        propose_titles(store, proposer, now, report)
    step("done")
    if not req.dry_run:
        if report.receipts:
            report.status = "applied"
        if req.state_path is not None:
            write_state(req.state_path, report.until, report.status, report.receipts)
    return report


def _stepper(progress: Callable[[int, int, str], None] | None, total: int) -> Callable[[str], None]:
    """``step(name)``: report the stages done so far to ``progress`` (if any)."""
    done = [0]

    def step(name: str) -> None:
        if progress is not None:
            progress(min(done[0], total), total, name)
        done[0] += 1

    return step
