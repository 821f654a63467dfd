"""8 processes x 200 notes into 3 shared + 5 own sessions; kill -9 mid-write."""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import signal
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from profiles.session.notes import in_order, parse_session_yaml

SHARED = ("shared-0", "shared-1", "shared-2")
PER_PROC = 200


def _writer(db: str, ws: str, proc: int, out: str) -> None:
    """Write 200 notes; even processes use the lean CLI path, odd ones the API."""
    from memgraph.store import open_store
    from profiles.session.api import NoteRequest, StartRequest, note, start_session
    from profiles.session.lean import lean_note
    from profiles.session.records import NoteRecord, new_writer
    from profiles.session.views import render_from_sql, session_file, write_view

    store = open_store(db)
    own = f"own-{proc}" if proc < 5 else None
    for sid in (*SHARED, *([own] if own else [])):
        start_session(store, StartRequest(sid, Path(ws), "p"))
    base = datetime.now(UTC)
    rng = random.Random(proc)
    ids = []
    for i in range(PER_PROC):
        sid = own if own and i % 2 else SHARED[(i + proc) % 3]
        # every 10th note is late: an offline harness catching up
        at = base - timedelta(minutes=rng.randint(1, 600)) if i % 10 == 0 else None
        text = f"p{proc} n{i}"
        if proc % 2 == 0:
            now = datetime.now(UTC)
            rec = NoteRecord(sid, "", text, at or now, "cli", new_writer(), now)
            res = lean_note(Path(db), rec, None)
            assert res is not None
            path = session_file(Path(res.workspace), "p", sid)
            write_view(path, lambda sid=sid: render_from_sql(Path(db), sid))
            ids.append(res.node_id)
        else:
            ids.append(note(store, NoteRequest(sid, text, Path(ws), at=at)).id)
    store.close()
    Path(out).write_text("\n".join(ids))


@pytest.mark.slow
def test_eight_writers_lose_nothing(tmp_path: Path) -> None:
    from memgraph.store import open_store
    from profiles.session.views import session_file

    db, ws = tmp_path / "mg.db", tmp_path / "ws"
    open_store(db).close()
    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(target=_writer, args=(str(db), str(ws), p, str(tmp_path / f"ids{p}")))
        for p in range(8)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(600)
        assert p.exitcode == 0
    written = set()
    for p in range(8):
        written |= set((tmp_path / f"ids{p}").read_text().split())
    assert len(written) == 8 * PER_PROC
    store = open_store(db)
    notes = [
        n for n in store.iter_nodes("session", "note") if n.attributes.get("origin") != "startup"
    ]
    assert {n.id for n in notes} == written
    in_files = set()
    for sid in (*SHARED, *(f"own-{i}" for i in range(5))):
        doc = parse_session_yaml(session_file(ws.resolve(), "p", sid).read_text())
        assert in_order(doc)
        stored = sorted((n.valid_from, n.id) for n in notes if n.attributes["session_id"] == sid)
        assert [(n.timestamp, n.id) for n in doc.notes if n.id in written] == stored
        in_files |= {n.id for n in doc.notes}
    assert written <= in_files
    store.close()


def _loop_writer(db: str, ws: str) -> None:
    from memgraph.store import open_store
    from profiles.session.api import NoteRequest, note

    store = open_store(db)
    i = 0
    while True:
        note(store, NoteRequest("k", f"note {i} " + "x" * 2000, Path(ws)))
        i += 1


@pytest.mark.slow
def test_kill_9_leaves_old_or_new_file(tmp_path: Path) -> None:
    from memgraph.store import open_store
    from profiles.session.api import NoteRequest, note
    from profiles.session.views import session_file

    db, ws = tmp_path / "mg.db", tmp_path / "ws"
    store = open_store(db)
    note(store, NoteRequest("k", "seed", ws))
    path = session_file(ws.resolve(), "default", "k")
    ctx = mp.get_context("spawn")
    rng = random.Random(9)
    seen = 0
    for _ in range(6):
        proc = ctx.Process(target=_loop_writer, args=(str(db), str(ws)))
        proc.start()
        # wait until the writer is writing (new notes appear), then kill it mid-loop
        before = sum(1 for _ in store.iter_nodes("session", "note"))
        deadline = time.monotonic() + 60
        while sum(1 for _ in store.iter_nodes("session", "note")) < before + 3:
            assert time.monotonic() < deadline and proc.is_alive(), "writer never wrote"
            time.sleep(0.05)
        time.sleep(rng.random() * 0.2)
        assert proc.pid is not None
        os.kill(proc.pid, signal.SIGKILL)
        proc.join()
        # the kill landed on a live writer (not after it exited) that was writing
        assert proc.exitcode == -signal.SIGKILL
        assert sum(1 for _ in store.iter_nodes("session", "note")) >= before + 3
        doc = parse_session_yaml(path.read_text(encoding="utf-8"))  # never partial
        assert doc.session_id == "k" and in_order(doc)
        assert len(doc.notes) >= seen
        seen = len(doc.notes)
    stored = sum(1 for n in store.iter_nodes("session", "note"))
    assert seen <= stored <= seen + 6  # at most the in-flight note per kill is not rendered
    note(store, NoteRequest("k", "after the kills", ws))
    doc = parse_session_yaml(path.read_text(encoding="utf-8"))
    assert len(doc.notes) == stored + 1
    store.close()
