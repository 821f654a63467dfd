"""What a capture is asked and what it answers (stdlib only: the lean capture,
``profiles.voice.lean``, returns the same records as ``profiles.voice.capture``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from memgraph.errors import MemgraphError
from profiles.voice.model import ReadStats

TYPE_CHECKING = False
if TYPE_CHECKING:
    from profiles.voice.privacy import PrivacyPolicy

MIN_MESSAGES = 3  # profiles.voice.views.MIN_MESSAGES (re-exported there)


@dataclass(frozen=True)
class CaptureRequest:
    transcript: Path
    vault: Path
    session_id: str | None = None  # from the hook JSON; the transcript's wins when present
    cwd: str | None = None  # from the hook JSON; used when records carry none
    min_messages: int = MIN_MESSAGES
    now: datetime | None = None
    constellation: str | None = None  # override the cwd-derived name
    write_pages: bool = True
    # excludes and redaction (profiles.voice.privacy); None: redact, exclude nothing
    privacy: PrivacyPolicy | None = None


@dataclass
class SessionCapture:
    session_id: str
    project: str
    constellation: str
    messages: int  # messages of this session read from the transcript
    qualifying: int  # qualifying messages of the session in the store
    page: Path | None = None
    page_written: bool = False
    skipped: str | None = None  # e.g. "too_few_messages:2"
    revised: int = 0  # records whose text changed since capture: stored as new versions
    # the store holds forgotten messages of it (``memgraph forget``, maybe on another
    # machine): a page of it in this vault may still hold their text
    forgotten: bool = False


@dataclass
class CaptureResult:
    transcript: str
    harness: str
    session_id: str | None
    messages: int = 0
    nodes_written: int = 0
    sessions: list[SessionCapture] = field(default_factory=list)
    stats: ReadStats = field(default_factory=ReadStats)
    # capture_many with several items: a page that could not be written (the
    # nodes are stored); the caller reports it for this transcript only
    page_error: MemgraphError | None = field(default=None, repr=False)

    @property
    def revised(self) -> int:
        """Captured records whose transcript text changed (each now has a new version)."""
        return sum(s.revised for s in self.sessions)

    @property
    def pages(self) -> list[Path]:
        return [s.page for s in self.sessions if s.page is not None]

    @property
    def skipped(self) -> str | None:
        reasons = [s.skipped for s in self.sessions if s.skipped]
        if not self.sessions:
            return "no_messages"
        return reasons[0] if len(reasons) == len(self.sessions) else None
