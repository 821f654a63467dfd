"""The whole user journey through the real CLI (subprocesses, fast paths included):
fresh store -> hook on a transcript -> search -> note -> wake -> windows -> context."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.process import memgraph

PROMPTS = [
    "the flaky retry loop in fetch_orders keeps hammering the warehouse api, add jittered backoff",
    "we decided every outbound call goes through src/client.py; no ad-hoc sessions",
    "why is the nightly reconciliation job twice as slow since tuesday?",
    "commit the backoff change",
]


def _git(repo: Path, *args: str, when: datetime | None = None) -> str:
    env = {**os.environ}
    if when is not None:
        stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
        env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    cmd = ["git", "-C", str(repo), "-c", "user.name=Ada", "-c", "user.email=ada@example.org"]
    return subprocess.run([*cmd, *args], check=True, capture_output=True, text=True, env=env).stdout


def _transcript(path: Path, sid: str, cwd: Path, start: datetime) -> None:
    lines = []
    for i, text in enumerate(PROMPTS):
        ts = (start + timedelta(minutes=3 * i)).isoformat(timespec="milliseconds")
        lines.append(
            {
                "parentUuid": None,
                "isSidechain": False,
                "type": "user",
                "message": {"role": "user", "content": text},
                "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{sid}-{i}")),
                "timestamp": ts.replace("+00:00", "Z"),
                "userType": "external",
                "cwd": str(cwd),
                "sessionId": sid,
                "version": "2.1.97",
                "gitBranch": "main",
            }
        )
        lines.append(
            {
                "parentUuid": None,
                "isSidechain": False,
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"t{i}",
                            "content": "zzyzx-only-in-tool-output",
                        }
                    ],
                },
                "uuid": str(uuid.uuid4()),
                "timestamp": ts.replace("+00:00", "Z"),
                "cwd": str(cwd),
                "sessionId": sid,
            }
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _cli(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return memgraph(*args, env=env, stdin=stdin)


def test_journey(tmp_path: Path) -> None:
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    env = {
        **os.environ,
        "MEMGRAPH_HOME": str(tmp_path / "home"),
        "MEMGRAPH_VAULT": str(tmp_path / "vault"),
        "MEMGRAPH_WORKSPACE": str(tmp_path / "ws"),
        "MEMGRAPH_TRANSCRIPTS": str(tmp_path / "projects"),
    }
    env.pop("MEMGRAPH_SESSION", None)
    repo = tmp_path / "orders-service"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    start = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    (repo / "src").mkdir()
    (repo / "src" / "client.py").write_text("BACKOFF = 'jitter'\n")
    _git(repo, "add", "-A")
    _git(
        repo,
        "commit",
        "-q",
        "-m",
        "Add jittered backoff to client",
        when=start + timedelta(minutes=11),
    )

    sid = str(uuid.uuid4())
    transcript = tmp_path / "projects" / "-tmp-orders-service" / f"{sid}.jsonl"
    _transcript(transcript, sid, repo, start)

    # 1. the SessionEnd hook captures the session into a fresh store and a page
    hook = {
        "session_id": sid,
        "transcript_path": str(transcript),
        "cwd": str(repo),
        "reason": "exit",
    }
    r = _cli(env, "hook", "session-end", stdin=json.dumps(hook))
    assert r.returncode == 0, r.stderr
    pages = list((tmp_path / "vault").rglob("*.md"))
    assert [p for p in pages if p.parent.name == "voice"], pages

    # 2. search finds exactly the typed phrase; tool output finds nothing
    r = _cli(env, "voice", "jittered backoff")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 1 and "fetch_orders" in r.stdout
    assert r.stdout.startswith("[2026-11-30 09:00 UTC orders-service ")
    r = _cli(env, "voice", "zzyzx")
    assert r.returncode == 0 and r.stdout == ""

    # 3. a note, then wake returns it
    r = _cli(
        env, "note", "backoff landed; watch the reconciliation timing", "--session", "journey-1"
    )
    assert r.returncode == 0, r.stderr
    r = _cli(env, "wake")
    assert r.returncode == 0 and "watch the reconciliation timing" in r.stdout

    # 4. windows link the commit to the messages that asked for it
    r = _cli(env, "windows", "--repo", str(repo), "--json")
    assert r.returncode == 0, r.stderr
    windows = [json.loads(line) for line in r.stdout.splitlines()]
    with_commit = [w for w in windows if any(a["type"] == "commit" for a in w["artifacts"])]
    assert len(with_commit) == 1
    kinds = [a["type"] for a in with_commit[0]["artifacts"]]
    assert kinds.count("message") >= 3
    r = _cli(env, "windows", "show", with_commit[0]["id"])
    assert r.returncode == 0 and "Add jittered backoff" in r.stdout

    # 5. a context packet within budget
    r = _cli(env, "context", "backoff client", "--cut", "repo", "--budget", "400", "--json")
    assert r.returncode == 0, r.stderr
    packet = json.loads(r.stdout)
    assert packet["tokens_used"] <= 400

    # bad input: one line, non-zero, no traceback
    r = _cli(env, "voice", "x", "--since", "yesterday-ish")
    assert r.returncode == 2 and r.stderr.startswith("Error: ") and "Traceback" not in r.stderr
