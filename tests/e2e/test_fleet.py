"""A fleet on one PostgreSQL store: three machines write at once, a fourth reads it all.

Each simulated machine has its own HOME, vault and workspace and only the store
URL in common (``MEMGRAPH_STORE``). Nine writers run at the same time (per
machine: two hook writers capturing their own Claude Code transcripts with
``memgraph hook session-end`` and one ``memgraph note`` writer), each a fresh
``memgraph`` process per capture or note, as the harnesses run them. Then a
fourth machine searches and sees every message, renders every page and session
YAML from the store, and ``memgraph validate`` is clean: 0 lost, a receipt for
every node, no lock error anywhere.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

MACHINES = 3
HOOK_WRITERS = 2  # per machine
TRANSCRIPTS = 3  # per hook writer
PROMPTS = 4  # per transcript
NOTES = 5  # per note writer

pytestmark = pytest.mark.slow


def _memgraph() -> list[str]:
    exe = Path(sys.executable).with_name("memgraph")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "memgraph.cli"]


def _run(args: list[str], env: dict[str, str], stdin: bytes | None = None) -> str:
    proc = subprocess.run(
        [*_memgraph(), *args], input=stdin, env=env, capture_output=True, timeout=300, check=False
    )
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 0, f"memgraph {' '.join(args[:2])}: {err}"
    assert "Traceback" not in err and "locked" not in err.lower(), err
    return out


def _token(m: int, w: int, t: int, p: int) -> str:
    return f"fleetm{m}w{w}t{t}p{p}"


def _transcript(path: Path, m: int, w: int, t: int) -> str:
    sid = str(uuid.UUID(int=(m * 100 + w * 10 + t) + 1, version=4))
    env = {
        "isSidechain": False,
        "userType": "external",
        "cwd": f"/home/op/src/proj{m}",
        "sessionId": sid,
        "version": "2.1.97",
        "gitBranch": "main",
        "entrypoint": "cli",
    }
    at = datetime(2026, 4, 14, 9, 0, tzinfo=UTC) + timedelta(hours=m * 10 + w * 3 + t)
    parent = None
    with path.open("w", encoding="utf-8") as fh:
        for p in range(PROMPTS):
            at += timedelta(minutes=2)
            uid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{sid}/{p}"))
            text = f"please look at the retry logic in module {p} and note {_token(m, w, t, p)}"
            rec = {
                **env,
                "type": "user",
                "uuid": uid,
                "parentUuid": parent,
                "timestamp": at.isoformat().replace("+00:00", "Z"),
                "message": {"role": "user", "content": text},
            }
            fh.write(json.dumps(rec) + "\n")
            reply = {
                **env,
                "type": "assistant",
                "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{sid}/{p}/a")),
                "parentUuid": uid,
                "timestamp": (at + timedelta(seconds=30)).isoformat().replace("+00:00", "Z"),
                "message": {
                    "id": f"msg_{p}",
                    "role": "assistant",
                    "model": "claude-opus-4-6",
                    "content": [{"type": "text", "text": "Looking at it now."}],
                },
            }
            fh.write(json.dumps(reply) + "\n")
            parent = reply["uuid"]
    return sid


def _machine(root: Path, name: str, url: str) -> dict[str, str]:
    base = root / name
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("MEMGRAPH_")}
    env.update(
        HOME=str(base / "home"),
        XDG_CONFIG_HOME=str(base / "home" / ".config"),
        XDG_DATA_HOME=str(base / "home" / ".local" / "share"),
        MEMGRAPH_HOME=str(base / "mg-home"),
        MEMGRAPH_VAULT=str(base / "vault"),
        MEMGRAPH_WORKSPACE=str(base / "workspace"),
        MEMGRAPH_TRANSCRIPTS=str(base / "transcripts"),
        MEMGRAPH_STORE=url,
    )
    for key in ("HOME", "MEMGRAPH_VAULT", "MEMGRAPH_WORKSPACE", "MEMGRAPH_TRANSCRIPTS"):
        Path(env[key]).mkdir(parents=True, exist_ok=True)
    return env


def test_three_machines_nine_writers_one_store_nothing_lost(pg_url: str, tmp_path: Path) -> None:
    machines = [_machine(tmp_path, f"m{m}", pg_url) for m in range(MACHINES)]
    # no store yet: the writers' first opens race to create and migrate it

    jobs: list[Any] = []
    expected_tokens: set[str] = set()
    sessions: list[str] = []
    for m, env in enumerate(machines):
        for w in range(HOOK_WRITERS):
            files = []
            for t in range(TRANSCRIPTS):
                path = Path(env["MEMGRAPH_TRANSCRIPTS"]) / f"w{w}t{t}.jsonl"
                sessions.append(_transcript(path, m, w, t))
                files.append(path)
                expected_tokens.update(_token(m, w, t, p) for p in range(PROMPTS))
            jobs.append(("hook", env, files))
        jobs.append(("note", {**env, "MEMGRAPH_SESSION": f"fleet-notes-m{m}"}, m))

    def work(job: Any) -> int:
        kind, env, arg = job
        if kind == "hook":
            for path in arg:
                payload = {
                    "session_id": path.stem,
                    "transcript_path": str(path),
                    "cwd": "/home/op",
                    "hook_event_name": "SessionEnd",
                    "reason": "prompt_input_exit",
                }
                _run(["hook", "session-end"], env, json.dumps(payload).encode())
            return len(arg)
        for i in range(NOTES):
            _run(["note", f"machine {arg} note {i}"], env)
        return NOTES

    with ThreadPoolExecutor(len(jobs)) as pool:  # every writer at once
        done = list(pool.map(work, jobs))
    assert len(jobs) >= 8
    assert sum(done) == MACHINES * (HOOK_WRITERS * TRANSCRIPTS + NOTES)

    # a fourth machine, which captured nothing, sees every message
    reader = _machine(tmp_path, "m-reader", pg_url)
    out = _run(["voice", "fleetm*", "--limit", "1000", "--json"], reader)
    hits = [json.loads(line) for line in out.splitlines() if line.strip()]
    found = {word for h in hits for word in h["text"].split() if word.startswith("fleetm")}
    assert found == expected_tokens  # 0 lost
    assert len(hits) == len(expected_tokens) == MACHINES * HOOK_WRITERS * TRANSCRIPTS * PROMPTS

    # ... renders every voice page and every session's YAML from the store
    rendered = _run(["render"], reader).splitlines()
    pages = [p for p in rendered if p.endswith(".md")]
    yamls = [p for p in rendered if p.endswith(".yaml")]
    assert len(pages) == len(sessions) and len(yamls) == MACHINES
    for m in range(MACHINES):
        text = next(Path(p).read_text() for p in yamls if f"fleet-notes-m{m}" in p)
        assert all(f"machine {m} note {i}" in text for i in range(NOTES))
    assert "machine" in _run(["wake", "--json"], reader)  # the last note of the fleet

    # receipts complete, and the store is sound
    from memgraph.store import open_store

    store = open_store(pg_url)
    try:
        nodes = list(store.iter_nodes())
        receipts = store.receipts()
        targets = {r.target_id for r in receipts if r.op == "upsert_node"}
        assert {n.id for n in nodes} <= targets  # every node has its receipt
        messages = [n for n in nodes if n.profile.value == "voice" and n.kind == "message"]
        notes = [n for n in nodes if n.profile.value == "session" and n.kind == "note"]
        assert len(messages) == len(expected_tokens)
        assert len(notes) == MACHINES * NOTES
        assert len({r.id for r in receipts}) == len(receipts)
    finally:
        store.close()
    _run(["validate"], reader)
