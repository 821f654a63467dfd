"""Aider ``.aider.chat.history.md`` (+ ``.aider.input.history``) -> operator messages.

The chat history is Markdown appended per session: ``# aider chat started at
YYYY-MM-DD HH:MM:SS`` opens a session, ``> `` lines are aider's own output (banner,
token counts, y/n questions with the answer), a run of consecutive ``#### `` lines is
one user turn (aider ends each with two spaces), everything else is the model's reply.
Not every ``####`` run was typed (rules 29-31, notes/prefilter.md):

* ``/ask X`` (any ``/cmd X``) is followed by an echo run ``#### X``: the echo is
  dropped and the message is ``X`` with ``command="/ask"``;
* in architect mode the architect's reply is forwarded to the editor model as a
  ``####`` run that repeats the reply just above it: dropped (``aider_forwarded``);
* other commands (``/commit``, ``/add f``) are kept as typed (``slash_command``).

``.aider.input.history`` next to the file (``# <timestamp>`` + ``+<line>`` per input
line) is the cross-check: a kept message found there (in order) takes its timestamp;
otherwise it carries its session's start time. Aider writes local time without a
zone; it is read as UTC (the machine's zone is unknown here).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from memgraph.ids import digest
from profiles.voice.model import OperatorMessage, ReadStats, TranscriptRead
from profiles.voice.prefilter import PrefilterOptions, Verdict, apply_trivial
from profiles.voice.readers.jsonl import clean_text, parse_timestamp, warn

HARNESS = "aider"
CHAT_FILE = ".aider.chat.history.md"
INPUT_FILE = ".aider.input.history"
MAX_BYTES = 256 * 1024 * 1024
_STARTED = re.compile(r"# aider chat started at (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)")
_COMMAND = re.compile(r"(/[A-Za-z][\w-]*)(?:[ \t]+(.*))?\Z", re.S)


def looks_like_aider(head: bytes, name: str) -> bool:
    return name == CHAT_FILE or head.lstrip().startswith(b"# aider chat started")


def is_chat_file(path: Path) -> bool:
    return path.name == CHAT_FILE


class _Run:
    __slots__ = ("line", "reply", "session", "text")

    def __init__(self, line: int, text: str, reply: str, session: int) -> None:
        self.line, self.text, self.reply, self.session = line, text, reply, session


def _norm(text: str) -> str:
    return " ".join(text.split())


def parse_runs(text: str, stats: ReadStats) -> tuple[list[_Run], list[tuple[int, datetime | None]]]:
    """User-turn runs (with the model text just above each) and sessions (line, start)."""
    runs: list[_Run] = []
    sessions: list[tuple[int, datetime | None]] = []
    turn: list[str] = []
    turn_line = 0
    reply: list[str] = []
    after_output = False
    lines = text.split("\n")
    stats.lines = len(lines) - (1 if text.endswith("\n") else 0)

    def close_turn() -> None:
        nonlocal turn
        if turn:
            runs.append(_Run(turn_line, "\n".join(turn), _norm("\n".join(reply)), len(sessions)))
            reply.clear()
            turn = []

    for lineno, line in enumerate(lines, 1):
        if line.startswith("#### ") or line.rstrip() == "####":
            if not turn:
                turn_line = lineno
            body = line[5:] if line.startswith("#### ") else ""
            turn.append(body[:-2] if body.endswith("  ") else body.rstrip("\n"))
            continue
        close_turn()
        if line.startswith("# aider chat started at"):
            m = _STARTED.match(line)
            sessions.append((lineno, parse_timestamp(m.group(1).replace(" ", "T")) if m else None))
            stats.records += 1
            reply.clear()
        elif line.startswith(">"):
            after_output = True  # aider's own output; the next text is a new reply
        elif line.strip():
            if after_output:
                reply.clear()
                after_output = False
            reply.append(line)
    close_turn()
    stats.records += len(runs)
    return runs, sessions


def classify_runs(runs: list[_Run], stats: ReadStats) -> list[tuple[_Run, Verdict]]:
    out: list[tuple[_Run, Verdict]] = []
    echo_of: str | None = None
    for i, run in enumerate(runs):
        text = run.text.strip()
        if echo_of is not None and _norm(text) == echo_of:
            stats.drop("aider_echo")
            echo_of = None
            continue
        echo_of = None
        if not text:
            stats.drop("empty")
            continue
        if run.reply and _norm(text) == run.reply:
            stats.drop("aider_forwarded")  # the reply above, forwarded to the editor model
            continue
        m = _COMMAND.match(text)
        if m is not None:
            args = (m.group(2) or "").strip()
            nxt = runs[i + 1].text.strip() if i + 1 < len(runs) else None
            if args and nxt is not None and _norm(nxt) == _norm(args):
                echo_of = _norm(args)
                out.append((run, Verdict(True, "", args, "prompt", m.group(1))))
            else:
                out.append((run, Verdict(True, "", text, "slash_command")))
            continue
        out.append((run, Verdict(True, "", text, "prompt")))
    return out


def parse_input_history(path: Path) -> list[tuple[datetime | None, str]]:
    """``.aider.input.history`` entries: (time, text); missing/unreadable -> [].
    A regular file only (``open_regular``): a FIFO there never blocks the read. A link
    is followed, as the chat history's own path is (the user's files, linked or not)."""
    from memgraph.errors import ReaderError
    from memgraph.inputs import open_regular

    try:
        with open_regular(path, "aider input history") as fh:
            raw = fh.read(MAX_BYTES)
    except (OSError, ReaderError):
        return []
    entries: list[tuple[datetime | None, str]] = []
    stamp: datetime | None = None
    body: list[str] | None = None
    for line in raw.decode("utf-8", "replace").split("\n"):
        if line.startswith("# "):
            if body is not None:
                entries.append((stamp, "\n".join(body)))
            stamp, body = parse_timestamp(line[2:].strip().replace(" ", "T")), []
        elif line.startswith("+") and body is not None:
            body.append(line[1:])
    if body is not None:
        entries.append((stamp, "\n".join(body)))
    return entries


def read_aider(
    fh: BinaryIO,
    path: Path,
    options: PrefilterOptions,
    stats: ReadStats,
    *,
    max_line_bytes: int = MAX_BYTES,
    fast: bool = True,
) -> TranscriptRead:
    transcript = str(path)
    try:
        raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        warn(stats, f"read error: {exc.strerror or exc}; stopped")
        return TranscriptRead(transcript, HARNESS, None, [], stats)
    if len(raw) > MAX_BYTES:
        warn(stats, f"chat history larger than {MAX_BYTES} bytes: only the start was read")
        raw = raw[:MAX_BYTES]
    text = raw.decode("utf-8", "replace").replace("\r\n", "\n")
    runs, sessions = parse_runs(text, stats)
    if not sessions:
        warn(stats, "no '# aider chat started at' line: not an aider chat history?")
    history = parse_input_history(path.with_name(INPUT_FILE))
    hist_pos = 0
    unconfirmed = 0
    key = digest(transcript, length=12)
    cwd = str(path.parent)
    messages: list[OperatorMessage] = []
    last: dict[int, datetime | None] = {}  # session start line -> latest message time
    for run, verdict in classify_runs(runs, stats):
        verdict = apply_trivial(verdict, options)
        if not verdict.keep:
            stats.drop(verdict.rule)
            continue
        typed = verdict.text if verdict.command is None else f"{verdict.command} {verdict.text}"
        ts = None
        if history:
            found = next(
                (j for j in range(hist_pos, len(history)) if _norm(history[j][1]) == _norm(typed)),
                None,
            )
            if found is None:
                unconfirmed += 1
            else:
                ts, hist_pos = history[found][0], found + 1
        start_line, start = sessions[run.session - 1] if run.session else (0, None)
        if ts is None:  # not in the input history: keep the file's order within the session
            ts = last.get(start_line) or start
        last[start_line] = ts
        if ts is None:
            stats.bad_lines += 1
            warn(stats, f"line {run.line}: no session start time for this message; skipped")
            continue
        session_id = f"aider-{digest(key, str(start_line), length=16)}"
        body = clean_text(verdict.text)
        messages.append(
            OperatorMessage(
                session_id=session_id,
                record_uuid=f"ad-{run.line}-{digest(body, length=12)}",
                timestamp=ts,
                text=body,
                transcript=transcript,
                line=run.line,
                harness=HARNESS,
                origin=verdict.origin,
                cwd=cwd,
                command=verdict.command,
            )
        )
    if unconfirmed:
        warn(stats, f"{unconfirmed} message(s) not found in {INPUT_FILE} (kept)")
    messages.sort(key=lambda m: (m.timestamp, m.line))
    stats.kept = len(messages)
    first = messages[0].session_id if messages else None
    return TranscriptRead(transcript, HARNESS, first, messages, stats)
