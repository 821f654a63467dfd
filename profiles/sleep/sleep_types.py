"""What a night pass is asked and what it reports: ``SleepRequest`` in, one
``Stage`` per stage, ``SleepReport`` out (``profiles.sleep.pipeline``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from profiles.sleep.policy import SleepPolicy
from profiles.sleep.state import iso

if TYPE_CHECKING:
    from collections.abc import Callable

    from context_cut.embedders import Embedder

    EmbedderFactory = Callable[[], Embedder | None]

__all__ = ["SleepReport", "SleepRequest", "Stage"]


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
    # forced sleep clusters by this embedder's cosine (the configured one, built only
    # when there is short-term memory to cluster); None: by token overlap
    embedder: EmbedderFactory | None = None
    ollama: Any = None  # profiles.voice.classify.ollama.OllamaConfig for classifier "ollama"


@dataclass
class Stage:
    name: str
    planned: int = 0
    receipts: int = 0
    notes: list[str] = field(default_factory=list)
    # of the planned, found done when this pass wrote: another run over the same
    # store (another machine's sleep or classify) got there first
    already_done: int = 0

    def line(self) -> str:
        extra = f" ({'; '.join(self.notes)})" if self.notes else ""
        done = f"{self.planned} planned"
        if self.already_done:
            applied = self.planned - self.already_done
            done += f", {applied} applied, {self.already_done} already done by another run"
        return f"{self.name}: {done}, {self.receipts} receipts{extra}"


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
    night_window: str = ""  # set when the run was outside it (status outside_window)
    local_time: str = ""  # HH:MM of the run in the night window's zone

    def lines(self) -> list[str]:
        if self.status == "outside_window":  # the words `memgraph classify` uses
            return [
                f"outside the night window {self.night_window} (local time {self.local_time}); "
                "nothing done (use --now to run anyway)"
            ]
        from memgraph.dates import show  # times for people; --json keeps ISO UTC

        span = f"{show(self.since) if self.since else 'the beginning'} .. {show(self.until)}"
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
            **(
                {"night_window": self.night_window, "local_time": self.local_time}
                if self.status == "outside_window"
                else {}
            ),
        }
