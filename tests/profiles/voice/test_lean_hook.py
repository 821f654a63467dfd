"""``hook session-end`` on a new session: the lean path (profiles.voice.leanhook)
leaves exactly what the full path leaves -- every store table, the page, its
sidecar, the log line -- and says the same line; what it does not handle, it
hands over before writing anything."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import memgraph.engine
from memgraph.store import open_store
from profiles.voice import hooks, lean, leanhook, leanpage
from tests.profiles.voice._capture_helpers import SID, claude_records

NOW = datetime(2026, 4, 15, 8, 0, 0, 250000, tzinfo=UTC)
PROMPTS = [
    "fix the hook install so settings.json keeps other hooks",
    "ok",
    'ünïcode "quoted" text\nsecond line\twith a tab',
    "my key is ghp_" + "a" * 36 + " please rotate it",
    "/model",
    "run the tests again and show me the failures",
]


def _fix_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=0xC0FFEE))
    monkeypatch.setattr(memgraph.engine, "utcnow", lambda: NOW)
    for name in ("capture", "backfill", "views"):
        monkeypatch.setattr(f"profiles.voice.{name}.utcnow", lambda: NOW)
    for module in (lean, leanhook, leanpage):
        monkeypatch.setattr(module, "_clock" if module is lean else "_now", lambda: NOW)


def _tables(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(db)
    names = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            # (store_meta: each store's own id and seat, memgraph.store.identity)
            " AND name NOT IN ('schema_migrations', 'store_meta') ORDER BY name"
        )
    ]
    out = {n: conn.execute(f'SELECT * FROM "{n}" ORDER BY 1').fetchall() for n in names}
    conn.close()
    return out


def _files(vault: Path) -> dict[str, bytes]:
    return {
        p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*") if p.is_file()
    }


def _run(tmp: Path, name: str, transcript: Path, lean_on: bool) -> tuple[str, Path, Path]:
    db, vault = tmp / name / "mg.db", tmp / name / "vault"
    open_store(db).close()  # an existing, current store (the hook's usual case)
    if not lean_on:
        saved = leanhook.capture
        leanhook.capture = lambda *a, **k: leanhook.Declined(None)  # type: ignore[assignment]
    try:
        payload = json.dumps({"transcript_path": str(transcript), "session_id": SID})
        line = hooks.session_end(payload, db, vault)
    finally:
        if not lean_on:
            leanhook.capture = saved  # type: ignore[assignment]
    return line, db, vault


def _transcript(tmp: Path, prompts: list[str] = PROMPTS) -> Path:
    path = tmp / "t" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [*claude_records(prompts), {"type": "assistant", "message": "x"}, "not json"]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def test_lean_hook_leaves_what_the_full_path_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fix_clock(monkeypatch)
    transcript = _transcript(tmp_path)
    calls: list[Any] = []
    real = leanhook._capture
    monkeypatch.setattr(leanhook, "_capture", lambda *a: calls.append(real(*a)) or calls[-1])
    lean_line, lean_db, lean_vault = _run(tmp_path, "lean", transcript, True)
    assert isinstance(calls[0], str)  # the lean path did the work
    full_line, full_db, full_vault = _run(tmp_path, "full", transcript, False)
    assert lean_line == full_line
    assert "redacted" in lean_line  # the ledger's word on the secret
    a, b = _tables(lean_db), _tables(full_db)
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == b[name], name
    assert _files(lean_vault) == _files(full_vault)


def test_rerun_and_existing_pages_take_the_full_path_without_a_second_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = _transcript(tmp_path, PROMPTS[:4])
    first, db, vault = _run(tmp_path, "s", transcript, True)
    assert "->" in first
    before = _tables(db)
    reads: list[Path] = []
    import profiles.voice.readers as readers

    real = readers.read_transcript
    monkeypatch.setattr(readers, "read_transcript", lambda p, *a: reads.append(p) or real(p, *a))
    again = hooks.session_end(json.dumps({"transcript_path": str(transcript)}), db, vault)
    assert again == first
    assert reads == [transcript]  # declined after one read; the engine used it
    after = _tables(db)
    for name in ("nodes", "edges", "receipts", "patches"):
        assert after[name] == before[name], name  # identical input changed nothing
    # the transcript grew: the full path adds the new messages to the session
    _transcript(tmp_path, PROMPTS)
    grown = hooks.session_end(json.dumps({"transcript_path": str(transcript)}), db, vault)
    assert "captured 6 messages" in grown


def test_lean_hook_declines_a_store_it_cannot_write(tmp_path: Path) -> None:
    transcript = _transcript(tmp_path)
    db = tmp_path / "mg.db"
    hook = hooks.parse_hook_input(json.dumps({"transcript_path": str(transcript)}))
    assert isinstance(leanhook.capture(db, hook, tmp_path / "v", None, None), leanhook.Declined)
    open_store(db).close()
    conn = sqlite3.connect(db)
    conn.execute(
        "DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)"
    )
    conn.commit()
    conn.close()
    done = leanhook.capture(db, hook, tmp_path / "v", None, None)
    assert isinstance(done, leanhook.Declined) and done.read is None
    assert not (tmp_path / "v").exists()


def test_the_hook_process_imports_no_pydantic(tmp_path: Path) -> None:
    transcript = _transcript(tmp_path)
    db = tmp_path / "home" / "memgraph.db"
    open_store(db).close()
    code = (
        "import sys; from memgraph.cli.hook_fast import run; "
        "code = run(['session-end']); "
        "assert 'pydantic' not in sys.modules, 'pydantic imported'; sys.exit(code)"
    )
    env = {
        "MEMGRAPH_HOME": str(tmp_path / "home"),
        "MEMGRAPH_VAULT": str(tmp_path / "vault"),
        "MEMGRAPH_CONFIG": str(tmp_path / "none.toml"),
        "HOME": str(tmp_path),
        "PATH": "/usr/bin:/bin",
    }
    proc = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps({"transcript_path": str(transcript)}),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "captured 6 messages" in proc.stdout


def test_two_hooks_at_once_on_one_new_session_lose_nothing(tmp_path: Path) -> None:
    """Both try the lean path: one writes, the other finds the session stored and
    takes the full path (identical upserts change nothing); one page, one registry row."""
    import threading

    transcript = _transcript(tmp_path)
    db, vault = tmp_path / "mg.db", tmp_path / "vault"
    open_store(db).close()
    payload = json.dumps({"transcript_path": str(transcript), "session_id": SID})
    lines: list[str] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            lines.append(hooks.session_end(payload, db, vault))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(lines) == 2 and lines[0] == lines[1]
    tables = _tables(db)
    messages = [r for r in tables["nodes"] if r[3] == "message"]  # (rowid, id, profile, kind)
    assert len(messages) == len(PROMPTS)
    assert len(tables["patches"]) == 1  # the second capture changed nothing
    assert len(tables["voice_registry"]) == 1
    pages = [p for p in vault.rglob("*.md") if p.name != "log.md"]
    assert len(pages) == 1
