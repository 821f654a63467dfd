"""Active-session records (``profiles.wakeup.active``) on bad input: a record that is
not a small regular JSON file of ours is passed over, never waited on or followed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiles.wakeup.active import MAX_RECORD_BYTES, _key, _norm, find_active, record_active
from tests.process import memgraph


def _record_path(home: Path, workspace: Path) -> Path:
    return home / "active-sessions" / f"{_key(_norm(workspace))}.json"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_record_is_passed_over_without_waiting(tmp_path: Path) -> None:
    """A FIFO in the workspace's record: the lookup walked into a blocking read and
    `memgraph note` hung until killed. Now it walks on to the parent's record."""
    home, ws = tmp_path / "h", tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    record_active(home, ws, "parent-session")
    os.mkfifo(_record_path(home, ws / "sub"))
    assert find_active(home, ws / "sub") == "parent-session"
    os.unlink(_record_path(home, ws))
    os.mkfifo(_record_path(home, ws))
    assert find_active(home, ws / "sub") is None


def test_a_symlinked_record_is_not_followed(tmp_path: Path) -> None:
    home, ws, elsewhere = tmp_path / "h", tmp_path / "ws", tmp_path / "elsewhere.json"
    ws.mkdir()
    record_active(home, tmp_path / "other", "other-session")
    elsewhere.write_text(json.dumps({"workspace": _norm(ws), "session_id": "planted"}))
    _record_path(home, ws).symlink_to(elsewhere)
    assert find_active(home, ws) is None


def test_an_oversized_or_foreign_record_is_passed_over(tmp_path: Path) -> None:
    home, ws = tmp_path / "h", tmp_path / "ws"
    ws.mkdir()
    record_active(home, ws, "real-session")
    path = _record_path(home, ws)
    padded = json.dumps(
        {"workspace": _norm(ws), "session_id": "big", "pad": "x" * MAX_RECORD_BYTES}
    )
    path.write_text(padded)
    assert find_active(home, ws) is None
    path.unlink()
    path.mkdir()  # a folder where the record was
    assert find_active(home, ws) is None


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=400))
def test_any_bytes_in_a_record_give_a_session_or_none(tmp_path: Path, data: bytes) -> None:
    home, ws = tmp_path / "h", tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    record_active(home, ws, "s")
    _record_path(home, ws).write_bytes(data)
    found = find_active(home, ws)
    assert found is None or (isinstance(found, str) and found)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("command", [("note", "a thought"), ("remember", "a memory")])
def test_note_and_remember_do_not_hang_on_a_fifo_record(
    tmp_path: Path, command: tuple[str, str]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    home = Path(os.environ["MEMGRAPH_HOME"])
    record_active(home, ws, "s-1")
    path = _record_path(home, ws)
    path.unlink()
    os.mkfifo(path)
    done = memgraph(*command, cwd=ws, stdin="", timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("Error: no active session"), done.stderr
    assert "Traceback" not in done.stderr
