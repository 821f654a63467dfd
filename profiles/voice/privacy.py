"""The privacy stage of capture: reader -> prefilter -> **screen** -> nodes.

``screen(read, policy)`` is a pure function of what a reader returned: messages
of an excluded project or path are left out (counted in the ledger as
``excluded_project`` / ``excluded_path``), ``<private>`` spans are removed (a
message that was nothing else is left out as ``private_only``), and secrets are
replaced by ``[REDACTED:<kind>]`` markers (``profiles.voice.redact``; counted
by kind in ``ReadStats.redacted``) unless the policy says ``redact=False``
(``--no-redact``). Every capture entry (hook session-end, backfill, import
conversations) runs it before any node is built, so nothing it removes reaches
the store, FTS, the vault or the vectors.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from profiles.voice.model import OperatorMessage, TranscriptRead
from profiles.voice.redact import redact

EXCLUDED_PROJECT = "excluded_project"
EXCLUDED_PATH = "excluded_path"
PRIVATE_ONLY = "private_only"


@dataclass(frozen=True)
class PrivacyPolicy:
    redact: bool = True
    exclude_projects: tuple[str, ...] = ()
    exclude_paths: tuple[str, ...] = ()  # globs; a directory covers what is under it

    @classmethod
    def from_config(
        cls, redact: bool | None = None, env: Mapping[str, str] | None = None
    ) -> PrivacyPolicy:
        """The policy the config resolver gives (``redact=False``: ``--no-redact``)."""
        from memgraph.config import privacy

        on, projects, paths = privacy(redact, env)
        return cls(on, projects, paths)


def _path_matches(path: str, pattern: str) -> bool:
    if fnmatch.fnmatchcase(path, pattern):
        return True
    base = pattern.rstrip("/" + os.sep)
    return bool(base) and (path == base or path.startswith(base + "/"))


def excluded(
    policy: PrivacyPolicy, project: str | None, cwd: str | None, transcript: str | None
) -> str | None:
    """Why a session with this project/cwd/transcript is not captured (None: it is)."""
    if project is not None and policy.exclude_projects:
        folded = project.casefold()
        if any(folded == p.casefold() for p in policy.exclude_projects):
            return EXCLUDED_PROJECT
    for path in (cwd, transcript):
        if path and any(_path_matches(path, g) for g in policy.exclude_paths):
            return EXCLUDED_PATH
    return None


@dataclass
class Screened:
    messages: list[OperatorMessage]
    left_out: dict[str, int]  # reason -> messages not captured
    redacted: dict[str, int]  # kind -> markers written (private-span: spans removed)


def screen_messages(
    messages: list[OperatorMessage],
    policy: PrivacyPolicy,
    *,
    cwd: str | None = None,
    transcript: str | None = None,
) -> Screened:
    """Messages as they may be stored (see the module docstring)."""
    left_out: Counter[str] = Counter()
    redacted: Counter[str] = Counter()
    session_cwd: dict[str, str | None] = {}
    for m in messages:
        if m.cwd and session_cwd.get(m.session_id) is None:
            session_cwd[m.session_id] = m.cwd
    verdict: dict[str, str | None] = {}
    kept: list[OperatorMessage] = []
    for m in messages:
        sid = m.session_id
        if sid not in verdict:
            where = session_cwd.get(sid) or cwd
            project = None
            if policy.exclude_projects:  # pydantic comes with nodes: only when needed
                from profiles.voice.nodes import resolve_project

                project = resolve_project(where)
            verdict[sid] = excluded(policy, project, where, transcript or m.transcript)
        reason = verdict[sid]
        if reason is not None:
            left_out[reason] += 1
            continue
        text, counts = redact(m.text, secrets=policy.redact)
        if counts:
            redacted.update(counts)
            if not text.strip():
                left_out[PRIVATE_ONLY] += 1
                continue
            m = dataclasses.replace(m, text=text)
        kept.append(m)
    return Screened(kept, dict(left_out), dict(redacted))


def screen(read: TranscriptRead, policy: PrivacyPolicy, cwd: str | None = None) -> TranscriptRead:
    """``read`` with its messages screened; its stats count what was left out
    (as filtered lines: the ledger still balances) and what was redacted."""
    done = screen_messages(read.messages, policy, cwd=cwd, transcript=read.path)
    if not done.left_out and not done.redacted:
        return read
    stats = dataclasses.replace(
        read.stats,
        dropped=dict(read.stats.dropped),
        redacted=dict(read.stats.redacted),
    )
    for reason, n in done.left_out.items():
        stats.dropped[reason] = stats.dropped.get(reason, 0) + n
        stats.kept -= n
    for kind, n in done.redacted.items():
        stats.redacted[kind] = stats.redacted.get(kind, 0) + n
    return dataclasses.replace(read, messages=done.messages, stats=stats)


__all__ = [
    "EXCLUDED_PATH",
    "EXCLUDED_PROJECT",
    "PRIVATE_ONLY",
    "PrivacyPolicy",
    "Screened",
    "excluded",
    "screen",
    "screen_messages",
]
