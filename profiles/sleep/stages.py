"""The night pass's stages, in the order ``run_sleep`` calls them.

Each stage appends its ``Stage`` to the report, plans from the store as it is,
and writes through the engine with ``apply_stage`` (one patch per stage and
domain, one receipt per effect); with ``dry_run`` it only plans.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from memgraph.documents import GraphOp, MemoryNode, MemorySummary, SummarizeCluster
from memgraph.engine import apply_or_reject, counting_receipts, new_patch
from memgraph.errors import PatchRejected
from memgraph.store.protocol import PeriodQuery, Store
from profiles.sleep.sleep_types import SleepReport, SleepRequest, Stage

PROPOSER = "memgraph sleep"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def apply_stage(
    store: Store,
    ops: Sequence[GraphOp],
    reason: str,
    now: datetime,
    stage: Stage,
    report: SleepReport,
    proposer: str = PROPOSER,
) -> None:
    """Count ``ops`` as ``stage``'s plan and, unless a dry run, apply them as one
    patch (a rejected patch is reported, and its receipt counted, not raised)."""
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


def classify(store: Store, req: SleepRequest, now: datetime, report: SleepReport) -> None:
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
    with counting_receipts() as written:  # this run's, not other machines' meanwhile
        result = run_night_pass(store, night, proposer)
    stage.planned = result.classified + result.already_done
    stage.already_done = result.already_done
    stage.receipts = written[0]
    report.receipts += stage.receipts
    if result.by_label:
        stage.notes.append(", ".join(f"{k} {v}" for k, v in result.by_label.items()))


def windows(
    store: Store, req: SleepRequest, since: datetime | None, now: datetime, report: SleepReport
) -> None:
    from profiles.activity.passes import WindowsRequest, run_windows

    stage = Stage("windows")
    report.stages.append(stage)
    if req.dry_run:
        stage.notes.append("would recompute the windows of the period")
        return
    with counting_receipts() as written:
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
    stage.planned = result.stats.created + result.stats.superseded + result.stats.already_done
    stage.already_done = result.stats.already_done
    stage.receipts = written[0]
    report.receipts += stage.receipts
    stage.notes.append(f"{len(result.windows)} window(s), {result.stats.created} new")


def period_messages(store: Store, since: datetime | None, until: datetime) -> list[MemoryNode]:
    query = PeriodQuery(
        profile="voice", kind="message", starts_at_or_after=since or EPOCH, starts_before=until
    )
    return [n for n in store.nodes_in_period(query) if n.lifecycle != "retired"]


def period_notes(store: Store, since: datetime | None, until: datetime) -> list[MemoryNode]:
    query = PeriodQuery(
        profile="session", kind="note", starts_at_or_after=since or EPOCH, starts_before=until
    )
    return store.nodes_in_period(query)


def _project_of(nodes: Sequence[MemoryNode], fallback: str = "unknown") -> str:
    counts = Counter(str(n.attributes.get("project") or "") for n in nodes)
    counts.pop("", None)
    return counts.most_common(1)[0][0] if counts else fallback


def summaries(
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
    apply_stage(store, ops, "session and window summaries", now, stage, report)


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


def forced_sleep(store: Store, req: SleepRequest, now: datetime, report: SleepReport) -> None:
    from profiles.sleep.forced import open_short_term, plan_domain, similarity

    stage = Stage("forced sleep")
    report.stages.append(stage)
    by_domain = open_short_term(store)
    if not by_domain:
        return
    similar, how = similarity(req.policy, req.embedder)
    stage.notes.append(f"clustered by {how}")
    totals: Counter[str] = Counter()
    for domain in sorted(by_domain):
        plan = plan_domain(domain, by_domain[domain], similar, req.policy, now)
        for nid, state in plan.dispositions.items():
            report.dispositions[nid] = {"state": state.value, "why": plan.reasons[nid]}
        totals.update(plan.counts())
        apply_stage(
            store,
            plan.ops(f"forced sleep of {domain}"),
            f"forced sleep of {domain}",
            now,
            stage,
            report,
        )
    stage.notes.append(", ".join(f"{k} {v}" for k, v in sorted(totals.items())))


def lifecycles(
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
        apply_stage(store, ops, f"night pass: {name}", now, stage, report)
