"""Builders for capture tests: operator messages and small real-format transcripts."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from profiles.voice.model import OperatorMessage
from profiles.voice.pages import VoiceMessageEntry, VoicePage

T0 = datetime(2026, 4, 14, 14, 32, 5, 123000, tzinfo=UTC)
SID = "80166115-aaaa-bbbb-cccc-000000000001"


def op_msg(
    text: str,
    n: int = 0,
    *,
    sid: str = SID,
    cwd: str | None = "/nonexistent/work/atlas",
    origin: str = "prompt",
    transcript: str = "/t/80166115.jsonl",
) -> OperatorMessage:
    return OperatorMessage(
        session_id=sid,
        record_uuid=f"rec-{sid[:4]}-{n}",
        timestamp=T0 + timedelta(minutes=n),
        text=text,
        transcript=transcript,
        line=n + 1,
        harness="claude-code",
        origin=origin,
        cwd=cwd,
        git_branch="main",
    )


def claude_records(
    prompts: list[str],
    *,
    sid: str = SID,
    cwd: str = "/nonexistent/work/atlas",
    start: datetime = T0,
    filler: int = 0,
) -> list[dict[str, Any]]:
    """A Claude Code transcript: each prompt followed by an assistant reply,
    a tool call and a tool result (``filler`` bytes of output)."""
    records: list[dict[str, Any]] = []
    env = {"sessionId": sid, "cwd": cwd, "gitBranch": "main", "version": "2.1.97"}
    env |= {"userType": "external", "isSidechain": False}
    t = start
    for i, text in enumerate(prompts):
        stamp = t.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        uid = f"u-{sid[:8]}-{i}"
        records.append(
            {
                **env,
                "type": "user",
                "uuid": uid,
                "parentUuid": None,
                "timestamp": stamp,
                "message": {"role": "user", "content": text},
            }
        )
        records.append(
            {
                **env,
                "type": "assistant",
                "uuid": f"a-{uid}",
                "parentUuid": uid,
                "timestamp": stamp,
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Sure, looking."},
                        {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": {}},
                    ],
                },
            }
        )
        records.append(
            {
                **env,
                "type": "user",
                "uuid": f"t-{uid}",
                "parentUuid": f"a-{uid}",
                "timestamp": stamp,
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"toolu_{i}",
                            "content": "toolonlyword " + "x" * filler,
                        }
                    ],
                },
                "toolUseResult": {"stdout": "toolonlyword", "stderr": ""},
            }
        )
        t += timedelta(minutes=3)
    return records


def write_transcript(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


PROMPTS = [
    "please wire the session-end hook into the settings file",
    "the hook must not break other settings, keep them",
    "now render the voice page for the hook session",
    "ok",
]


def page_entry(text: str, n: int) -> VoiceMessageEntry:
    """A voice page's message ``n`` (one minute after the one before)."""
    return VoiceMessageEntry(
        record_uuid=f"uuid-{n}", timestamp=T0 + timedelta(minutes=n), text=text, line=n
    )


def voice_page(*texts: str) -> VoicePage:
    """A voice page of ``texts``, rendered without a store."""
    return VoicePage(
        title="hook install settings",
        constellation="atlas",
        project="atlas",
        session_id="80166115-aaaa",
        created=T0.date(),
        updated=T0.date(),
        valid_from=T0,
        valid_to=T0 + timedelta(hours=1),
        ingested_at=T0,
        messages=[page_entry(t, i) for i, t in enumerate(texts)],
    )
