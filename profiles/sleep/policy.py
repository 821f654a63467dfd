"""The thresholds the night pass decides by (one place, documented)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta


@dataclass(frozen=True)
class SleepPolicy:
    jaccard: float = 0.34  # token-overlap clustering of short_term notes
    cosine: float = 0.8  # embedding clustering (local-embeddings extra)
    incubate_salience: float = 0.7  # a lone note this salient incubates
    # incubation
    mention_overlap: float = 0.5  # share of an idea's words a later text must repeat
    promote_sessions: int = 2  # re-mentioned in this many later sessions -> promoted
    cool_after: timedelta = timedelta(days=7)  # no re-mention for this long -> cooling
    retire_after: timedelta = timedelta(days=21)  # cooling this long -> retired
    # agency pressure
    obligate_salience: float = 0.6  # an active pressure this salient becomes an obligation
    obligate_after: timedelta = timedelta(days=1)  # ... or one that stays active this long
    idle_after: timedelta = timedelta(days=7)  # untouched this long -> cooled
    # candidate interventions
    defer_after: timedelta = timedelta(days=3)  # queued this long -> deferred
    drop_after: timedelta = timedelta(days=14)  # deferred this long -> retired
    # summaries
    summary_labels: tuple[str, ...] = (
        "decision",
        "directive",
        "correction",
        "preference",
        "question",
    )
    summary_lines: int = 12  # extractive lines per summary at most
