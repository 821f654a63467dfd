"""The harness registry: one entry per agent harness memgraph reads.

Each entry says how to recognise a transcript (``detect``: first bytes + file
name), where they live (``default_roots`` under the home directory, and
``repo_files`` at a repository's root), which files discovery yields
(``claims``) and which of those are main sessions for the probe
(``is_session``), the reader, and where its prefilter rules are documented.
Adding a harness = a reader module + an entry here (+ its default root in
``memgraph/config.py``): ``read_transcript``, ``iter_transcripts``, backfill and
the probe all go through this table.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from profiles.voice.model import ReadStats, TranscriptRead
from profiles.voice.prefilter import PrefilterOptions
from profiles.voice.readers import aider, gemini
from profiles.voice.readers.claude import read_claude
from profiles.voice.readers.codex import read_codex

HEAD_BYTES = 256 * 1024


class Reader(Protocol):
    def __call__(
        self,
        fh: BinaryIO,
        path: Path,
        options: PrefilterOptions,
        stats: ReadStats,
        *,
        max_line_bytes: int,
        fast: bool = True,
    ) -> TranscriptRead: ...


@dataclass(frozen=True)
class Harness:
    name: str
    detect: Callable[[bytes, str], bool]  # (first HEAD_BYTES of the file, file name)
    claims: Callable[[Path], bool]  # discovery: a file of this harness, by its path
    is_session: Callable[[Path], bool]  # a main session file (not a sidechain)
    read: Reader
    default_roots: tuple[str, ...] = ()  # relative to the home directory
    repo_files: tuple[str, ...] = ()  # files at a repository's root
    rules: str = ""  # where the prefilter rules are documented


# --- JSONL harnesses: the first decisive line tells Claude Code from Codex ----------

_CODEX_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_CLAUDE_TYPES = {
    "user", "assistant", "system", "progress", "attachment", "summary", "queue-operation",
    "file-history-snapshot", "last-prompt", "ai-title", "permission-mode", "agent-name",
    "custom-title",
}  # fmt: skip
# Companion prompt logs share the .jsonl suffix but are not transcripts.
NOT_TRANSCRIPTS = frozenset({"history.jsonl"})


_VOTES = 5  # records that agree before detection stops reading the head


def jsonl_kind(head: bytes, name: str = "") -> str | None:
    """``codex`` | ``claude-code`` by a vote of the first records (most files answer
    on line 1). One odd record -- a stray ``sessionId`` in a rollout, a list or
    dict as ``"type"`` -- costs only itself, never the harness of the whole file.

    Asked twice per file (the Codex and the Claude detector): the last answer is
    remembered for the same ``head`` object."""
    global _LAST_KIND
    last_head, last_name, kind = _LAST_KIND
    if head is last_head and name == last_name:
        return kind
    kind = _vote(head, name)
    _LAST_KIND = (head, name, kind)
    return kind


_LAST_KIND: tuple[bytes | None, str, str | None] = (None, "", None)


def _head_lines(head: bytes, limit: int = 200) -> Iterator[bytes]:
    """``head.split(b"\\n")[:limit]`` without the last piece when the head is full
    (possibly cut mid-line), one line at a time: the vote reads ~5 of them, and
    splitting all of 256 KB cost more than the vote."""
    full = len(head) >= HEAD_BYTES
    start = n = 0
    while n < limit:
        end = head.find(b"\n", start)
        if end < 0:
            if not full:
                yield head[start:]
            return
        yield head[start:end]
        n += 1
        start = end + 1


def _vote(head: bytes, name: str) -> str | None:
    votes = {"codex": 0, "claude-code": 0}
    for line in _head_lines(head):
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        kind = obj.get("type")
        if not isinstance(kind, str):  # a list/dict "type" is one bad record, not a crash
            kind = None
        if "payload" in obj and kind in _CODEX_TYPES:
            votes["codex"] += 1
        elif kind in _CLAUDE_TYPES or "sessionId" in obj:
            votes["claude-code"] += 1
        if max(votes.values()) >= _VOTES and votes["codex"] != votes["claude-code"]:
            break
    if votes["codex"] != votes["claude-code"]:
        return max(votes, key=lambda k: votes[k])
    if votes["codex"]:  # a tie: the file name decides
        return "codex" if name.startswith("rollout-") else "claude-code"
    return None


def _is_jsonl(path: Path) -> bool:
    return path.name.endswith(".jsonl") and path.name not in NOT_TRANSCRIPTS


def _jsonl_session(path: Path) -> bool:
    if "subagents" in path.parts or path.name.startswith("agent-"):
        return False
    return _is_jsonl(path)


HARNESSES: tuple[Harness, ...] = (
    Harness(
        name="aider",
        detect=aider.looks_like_aider,
        claims=aider.is_chat_file,
        is_session=aider.is_chat_file,
        read=aider.read_aider,
        repo_files=(aider.CHAT_FILE,),
        rules="notes/prefilter.md#aider",
    ),
    Harness(
        name="gemini",
        detect=gemini.looks_like_gemini,
        claims=gemini.is_chat_file,
        is_session=gemini.is_chat_file,
        read=gemini.read_gemini,
        default_roots=(".gemini/tmp",),
        rules="notes/prefilter.md#gemini-cli",
    ),
    Harness(
        name="codex",
        detect=lambda head, name: (
            jsonl_kind(head, name) == "codex"
            or (name.startswith("rollout-") and jsonl_kind(head, name) is None)
        ),
        claims=_is_jsonl,
        is_session=_jsonl_session,
        read=read_codex,
        default_roots=(".codex/sessions",),
        rules="notes/prefilter.md#codex-cli",
    ),
    Harness(
        name="claude-code",
        detect=lambda head, name: jsonl_kind(head, name) == "claude-code",
        claims=_is_jsonl,
        is_session=_jsonl_session,
        read=read_claude,
        default_roots=(".claude/projects",),
        rules="notes/prefilter.md#claude-code",
    ),
)
BY_NAME = {h.name: h for h in HARNESSES}
# Read when nothing is recognised (reported as "unknown" if nothing is extracted).
FALLBACK = BY_NAME["claude-code"]


def detect(head: bytes, name: str = "") -> Harness | None:
    for harness in HARNESSES:
        if harness.detect(head, name):
            return harness
    return None


def claims(path: Path) -> bool:
    """Discovery: some harness reads this file."""
    return any(h.claims(path) for h in HARNESSES)


def is_session_file(path: Path) -> bool:
    """A main session transcript of some harness (not a sub-agent/sidechain file)."""
    return any(h.claims(path) and h.is_session(path) for h in HARNESSES)


def default_roots(home: Path) -> list[Path]:
    return [home / root for h in HARNESSES for root in h.default_roots]


def repo_transcripts(repos: Iterable[Path]) -> Iterator[Path]:
    """Transcripts kept at a repository's root (aider's chat history)."""
    for repo in repos:
        for harness in HARNESSES:
            for rel in harness.repo_files:
                path = Path(repo) / rel
                try:
                    if path.is_file():
                        yield path
                except OSError:
                    continue
