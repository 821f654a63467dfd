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
last run on this store, from ``<home>/sleep.json``) up to ``now``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from memgraph.errors import ConfigError, UsageError
from memgraph.home_dirs import store_keys
from memgraph.store.protocol import Store
from profiles.sleep import stages
from profiles.sleep.sleep_types import SleepReport, SleepRequest, Stage
from profiles.sleep.state import STATE_FILE, last_run, write_state

# the library's surface: a caller needs only this module to run a night pass
__all__ = ["STATE_FILE", "SleepReport", "SleepRequest", "Stage", "run_sleep"]


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
    key = store_keys(store)  # each store its own last run (one home, many stores)
    since = req.since if req.since is not None else last_run(req.state_path, key)
    if req.since is not None and req.since > now:  # the windows pass said "--until is before"
        raise UsageError("--since is after the time of the run (now, or --at): nothing to sleep on")
    report = SleepReport(status="planned" if req.dry_run else "unchanged", since=since, until=now)
    report.dry_run = req.dry_run
    window = parse_window(req.night_window)
    local = now.astimezone(req.tz)
    if not req.ignore_window and not in_window(local.time(), window):
        report.status = "outside_window"
        report.night_window, report.local_time = req.night_window, local.strftime("%H:%M")
        return report
    from memgraph.fileio import deferred_fsync
    from profiles.voice.views import one_log_line_per_page

    # classify and windows both re-render pages; their folders are synced once, at the end
    with one_log_line_per_page(), deferred_fsync():
        step("classify")
        stages.classify(store, req, now, report)
        step("windows")
        stages.windows(store, req, since, now, report)
    messages = stages.period_messages(store, since, now)
    notes = stages.period_notes(store, since, now)
    step("summaries")
    stages.summaries(store, req, since, now, report, messages, notes)
    step("forced sleep")
    stages.forced_sleep(store, req, now, report)
    step("lifecycles")
    stages.lifecycles(store, req, now, report, [*messages, *notes])
    if proposer is not None:
        from profiles.sleep.ollama import propose_titles

        step("titles")
        propose_titles(store, proposer, now, report)
    step("done")
    if not req.dry_run:
        if report.receipts:
            report.status = "applied"
        if req.state_path is not None:
            write_state(req.state_path, key, report.until, report.status, report.receipts)
    return report


def _stepper(progress: Callable[[int, int, str], None] | None, total: int) -> Callable[[str], None]:
    """``step(name)``: report the stages done so far to ``progress`` (if any)."""
    done = [0]

    def step(name: str) -> None:
        if progress is not None:
            progress(min(done[0], total), total, name)
        done[0] += 1

    return step
