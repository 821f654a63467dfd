from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memgraph.errors import InvalidId, NotFound, UsageError
from memgraph.store import open_store
from memgraph.validation import validate_snapshot
from profiles.session.api import (
    DEFAULT_AXIOM,
    NoteRequest,
    StartRequest,
    list_sessions,
    note,
    show_session,
    start_session,
    wake,
)
from profiles.session.notes import in_order


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = open_store(tmp_path / "mg.db")
    yield s
    s.close()


def T(minutes: int) -> datetime:
    return datetime(2026, 1, 5, 9, 0, tzinfo=UTC) + timedelta(minutes=minutes)


def test_start_is_idempotent_and_writes_a_startup_note(store, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    info = start_session(store, StartRequest("s1", ws, "alice", "codex"))
    again = start_session(store, StartRequest("s1", ws, "alice", "codex"))
    assert info.created and not again.created
    assert info.file == ws.resolve() / ".memgraph/personas/alice/sessions/s1.yaml"
    doc = show_session(store, "s1")
    assert [n.harness for n in doc.notes] == ["codex"]
    assert "started" in doc.notes[0].text
    assert store.counts()["nodes"] == 2
    with pytest.raises(UsageError, match="belongs to persona"):
        start_session(store, StartRequest("s1", ws, "bob"))


def test_late_notes_land_in_timestamp_order_and_round_trip(store, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    start_session(store, StartRequest("s1", ws, "alice", started_at=T(0)))
    for m, text in [(10, "ten"), (30, "thirty"), (20, "twenty (late)"), (5, "five (late)")]:
        note(store, NoteRequest("s1", text, ws, at=T(m)))
    doc = show_session(store, "s1")
    assert [n.text for n in doc.notes][1:] == ["five (late)", "ten", "twenty (late)", "thirty"]
    assert in_order(doc)
    stored = {n.id: n for n in store.iter_nodes(profile="session", kind="note")}
    for entry in doc.notes:
        node = stored[entry.id or ""]
        assert (node.claim, node.valid_from, node.attributes["harness"]) == (
            entry.text,
            entry.timestamp,
            entry.harness,
        )
    assert len(stored) == len(doc.notes)
    assert validate_snapshot(store.export_snapshot()) == []


def test_wake_picks_session_by_note_valid_time_not_ingestion(store, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    assert wake(store, "alice").text == DEFAULT_AXIOM
    start_session(store, StartRequest("old", ws, "alice", started_at=T(0)))
    start_session(store, StartRequest("new", ws, "alice", started_at=T(1)))
    note(store, NoteRequest("new", "latest thought", ws, at=T(50)))
    # ingested last, but happened earlier: must not win
    note(store, NoteRequest("old", "offline harness catching up", ws, at=T(40)))
    w = wake(store, "alice")
    assert (w.text, w.session_id, w.axiom) == ("latest thought", "new", False)
    note(store, NoteRequest("old", "even later", ws, at=T(60)))
    assert wake(store, "alice").session_id == "old"
    assert wake(store, "bob").axiom
    assert [i.session_id for i in list_sessions(store, "alice")] == ["old", "new"]


def test_same_text_same_instant_two_writers_two_notes(store, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    a = note(store, NoteRequest("s", "same", ws, at=T(1), key="proc-a"))
    b = note(store, NoteRequest("s", "same", ws, at=T(1), key="proc-b"))
    again = note(store, NoteRequest("s", "same", ws, at=T(1), key="proc-a"))
    assert a.id != b.id and again.id == a.id
    assert len(show_session(store, "s").notes) == 2
    assert a.created and not b.created  # the first note started the session


@pytest.mark.parametrize("bad", ["../x", "a/b", "", ".hidden", "x" * 200, "a..b", "a\x00b"])
def test_unsafe_ids_rejected(store, tmp_path: Path, bad: str) -> None:
    with pytest.raises(InvalidId):
        note(store, NoteRequest(bad, "t", tmp_path))
    with pytest.raises(InvalidId):
        start_session(store, StartRequest("ok", tmp_path, persona=bad))
    with pytest.raises(InvalidId):  # `start` as `note`: the harness goes into the view too
        start_session(store, StartRequest("ok", tmp_path, harness=bad))
    with pytest.raises(InvalidId):
        note(store, NoteRequest("ok", "t", tmp_path, harness=bad))
    assert store.counts()["nodes"] == 0


@pytest.mark.parametrize("text", ["", "   ", "x\x00y", "bad \udcff byte", "x" * 20_001])
def test_bad_text_rejected(store, tmp_path: Path, text: str) -> None:
    with pytest.raises(UsageError):
        note(store, NoteRequest("s", text, tmp_path))


def test_future_and_naive_times_rejected(store, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="future"):
        note(store, NoteRequest("s", "t", tmp_path, at=datetime.now(UTC) + timedelta(days=1)))
    with pytest.raises(UsageError, match="timezone"):
        note(store, NoteRequest("s", "t", tmp_path, at=datetime(2026, 1, 1)))


HOSTILE = [
    "notes: [",
    "- just\n- a list\n",
    "session_id: s1\npersona: alice\nstarted_at: 2026-01-01T00:00:00Z\nnotes: 3\n",
    "session_id: ../x\npersona: alice\nstarted_at: 2026-01-01T00:00:00Z\n",
    "session_id: s1\npersona: a\nstarted_at: 2026-01-01T00:00:00Z\nextra: 1\n",
    "a: &a [*a, *a]\n",
    "!!python/object/apply:os.system ['echo pwned']\n",
    "[" * 5000,
    "\x00\x01",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_file_kept_beside_show_reads_store_and_note_still_works(
    store, tmp_path: Path, text: str
) -> None:
    ws = tmp_path / "ws"
    info = start_session(store, StartRequest("s1", ws, "alice"))
    info.file.write_text(text, encoding="utf-8")
    before = [n.text for n in show_session(store, "s1").notes]
    assert len(before) == 1  # the startup note: nothing hostile reached the store
    kept = info.file.with_name("s1.conflict.yaml")
    if text.strip():
        assert kept.read_text(encoding="utf-8") == text  # the edit survives verbatim
    note(store, NoteRequest("s1", "after the bad edit", ws))
    assert show_session(store, "s1").notes[-1].text == "after the bad edit"
    assert wake(store, "alice").text == "after the bad edit"


def test_show_missing_session_and_missing_file(store, tmp_path: Path) -> None:
    with pytest.raises(NotFound):
        show_session(store, "nope")
    info = start_session(store, StartRequest("s1", tmp_path, "alice"))
    info.file.unlink()
    assert len(show_session(store, "s1").notes) == 1  # re-rendered from the store
    assert info.file.is_file()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_session_started_on_another_machine_is_viewed_in_this_machines_workspace(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Machine A starts a session in its workspace; machine B (sharing the store) notes
    into it. A's workspace is not a folder on B: B's view goes to B's workspace, and A's
    path is never recreated on B (it was, and B's workspace got nothing)."""
    import shutil

    where = request.getfixturevalue("pg_url") if backend == "postgres" else tmp_path / "mg.db"
    ws_a, ws_b = tmp_path / "machine-a" / "ws", tmp_path / "machine-b" / "ws"
    ws_a.mkdir(parents=True)
    s = open_store(where)
    try:
        start_session(s, StartRequest("s-fleet", ws_a, "builder"))
        shutil.rmtree(tmp_path / "machine-a")  # machine B does not have A's folders
        done = note(s, NoteRequest("s-fleet", "from machine B", ws_b))
        mine = ws_b.resolve() / ".memgraph/personas/builder/sessions/s-fleet.yaml"
        assert done.file == mine and "from machine B" in mine.read_text()
        again = start_session(s, StartRequest("s-fleet", ws_b, "builder"))
        assert again.file == mine and not again.created
        show_session(s, "s-fleet", ws_b)
        assert not (tmp_path / "machine-a").exists()
    finally:
        s.close()
    # the CLI: the lean `note` path (a SQLite file) and the typer path, as machines C, D
    from typer.testing import CliRunner

    from memgraph.cli import session_fast
    from memgraph.cli.app import app

    monkeypatch.setenv("MEMGRAPH_STORE", str(where))
    for machine in ("c", "d"):
        ws = tmp_path / f"machine-{machine}" / "ws"
        monkeypatch.setenv("MEMGRAPH_WORKSPACE", str(ws))
        argv = ["from machine " + machine, "--session", "s-fleet"]
        if machine == "c" and backend == "sqlite":
            assert session_fast.run(argv) == 0
        else:
            assert CliRunner().invoke(app, ["note", *argv]).exit_code == 0
        view = ws / ".memgraph/personas/builder/sessions/s-fleet.yaml"
        assert "from machine " + machine in view.read_text()
    assert not (tmp_path / "machine-a").exists()
