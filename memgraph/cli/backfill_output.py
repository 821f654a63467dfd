"""What ``memgraph voice --backfill`` prints, shared by the typer command
(memgraph/cli/voice_capture.py) and the lean rerun path (backfill_fast.py).
Stdlib only."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


_REASONS = {
    "too_few_messages": "too few messages",
    "no_messages": "no messages",
    "unsafe_session_id": "unsafe session id",
}


def reason_text(status: str, reason: str | None) -> str:
    """Why a transcript made no page, in words: ``unchanged``, ``too few messages``,
    ``other project``..."""
    if status == "unchanged":
        return "unchanged"
    if status == "filtered":
        return "other project"
    key = (reason or "no_messages").split(":", 1)[0]
    return _REASONS.get(key, key.replace("_", " "))


def summary_line(report: Any) -> str:
    """``backfill: 10 transcripts: 2 paged, 7 skipped (5 unchanged, 2 too few
    messages), 1 error; 3.1 MB in 0.4 s``: every file counted, every skip explained."""
    from collections import Counter

    from memgraph.terminal import plural

    counts = report.counts()
    why = Counter(
        reason_text(o.status, o.reason)
        for o in report.outcomes
        if o.status in ("skipped", "unchanged", "filtered")
    )
    skipped = sum(why.values())
    reasons = ", ".join(f"{n} {r}" for r, n in sorted(why.items(), key=lambda x: (-x[1], x[0])))
    line = (
        f"backfill: {plural(len(report.outcomes), 'transcript')}: "
        f"{counts.get('paged', 0)} paged, {skipped} skipped"
        + (f" ({reasons})" if reasons else "")
        + f", {plural(counts.get('error', 0), 'error')}; "
        f"{round(report.bytes_read / 1e6, 2)} MB in {round(report.seconds, 3)} s"
    )
    if report.revised:
        line += f"; {plural(report.revised, 'changed record')} kept as new versions"
    return line
